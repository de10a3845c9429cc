"""A library kept in a synced folder and written on two computers ends with a conflict copy
beside it, whose words no program opens again. The command line named it; the web app, the
everyday way to use MiDiccio, said nothing. The page now names it above every view and takes
its words in, with a preview first and the restore's undo after."""
import os
import subprocess
import tempfile
import urllib.parse

from selenium.webdriver.common.by import By

from conftest import BINARY, api
from test_web_app import csrf, terms, wait

LIBRARY = os.environ.get("MIDICCIO_LIBRARY", "")


def midiccio(library, *arguments):
    subprocess.run([BINARY, "--library", library, *arguments], check=True, capture_output=True, timeout=60,
                   env=dict(os.environ, MIDICCIO_SYNCED_FOLDER_OK="1"))


def test_a_conflict_copy_is_named_and_its_words_taken_in(page):
    token = csrf(page)
    api("/api/words", "POST", {"term": "conflicto-aqui", "meaning": "written here"}, token)
    # The other computer's file, as Nextcloud sets it aside beside the library.
    other = os.path.join(tempfile.mkdtemp(prefix="midiccio-browser-conflict-"), "library.sqlite")
    midiccio(other, "add", "conflicto-alli", "--meaning", "written on the other computer")
    copy = os.path.join(os.path.dirname(LIBRARY), "library (conflicted copy 2026-12-05 101010).sqlite")
    os.rename(other, copy)
    try:
        page.refresh()
        banner = page.find_element(By.ID, "copies-banner")
        wait(page, lambda d: banner.is_displayed())
        assert "library (conflicted copy 2026-12-05 101010).sqlite" in page.find_element(By.ID, "copies-text").text
        assert "conflicto-alli" not in terms(page)

        page.find_element(By.ID, "copies-check").click()
        preview = page.find_element(By.ID, "copies-preview")
        wait(page, lambda d: preview.is_displayed())
        assert "1 word would be added" in preview.text and "Nothing has changed yet" in preview.text, preview.text
        assert "conflicto-alli" not in terms(page), "the preview changed nothing"

        page.find_element(By.ID, "copies-take").click()
        done = page.find_element(By.ID, "copies-done")
        wait(page, lambda d: done.text.startswith("Taken in from library (conflicted copy"), 15)
        assert "1 word added" in done.text, done.text
        wait(page, lambda d: "conflicto-alli" in terms(d))
        wait(page, lambda d: not banner.is_displayed())
        page.refresh()
        wait(page, lambda d: "conflicto-alli" in terms(d))
        assert not page.find_element(By.ID, "copies-banner").is_displayed(), "taken in, it is no longer named"

        # Undone from Settings, its words are out of sight again: named again.
        page.find_element(By.ID, "settings-button").click()
        wait(page, lambda d: d.find_element(By.ID, "restore-undo").is_displayed())
        page.find_element(By.ID, "restore-undo").click()
        wait(page, lambda d: "That was the restore of library (conflicted copy" in d.find_element(By.ID, "undo-result").text)
        page.refresh()
        wait(page, lambda d: d.find_element(By.ID, "copies-banner").is_displayed())
    finally:
        os.remove(copy)
    page.get(page.current_url.split("#")[0])
    wait(page, lambda d: "conflicto-aqui" in terms(d))
    assert not page.find_element(By.ID, "copies-banner").is_displayed(), "moved away, it is no longer named"


def test_only_a_conflict_copy_beside_the_library_is_read(page):
    token = csrf(page)
    # A name that is not among the copies (a path, another file) is refused, nothing read.
    for name in ["../library.sqlite", "/etc/passwd", "library (conflicted copy).sqlite"]:
        try:
            api("/api/backup/restore?" + urllib.parse.urlencode({"dryRun": 1, "copy": name}), "POST", b"", token)
            raise AssertionError("refused: " + name)
        except Exception as error:  # urllib raises HTTPError for the 4xx answer
            assert getattr(error, "code", None) == 400, (name, error)
