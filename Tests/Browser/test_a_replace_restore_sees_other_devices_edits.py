"""A replace restore gives every word of the backup a new time, so it wins on every device.
Checked before the page had pulled another device's edit of a word it held as the backup
does, it counted that word as unchanged, offered no undo, and the edit was gone everywhere.
The preview now syncs first."""
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import api, device_in
from test_a_copy_says_it_took_a_new_device_id import sync_in_settings
from test_web_app import csrf, go_back_to_words, wait


def test_the_preview_pulls_another_devices_edit_first(page):
    folder = tempfile.mkdtemp(prefix="midiccio-browser-replace-")
    token = csrf(page)
    api("/api/remote", "PUT", {"folder": folder}, token)
    try:
        word = api("/api/words", "POST", {"term": "ventana", "meaning": "window"}, token)["word"]
        page.refresh()
        page.find_element(By.ID, "settings-button").click()
        sync_in_settings(page)
        backup = folder + "-backup.json"
        with open(backup, "wb") as file:
            file.write(api("/api/backup", raw=True))

        # The phone, another library in the same folder, edits the word and syncs.
        on_phone = device_in(folder)
        on_phone("edit", word["id"], "--meaning", "window, edited on the phone")
        on_phone("sync")

        wait(page, EC.visibility_of_element_located((By.ID, "backup-file"))).send_keys(backup)
        page.find_element(By.ID, "backup-replace").click()
        page.find_element(By.ID, "backup-check").click()
        report = wait(page, EC.visibility_of_element_located((By.ID, "restore-report")))
        wait(page, lambda d: "would be updated" in d.find_element(By.ID, "restore-report").text)
        assert "1 would be updated" in report.text, report.text
        # The edit is here before anything is restored, and the undo would put it back.
        assert api("/api/words/" + word["id"])["word"]["meaning"] == "window, edited on the phone"
        page.find_element(By.ID, "backup-replace").click()
        go_back_to_words(page)
    finally:
        # The tests share one library: the next ones sync nowhere again.
        api("/api/remote", "PUT", {}, csrf(page))
