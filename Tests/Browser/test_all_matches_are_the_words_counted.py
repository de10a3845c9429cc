""""Select all N matches", then a bulk action, acts on the N words the page counted: words
added elsewhere meanwhile (another window, the command line) make the action refused,
with nothing changed, and the page counts again."""
from selenium.webdriver.common.by import By

from conftest import api
from test_browse_table import add_words, boxes, search
from test_web_app import csrf, wait


def test_words_added_elsewhere_are_not_moved_to_the_trash_unseen(page):
    add_words(page, "contadaword", 12, meaning="contadamatch")
    page.refresh()
    search(page, "contadamatch")
    wait(page, lambda d: d.find_element(By.ID, "count").text == "12 matches")
    boxes(page)[0].click()
    select_all = wait(page, lambda d: d.find_element(By.ID, "bulk-all"))
    select_all.click()
    wait(page, lambda d: d.find_element(By.ID, "bulk-count").text == "All 12 matches selected")

    # Elsewhere, two more words that match; this page does not know yet.
    token = csrf(page)
    for term in ("contadanueva0", "contadanueva1"):
        api("/api/words", "POST", {"term": term, "meaning": "contadamatch"}, token)

    page.find_element(By.ID, "bulk-delete").click()
    wait(page, lambda d: "changed meanwhile" in d.find_element(By.ID, "toast-text").text)
    assert "14 match now, not 12" in page.find_element(By.ID, "toast-text").text
    assert api("/api/search?q=contadamatch&limit=50")["total"] == 14, "nothing went to the Trash"
    # The page counts again, so the next choice is of what is there now.
    wait(page, lambda d: d.find_element(By.ID, "count").text == "14 matches")
    wait(page, lambda d: d.find_element(By.ID, "bulk-count").text == "All 14 matches selected")

    page.find_element(By.ID, "bulk-delete").click()
    wait(page, lambda d: "Moved 14 words to the Trash" in d.find_element(By.ID, "toast-text").text, seconds=15)
    # Leave the shared library as it was: the 14 words purged from the Trash.
    assert api("/api/bulk/purge", "POST", {"select": "trash", "q": "contada"}, token)["purged"] == 14
