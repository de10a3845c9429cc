"""The editor's one-line boxes drop a term's line break, and its box of tags split a tag
holding a comma (which an import or the command line may give). A save of the meaning alone
then said the term and tags were "changed elsewhere meanwhile", and a tag with a comma could
not be taken off (found by the exploratory helper, round 8). A box left as it opened now
gives the word's own value."""
import json
import os
import subprocess

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from conftest import api
from test_web_app import wait, word_item


def open_editor(page, term):
    wait(page, lambda d: word_item(d, term) is not None)
    word_item(page, term).find_element(By.CSS_SELECTOR, ".word-open").click()
    wait(page, EC.element_to_be_clickable((By.ID, "viewer-edit"))).click()
    return wait(page, EC.visibility_of_element_located((By.ID, "f-meaning")))


def test_a_save_keeps_a_line_break_and_a_comma_tag_it_cannot_show(page):
    # The command line, as an import would, gives a tag holding a comma.
    added = subprocess.run([os.environ["MIDICCIO_BINARY"], "add", "despegar", "--reading", "des\npegar", "--meaning", "take off",
                            "--tag", "verbo,regular", "--tag", "viaje", "--json", "--library", os.environ["MIDICCIO_LIBRARY"]],
                           capture_output=True, text=True, check=True).stdout
    word = json.loads(added)
    word = word.get("word", word)
    page.refresh()
    meaning = open_editor(page, "despegar")
    meaning.clear()
    meaning.send_keys("to take off")
    page.find_element(By.ID, "editor-save").click()
    wait(page, lambda d: "Saved" in d.find_element(By.ID, "toast").text)
    assert "elsewhere" not in page.find_element(By.ID, "toast").text, page.find_element(By.ID, "toast").text
    saved = api("/api/words/" + word["id"])["word"]
    assert saved["reading"] == "des\npegar" and saved["tags"] == ["verbo,regular", "viaje"], saved

    # The comma tag can be taken off; a new one typed "a, b" is two tags.
    open_editor(page, "despegar")
    tags = page.find_element(By.ID, "f-tags")
    tags.clear()
    tags.send_keys("viaje nuevo, otro", Keys.ENTER)
    # The first save's "Saved" may still be showing: wait for the second save's tags
    # themselves (the wait fails the test when they never come).
    wait(page, lambda d: sorted(api("/api/words/" + word["id"])["word"]["tags"]) != ["verbo,regular", "viaje"])
    wait(page, lambda d: "Saved" in d.find_element(By.ID, "toast").text)
    saved = api("/api/words/" + word["id"])["word"]
    assert sorted(saved["tags"]) == ["nuevo", "otro", "viaje"], saved


def test_a_tag_holding_an_invisible_character_stays_whole_when_another_is_typed(page):
    # An import may give a tag holding U+FEFF, which the server does not count as a space;
    # JavaScript's \s does, and the box of tags split it into two new tags (round 19B).
    added = subprocess.run([os.environ["MIDICCIO_BINARY"], "add", "saludar", "--meaning", "to greet",
                            "--tag", "spanish\ufeffa1", "--tag", "greeting", "--json", "--library", os.environ["MIDICCIO_LIBRARY"]],
                           capture_output=True, text=True, check=True).stdout
    word = json.loads(added)
    word = word.get("word", word)
    page.refresh()
    open_editor(page, "saludar")
    page.find_element(By.ID, "f-tags").send_keys(" verbs", Keys.ENTER)
    wait(page, lambda d: "verbs" in api("/api/words/" + word["id"])["word"]["tags"])
    saved = api("/api/words/" + word["id"])["word"]
    assert sorted(saved["tags"]) == ["greeting", "spanish\ufeffa1", "verbs"], saved
