"""Empty Trash syncs first. Words another device moved to the Trash meanwhile were then
purged too, on every device, though the page had shown and asked about fewer (found by the
exploratory helper, round 8). The question now names the count, the request carries it, and
a Trash that holds another number is refused, purging nothing."""
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import api, device_in
from test_a_copy_says_it_took_a_new_device_id import sync_in_settings
from test_web_app import csrf, go_back_to_words, wait


def test_empty_trash_refuses_words_it_did_not_show(page):
    folder = tempfile.mkdtemp(prefix="midiccio-browser-empty-")
    token = csrf(page)
    api("/api/remote", "PUT", {"folder": folder}, token)
    try:
        junk = api("/api/words", "POST", {"term": "basura", "meaning": "junk"}, token)["word"]
        keep = [api("/api/words", "POST", {"term": "tesoro%d" % n, "meaning": "keep"}, token)["word"] for n in range(3)]
        api("/api/words/" + junk["id"], "DELETE", None, token)
        page.refresh()
        page.find_element(By.ID, "settings-button").click()
        sync_in_settings(page)

        # The page shows the Trash (the tests share a library: other tests' words are there
        # too); then the phone trashes 3 by mistake and syncs.
        before = api("/api/trash?limit=1")["whole"]
        page.execute_script("arguments[0].scrollIntoView({block: 'center'})", page.find_element(By.ID, "trash-link"))
        page.find_element(By.ID, "trash-link").click()
        shown = "%d word%s in the Trash" % (before, "" if before == 1 else "s")
        wait(page, lambda d: shown in d.find_element(By.ID, "trash-summary").text)
        on_phone = device_in(folder)
        on_phone("sync")
        on_phone("delete", *[word["id"] for word in keep])
        on_phone("sync")

        page.find_element(By.ID, "empty-trash").click()
        alert = wait(page, EC.alert_is_present())
        assert ("the 1 word" if before == 1 else "all %d words" % before) in alert.text, alert.text
        alert.accept()
        wait(page, lambda d: "changed meanwhile" in d.find_element(By.ID, "toast").text, 15)
        for word in keep:
            assert api("/api/words/" + word["id"])["word"]["deletedAt"], "still in the Trash, not purged"
        wait(page, lambda d: "%d words in the Trash" % (before + 3) in d.find_element(By.ID, "trash-summary").text)

        # Asked again about them all, it empties them.
        page.find_element(By.ID, "empty-trash").click()
        alert = wait(page, EC.alert_is_present())
        assert "all %d words" % (before + 3) in alert.text, alert.text
        alert.accept()
        wait(page, lambda d: "Deleted %d words permanently" % (before + 3) in d.find_element(By.ID, "toast").text, 15)
        page.execute_script("window.scrollTo(0, 0)")
        page.find_element(By.ID, "trash-back").click()
        if page.find_element(By.ID, "back-button").is_displayed():
            go_back_to_words(page)
    finally:
        api("/api/remote", "PUT", {}, csrf(page))
