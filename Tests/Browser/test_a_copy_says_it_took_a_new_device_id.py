"""A library that finds, as it syncs, that it is a copy of another library file goes on
under a new device id. The command line said so; Settings said only "Synced". It now says
why, and that nothing was written over, whoever started the sync."""
import glob
import json
import tempfile

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import api
from test_web_app import csrf, wait


def sync_in_settings(page):
    """Presses "Sync now" and waits for its report. The page's own sync (at load, or every
    few minutes) may start between the button found enabled and the click, which a disabled
    button then ignores (two CI runs timed out so): the press is made again, up to twice."""
    result = page.find_element(By.ID, "sync-result")
    for attempt in range(3):
        wait(page, EC.element_to_be_clickable((By.ID, "sync-now"))).click()
        try:
            wait(page, lambda d: result.text.startswith("Synced:"), 15)
            return result.text
        except TimeoutException:
            if attempt == 2:
                raise


def test_settings_says_the_library_is_a_copy_and_took_a_new_id(page):
    folder = tempfile.mkdtemp(prefix="midiccio-browser-copy-")
    api("/api/remote", "PUT", {"folder": folder}, csrf(page))
    try:
        page.refresh()
        page.find_element(By.ID, "settings-button").click()
        first = sync_in_settings(page)
        assert "copy" not in first, first
        # Another copy of this library file syncs there: the record under this library's id
        # is now one it did not write.
        [record_path] = glob.glob(folder + "/devices/*.json")
        with open(record_path) as file:
            record = json.load(file)
        old_id = record["device"]
        record["instance"] = "00000000c0b1e5aa"
        with open(record_path, "w") as file:
            json.dump(record, file)

        text = sync_in_settings(page)
        assert "This library is a copy of another library file" in text, text
        assert old_id[:8] in text and "nothing was written over" in text, text
        ids = [path.rsplit("/", 1)[1][:-5] for path in glob.glob(folder + "/devices/*.json")]
        assert any(device != old_id for device in ids), f"the new id has a record of its own: {ids}"
        assert "copy" not in sync_in_settings(page), "said once, by the sync that took the new id"
    finally:
        # The tests share one library: the next ones sync nowhere again.
        api("/api/remote", "PUT", {}, csrf(page))
