"""Words the CLI accepts could not be saved in the web app (issue 13): a 20,000-character
meaning and three 19,000-character examples got "the request is too large (the limit is
64 KB)", shown under the form instead of next to a field."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import api
from test_web_app import wait, word_item


def fill(page, **values):
    # 77,000 characters typed one key at a time would take minutes: set them as a paste would.
    for name, value in values.items():
        page.execute_script(
            "const f = document.getElementById(arguments[0]); f.value = arguments[1];"
            "f.dispatchEvent(new Event('input'));", "f-" + name, value)


def shown(page, term):
    """The list item of `term`, or None while the list is still being drawn."""
    try:
        return word_item(page, term)
    except Exception:
        return None


def stored(term):
    return [word for word in api("/api/search?q=" + term + "&limit=5")["words"] if word["term"] == term][0]


def test_a_word_at_every_limit_saves(page):
    meaning = "m" * 19_999 + "Z"
    examples = ["%d" % n + "e" * 18_999 for n in range(3)]
    page.find_element(By.ID, "add-button").click()
    wait(page, EC.visibility_of_element_located((By.ID, "f-term")))
    fill(page, term="limite", meaning=meaning, examples="\n".join(examples))
    page.find_element(By.ID, "editor-save").click()
    wait(page, lambda d: not d.find_element(By.ID, "editor").is_displayed(), 20)
    word = stored("limite")
    assert word["meaning"] == meaning
    assert word["examples"] == examples

    # Edited through the view: notes at their limit too.
    # The list draws the new word again after the save; find it once it is there.
    wait(page, lambda d: shown(d, "limite")).find_element(By.CSS_SELECTOR, ".word-open").click()
    wait(page, EC.element_to_be_clickable((By.ID, "viewer-edit"))).click()
    wait(page, EC.visibility_of_element_located((By.ID, "f-notes")))
    fill(page, notes="n" * 20_000)
    page.find_element(By.ID, "editor-save").click()
    wait(page, lambda d: not d.find_element(By.ID, "editor").is_displayed(), 20)
    assert stored("limite")["notes"] == "n" * 20_000

    # One character over: the message is next to the meaning, the form keeps the text.
    page.find_element(By.ID, "add-button").click()
    wait(page, EC.visibility_of_element_located((By.ID, "f-term")))
    fill(page, term="demasiado", meaning="m" * 20_001, examples="\n".join(examples))
    page.find_element(By.ID, "editor-save").click()
    error = wait(page, EC.visibility_of_element_located((By.ID, "e-meaning")), 20)
    assert "20001 characters" in error.text and "20000" in error.text
    assert page.find_element(By.ID, "f-meaning").get_attribute("aria-invalid") == "true"
    assert page.find_element(By.ID, "e-form").text == ""
    assert len(page.find_element(By.ID, "f-meaning").get_attribute("value")) == 20_001
    page.find_element(By.ID, "editor-cancel").click()
    wait(page, EC.alert_is_present()).accept()
    wait(page, lambda d: not d.find_element(By.ID, "editor").is_displayed())
