"""A save whose answer came late closed whatever the editor showed by then: the person had
left the first word, opened another and typed, and that typing was gone (found by the
exploratory helper, round 13B). Ctrl+Enter pressed twice added a new word twice, and then
blamed the person for the duplicate."""
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from conftest import api
from test_web_app import add_through_page, wait, word_item

# Holds the page's PUT requests back for 1.5 s: a server slow to answer (a write waiting
# for another program's, a phone on poor Wi-Fi).
SLOW_SAVES = """
    const original = window.fetch;
    window.fetch = (url, options) => options && options.method === "PUT"
        ? new Promise((resolve) => setTimeout(resolve, 1500)).then(() => original(url, options))
        : original(url, options);
"""


def open_editor(page, term):
    word_item(page, term).find_element(By.CSS_SELECTOR, ".word-open").click()
    wait(page, EC.element_to_be_clickable((By.ID, "viewer-edit"))).click()
    return wait(page, EC.visibility_of_element_located((By.ID, "f-meaning")))


def stored(term):
    return [w for w in api("/api/words?limit=500")["words"] if w["term"] == term]


def test_a_late_save_leaves_the_next_word_open_with_its_typing(page):
    add_through_page(page, "lento", "slow")
    add_through_page(page, "rapido", "fast")
    page.execute_script(SLOW_SAVES)
    meaning = open_editor(page, "lento")
    meaning.clear()
    meaning.send_keys("very slow")
    page.find_element(By.ID, "editor-save").click()
    # While it is on its way, the person leaves it and opens another word.
    page.find_element(By.ID, "f-meaning").send_keys(Keys.ESCAPE)
    wait(page, EC.alert_is_present()).accept()
    wait(page, lambda d: not d.find_element(By.ID, "editor").is_displayed())
    meaning = open_editor(page, "rapido")
    meaning.clear()
    meaning.send_keys("quick, typed while the first save was on its way")
    # The first save answers.
    wait(page, lambda d: stored("lento")[0]["meaning"] == "very slow")
    wait(page, lambda d: "lento" in d.find_element(By.ID, "toast-text").text)
    assert page.find_element(By.ID, "editor").is_displayed(), "the second word's editor stays open"
    assert page.find_element(By.ID, "f-meaning").get_attribute("value") == "quick, typed while the first save was on its way"
    page.find_element(By.ID, "editor-save").click()
    wait(page, lambda d: stored("rapido")[0]["meaning"] == "quick, typed while the first save was on its way")


def test_ctrl_enter_twice_adds_the_word_once(page):
    page.refresh()
    page.find_element(By.ID, "add-button").click()
    term = wait(page, EC.visibility_of_element_located((By.ID, "f-term")))
    term.clear()
    term.send_keys("dosveces")
    meaning = page.find_element(By.ID, "f-meaning")
    meaning.send_keys("twice")
    # Both presses before the first answer comes (as a held key's repeat gives them).
    ActionChains(page).key_down(Keys.CONTROL).send_keys(Keys.ENTER).send_keys(Keys.ENTER).key_up(Keys.CONTROL).perform()
    wait(page, lambda d: "dosveces" in d.find_element(By.ID, "toast-text").text)
    assert "already in your library" not in page.find_element(By.ID, "toast-text").text
    assert len(stored("dosveces")) == 1, stored("dosveces")
