"""Sign in with Apple from Settings, in a real (headless) Chromium, against the fake
CloudKit: the browser really goes to the sign-in page, is sent to the API token's
callback (a one-shot receiver serve starts on another port) and then back to Settings."""
import json
import os
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

from conftest import api
from test_web_app import csrf, wait, wait_through_navigation

CLOUDKIT = os.environ.get("MIDICCIO_ICLOUD_FAKE", "")
CALLBACK = os.environ.get("MIDICCIO_ICLOUD_CALLBACK", "")


def configure(settings):
    request = urllib.request.Request(CLOUDKIT + "/_fake/config", data=json.dumps(settings).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=10).read()


@pytest.fixture
def settings(page):
    """Settings with iCloud chosen; afterwards the library syncs nowhere again."""
    configure({"callbackURL": CALLBACK, "deny": False})
    page.find_element(By.ID, "settings-button").click()
    Select(wait(page, EC.visibility_of_element_located((By.ID, "remote-kind")))).select_by_value("icloud")
    yield page
    configure({"deny": False})
    api("/api/remote", "PUT", {}, csrf(page))


def sign_in(page, zone):
    assert page.find_element(By.ID, "remote-save").text == "Sign in with Apple"
    # The container comes from serve's environment; no API token does, so the page asks.
    assert page.find_element(By.ID, "icloud-container").get_attribute("value") == "iCloud.app.midiccio.browser"
    field = page.find_element(By.ID, "icloud-zone")
    field.clear()
    field.send_keys(zone)
    wait(page, EC.visibility_of_element_located((By.ID, "icloud-api-token"))).send_keys("BrowserToken1234")
    page.find_element(By.ID, "remote-save").click()


@pytest.mark.skipif(not CLOUDKIT, reason="run through Tests/Browser/run.sh, which starts the fake CloudKit")
def test_sign_in_with_apple_sets_the_remote(settings):
    sign_in(settings, "Palabras")
    result = wait_through_navigation(settings, lambda d: d.find_element(By.ID, "remote-result").text or None)
    assert result == "Signed in to iCloud; this library now syncs through icloud iCloud.app.midiccio.browser zone Palabras."
    assert settings.current_url.endswith("/#settings")
    assert api("/api/status")["remote"] == "icloud iCloud.app.midiccio.browser zone Palabras"


@pytest.mark.skipif(not CLOUDKIT, reason="run through Tests/Browser/run.sh, which starts the fake CloudKit")
def test_no_token_from_apple_changes_nothing(settings):
    configure({"deny": True})
    sign_in(settings, "Palabras")
    error = wait_through_navigation(settings, lambda d: d.find_element(By.ID, "remote-error").text or None)
    assert "Advanced Data Protection" in error and error.endswith("Nothing was changed.")
    assert api("/api/status")["remote"] is None
