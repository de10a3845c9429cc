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


def trashed_here_edited_on_the_phone(page, term):
    """Syncs the page through a new folder with `term`, lets the phone edit it (not synced
    yet), moves it to the Trash here, shows the Trash, then lets the phone sync. Returns the
    word as made and the folder."""
    folder = tempfile.mkdtemp(prefix="midiccio-browser-trash-edit-")
    token = csrf(page)
    api("/api/remote", "PUT", {"folder": folder}, token)
    word = api("/api/words", "POST", {"term": term, "meaning": "as shown"}, token)["word"]
    page.refresh()
    page.find_element(By.ID, "settings-button").click()
    sync_in_settings(page)
    on_phone = device_in(folder)
    on_phone("edit", word["id"], "--meaning", "typed on the phone")
    api("/api/words/" + word["id"], "DELETE", None, token)
    go_back_to_words(page)
    page.execute_script("arguments[0].scrollIntoView({block: 'center'})", page.find_element(By.ID, "trash-link"))
    page.find_element(By.ID, "trash-link").click()
    page.find_element(By.ID, "trash-search").send_keys(term)
    wait(page, lambda d: "as shown" in d.find_element(By.CSS_SELECTOR, "#trash-list li").text)
    on_phone("sync")
    return word


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
        page.find_element(By.CSS_SELECTOR, "#trash-list li .danger").click()
        wait(page, EC.alert_is_present()).accept()
        toast = page.find_element(By.ID, "toast-text")
        wait(page, lambda d: "changed since the Trash was shown" in toast.text, 15)
        assert "cambiadaentrash" in toast.text and "nothing was deleted" in toast.text, toast.text
        kept = api("/api/words/" + word["id"])["word"]
        assert kept["meaning"] == "typed on the phone" and kept.get("deletedAt"), kept
        # Shown again as it is now, with the phone's edit; deleted when asked about it.
        wait(page, lambda d: "typed on the phone" in d.find_element(By.CSS_SELECTOR, "#trash-list li").text)
        page.find_element(By.CSS_SELECTOR, "#trash-list li .danger").click()
        wait(page, EC.alert_is_present()).accept()
        wait(page, lambda d: "1 word deleted permanently" in toast.text, 15)
        assert purged(word)
    finally:
        leave(page)


def test_empty_trash_with_a_word_the_phone_edited_is_refused(page):
    word = trashed_here_edited_on_the_phone(page, "vaciadaentrash")
    try:
        page.find_element(By.ID, "trash-search").clear()
        wait(page, lambda d: "in the Trash" in d.find_element(By.ID, "trash-summary").text)
        page.find_element(By.ID, "empty-trash").click()
        wait(page, EC.alert_is_present()).accept()
        toast = page.find_element(By.ID, "toast-text")
        wait(page, lambda d: "changed meanwhile" in toast.text, 15)
        kept = api("/api/words/" + word["id"])["word"]
        assert kept["meaning"] == "typed on the phone" and kept.get("deletedAt"), kept
        page.find_element(By.ID, "empty-trash").click()
        wait(page, EC.alert_is_present()).accept()
        wait(page, lambda d: "Deleted" in toast.text and "permanently" in toast.text, 15)
        assert purged(word)
    finally:
        leave(page)
