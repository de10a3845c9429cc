"""Empty Trash syncs first. Words another device moved to the Trash meanwhile were then
purged too, on every device, though the page had shown and asked about fewer (found by the
exploratory helper, round 8). The question now names the count, the request carries it, and
a Trash that holds another number is refused, purging nothing. So is a Trash that holds as
many words but other ones (one restored elsewhere, another deleted: round 9), by the key of
the words the page was shown."""
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import api, device_in
from test_a_copy_says_it_took_a_new_device_id import sync_in_settings
from test_web_app import csrf, go_back_to_words, wait


def in_trash(count):
    """What the Trash page's summary says of `count` words."""
    return "%d word%s in the Trash" % (count, "" if count == 1 else "s")


def asked(count):
    """How the Empty Trash question names `count` words."""
    return "the 1 word" if count == 1 else "all %d words" % count


def empty_trash_after_the_phone(page, phone_changes):
    """Syncs the page through a new folder with one word in the Trash ("basura") and three
    out of it ("tesoro0".."tesoro2"), shows the Trash, lets the phone change the words
    (`phone_changes(on_phone, junk, keep)`, then a sync), and asks to empty the Trash as
    shown: the answer must be refused, purging nothing. Then asks again and empties it.
    Returns (junk, keep) as they were made."""
    folder = tempfile.mkdtemp(prefix="midiccio-browser-empty-")
    token = csrf(page)
    api("/api/remote", "PUT", {"folder": folder}, token)
    try:
        junk = api("/api/words", "POST", {"term": "basura", "meaning": "junk"}, token)["word"]
        keep = [api("/api/words", "POST", {"term": "tesoro%d" % n, "meaning": "keep"}, token)["word"] for n in range(3)]
        api("/api/words/" + junk["id"], "DELETE", None, token)
        page.refresh()
        page.find_element(By.ID, "settings-button").click()
        sync_in_settings(page)

        # The page shows the Trash (the tests share a library: other tests' words are there
        # too); then the phone changes it and syncs.
        before = api("/api/trash?limit=1")["whole"]
        page.execute_script("arguments[0].scrollIntoView({block: 'center'})", page.find_element(By.ID, "trash-link"))
        page.find_element(By.ID, "trash-link").click()
        wait(page, lambda d: in_trash(before) in d.find_element(By.ID, "trash-summary").text)
        on_phone = device_in(folder)
        on_phone("sync")
        phone_changes(on_phone, junk, keep)
        on_phone("sync")

        page.find_element(By.ID, "empty-trash").click()
        alert = wait(page, EC.alert_is_present())
        assert asked(before) in alert.text, alert.text
        alert.accept()
        wait(page, lambda d: "changed meanwhile" in d.find_element(By.ID, "toast").text, 15)
        for word in keep:
            assert "word" in api("/api/words/" + word["id"]), "not purged"
        after = api("/api/trash?limit=1")["whole"]
        wait(page, lambda d: in_trash(after) in d.find_element(By.ID, "trash-summary").text)

        # Asked again about them all, it empties them.
        page.find_element(By.ID, "empty-trash").click()
        alert = wait(page, EC.alert_is_present())
        assert asked(after) in alert.text, alert.text
        alert.accept()
        deleted = "Deleted %d word%s permanently" % (after, "" if after == 1 else "s")
        wait(page, lambda d: deleted in d.find_element(By.ID, "toast").text, 15)
        page.execute_script("window.scrollTo(0, 0)")
        page.find_element(By.ID, "trash-back").click()
        if page.find_element(By.ID, "back-button").is_displayed():
            go_back_to_words(page)
        return junk, keep
    finally:
        api("/api/remote", "PUT", {}, csrf(page))


def test_empty_trash_refuses_words_it_did_not_show(page):
    # The phone trashes 3 by mistake.
    empty_trash_after_the_phone(page, lambda on_phone, junk, keep: on_phone("delete", *[word["id"] for word in keep]))


def test_empty_trash_refuses_other_words_as_many(page):
    # The phone takes "basura" out of the Trash and trashes "tesoro0" instead.
    def swap(on_phone, junk, keep):
        on_phone("restore", junk["id"])
        on_phone("delete", keep[0]["id"])

    junk, _ = empty_trash_after_the_phone(page, swap)
    assert not api("/api/words/" + junk["id"])["word"].get("deletedAt"), "taken out of the Trash, so never purged"
