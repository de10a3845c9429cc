"""A paired phone whose computer is away shows MiDiccio's own "not reachable" page.

Browsers run service workers only in a secure context, so this goes the documented way:
`serve --lan --tls-cert --tls-key` with a certificate made for the test. The phone's
Chromium is told to take that certificate (a phone would be told once, by its user)."""
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


def make_certificate(folder, name):
    """A self-signed certificate and key for `name`, in PEM files under `folder`."""
    cert, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=" + name,
         "-addext", "subjectAltName=DNS:" + name, "-keyout", key, "-out", cert],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return cert, key


def start_tls_server(folder, cert, key, port=0):
    """Starts `serve --lan` over HTTPS; returns the process, its port and its token."""
    server = subprocess.Popen(
        [os.environ["MIDICCIO_BINARY"], "serve", "--lan", "--port", str(port), "--tls-cert", cert, "--tls-key", key,
         "--library", os.path.join(folder, "library.sqlite")],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=dict(os.environ, MIDICCIO_OFFLINE="1"))
    line = server.stdout.readline()
    match = re.search(r"https://[^ ]+?:(\d+)/\?token=([0-9a-f]+)", line)
    assert match, "serve --lan --tls-cert printed: " + line
    return server, int(match.group(1)), match.group(2)


def stop(server):
    server.terminate()
    server.wait(timeout=10)


def test_a_phone_shows_not_reachable_when_the_computer_is_away():
    folder = tempfile.mkdtemp(prefix="midiccio-offline-")
    name = socket.gethostname().split(".")[0].lower() + ".local"
    cert, key = make_certificate(folder, name)
    server, port, token = start_tls_server(folder, cert, key)
    origin = "https://%s:%d" % (name, port)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=390,844", "--lang=en-US", "--host-resolver-rules=MAP %s 127.0.0.1" % name,
                     "--ignore-certificate-errors", "--unsafely-treat-insecure-origin-as-secure=" + origin):
        options.add_argument(argument)
    phone = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    phone.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                          {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True})
    try:
        phone.get("%s/?token=%s" % (origin, token))
        wait(phone, lambda d: d.current_url == origin + "/")
        cookie = phone.get_cookie("midiccio_token")
        assert cookie and cookie["secure"] and cookie["httpOnly"]
        add_through_page(phone, "puente", meaning="bridge")
        assert "puente" in terms(phone)
        # The service worker is installed and controls the page: the shell is cached.
        wait(phone, lambda d: d.execute_script("return !!navigator.serviceWorker.controller"), seconds=15)
        assert phone.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "caches.match('/offline.html').then((r) => done(!!r), () => done(false));")

        # The computer goes away: the phone opens MiDiccio and gets its own page, naming
        # the computer, not the browser's error.
        stop(server)
        phone.get(origin + "/")
        heading = wait(phone, lambda d: d.find_element(By.TAG_NAME, "h1"), seconds=15)
        computer = socket.gethostname()
        assert heading.text == "MiDiccio on %s is not reachable" % computer
        assert phone.title == "MiDiccio is not reachable"
        # The cached style sheet came with it: the page is laid out, not bare text.
        assert phone.execute_script(
            "return getComputedStyle(document.querySelector('a.button')).display") != "inline"
        assert "puente" not in phone.page_source  # words are never cached
        os.makedirs(SCREENSHOTS, exist_ok=True)
        phone.save_screenshot(os.path.join(SCREENSHOTS, "phone-offline-page.png"))

        # The computer is back on the same port: "Try again" opens the list, still paired.
        server, _, _ = start_tls_server(folder, cert, key, port=port)
        phone.find_element(By.CSS_SELECTOR, "a.button").click()
        wait(phone, lambda d: "puente" in terms(d), seconds=15)
    finally:
        phone.quit()
        if server.poll() is None:
            stop(server)
