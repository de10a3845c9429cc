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


def study_two(page, tag):
    """Opens Study on the words tagged `tag` and answers the two of them Good; their terms."""
    page.refresh()
    page.find_element(By.ID, "study-button").click()
    wait(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, f"#study-tag option[value='{tag}']")) == 1)
    Select(page.find_element(By.ID, "study-tag")).select_by_value(tag)
    terms = []
    for _ in range(2):
        wait(page, lambda d: shown(d, "study-card") and front(d).startswith(tag))
        terms.append(front(page))
        press(page, " ")
        wait(page, lambda d: shown(d, "study-grades"))
        press(page, "3")
        wait(page, lambda d: front(d) != terms[-1] or shown(d, "study-done"))
    return terms


def test_an_undo_of_an_answer_whose_word_was_purged_says_so_and_the_one_before_still_undoes(page):
    """With no remote, "synced already" was said, and the answer before it could no longer be
    undone (round 23B #6)."""
    token = csrf(page)
    ids = {}
    for term in ("purgada1", "purgada2"):
        ids[term] = api("/api/words", "POST", {"term": term, "meaning": "undo", "tags": "purgada"}, token)["word"]["id"]
    first, second = study_two(page, "purgada")
    # Another program deletes the second word for good.
    for command in (["delete", ids[second]], ["purge", ids[second]]):
        subprocess.run([BINARY, "--library", LIBRARY] + command, check=True, capture_output=True, timeout=60,
                       env={"PATH": "/usr/bin:/bin"})
    toast = page.find_element(By.ID, "toast")
    press(page, "u")
    wait(page, lambda d: "deleted permanently meanwhile" in toast.text)
    press(page, "u")
    wait(page, lambda d: "Undone" in toast.text and first in toast.text)


def test_an_undo_refused_while_the_library_is_busy_can_be_pressed_again(page):
    """A busy library's "try again" lost the answer to undo: trying again said no answer had
    been given (round 23B #7)."""
    import sqlite3
    import threading
    import time

    token = csrf(page)
    for term in ("ocupada1", "ocupada2"):
        api("/api/words", "POST", {"term": term, "meaning": "undo", "tags": "ocupada"}, token)
    first, second = study_two(page, "ocupada")
    # Another program holds the library's write lock past the app's wait.
    held = threading.Event()

    def hold():
        connection = sqlite3.connect(LIBRARY, timeout=30, isolation_level=None)
        connection.execute("BEGIN IMMEDIATE")
        held.set()
        time.sleep(13)
        connection.execute("ROLLBACK")
        connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(30)
    toast = page.find_element(By.ID, "toast")
    press(page, "u")
    wait(page, lambda d: "busy" in toast.text, 30)
    holder.join()
    press(page, "u")
    wait(page, lambda d: "Undone" in toast.text and second in toast.text, 30)
