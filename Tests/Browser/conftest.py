"""Shared set-up for the browser tests: one headless Chromium for the session, a fresh
page for every test, and a screenshot of how each test left the page."""
import json
import os
import subprocess
import tempfile
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

URL = os.environ.get("MIDICCIO_URL", "http://127.0.0.1:8080/")
SCREENSHOTS = os.environ.get("MIDICCIO_SCREENSHOTS", ".build/screenshots")


def chromium(window_size, *arguments):
    """A headless Debian Chromium with a window of `window_size` ("W,H") and `arguments`."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    # Root in a container: Chromium's sandbox needs user namespaces it does not get.
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=" + window_size, "--lang=en-US") + arguments:
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


@pytest.fixture(scope="session")
def browser():
    driver = chromium("1000,900")
    driver.implicitly_wait(0)
    yield driver
    driver.quit()


@pytest.fixture
def page(browser, request):
    browser.get(URL)
    yield browser
    os.makedirs(SCREENSHOTS, exist_ok=True)
    browser.save_screenshot(os.path.join(SCREENSHOTS, request.node.name + ".png"))


def api(path, method="GET", body=None, token=None, raw=False, timeout=10):
    """Calls the JSON API directly (set-up only; the scenarios themselves use the page)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["X-CSRF-Token"] = token
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    request = urllib.request.Request(URL.rstrip("/") + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        content = response.read()
        return content if raw else json.loads(content)


BINARY = os.environ.get("MIDICCIO_BINARY", ".build/debug/midiccio")


def device_in(folder):
    """Another device (a library of its own, driven through the command line) that syncs
    through `folder`, set up and synced once; returns a function that runs one midiccio
    command on it."""
    library = os.path.join(tempfile.mkdtemp(prefix="midiccio-browser-device-"), "library.sqlite")

    def on_device(*arguments):
        subprocess.run([BINARY, "--library", library, *arguments], check=True, capture_output=True,
                       env=dict(os.environ, MIDICCIO_SYNCED_FOLDER_OK="1"))

    on_device("remote", "set", "folder", folder)
    on_device("sync")
    return on_device
