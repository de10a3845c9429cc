"""Words another device purged are named after the page's sync, and edits made here to
them, which went with them, are told in a notice wherever the person is: the page said
"Synced" and nothing more, while the command line said it (found in the review of the
purge note)."""
import tempfile

from selenium.webdriver.common.by import By

from conftest import api, device_in
from test_a_copy_says_it_took_a_new_device_id import sync_in_settings
from test_web_app import csrf, wait


def test_a_purge_from_another_device_names_the_word_and_the_edit_lost(page):
    folder = tempfile.mkdtemp(prefix="midiccio-browser-purge-")
    token = csrf(page)
    api("/api/remote", "PUT", {"folder": folder}, token)
    try:
        word = api("/api/words", "POST", {"term": "purgadafuera"}, token)["word"]
        page.refresh()
        page.find_element(By.ID, "settings-button").click()
        sync_in_settings(page)

        # The phone purges it; this page, not synced since, gives it a meaning.
        on_phone = device_in(folder)
        on_phone("delete", word["id"])
        on_phone("purge", word["id"])
        on_phone("sync")
        api("/api/words/" + word["id"], "PUT", {"term": "purgadafuera", "meaning": "lost here"}, token)

        said = sync_in_settings(page)
        assert "1 word was purged on another device and removed here: \u201cpurgadafuera\u201d" in said, said
        toast = page.find_element(By.ID, "toast-text")
        wait(page, lambda d: "had edits (or study answers) made here and not synced yet, which were discarded" in toast.text)
        assert "purgadafuera" in toast.text
        assert api("/api/search?q=purgadafuera")["words"] == []
    finally:
        # The tests share one library: the next ones sync nowhere again.
        api("/api/remote", "PUT", {}, csrf(page))
