"""A word moved to the Trash here that the phone had edited before the move reached it: the
Trash page showed it as it was, and Empty Trash (or the row's Delete permanently) synced first,
which brought the phone's edit into the Trash, then purged it, edit and all, on every device
(found by the exploratory helper, round 27B #1; the command line refused). Now the page is
refused, purging nothing, and shows the Trash again with the edit; asked again, it purges."""
import tempfile
import urllib.error

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import api, device_in
from test_a_copy_says_it_took_a_new_device_id import sync_in_settings
from test_web_app import csrf, go_back_to_words, wait


def trashed_here_edited_on_the_phone(page, term, change=("edit", "--meaning", "typed on the phone")):
    """Syncs the page through a new folder with `term`, lets the phone change it (`change`,
    a command given the word's id; not synced yet), moves it to the Trash here, shows the
    Trash, then lets the phone sync. Returns the word as made."""
    folder = tempfile.mkdtemp(prefix="midiccio-browser-trash-edit-")
    token = csrf(page)
    api("/api/remote", "PUT", {"folder": folder}, token)
    word = api("/api/words", "POST", {"term": term, "meaning": "as shown"}, token)["word"]
    page.refresh()
    page.find_element(By.ID, "settings-button").click()
    sync_in_settings(page)
    on_phone = device_in(folder)
    on_phone(change[0], word["id"], *change[1:])
    api("/api/words/" + word["id"], "DELETE", None, token)
    go_back_to_words(page)
    page.execute_script("arguments[0].scrollIntoView({block: 'center'})", page.find_element(By.ID, "trash-link"))
    page.find_element(By.ID, "trash-link").click()
    # The newest entry, first (the tests share a library); no search, whose letters each draw
    # the list again, the last perhaps after the change below.
    wait(page, lambda d: term in d.find_element(By.CSS_SELECTOR, "#trash-list li").text)
    on_phone("sync")
    return word


def delete_first_entry(page):
    """Clicks the first Trash entry's Delete permanently, once the list is drawn for good
    (each letter typed into the search draws it again), and accepts the question."""
    def click(driver):
        driver.find_element(By.CSS_SELECTOR, "#trash-list li .danger").click()
        return True
    wait(page, click)
    wait(page, EC.alert_is_present()).accept()


def purged(word):
    """True when the library no longer holds `word` (404)."""
    try:
        api("/api/words/" + word["id"])
    except urllib.error.HTTPError as error:
        return error.code == 404
    return False


def leave(page):
    page.find_element(By.ID, "trash-back").click()
    if page.find_element(By.ID, "back-button").is_displayed():
        go_back_to_words(page)
    api("/api/remote", "PUT", {}, csrf(page))


def test_delete_permanently_of_a_word_the_phone_edited_is_refused(page):
    word = trashed_here_edited_on_the_phone(page, "cambiadaentrash")
    try:
        delete_first_entry(page)
        toast = page.find_element(By.ID, "toast-text")
        wait(page, lambda d: "in the Trash with a change not seen here before" in toast.text, 15)
        assert "cambiadaentrash" in toast.text and "nothing was deleted" in toast.text, toast.text
        kept = api("/api/words/" + word["id"])["word"]
        assert kept["meaning"] == "typed on the phone" and kept.get("deletedAt"), kept
        # Shown again as it is now, with the phone's edit; deleted when asked about it.
        wait(page, lambda d: "typed on the phone" in d.find_element(By.CSS_SELECTOR, "#trash-list li").text)
        delete_first_entry(page)
        wait(page, lambda d: "1 word deleted permanently" in toast.text, 15)
        assert purged(word)
    finally:
        leave(page)


def test_a_word_changed_from_a_terminal_while_the_trash_is_shown_is_not_purged(page):
    """No sync: a terminal restores the word, edits it and deletes it again while the Trash
    page shows it. The entry's version refuses Delete permanently, and the Trash's key Empty
    Trash (the helper's case without a cloud, round 27B #1)."""
    token = csrf(page)
    word = api("/api/words", "POST", {"term": "terminalentrash", "meaning": "as shown"}, token)["word"]
    api("/api/words/" + word["id"], "DELETE", None, token)
    page.refresh()
    page.execute_script("arguments[0].scrollIntoView({block: 'center'})", page.find_element(By.ID, "trash-link"))
    page.find_element(By.ID, "trash-link").click()
    wait(page, lambda d: "terminalentrash" in d.find_element(By.CSS_SELECTOR, "#trash-list li").text)
    api("/api/bulk/restore", "POST", {"ids": [word["id"]]}, token)
    api("/api/words/" + word["id"], "PUT", {"term": "terminalentrash", "meaning": "typed in a terminal"}, token)
    api("/api/words/" + word["id"], "DELETE", None, token)

    delete_first_entry(page)
    toast = page.find_element(By.ID, "toast-text")
    wait(page, lambda d: "changed since the Trash was shown" in toast.text, 15)
    assert api("/api/words/" + word["id"])["word"]["meaning"] == "typed in a terminal"
    wait(page, lambda d: "typed in a terminal" in d.find_element(By.CSS_SELECTOR, "#trash-list li").text)
    delete_first_entry(page)
    wait(page, lambda d: "1 word deleted permanently" in toast.text, 15)
    assert purged(word)
    page.find_element(By.ID, "trash-back").click()
    if page.find_element(By.ID, "back-button").is_displayed():
        go_back_to_words(page)


def empty_trash_refused_then_emptied(page, word, term):
    """Empty Trash is refused, naming `term`, with `word` kept in the Trash; asked again, it
    empties the Trash, `word` with it. Then leaves the Trash page and the cloud."""
    try:
        wait(page, lambda d: "in the Trash" in d.find_element(By.ID, "trash-summary").text)
        page.find_element(By.ID, "empty-trash").click()
        wait(page, EC.alert_is_present()).accept()
        toast = page.find_element(By.ID, "toast-text")
        wait(page, lambda d: "in the Trash with a change not seen here before" in toast.text, 15)
        assert term in toast.text and "nothing was deleted" in toast.text, toast.text
        assert api("/api/words/" + word["id"])["word"].get("deletedAt"), "still in the Trash, not purged"
        page.find_element(By.ID, "empty-trash").click()
        wait(page, EC.alert_is_present()).accept()
        wait(page, lambda d: "Deleted" in toast.text and "permanently" in toast.text, 15)
        assert purged(word)
    finally:
        leave(page)


def test_empty_trash_with_a_word_the_phone_edited_is_refused(page):
    word = trashed_here_edited_on_the_phone(page, "vaciadaentrash")
    empty_trash_refused_then_emptied(page, word, "vaciadaentrash")


def test_empty_trash_with_a_word_the_phone_studied_is_refused(page):
    """Study answers are not in the Trash's key: the page refuses by what the sync before it
    found, as the command line does (found by the exploratory helper, round 28A #1)."""
    word = trashed_here_edited_on_the_phone(page, "estudiadaentrash", ("review", "good"))
    empty_trash_refused_then_emptied(page, word, "estudiadaentrash")
