"""What a sync finds of the cloud itself (a folder started again elsewhere, say) was said
by the command line only; Settings said "Synced". It now shows the same notes, whoever
started the sync (the notes themselves: MiDiccioWebTests, ASyncSaysWhatItFoundOfTheCloud)."""
import json
import tempfile

from selenium.webdriver.common.by import By

from conftest import api
from test_a_copy_says_it_took_a_new_device_id import sync_in_settings
from test_web_app import csrf


def test_settings_says_the_cloud_was_started_again(page):
    folder = tempfile.mkdtemp(prefix="midiccio-browser-restarted-")
    api("/api/remote", "PUT", {"folder": folder}, csrf(page))
    try:
        page.refresh()
        page.find_element(By.ID, "settings-button").click()
        steady = sync_in_settings(page)
        assert "started again" not in steady, steady

        # Another device started the folder again: its manifest holds a new cloud id.
        with open(folder + "/midiccio-sync.json") as file:
            manifest = json.load(file)
        assert len(manifest.get("cloud", "")) == 32, manifest
        manifest["cloud"] = "0" * 32
        with open(folder + "/midiccio-sync.json", "w") as file:
            json.dump(manifest, file)

        text = sync_in_settings(page)
        assert "was started again since this device last synced" in text, text
        assert "uploaded every word once" in text, text
        assert "started again" not in sync_in_settings(page), "said once, by the sync that found it"
    finally:
        # The tests share one library: the next ones sync nowhere again.
        api("/api/remote", "PUT", {}, csrf(page))
