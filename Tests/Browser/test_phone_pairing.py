"""Pairing a phone with `midiccio serve --lan`, in a phone-sized (390x844) Chromium."""
import os
import re
import socket
import subprocess
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from conftest import SCREENSHOTS
from test_web_app import add_through_page, terms, wait


def start_lan_server(folder):
    """Starts `serve --lan` on a free port; returns the process and its printed address."""
    server = subprocess.Popen(
        [os.environ["MIDICCIO_BINARY"], "serve", "--lan", "--port", "0", "--library", os.path.join(folder, "library.sqlite")],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=dict(os.environ, MIDICCIO_OFFLINE="1"))
    line = server.stdout.readline()
    match = re.search(r"(http://[^ ]+?:(\d+)/\?token=([0-9a-f]+))", line)
    assert match, "serve --lan printed: " + line
    return server, match.group(1), int(match.group(2)), match.group(3)


def test_pair_a_phone_through_the_printed_address():
    folder = tempfile.mkdtemp(prefix="midiccio-pairing-")
    server, printed, port, token = start_lan_server(folder)
    # The phone opens the printed address by this computer's .local name; the browser is
    # told that name is 127.0.0.1, so no packet leaves this machine, and the server's
    # Host check sees the name a phone would send.
    name = socket.gethostname().split(".")[0].lower() + ".local"
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=390,844", "--lang=en-US", "--host-resolver-rules=MAP %s 127.0.0.1" % name):
        options.add_argument(argument)
    phone = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    # Headless Chromium keeps windows at least 500 pixels wide: the phone's screen is
    # emulated instead (390x844 CSS pixels, touch, a phone's pixel ratio).
    phone.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                          {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True})
    phone.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True})
    try:
        phone.get(re.sub(r"^http://[^/]+", "http://%s:%d" % (name, port), printed))
        # The token was traded for a cookie and dropped from the address bar.
        wait(phone, lambda d: d.current_url == "http://%s:%d/" % (name, port))
        assert token not in phone.current_url
        cookie = phone.get_cookie("midiccio_token")
        assert cookie and cookie["value"] != token and cookie["httpOnly"]
        add_through_page(phone, "ventana", meaning="window")
        assert "ventana" in terms(phone)
        # Settings shows the QR code of the printed address and this browser as paired.
        phone.get("http://%s:%d/#settings" % (name, port))
        wait(phone, lambda d: d.find_element(By.ID, "pairing-card").is_displayed())
        wait(phone, lambda d: d.execute_script(
            "const i = document.getElementById('pairing-code'); return i.complete && i.naturalWidth > 0;"))
        # It shows a one-time code in place of the access token, on this computer only.
        shown = phone.find_element(By.ID, "pairing-address").text
        assert shown.startswith(printed.split("?")[0] + "?token=") and token not in shown, shown
        browsers = phone.find_elements(By.CSS_SELECTOR, "#paired-browsers li")
        assert len(browsers) == 1 and "Chrome" in browsers[0].text
        phone.execute_script("document.getElementById('pairing-card').scrollIntoView()")
        time.sleep(0.3)
        os.makedirs(SCREENSHOTS, exist_ok=True)
        phone.save_screenshot(os.path.join(SCREENSHOTS, "phone-pairing-qr-in-settings.png"))
        # Nothing is wider than the phone's screen.
        assert phone.execute_script("return window.innerWidth") == 390
        assert phone.execute_script("return document.documentElement.scrollWidth") <= 390
        # Sign this browser out: its cookie no longer opens the library.
        browsers[0].find_element(By.TAG_NAME, "button").click()
        phone.get("http://%s:%d/api/words" % (name, port))
        assert "access token" in phone.page_source
        # The shown address pairs a browser once: opened again, it is refused.
        shown = re.sub(r"^http://[^/]+", "http://%s:%d" % (name, port), shown)
        phone.get(shown)
        wait(phone, lambda d: d.current_url == "http://%s:%d/" % (name, port))
        add_through_page(phone, "puerta", meaning="door")
        phone.delete_all_cookies()
        phone.get(shown)
        assert "access token" in phone.page_source
    finally:
        phone.quit()
        server.terminate()
        server.wait(timeout=10)
