"""Clearing the sync folder in Settings and pressing Save turned syncing off without a word
(found by hand). It now asks first, and says what happened once it is off."""
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import api
from test_web_app import csrf, wait


def settings_with_a_sync_folder(page):
    """Sets a new sync folder and opens Settings; returns the folder and its field, once
    the field shows it."""
    folder = tempfile.mkdtemp(prefix="midiccio-browser-remote-")
    api("/api/remote", "PUT", {"folder": folder}, csrf(page))
    page.refresh()
    page.find_element(By.ID, "settings-button").click()
    field = wait(page, EC.visibility_of_element_located((By.ID, "remote-folder")))
    wait(page, lambda d: field.get_attribute("value") == folder)
    return folder, field


def test_a_cleared_sync_folder_asks_before_syncing_stops(page):
    folder, field = settings_with_a_sync_folder(page)

    field.clear()
    page.find_element(By.ID, "remote-save").click()
    alert = wait(page, EC.alert_is_present())
    assert "Stop syncing" in alert.text
    alert.dismiss()
    assert api("/api/status")["remoteFolder"] == folder, "dismissed: the remote stays"

    page.find_element(By.ID, "remote-save").click()
    wait(page, EC.alert_is_present()).accept()
    # Turned off here: the tests share one library, and the next ones sync nowhere.
    wait(page, lambda d: "Syncing is off" in d.find_element(By.ID, "remote-result").text)
    assert api("/api/status")["remote"] is None


def test_an_unsaved_sync_folder_edit_outlasts_a_sync_that_ends_meanwhile(page):
    """A sync that ended while the folder field was cleared, not yet saved, filled it
    again from the status it reloaded: Save then saved the old folder, and syncing stayed
    on without a word (found as a race in the test above)."""
    folder, field = settings_with_a_sync_folder(page)

    field.clear()
    shown = page.find_element(By.CSS_SELECTOR, "#sync-details dt")
    page.find_element(By.ID, "sync-now").click()
    # The status the sync reloads replaces the details, in the same step that would fill
    # the form: once the old rows are gone, the form has been left alone or not.
    wait(page, EC.staleness_of(shown), 15)
    assert field.get_attribute("value") == "", "the person's edit stays"

    page.find_element(By.ID, "remote-save").click()
    wait(page, EC.alert_is_present()).accept()
    wait(page, lambda d: "Syncing is off" in d.find_element(By.ID, "remote-result").text)
    assert api("/api/status")["remote"] is None
    # Once saved, the form follows the status again.
    api("/api/remote", "PUT", {"folder": folder}, csrf(page))
    page.find_element(By.ID, "sync-now").click()
    wait(page, lambda d: field.get_attribute("value") == folder, 15)
    api("/api/remote", "PUT", {}, csrf(page))
