"""The Undo of a move to the Trash said "Restored" for a word another device had deleted
permanently meanwhile, until the next sync took it, with any edit made since (found by the
exploratory helper, round 18B). It syncs first now, and says the word is gone."""
import tempfile

from selenium.webdriver.common.by import By

from conftest import api, device_in
from test_web_app import csrf, terms, wait, word_item


def test_undo_of_a_deletion_purged_elsewhere_says_it_was_deleted_permanently(page):
    folder = tempfile.mkdtemp(prefix="midiccio-browser-undo-purged-")
    token = csrf(page)
    api("/api/remote", "PUT", {"folder": folder}, token)
    try:
        word = api("/api/words", "POST", {"term": "borradafuera"}, token)["word"]
        api("/api/sync", "POST", None, token)
        on_phone = device_in(folder)
        page.refresh()
        wait(page, lambda d: "borradafuera" in terms(d))
        word_item(page, "borradafuera").find_element(By.CSS_SELECTOR, ".delete").click()
        toast = page.find_element(By.ID, "toast")
        wait(page, lambda d: "Press U to undo" in toast.text)
        api("/api/sync", "POST", None, token)
        # The phone empties it from its Trash: deleted permanently, on every device.
        on_phone("purge", word["id"])
        page.find_element(By.ID, "toast-action").click()
        wait(page, lambda d: "deleted permanently" in toast.text, 15)
        assert "Restored" not in toast.text, toast.text
        assert "borradafuera" not in terms(page)
    finally:
        api("/api/remote", "PUT", {}, csrf(page))
