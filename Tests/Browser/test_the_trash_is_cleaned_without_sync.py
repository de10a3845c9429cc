"""With no remote, the web app left running never ran the Trash's clean-up
(trash.autoPurgeDays), and nothing in it said why a word past its days stayed (found by
the exploratory helper, round 17A G11). The page's sync, when it opens, now runs it where
there is nothing to sync with; and Settings says what it keeps, and why: here, a library
that synced with a phone keeps its deletions for it."""
import os
import sqlite3
import subprocess
import tempfile
import time

from selenium.webdriver.common.by import By

from conftest import BINARY, api, device_in
from test_a_copy_says_it_took_a_new_device_id import sync_in_settings
from test_web_app import csrf, wait

LIBRARY = os.environ.get("MIDICCIO_LIBRARY", "")


def config(*arguments):
    subprocess.run([BINARY, "--library", LIBRARY, "config", *arguments], check=True, capture_output=True)


def test_settings_says_why_a_word_past_its_days_stays_in_the_trash(page):
    folder = tempfile.mkdtemp(prefix="midiccio-browser-trash-held-")
    token = csrf(page)
    device_in(folder)
    api("/api/remote", "PUT", {"folder": folder}, token)
    try:
        page.refresh()
        page.find_element(By.ID, "settings-button").click()
        sync_in_settings(page)
    finally:
        api("/api/remote", "PUT", {}, token)
    word = api("/api/words", "POST", {"term": "guardada"}, token)["word"]
    api("/api/words/" + word["id"], "DELETE", None, token)
    config("set", "trash.autoPurgeDays", "7")
    try:
        # This device saw it go to the Trash eight days ago.
        eight_days_ago = int(time.time() * 1000) - 8 * 86_400_000
        with sqlite3.connect(LIBRARY, timeout=10) as database:
            database.execute("UPDATE words SET trash_seen_at = ? WHERE id = ?", (eight_days_ago, word["id"]))
        page.refresh()
        page.find_element(By.ID, "settings-button").click()
        count = page.find_element(By.ID, "settings-trash-count")
        wait(page, lambda d: "past trash.autoPurgeDays (7) and kept" in count.text)
        assert "Empty Trash (on the Trash page) deletes it now" in count.text, count.text
        assert "midiccio trash empty" not in count.text, count.text
        assert "guardada" in [entry["term"] for entry in api("/api/trash?q=guardada")["words"]]
    finally:
        # The tests share one library: the next ones clean nothing up.
        config("set", "trash.autoPurgeDays", "off")
