"""Sign in with Google from Settings, in a real (headless) Chromium, against the fake
Google Drive: the browser really goes to the sign-in page, is sent back to serve's
/oauth/callback and then to Settings."""
import json
import os
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

from conftest import api
from test_web_app import csrf, wait, wait_through_navigation

DRIVE = os.environ.get("MIDICCIO_GDRIVE_FAKE", "")


def set_faults(faults):
    request = urllib.request.Request(DRIVE + "/_fake/faults", data=json.dumps(faults).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=10).read()


@pytest.fixture
def settings(page):
    """Settings with Google Drive chosen; afterwards the library syncs nowhere again."""
    page.find_element(By.ID, "settings-button").click()
    Select(wait(page, EC.visibility_of_element_located((By.ID, "remote-kind")))).select_by_value("gdrive")
    yield page
    set_faults({"denyConsent": False})
    api("/api/remote", "PUT", {}, csrf(page))


def sign_in(page, folder, client_id):
    assert page.find_element(By.ID, "remote-save").text == "Sign in with Google"
    Select(page.find_element(By.ID, "gdrive-space")).select_by_value("folder")
    name = wait(page, EC.visibility_of_element_located((By.ID, "gdrive-folder")))
    name.clear()
    name.send_keys(folder)
    # No client is built in or in serve's environment: the page asks for one.
    wait(page, EC.visibility_of_element_located((By.ID, "gdrive-client-id"))).send_keys(client_id)
    page.find_element(By.ID, "remote-save").click()


@pytest.mark.skipif(not DRIVE, reason="run through Tests/Browser/run.sh, which starts the fake Google Drive")
def test_sign_in_with_google_sets_the_remote(settings):
    sign_in(settings, "Palabras", "browser-test")
    result = wait_through_navigation(settings, lambda d: d.find_element(By.ID, "remote-result").text or None)
    assert result == "Signed in to Google Drive; this library now syncs through google drive folder Palabras."
    # Back on the page, with the outcome's id gone from the address.
    assert settings.current_url.endswith("/#settings")
    assert api("/api/status")["remote"] == "google drive folder Palabras"


@pytest.mark.skipif(not DRIVE, reason="run through Tests/Browser/run.sh, which starts the fake Google Drive")
def test_a_refused_consent_changes_nothing(settings):
    set_faults({"denyConsent": True})
    sign_in(settings, "Palabras", "browser-test")
    error = wait_through_navigation(settings, lambda d: d.find_element(By.ID, "remote-error").text or None)
    assert error == "Not signed in: the sign-in was cancelled in the browser. Nothing was changed."
    assert api("/api/status")["remote"] is None
