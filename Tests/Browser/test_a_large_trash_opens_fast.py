"""A Trash of 100,000 words (issue 13: Settings took 32-51 s to draw it into a page
7,000,000 px tall). The Trash is built through the Kit (a backup restore with the CLI)
in a library of its own, served by a second `midiccio serve`, not through the browser."""
import datetime
import json
import os
import subprocess
import time
import uuid

from selenium.webdriver.common.by import By

from test_web_app import wait

BINARY = os.environ.get("MIDICCIO_BINARY", ".build/debug/midiccio")
WORK = os.environ.get("MIDICCIO_WORK", "/tmp")
WORDS = 100_000


def write_backup(path):
    now = datetime.datetime.now(datetime.timezone.utc)
    stamp = now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
    words = [{"id": str(uuid.UUID(int=index + 1, version=4)), "term": f"papelera{index}", "meaning": "in the Trash",
              "createdAt": stamp, "updatedAt": stamp, "deletedAt": stamp} for index in range(WORDS)]
    with open(path, "w") as file:
        json.dump({"format": "midiccio-backup", "version": 1, "exportedAt": stamp, "wordCount": WORDS, "words": words}, file)


def test_a_100000_word_trash_opens_fast(browser, request):
    folder = os.path.join(WORK, "large-trash")
    os.makedirs(folder, exist_ok=True)
    library = os.path.join(folder, "library.sqlite")
    backup = os.path.join(folder, "backup.json")
    write_backup(backup)
    environment = dict(os.environ, MIDICCIO_OFFLINE="1")
    environment.pop("MIDICCIO_LIBRARY", None)
    subprocess.run([BINARY, "--library", library, "backup", "restore", backup], check=True, env=environment,
                   stdout=subprocess.DEVNULL, timeout=300)
    out = open(os.path.join(folder, "serve.out"), "w")
    server = subprocess.Popen([BINARY, "serve", "--library", library, "--port", "0"], stdout=out,
                              stderr=subprocess.DEVNULL, env=environment)
    try:
        url = ""
        for _ in range(100):
            with open(os.path.join(folder, "serve.out")) as printed:
                words = [part for part in printed.read().split() if part.startswith("http://")]
            if words:
                url = words[0]
                break
            time.sleep(0.1)
        assert url, "the second midiccio serve did not start"
        browser.get(url)
        wait(browser, lambda d: d.find_element(By.ID, "settings-button").is_displayed())
        # The Trash page, from the bar: its newest 50 entries and a count.
        started = time.monotonic()
        browser.find_element(By.ID, "trash-link").click()
        wait(browser, lambda d: "100,000 words in the Trash, 50 shown" in d.find_element(By.ID, "trash-summary").text,
             seconds=60)
        opened = time.monotonic() - started
        print(f"The Trash page with a 100,000-word Trash drew in {opened * 1000:.0f} ms")
        assert len(browser.find_elements(By.CSS_SELECTOR, "#trash-list li")) == 50
        assert browser.execute_script("return document.body.scrollHeight") < 20_000
        # A generous bound for a debug build on a shared machine: Settings took 32-51 s
        # before; the 300 ms target is measured by midiccio-bench web.
        assert opened < 3.0
        # Settings shows a count and a link to the Trash, not the Trash itself.
        browser.find_element(By.ID, "trash-back").click()
        wait(browser, lambda d: d.find_element(By.ID, "settings-button").is_displayed())
        started = time.monotonic()
        browser.find_element(By.ID, "settings-button").click()
        wait(browser, lambda d: "100,000 words in the Trash" in d.find_element(By.ID, "settings-trash-count").text,
             seconds=60)
        opened = time.monotonic() - started
        print(f"Settings with a 100,000-word Trash drew in {opened * 1000:.0f} ms")
        assert opened < 3.0
        assert browser.execute_script("return document.body.scrollHeight") < 20_000
        # Every entry can be reached: a page by key follows the last one shown.
        browser.find_element(By.ID, "settings-trash-link").click()
        wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#trash-list li")) == 50)
        more = browser.find_element(By.ID, "trash-more")
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", more)
        more.click()
        wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#trash-list li")) == 100)
        shown = [item.get_attribute("data-id") for item in browser.find_elements(By.CSS_SELECTOR, "#trash-list li")]
        assert len(set(shown)) == 100
        browser.find_element(By.ID, "trash-search").send_keys("papelera9999")
        wait(browser, lambda d: "11 words match" in d.find_element(By.ID, "trash-summary").text)
        browser.save_screenshot(os.path.join(os.environ.get("MIDICCIO_SCREENSHOTS", ".build/screenshots"),
                                             request.node.name + ".png"))
    finally:
        server.terminate()
        server.wait(timeout=10)
        out.close()
