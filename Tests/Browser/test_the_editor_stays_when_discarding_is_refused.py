"""The editor asks "Discard your changes to this word?" on Esc. Chromium lets a page
prevent a dialog's cancel only once per user activation, so the second Esc closed the
editor whatever was answered, and the typing was gone (found by the exploratory helper,
round 13B). The phone's Back button closes a dialog the same way. Now Esc is taken before
the dialog's cancel, and a close the page did not make opens the editor again and asks."""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from conftest import api
from test_web_app import add_through_page, wait, word_item

TYPED = "a careful definition, typed for ten minutes"


def open_editor(page, term):
    word_item(page, term).find_element(By.CSS_SELECTOR, ".word-open").click()
    wait(page, EC.element_to_be_clickable((By.ID, "viewer-edit"))).click()
    return wait(page, EC.visibility_of_element_located((By.ID, "f-meaning")))


def stored_meaning(term):
    words = api("/api/words?limit=200")["words"]
    return [w["meaning"] for w in words if w["term"] == term][0]


def test_esc_answered_keep_editing_three_times_keeps_the_typing(page):
    add_through_page(page, "gatito", "kitten")
    meaning = open_editor(page, "gatito")
    meaning.clear()
    meaning.send_keys(TYPED)
    for _ in range(3):
        page.find_element(By.ID, "f-meaning").send_keys(Keys.ESCAPE)
        alert = wait(page, EC.alert_is_present())
        assert alert.text == "Discard your changes to this word?"
        alert.dismiss()
        assert page.find_element(By.ID, "editor").is_displayed()
        assert page.find_element(By.ID, "f-meaning").get_attribute("value") == TYPED
    # Still there to be saved.
    page.find_element(By.ID, "editor-save").click()
    wait(page, lambda d: stored_meaning("gatito") == TYPED)


def test_a_close_the_page_did_not_make_opens_the_editor_again_and_asks(page):
    add_through_page(page, "perrito", "puppy")
    meaning = open_editor(page, "perrito")
    meaning.send_keys(" that sleeps")
    # What a phone's Back button does to a dialog, past what the page could prevent.
    page.execute_script("document.getElementById('editor').close()")
    alert = wait(page, EC.alert_is_present())
    assert alert.text == "Discard your changes to this word?"
    alert.dismiss()
    wait(page, lambda d: d.find_element(By.ID, "editor").is_displayed())
    assert page.find_element(By.ID, "f-meaning").get_attribute("value") == "puppy that sleeps"
    # Answered "discard", it closes, and the word is as it was.
    page.execute_script("document.getElementById('editor').close()")
    wait(page, EC.alert_is_present()).accept()
    wait(page, lambda d: not d.find_element(By.ID, "editor").is_displayed())
    assert stored_meaning("perrito") == "puppy"
