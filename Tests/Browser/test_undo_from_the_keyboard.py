"""Keyboard users (issue 13): after Delete focus fell to <body>, and the toast's Undo
could not be reached in 400 Tab presses before it vanished."""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.action_chains import ActionChains

from conftest import api
from test_web_app import csrf, terms, wait, word_item


def test_undo_after_delete_from_the_keyboard(page):
    token = csrf(page)
    for term in ("teclado", "tecla"):
        api("/api/words", "POST", {"term": term, "meaning": "keyboard"}, token)
    page.refresh()
    wait(page, lambda d: "teclado" in terms(d) and "tecla" in terms(d))
    delete = word_item(page, "tecla").find_element(By.CSS_SELECTOR, ".delete")
    page.execute_script("arguments[0].focus()", delete)
    delete.send_keys(Keys.ENTER)
    wait(page, lambda d: "tecla" not in terms(d))
    # Focus is on a word, not lost to the page.
    focused = page.switch_to.active_element
    assert "word-open" in (focused.get_attribute("class") or "")
    assert "Press U to undo" in page.find_element(By.ID, "toast-text").text
    ActionChains(page).send_keys("u").perform()
    wait(page, lambda d: "tecla" in terms(d))
