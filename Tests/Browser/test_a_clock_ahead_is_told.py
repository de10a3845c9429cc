"""A device whose clock is hours ahead wins every edit it makes over later edits made
elsewhere, and nothing said so. Settings now names the device and how far its clock is
ahead, after a sync and in the list of devices, its name shown as text."""
import datetime
import json
import os
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import api
from test_web_app import csrf, wait

DEVICE = "0c10c4a0-0000-4000-8000-00000000a4ea"


def fast_device_record(folder, ahead):
    """The record a device with its clock `ahead` writes when it syncs (no words yet)."""
    stamp = datetime.datetime.now(datetime.timezone.utc) + ahead
    record = {
        "format": "midiccio-device", "formatVersion": 3, "device": DEVICE, "name": "<b>fast</b> phone",
        "app": "midiccio 0.1.0", "lastSync": stamp.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "lastSeq": 0, "snapshotSeq": 0,
        "read": {}, "digest": "0", "wordCount": 0, "instance": "00000000000000a1", "changes": [],
        "purgeClean": {"count": 0, "digest": "0"},
    }
    os.makedirs(folder + "/devices", exist_ok=True)
    with open(f"{folder}/devices/{DEVICE}.json", "w") as file:
        json.dump(record, file)


def test_settings_names_a_device_whose_clock_is_ahead(page):
    folder = tempfile.mkdtemp(prefix="midiccio-browser-clock-")
    api("/api/remote", "PUT", {"folder": folder}, csrf(page))
    try:
        fast_device_record(folder, datetime.timedelta(hours=2, minutes=1))
        page.refresh()
        page.find_element(By.ID, "settings-button").click()
        wait(page, EC.element_to_be_clickable((By.ID, "sync-now"))).click()
        result = page.find_element(By.ID, "sync-result")
        wait(page, lambda d: "clock is about 2 hours ahead" in result.text, 15)
        assert result.text.startswith("Synced:"), result.text
        assert "<b>fast</b> phone's clock" in result.text, "the name is shown as typed, not as markup"
        devices = wait(page, lambda d: d.find_element(By.ID, "devices").text)
        wait(page, lambda d: "clock is about 2 hours ahead" in d.find_element(By.ID, "devices").text)
        assert not page.find_elements(By.CSS_SELECTOR, "#devices b"), devices
    finally:
        # The tests share one library: the next ones sync nowhere again.
        api("/api/remote", "PUT", {}, csrf(page))
