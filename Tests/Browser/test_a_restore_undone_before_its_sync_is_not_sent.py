"""Undo restore, pressed before any sync met the restore, undoes it as if it had not been
made: it does not sync first (that sync sent the restore), and the words go back with their
own times, so an edit another device made before the restore still wins. The undo put the old
values back with a new time, which beat that edit on every device (found by the exploratory
helper, round 22A #3)."""
import os
import subprocess
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import BINARY, api, device_in
from test_a_copy_says_it_took_a_new_device_id import sync_in_settings
from test_study_ten_words_with_the_keyboard import LIBRARY
from test_web_app import csrf, go_back_to_words, wait


def test_undo_restore_before_any_sync_keeps_the_phones_earlier_edit(page):
    folder = tempfile.mkdtemp(prefix="midiccio-browser-unsent-")
    token = csrf(page)
    api("/api/remote", "PUT", {"folder": folder}, token)
    try:
        word = api("/api/words", "POST", {"term": "ventana", "meaning": "window"}, token)["word"]
        backup = folder + "-backup.json"
        with open(backup, "wb") as file:
            file.write(api("/api/backup", raw=True))
        page.refresh()
        page.find_element(By.ID, "settings-button").click()
        sync_in_settings(page)
        on_phone = device_in(folder)
        # A terminal here edits the word; then the phone, offline, edits it too; then the
        # terminal replaces the library with the backup.
        env = dict(os.environ, MIDICCIO_SYNCED_FOLDER_OK="1")

        def here(*command):
            subprocess.run([BINARY, "--library", LIBRARY, *command], check=True, capture_output=True, timeout=60, env=env)

        here("edit", word["id"], "--meaning", "window, edited here")
        on_phone("edit", word["id"], "--meaning", "window, edited on the phone")
        here("backup", "restore", backup, "--replace")
        assert api("/api/words/" + word["id"])["word"]["meaning"] == "window"
        assert api("/api/status")["restoreUnsent"] is True

        # The laptop is offline now (the page syncs when it opens, which would send the restore).
        moved = folder + "-away"
        os.rename(folder, moved)
        page.refresh()
        page.find_element(By.ID, "settings-button").click()
        undo = wait(page, EC.element_to_be_clickable((By.ID, "restore-undo")))
        page.execute_script("arguments[0].scrollIntoView({block: 'center'})", undo)
        undo.click()
        result = page.find_element(By.ID, "undo-result")
        wait(page, lambda d: "undone" in result.text, 15)
        assert "No sync had sent the restore yet" in result.text, result.text
        assert api("/api/words/" + word["id"])["word"]["meaning"] == "window, edited here"
        os.rename(moved, folder)

        # The phone's edit, made before the restore and after the edit here, wins, as it would
        # have without the restore.
        sync_in_settings(page)
        on_phone("sync")
        sync_in_settings(page)
        assert api("/api/words/" + word["id"])["word"]["meaning"] == "window, edited on the phone"
        go_back_to_words(page)
    finally:
        if os.path.exists(folder + "-away"):
            os.rename(folder + "-away", folder)
        api("/api/remote", "PUT", {}, csrf(page))
