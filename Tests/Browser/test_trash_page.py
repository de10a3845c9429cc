"""The Trash as its own page (issue 13, part 4): reached from the bar, searchable, paged by
key, with bulk restore (undoable) and bulk permanent delete (after a confirm)."""
import os
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from conftest import api
from test_web_app import csrf, terms, wait

SCREENSHOTS = os.environ.get("MIDICCIO_SCREENSHOTS", ".build/screenshots")


def trash_terms(driver):
    return [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#trash-list .term")]


def live_terms(prefix):
    return sorted(word["term"] for word in api("/api/search?q=" + prefix + "&limit=100")["words"])


def test_trash_page_bulk_restore_and_delete_permanently(page):
    token = csrf(page)
    ids = [api("/api/words", "POST", {"term": f"papelpage{index}", "meaning": "in the Trash"}, token)["word"]["id"]
           for index in range(4)]
    api("/api/bulk/trash", "POST", {"ids": ids}, token)
    page.refresh()
    page.find_element(By.ID, "trash-link").click()
    wait(page, lambda d: d.find_element(By.ID, "trash-view").is_displayed())
    assert "#/trash" in page.current_url
    page.find_element(By.ID, "trash-search").send_keys("PAPELPAGE")
    wait(page, lambda d: "4 words match" in d.find_element(By.ID, "trash-summary").text)
    assert sorted(trash_terms(page)) == [f"papelpage{index}" for index in range(4)]
    page.find_element(By.ID, "trash-all").click()
    restore = page.find_element(By.ID, "trash-restore-selected")
    assert restore.text == "Restore 4 words"
    page.save_screenshot(os.path.join(SCREENSHOTS, "trash-page.png"))
    restore.click()
    wait(page, lambda d: trash_terms(d) == [])
    assert live_terms("papelpage") == [f"papelpage{index}" for index in range(4)]
    # One undo puts all four back in the Trash.
    wait(page, lambda d: "Press U to undo" in d.find_element(By.ID, "toast-text").text)
    ActionChains(page).send_keys("u").perform()
    wait(page, lambda d: live_terms("papelpage") == [])
    wait(page, lambda d: len(trash_terms(d)) == 4)

    # Two picked, then delete permanently: a confirm first; dismissing it changes nothing.
    picks = page.find_elements(By.CSS_SELECTOR, "#trash-list .trash-pick")
    picks[0].click()
    picks[1].click()
    purge = page.find_element(By.ID, "trash-purge-selected")
    assert purge.text == "Delete 2 words permanently"
    purge.click()
    wait(page, EC.alert_is_present()).dismiss()
    assert len(trash_terms(page)) == 4
    purge.click()
    wait(page, EC.alert_is_present()).accept()
    wait(page, lambda d: len(trash_terms(d)) == 2)
    assert api("/api/trash?q=papelpage")["total"] == 2

    # Settings shows a count and a link, not the Trash itself.
    page.get(page.current_url.split("#")[0] + "#settings")
    wait(page, lambda d: "in the Trash" in d.find_element(By.ID, "settings-trash-count").text)
    assert not page.find_elements(By.CSS_SELECTOR, "#settings-view #trash-list")
    page.find_element(By.ID, "settings-trash-link").click()
    wait(page, lambda d: d.find_element(By.ID, "trash-view").is_displayed())
    page.find_element(By.ID, "trash-back").click()
    wait(page, lambda d: d.find_element(By.ID, "list-view").is_displayed() and terms(d) is not None)


def trashed_on_the_page(page, token, prefix, count, meaning):
    """Adds `count` words named `prefix`0... through the API, moves them to the Trash, and
    opens the Trash page searched for them; returns their ids."""
    ids = [api("/api/words", "POST", {"term": f"{prefix}{index}", "meaning": meaning}, token)["word"]["id"]
           for index in range(count)]
    api("/api/bulk/trash", "POST", {"ids": ids}, token)
    page.get(page.current_url.split("#")[0] + "#/trash")
    wait(page, lambda d: d.find_element(By.ID, "trash-view").is_displayed())
    page.find_element(By.ID, "trash-search").send_keys(prefix)
    wait(page, lambda d: f"{count} words match" in d.find_element(By.ID, "trash-summary").text)
    return ids


def test_undo_of_a_trash_restore_says_which_words_were_studied(page):
    """The Undo of a restore from the Trash moves words studied since back with their
    answers, and says so, as a backup's undo does (round 23B #8's other half)."""
    token = csrf(page)
    ids = trashed_on_the_page(page, token, "estudiotrash", 3, "studied")
    page.find_element(By.ID, "trash-all").click()
    page.find_element(By.ID, "trash-restore-selected").click()
    wait(page, lambda d: "Press U to undo" in d.find_element(By.ID, "toast-text").text)
    api("/api/study/answer", "POST", {"id": ids[0], "grade": "good", "seconds": 3}, token)
    ActionChains(page).send_keys("u").perform()
    wait(page, lambda d: "Moved 3 words back to the Trash" in d.find_element(By.ID, "toast-text").text)
    text = page.find_element(By.ID, "toast-text").text
    assert "1 of them had been studied: their answers stay with them in the Trash" in text, text
    assert api("/api/trash?q=estudiotrash")["total"] == 3


def test_trash_keys_move_and_select(page):
    token = csrf(page)
    ids = trashed_on_the_page(page, token, "teclatrash", 4, "keys")
    page.find_element(By.ID, "trash-page-title").click()
    # j onto the first entry, x ticks it; j, j and Shift+x tick the range to the third.
    ActionChains(page).send_keys("j").send_keys("x").perform()
    wait(page, lambda d: d.find_element(By.ID, "trash-selection").text == "1 word selected")
    ActionChains(page).send_keys("j").send_keys("j").key_down(Keys.SHIFT).send_keys("x").key_up(Keys.SHIFT).perform()
    wait(page, lambda d: d.find_element(By.ID, "trash-selection").text == "3 words selected")
    picks = page.find_elements(By.CSS_SELECTOR, "#trash-list .trash-pick")
    assert [pick.is_selected() for pick in picks] == [True, True, True, False]
    assert "trash-pick" in (page.switch_to.active_element.get_attribute("class") or "")
    # k back to the second, x unticks it; Esc clears the rest.
    ActionChains(page).send_keys("k").send_keys("x").perform()
    wait(page, lambda d: d.find_element(By.ID, "trash-selection").text == "2 words selected")
    assert [pick.is_selected() for pick in picks] == [True, False, True, False]
    ActionChains(page).send_keys(Keys.ESCAPE).perform()
    wait(page, lambda d: d.find_element(By.ID, "trash-selection").text == "")
    # The list's own keys did nothing meanwhile: nothing was selected there.
    assert not page.find_element(By.ID, "bulk-bar").is_displayed()
    api("/api/bulk/purge", "POST", {"ids": ids}, token)


def test_more_while_the_trash_is_reloading_adds_the_next_page_once(page):
    """"More" clicked while the Trash's list is still being fetched again (opened from
    Settings a second time) waited for nothing and asked for the first page once more:
    the list showed every entry of it twice. Now it waits for the fresh list and adds the
    page after it."""
    token = csrf(page)
    ids = [api("/api/words", "POST", {"term": f"recarga{index:03d}", "meaning": "twice?"}, token)["word"]["id"]
           for index in range(120)]
    api("/api/bulk/trash", "POST", {"ids": ids}, token)
    page.get(page.current_url.split("#")[0] + "#/trash")
    wait(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#trash-list li")) == 50)
    page.get(page.current_url.split("#")[0] + "#settings")
    wait(page, lambda d: d.find_element(By.ID, "settings-trash-link").is_displayed())
    # The list of the first visit is still in the page. The app opens the Trash on the
    # hash change (its fetch then on its way); "More" is clicked right after, in the same
    # turn of the event loop as that fetch's start.
    page.execute_script(
        """
        window.addEventListener("hashchange", () => setTimeout(() => document.getElementById("trash-more").click(), 0),
                                {once: true});
        document.getElementById("settings-trash-link").click();
        """)
    wait(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#trash-list li")) == 100)
    time.sleep(0.5)  # anything still on its way lands
    shown = [item.get_attribute("data-id") for item in page.find_elements(By.CSS_SELECTOR, "#trash-list li")]
    assert len(shown) == 100 and len(set(shown)) == 100
    api("/api/bulk/purge", "POST", {"ids": ids}, token)
