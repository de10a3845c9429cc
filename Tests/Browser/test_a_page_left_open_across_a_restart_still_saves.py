"""A page left open while `midiccio serve` was stopped and started again held the old page
token, and its next save was refused with a message about X-CSRF-Token; reloading, as it
said, lost the word being typed (found by the exploratory helper, round 5). The page now
takes the new token and sends the save again."""
import json
import os
import socket
import subprocess
import tempfile
import time
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_web_app import terms, wait


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(library, port):
    server = subprocess.Popen([os.environ["MIDICCIO_BINARY"], "serve", "--port", str(port), "--library", library],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, MIDICCIO_OFFLINE="1"))
    for _ in range(100):
        try:
            urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=1).read()
            return server
        except OSError:
            time.sleep(0.1)
    raise AssertionError("serve did not answer on port %d" % port)


def stop(server):
    server.terminate()
    server.wait(timeout=10)


def test_a_word_typed_before_a_restart_saves_after_it(browser):
    library = os.path.join(tempfile.mkdtemp(prefix="midiccio-restart-"), "library.sqlite")
    port = free_port()
    server = start(library, port)
    try:
        browser.get("http://127.0.0.1:%d/" % port)
        browser.find_element(By.ID, "add-button").click()
        field = wait(browser, lambda d: d.find_element(By.ID, "f-term") if d.find_element(By.ID, "f-term").is_displayed() else None)
        field.send_keys("escrita antes")
        browser.find_element(By.ID, "f-meaning").send_keys("typed before the restart")

        stop(server)
        server = start(library, port)

        field.send_keys(Keys.ENTER)
        wait(browser, lambda d: not d.find_element(By.ID, "editor").is_displayed(), 10)
        wait(browser, lambda d: "escrita antes" in terms(d))
        listed = subprocess.run([os.environ["MIDICCIO_BINARY"], "list", "--json", "--offline", "--library", library],
                                capture_output=True, text=True, check=True).stdout
        assert "typed before the restart" in listed
    finally:
        stop(server)


def test_a_page_for_another_library_changes_nothing_after_a_restart(browser):
    """The page of library A left open while `serve` started again on library B, at the same
    port: its Empty Trash emptied B's Trash (found by the exploratory helper, round 8)."""
    folder = tempfile.mkdtemp(prefix="midiccio-restart-other-")
    first, second = os.path.join(folder, "a.sqlite"), os.path.join(folder, "b.sqlite")
    binary = os.environ["MIDICCIO_BINARY"]
    for library, count in ((first, 1), (second, 3)):
        for n in range(count):
            subprocess.run([binary, "add", "basura%d" % n, "--library", library], check=True, capture_output=True)
        ids = [word["id"] for word in json.loads(subprocess.run(
            [binary, "list", "--json", "--offline", "--library", library], capture_output=True, text=True, check=True).stdout)]
        subprocess.run([binary, "delete", *ids, "--library", library], check=True, capture_output=True)
    # A syncs through a folder, so the page syncs before it empties the Trash: that sync,
    # sent to B's server, is refused as well, and the page says why without asking.
    subprocess.run([binary, "remote", "set", "folder", os.path.join(folder, "cloud"), "--library", first],
                   check=True, capture_output=True)
    port = free_port()
    server = start(first, port)
    try:
        browser.get("http://127.0.0.1:%d/#/trash" % port)
        wait(browser, lambda d: "1 word in the Trash" in d.find_element(By.ID, "trash-summary").text)

        stop(server)
        server = start(second, port)

        browser.find_element(By.ID, "empty-trash").click()
        browser.switch_to.alert.accept()
        wait(browser, lambda d: "another library" in d.find_element(By.ID, "toast").text, 10)
        trash = subprocess.run([binary, "trash", "--json", "--offline", "--library", second],
                               capture_output=True, text=True, check=True).stdout
        assert len(json.loads(trash)) == 3, trash
    finally:
        stop(server)
