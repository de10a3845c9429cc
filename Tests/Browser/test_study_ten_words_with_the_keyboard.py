"""The Study page (issue 15): ten words studied with the keyboard alone (Space reveals,
1-4 grades, u undoes), the answers found in the library by the CLI, and screenshots of
the page and of its server-drawn charts."""
import json
import os
import subprocess

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import SCREENSHOTS, api
from test_web_app import csrf, wait

BINARY = os.environ.get("MIDICCIO_BINARY", ".build/debug/midiccio")
LIBRARY = os.environ.get("MIDICCIO_LIBRARY", "")
WORDS = [(f"estudio{n}", f"study {n}") for n in range(10)]


def shown(driver, element_id):
    return driver.find_element(By.ID, element_id).is_displayed()


def front(driver):
    return driver.find_element(By.ID, "study-front").text


def press(driver, key):
    ActionChains(driver).send_keys(key).perform()


def test_study_ten_words_with_the_keyboard(page):
    token = csrf(page)
    ids = {}
    for term, meaning in WORDS:
        word = api("/api/words", "POST", {"term": term, "meaning": meaning, "examples": [f"Un {term}."],
                                          "tags": "estudio"}, token)["word"]
        ids[term] = word["id"]
    page.find_element(By.ID, "study-button").click()
    wait(page, lambda d: shown(d, "study-view") and not shown(d, "list-view"))
    wait(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#study-tag option")) > 1)
    Select(page.find_element(By.ID, "study-tag")).select_by_value("estudio")
    # No click back on the page: after choosing a tag, Space and 1-4 go to the card.

    grades = {}
    keys = ["3", "4", "2", "3", "4", "3", "2", "4", "3", "4"]
    undone = False
    while len(grades) < 10:
        wait(page, lambda d: shown(d, "study-card") and front(d).startswith("estudio"))
        term = front(page)
        assert term not in grades, f"{term} came back after its answer"
        assert not shown(page, "study-back-side")
        press(page, " ")
        wait(page, lambda d: shown(d, "study-back-side") and shown(d, "study-grades"))
        assert page.find_element(By.ID, "study-answer").text == dict(WORDS)[term]
        key = keys[len(grades)]
        press(page, key)
        if len(grades) == 4 and not undone:
            # u takes the fifth answer back: the same word is shown again.
            wait(page, lambda d: front(d) != term or shown(d, "study-done"))
            press(page, "u")
            wait(page, lambda d: front(d) == term and not shown(d, "study-back-side"))
            undone = True
            press(page, " ")
            wait(page, lambda d: shown(d, "study-grades"))
            press(page, key)
        grades[term] = int(key)
        wait(page, lambda d: front(d) != term or shown(d, "study-done"))

    wait(page, lambda d: shown(d, "study-done"))
    assert "Come back at" in page.find_element(By.ID, "study-done-text").text
    os.makedirs(SCREENSHOTS, exist_ok=True)
    page.execute_script("window.scrollTo(0, 0)")
    page.save_screenshot(os.path.join(SCREENSHOTS, "study-page.png"))

    # The answers are in the library: the CLI sees one review event a word, with its grade's state.
    for term, grade in grades.items():
        result = subprocess.run([BINARY, "--library", LIBRARY, "show", ids[term], "--json"], check=True,
                                capture_output=True, text=True, timeout=60)
        study = json.loads(result.stdout)["study"]
        assert study["reviews"] == 1, (term, study)
        assert study["state"] == ("review" if grade == 4 else "learning"), (term, study)

    # The charts: today's bar counts the ten answers (the undone one is gone).
    # Put inline, so the page's colours (light or dark) reach its parts.
    wait(page, lambda d: d.execute_script(
        "return document.querySelectorAll('#chart-reviews svg rect.bar').length === 30"))
    svg = api("/study/reviews.svg", raw=True).decode()
    assert svg.count('class="bar"') == 30
    stats = api("/api/stats")
    assert stats["reviewsPerDay"][-1]["count"] >= 10
    chart = page.find_element(By.ID, "chart-reviews")
    page.execute_script("arguments[0].scrollIntoView()", chart)
    page.save_screenshot(os.path.join(SCREENSHOTS, "study-charts.png"))
