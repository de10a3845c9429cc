"""A sync folder on a drive that was unplugged: the page's own syncs failed, and the word list
said "Not synced, will try again" with the reason only in a hover title; Settings said
"Last sync never" (found by hand). Settings now says why the last sync failed."""
import shutil
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import api
from test_web_app import csrf, wait


def test_settings_shows_why_the_pages_own_sync_failed(page):
    drive = tempfile.mkdtemp(prefix="midiccio-browser-drive-")
    folder = drive + "/MiDiccio"
    api("/api/remote", "PUT", {"folder": folder}, csrf(page))
    try:
        shutil.rmtree(drive)  # the drive is gone
        page.refresh()  # the page syncs when it opens
        wait(page, lambda d: "Not synced" in d.find_element(By.ID, "sync-state").text, 15)
        page.find_element(By.ID, "settings-button").click()
        result = wait(page, EC.visibility_of_element_located((By.ID, "sync-result")))
        wait(page, lambda d: result.text.startswith("The last sync failed:"))
        assert drive in result.text, result.text
        # The status the library keeps says it too, as `status` does in a terminal, so a page
        # opened after another program's sync failed shows it (round 24B #3).
        wait(page, lambda d: "Last sync failed" in d.find_element(By.ID, "sync-details").text)
        assert drive in page.find_element(By.ID, "sync-details").text
    finally:
        # The tests share one library: the next ones sync nowhere again.
        api("/api/remote", "PUT", {}, csrf(page))
