"""While a word is open in the editor, a sync or `midiccio edit` in a terminal gives it a note
and a tag. Saving a new meaning wrote the note and tags the editor had shown back over them,
and the other change was gone without a word (found by hand). The editor now sends what it
showed, the server sets only what was changed in it, and the page says what it kept."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import api
from test_web_app import add_through_page, csrf, wait, word_item


def test_saving_a_meaning_keeps_a_note_and_a_tag_added_elsewhere(page):
    add_through_page(page, "loro", "parrot", "animal")
    word_item(page, "loro").find_element(By.CSS_SELECTOR, ".word-open").click()
    wait(page, EC.element_to_be_clickable((By.ID, "viewer-edit"))).click()
    meaning = wait(page, EC.visibility_of_element_located((By.ID, "f-meaning")))

    # Meanwhile, another program (a script through the API, as a terminal or a sync would).
    found = api("/api/search?q=loro")["words"][0]
    api("/api/words/" + found["id"], "PUT", {"notes": "from the other laptop", "tags": ["animal", "viaje"]}, csrf(page))

    meaning.clear()
    meaning.send_keys("a parrot")
    page.find_element(By.ID, "editor-save").click()
    toast = wait(page, EC.visibility_of_element_located((By.ID, "toast")))
    wait(page, lambda d: "kept the notes and tags changed elsewhere" in toast.text)
    word = api("/api/words/" + found["id"])["word"]
    assert word["meaning"] == "a parrot"
    assert word["notes"] == "from the other laptop"
    assert sorted(word["tags"]) == ["animal", "viaje"]


def test_a_field_changed_both_here_and_elsewhere_says_what_the_save_replaced(page):
    add_through_page(page, "cotorra", "parakeet", "")
    word_item(page, "cotorra").find_element(By.CSS_SELECTOR, ".word-open").click()
    wait(page, EC.element_to_be_clickable((By.ID, "viewer-edit"))).click()
    meaning = wait(page, EC.visibility_of_element_located((By.ID, "f-meaning")))

    found = api("/api/search?q=cotorra")["words"][0]
    api("/api/words/" + found["id"], "PUT", {"meaning": "monk parakeet, from the other laptop"}, csrf(page))

    meaning.clear()
    meaning.send_keys("small parrot")
    page.find_element(By.ID, "editor-save").click()
    toast = wait(page, EC.visibility_of_element_located((By.ID, "toast")))
    wait(page, lambda d: "replaced what was changed elsewhere meanwhile" in toast.text)
    assert "monk parakeet, from the other laptop" in toast.text
    assert api("/api/words/" + found["id"])["word"]["meaning"] == "small parrot"
