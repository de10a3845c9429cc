""""Select all N matches", then a change this page made to one of them (its own Delete
button): the bulk action was refused, blaming changes made "elsewhere", because the selection's
key was taken before the page's own change (found by the exploratory helper, round 15B)."""
from selenium.webdriver.common.by import By

from conftest import api
from test_web_app import csrf, wait


def test_select_all_then_delete_one_here_and_tag_the_rest(page):
    token = csrf(page)
    # Few words, under a prefix and a tag no other scenario searches for: the scenarios share
    # one library.
    for index in range(5):
        api("/api/words", "POST", {"term": f"seltodo{index}"}, token)
    page.refresh()
    search = wait(page, lambda d: d.find_element(By.ID, "search"))
    search.send_keys("seltodo")
    wait(page, lambda d: "q=seltodo" in d.current_url and d.find_element(By.ID, "count").text == "5 matches")
    wait(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#words .word-pick")) == 5)
    page.find_elements(By.CSS_SELECTOR, "#words .word-pick")[0].click()
    wait(page, lambda d: d.find_element(By.ID, "bulk-all").is_displayed())
    page.find_element(By.ID, "bulk-all").click()
    wait(page, lambda d: "All 5 matches selected" in d.find_element(By.ID, "bulk-count").text)
    page.find_elements(By.CSS_SELECTOR, "#words li button.delete")[3].click()
    toast = page.find_element(By.ID, "toast-text")
    wait(page, lambda d: "to the Trash" in toast.text)
    wait(page, lambda d: "All 4 matches selected" in d.find_element(By.ID, "bulk-count").text)
    page.find_element(By.ID, "bulk-tag").send_keys("seltodotag")
    page.find_element(By.ID, "bulk-add-tag").click()
    wait(page, lambda d: "Added the tag" in toast.text or "elsewhere" in toast.text or "changed meanwhile" in toast.text, 15)
    assert "to 4 words" in toast.text, toast.text
    tagged = [w for w in api("/api/search?q=seltodo&limit=100")["words"] if "seltodotag" in w["tags"]]
    assert len(tagged) == 4
