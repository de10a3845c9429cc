"""On the Study page, Undo after the answers were synced is refused, with the reason; a
second Undo said "no answer was given here since this page was opened" though two were
(found by the exploratory helper, round 16B). It now gives the true reason again."""
import subprocess
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import BINARY, api
from test_study_ten_words_with_the_keyboard import LIBRARY, front, press, shown
from test_web_app import csrf, wait


def test_a_second_undo_after_a_sync_says_the_answers_were_synced(page):
    token = csrf(page)
    for term in ("sincronizada1", "sincronizada2"):
        api("/api/words", "POST", {"term": term, "meaning": "undo", "tags": "sincronizada"}, token)
    folder = tempfile.mkdtemp(prefix="midiccio-browser-undo-")
    api("/api/remote", "PUT", {"folder": folder}, token)
    try:
        page.refresh()
        page.find_element(By.ID, "study-button").click()
        wait(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#study-tag option[value='sincronizada']")) == 1)
        Select(page.find_element(By.ID, "study-tag")).select_by_value("sincronizada")
        for _ in range(2):
            wait(page, lambda d: shown(d, "study-card") and front(d).startswith("sincronizada"))
            term = front(page)
            press(page, " ")
            wait(page, lambda d: shown(d, "study-grades"))
            press(page, "3")
            wait(page, lambda d: front(d) != term or shown(d, "study-done"))
        # Another terminal syncs the two answers.
        subprocess.run([BINARY, "--library", LIBRARY, "sync"], check=True, capture_output=True, timeout=60,
                       env={"MIDICCIO_SYNCED_FOLDER_OK": "1", "PATH": "/usr/bin:/bin"})
        toast = page.find_element(By.ID, "toast")
        press(page, "u")
        wait(page, lambda d: "synced already" in toast.text)
        assert "no answer was given" not in toast.text, toast.text
        press(page, "u")
        wait(page, lambda d: "the answers given before were synced already" in toast.text)
        assert "no answer was given" not in toast.text, toast.text
    finally:
        api("/api/remote", "PUT", {}, csrf(page))
