"""A word put in the Trash elsewhere (another tab, the CLI, a sync) while its card is on
the Study page: its answer is not recorded, the page says so and shows the next card,
instead of refusing the same answer again and again."""
import json
import subprocess

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import api
from test_study_ten_words_with_the_keyboard import BINARY, LIBRARY, front, press, shown
from test_web_app import csrf, wait


def test_a_word_deleted_while_studying_is_skipped(page):
    token = csrf(page)
    ids = {}
    for term in ["borrada1", "borrada2"]:
        ids[term] = api("/api/words", "POST", {"term": term, "meaning": "gone soon", "tags": "borrado"}, token)["word"]["id"]
    page.find_element(By.ID, "study-button").click()
    wait(page, lambda d: shown(d, "study-view"))
    wait(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#study-tag option[value='borrado']")) == 1)
    Select(page.find_element(By.ID, "study-tag")).select_by_value("borrado")
    page.find_element(By.ID, "study-title").click()  # focus back on the page, off the select

    wait(page, lambda d: shown(d, "study-card") and front(d).startswith("borrada"))
    first = front(page)
    second = "borrada2" if first == "borrada1" else "borrada1"
    press(page, " ")
    wait(page, lambda d: shown(d, "study-grades"))
    # Deleted elsewhere while the card is shown.
    subprocess.run([BINARY, "--library", LIBRARY, "delete", ids[first]], check=True, capture_output=True, timeout=60)
    press(page, "3")
    wait(page, lambda d: "Not recorded" in d.find_element(By.ID, "toast-text").text)
    assert first in page.find_element(By.ID, "toast-text").text
    wait(page, lambda d: front(d) == second)

    # The next card takes its answer as usual.
    press(page, " ")
    wait(page, lambda d: shown(d, "study-grades"))
    press(page, "3")
    wait(page, lambda d: front(d) != second or shown(d, "study-done"))
    for term, reviews in [(first, 0), (second, 1)]:
        result = subprocess.run([BINARY, "--library", LIBRARY, "show", ids[term], "--json"], check=True,
                                capture_output=True, text=True, timeout=60)
        assert json.loads(result.stdout)["study"]["reviews"] == reviews, term
