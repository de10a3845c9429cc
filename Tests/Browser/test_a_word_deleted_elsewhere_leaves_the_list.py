"""Deleting a word the command line had moved to the Trash meanwhile said "already in the
Trash" but left it in the list and the count; and `d` pressed twice before the answer came
sent the same word again, whose notice replaced the Undo (found by the exploratory helper,
round 8)."""
import os
import subprocess

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import api
from test_web_app import csrf, terms, wait, word_item


def test_a_word_deleted_elsewhere_leaves_the_list_when_deleted_here(page):
    token = csrf(page)
    word = api("/api/words", "POST", {"term": "fantasma", "meaning": "ghost"}, token)["word"]
    page.refresh()
    wait(page, lambda d: "fantasma" in terms(d))
    subprocess.run([os.environ["MIDICCIO_BINARY"], "delete", word["id"], "--library", os.environ["MIDICCIO_LIBRARY"]],
                   check=True, capture_output=True)
    word_item(page, "fantasma").find_element(By.CSS_SELECTOR, ".delete").click()
    wait(page, lambda d: "already in the Trash" in d.find_element(By.ID, "toast").text)
    wait(page, lambda d: "fantasma" not in terms(d))


def test_d_pressed_twice_moves_one_word_and_keeps_the_undo(page):
    token = csrf(page)
    api("/api/words", "POST", {"term": "doble", "meaning": "double"}, token)
    page.refresh()
    wait(page, lambda d: "doble" in terms(d))
    item = word_item(page, "doble")
    # Two clicks before the first answer comes: one move to the Trash, and its Undo stays.
    page.execute_script("arguments[0].click(); arguments[0].click();", item.find_element(By.CSS_SELECTOR, ".delete"))
    wait(page, lambda d: "Press U to undo" in d.find_element(By.ID, "toast").text)
    assert "already" not in page.find_element(By.ID, "toast").text
    page.find_element(By.ID, "toast-action").click()
    wait(page, lambda d: "doble" in terms(d))


def test_a_word_moved_to_the_trash_while_edited_is_restored_and_saved(page):
    """The editor said "restore it first", which could not be done without leaving it and
    the typing with it (round 13B): one button now restores the word and saves."""
    token = csrf(page)
    word = api("/api/words", "POST", {"term": "papelera", "meaning": "bin"}, token)["word"]
    page.refresh()
    wait(page, lambda d: "papelera" in terms(d))
    word_item(page, "papelera").find_element(By.CSS_SELECTOR, ".word-open").click()
    wait(page, EC.element_to_be_clickable((By.ID, "viewer-edit"))).click()
    meaning = wait(page, EC.visibility_of_element_located((By.ID, "f-meaning")))
    subprocess.run([os.environ["MIDICCIO_BINARY"], "delete", word["id"], "--library", os.environ["MIDICCIO_LIBRARY"]],
                   check=True, capture_output=True)
    meaning.send_keys(", wastepaper basket")
    page.find_element(By.ID, "editor-save").click()
    wait(page, lambda d: "in the Trash now" in d.find_element(By.ID, "e-form").text)
    button = page.find_element(By.ID, "editor-restore-save")
    assert button.is_displayed() and page.find_element(By.ID, "editor").is_displayed()
    assert page.find_element(By.ID, "f-meaning").get_attribute("value") == "bin, wastepaper basket", "the typing stays"
    button.click()
    wait(page, lambda d: not d.find_element(By.ID, "editor").is_displayed())
    wait(page, lambda d: "wastepaper basket" in word_item(d, "papelera").text)
    shown = api("/api/words/" + word["id"])
    shown = shown.get("word", shown)
    assert shown["meaning"] == "bin, wastepaper basket" and not shown.get("deletedAt"), shown
