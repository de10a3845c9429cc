"""A word edited elsewhere (the CLI, a sync, another window) while its card is on the Study
page: the answer showed the text read when the card appeared, and the grade was recorded
against a word the person never saw. Showing the answer now reads the word again, shows
it as it is, and says so."""
import subprocess

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import api
from test_study_ten_words_with_the_keyboard import BINARY, LIBRARY, front, press, shown
from test_web_app import csrf, wait


def test_a_word_edited_while_studying_shows_as_it_is_now(page):
    token = csrf(page)
    word = api("/api/words", "POST", {"term": "tierra", "meaning": "earth", "tags": "editada-al-estudiar"}, token)["word"]
    page.find_element(By.ID, "study-button").click()
    wait(page, lambda d: shown(d, "study-view"))
    wait(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#study-tag option[value='editada-al-estudiar']")) == 1)
    Select(page.find_element(By.ID, "study-tag")).select_by_value("editada-al-estudiar")
    wait(page, lambda d: shown(d, "study-card") and front(d) == "tierra")

    # Edited in a terminal while the card is shown.
    subprocess.run([BINARY, "--library", LIBRARY, "edit", word["id"], "--meaning", "soil, changed in a terminal"],
                   check=True, capture_output=True, timeout=60)
    press(page, " ")
    wait(page, lambda d: d.find_element(By.ID, "study-answer").text == "soil, changed in a terminal")
    assert "changed elsewhere meanwhile" in page.find_element(By.ID, "toast-text").text
    press(page, "3")
    wait(page, lambda d: front(d) != "tierra" or shown(d, "study-done"))
    # Leave the shared library as it was.
    api("/api/words/" + word["id"], "DELETE", None, token)
    api("/api/trash/" + word["id"] + "/purge", "POST", {}, token)
