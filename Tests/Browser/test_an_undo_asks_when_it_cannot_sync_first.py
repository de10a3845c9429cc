"""An undo, a restore and a permanent deletion sync first; when that sync failed (the cloud
down), the page went on anyway and overrode another device's edit on every device without a
word (found by the exploratory helper, round 7). It now asks, and saying no changes nothing."""
import os
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import api, device_in
from test_a_copy_says_it_took_a_new_device_id import sync_in_settings
from test_web_app import csrf, go_back_to_words, wait


def preview_replace_in_settings(page, backup, expected):
    """Opens Settings afresh, syncs there, and previews a replace restore of `backup` until
    its report says `expected`."""
    page.refresh()
    page.find_element(By.ID, "settings-button").click()
    sync_in_settings(page)
    wait(page, EC.visibility_of_element_located((By.ID, "backup-file"))).send_keys(backup)
    page.find_element(By.ID, "backup-replace").click()
    page.find_element(By.ID, "backup-check").click()
    wait(page, lambda d: expected in d.find_element(By.ID, "restore-report").text)


def test_undo_restore_asks_when_the_sync_before_it_fails(page):
    folder = tempfile.mkdtemp(prefix="midiccio-browser-undo-")
    token = csrf(page)
    api("/api/remote", "PUT", {"folder": folder}, token)
    moved = folder + "-away"
    try:
        word = api("/api/words", "POST", {"term": "puerta", "meaning": "door"}, token)["word"]
        backup = folder + "-backup.json"
        with open(backup, "wb") as file:
            file.write(api("/api/backup", raw=True))
        api("/api/words/" + word["id"], "PUT", {"term": "puerta", "meaning": "door, edited here"}, token)
        # The backup is restored, replacing; the phone then edits the word and syncs.
        preview_replace_in_settings(page, backup, "1 would be updated")
        wait(page, EC.element_to_be_clickable((By.ID, "restore-confirm"))).click()
        wait(page, lambda d: "Restored" in d.find_element(By.ID, "restore-done").text)
        page.execute_script("arguments[0].scrollIntoView({block: 'center'})", page.find_element(By.ID, "sync-now"))
        sync_in_settings(page)
        on_phone = device_in(folder)
        on_phone("edit", word["id"], "--meaning", "door, edited on the phone")
        on_phone("sync")

        # The cloud goes away (a drive unplugged), and Undo restore is pressed.
        os.rename(folder, moved)
        undo = wait(page, EC.element_to_be_clickable((By.ID, "restore-undo")))
        page.execute_script("arguments[0].scrollIntoView({block: 'center'})", undo)
        undo.click()
        alert = wait(page, EC.alert_is_present(), 15)
        assert "could not sync first" in alert.text and "Go on anyway?" in alert.text, alert.text
        alert.dismiss()
        wait(page, lambda d: "Nothing was changed" in d.find_element(By.ID, "undo-result").text)
        assert api("/api/status")["canUndoRestore"] is True
        assert api("/api/words/" + word["id"])["word"]["meaning"] == "door"

        # The cloud is back: the undo pulls the phone's edit first, and keeps it.
        os.rename(moved, folder)
        undo = wait(page, EC.element_to_be_clickable((By.ID, "restore-undo")))
        undo.click()
        wait(page, lambda d: "undone" in d.find_element(By.ID, "undo-result").text, 15)
        assert api("/api/words/" + word["id"])["word"]["meaning"] == "door, edited on the phone"
        page.find_element(By.ID, "backup-replace").click()
        go_back_to_words(page)
    finally:
        if os.path.exists(moved):
            os.rename(moved, folder)
        # The tests share one library: the next ones sync nowhere again.
        api("/api/remote", "PUT", {}, csrf(page))
