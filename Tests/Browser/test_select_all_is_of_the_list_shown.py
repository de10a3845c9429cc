""""Select all" chooses the words of the list as it was shown: a word moved into the Trash
after the page showed it, while another left (as many), was purged with the others, unseen,
because the choice's key was taken as "Select all" was tapped (found by the exploratory
helper, round 26B #1, #2). Now the choice is refused, nothing done, and the list is shown
again as it is."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import api
from test_web_app import csrf, wait


def test_trash_select_all_after_a_change_elsewhere_purges_nothing_unseen(page):
    token = csrf(page)
    ids = [api("/api/words", "POST", {"term": f"vistotrash{index:02d}"}, token)["word"]["id"] for index in range(52)]
    api("/api/bulk/trash", "POST", {"ids": ids}, token)
    precious = api("/api/words", "POST", {"term": "vistotrashprecious"}, token)["word"]["id"]
    page.refresh()
    page.find_element(By.ID, "trash-link").click()
    page.find_element(By.ID, "trash-search").send_keys("vistotrash")
    wait(page, lambda d: d.find_element(By.ID, "trash-summary").text.startswith("52 words match, 50 shown"))

    # Elsewhere, while the page stays as it is: one word out of the Trash, another in.
    api("/api/bulk/restore", "POST", {"ids": [ids[0]]}, token)
    api("/api/words/" + precious, "DELETE", None, token)

    page.find_elements(By.CSS_SELECTOR, "#trash-list .trash-pick")[0].click()
    wait(page, lambda d: d.find_element(By.ID, "trash-select-matches").is_displayed())
    page.find_element(By.ID, "trash-select-matches").click()
    toast = page.find_element(By.ID, "toast-text")
    wait(page, lambda d: "since this list was shown" in toast.text)
    # Shown again as it is now, the word that came in first, nothing chosen.
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, "#trash-list .term").text == "vistotrashprecious")
    assert page.find_element(By.ID, "trash-purge-selected").text == "Delete selected permanently"
    assert not page.find_element(By.ID, "trash-purge-selected").is_enabled()
    assert api("/api/words/" + precious)["word"]["term"] == "vistotrashprecious", "not purged"

    # Chosen again from the list as shown now: all 52, the new one among them.
    page.find_elements(By.CSS_SELECTOR, "#trash-list .trash-pick")[0].click()
    wait(page, lambda d: d.find_element(By.ID, "trash-select-matches").is_displayed())
    page.find_element(By.ID, "trash-select-matches").click()
    purge = page.find_element(By.ID, "trash-purge-selected")
    wait(page, lambda d: purge.text == "Delete 52 words permanently")
    purge.click()
    wait(page, EC.alert_is_present()).accept()
    wait(page, lambda d: "52 words deleted permanently" in toast.text, 15)
    # Leave the shared library as it was: the word restored out of it goes too.
    api("/api/words/" + ids[0], "DELETE", None, token)
    assert api("/api/bulk/purge", "POST", {"select": "trash", "q": "vistotrash"}, token)["purged"] == 1


def test_select_all_matches_after_a_change_elsewhere_moves_nothing_unseen(page):
    token = csrf(page)
    ids = [api("/api/words", "POST", {"term": f"vistolista{index}"}, token)["word"]["id"] for index in range(4)]
    page.refresh()
    box = wait(page, lambda d: d.find_element(By.ID, "search"))
    box.send_keys("vistolista")
    wait(page, lambda d: d.find_element(By.ID, "count").text == "4 matches")

    # Elsewhere: one match renamed out of the search, another word added into it.
    api("/api/words/" + ids[0], "PUT", {"term": "renamedaway"}, token)
    api("/api/words", "POST", {"term": "vistolistaunseen"}, token)

    page.find_elements(By.CSS_SELECTOR, "#words .word-pick")[0].click()
    wait(page, lambda d: d.find_element(By.ID, "bulk-all").is_displayed())
    page.find_element(By.ID, "bulk-all").click()
    toast = page.find_element(By.ID, "toast-text")
    wait(page, lambda d: "since this list was shown" in toast.text)
    wait(page, lambda d: "vistolistaunseen" in [t.text for t in d.find_elements(By.CSS_SELECTOR, "#words .term")])
    assert not page.find_element(By.ID, "bulk-bar").is_displayed(), "nothing chosen"
    assert api("/api/search/count?q=vistolista")["total"] == 4, "nothing moved to the Trash"
    # Leave the shared library as it was.
    for word in api("/api/search?q=vistolista&limit=50")["words"] + [api("/api/words/" + ids[0])["word"]]:
        api("/api/words/" + word["id"], "DELETE", None, token)
    assert api("/api/bulk/purge", "POST", {"select": "trash", "q": "vistolista"}, token)["purged"] == 4
    assert api("/api/bulk/purge", "POST", {"select": "trash", "q": "renamedaway"}, token)["purged"] == 1
