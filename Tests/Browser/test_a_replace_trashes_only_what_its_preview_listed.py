"""A replace restore's confirm syncs first. Words another device added after the preview
were then moved to the Trash too, though the preview never listed them (found by the
exploratory helper, round 7). The confirm now carries the preview's fingerprint of the words
it would trash, and a library that changed since is refused, changing nothing."""
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import api, device_in
from test_an_undo_asks_when_it_cannot_sync_first import preview_replace_in_settings
from test_web_app import csrf, go_back_to_words, wait


def test_a_replace_refuses_words_added_since_its_preview(page):
    folder = tempfile.mkdtemp(prefix="midiccio-browser-replace-")
    token = csrf(page)
    api("/api/remote", "PUT", {"folder": folder}, token)
    try:
        api("/api/words", "POST", {"term": "ventana", "meaning": "window"}, token)
        backup = folder + "-backup.json"
        with open(backup, "wb") as file:
            file.write(api("/api/backup", raw=True))
        api("/api/words", "POST", {"term": "silla", "meaning": "chair"}, token)
        preview_replace_in_settings(page, backup, "1 would move to the Trash")

        # The phone adds a word and syncs while the preview is read.
        on_phone = device_in(folder)
        on_phone("sync")
        on_phone("add", "mesa", "--meaning", "table")
        on_phone("sync")

        wait(page, EC.element_to_be_clickable((By.ID, "restore-confirm"))).click()
        wait(page, lambda d: "changed since the preview" in d.find_element(By.ID, "backup-error").text, 15)
        assert "nothing was changed" in page.find_element(By.ID, "backup-error").text
        assert not page.find_element(By.ID, "restore-preview").is_displayed()
        live = {word["term"] for word in api("/api/words?limit=50")["words"]}
        assert {"ventana", "silla", "mesa"} <= live, live

        # Checked again, the preview lists both, and the restore goes ahead.
        page.find_element(By.ID, "backup-check").click()
        wait(page, lambda d: "2 would move to the Trash" in d.find_element(By.ID, "restore-report").text)
        wait(page, EC.element_to_be_clickable((By.ID, "restore-confirm"))).click()
        wait(page, lambda d: "Restored" in d.find_element(By.ID, "restore-done").text, 15)
        live = {word["term"] for word in api("/api/words?limit=50")["words"]}
        assert "mesa" not in live and "silla" not in live and "ventana" in live, live
        page.find_element(By.ID, "backup-replace").click()
        go_back_to_words(page)
    finally:
        # The tests share one library: the next ones sync nowhere again.
        api("/api/remote", "PUT", {}, csrf(page))
