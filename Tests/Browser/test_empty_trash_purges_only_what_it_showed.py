"""Empty Trash syncs first. Words another device moved to the Trash meanwhile were then
purged too, on every device, though the page had shown and asked about fewer (found by the
exploratory helper, round 8). The question now names the count, the request carries it, and
a Trash that holds another number is refused, purging nothing. So is a Trash that holds as
many words but other ones (one restored elsewhere, another deleted: round 9), by the key of
the words the page was shown."""
import os
import shutil
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


def test_empty_trash_asks_while_a_change_has_not_arrived(page):
    """A sync that could not read every change file another device's record names (a sync
    program still delivering it) no longer lets Empty Trash go on unasked: the file may take
    a word out of the Trash, and the purge beat that on every device (found by the
    exploratory helper, round 12C). Saying no changes nothing; once the file is there, the
    rescue comes in and the word is kept."""
    folder = tempfile.mkdtemp(prefix="midiccio-browser-unread-")
    token = csrf(page)
    api("/api/remote", "PUT", {"folder": folder}, token)
    try:
        word = api("/api/words", "POST", {"term": "rescate", "meaning": "rescue"}, token)["word"]
        api("/api/words/" + word["id"], "DELETE", None, token)
        page.refresh()
        page.find_element(By.ID, "settings-button").click()
        sync_in_settings(page)
        # The phone reaches the folder through a link; for its rescue it is pointed at a
        # copy of the folder, where its sync program has its files first: the page never
        # sees the change file until the test delivers it.
        link = folder + "-phone"
        os.symlink(folder, link)
        on_phone = device_in(link)
        on_phone("restore", word["id"])
        on_phone("edit", word["id"], "--meaning", "rescued on the phone")
        stage = folder + "-stage"
        shutil.copytree(folder, stage)
        os.remove(link)
        os.symlink(stage, link)
        on_phone("sync")
        arriving = [path for path in walk(os.path.join(stage, "changes")) if path.endswith(".chg")
                    and not os.path.exists(path.replace(stage, folder, 1))]
        assert len(arriving) == 1, arriving
        # Its record arrives first.
        for path in walk(os.path.join(stage, "devices")):
            shutil.copyfile(path, path.replace(stage, folder, 1))

        page.execute_script("arguments[0].scrollIntoView({block: 'center'})", page.find_element(By.ID, "trash-link"))
        page.find_element(By.ID, "trash-link").click()
        wait(page, lambda d: "in the Trash" in d.find_element(By.ID, "trash-summary").text)
        page.find_element(By.ID, "empty-trash").click()
        wait(page, EC.alert_is_present()).accept()
        alert = wait(page, EC.alert_is_present(), 15)
        assert "Not every change of" in alert.text and "Go on anyway?" in alert.text, alert.text
        alert.dismiss()
        wait(page, lambda d: "Nothing was changed" in d.find_element(By.ID, "toast").text, 15)
        assert api("/api/words/" + word["id"])["word"].get("deletedAt"), "still in the Trash here, not purged"

        # The file arrives: the next sync brings the rescue in, and the word stays.
        target = arriving[0].replace(stage, folder, 1)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(arriving[0], target)
        page.find_element(By.ID, "trash-back").click()
        if page.find_element(By.ID, "back-button").is_displayed():
            go_back_to_words(page)
        page.find_element(By.ID, "settings-button").click()
        sync_in_settings(page)
        rescued = api("/api/words/" + word["id"])["word"]
        assert not rescued.get("deletedAt") and rescued["meaning"] == "rescued on the phone", rescued
        go_back_to_words(page)
    finally:
        api("/api/remote", "PUT", {}, csrf(page))


def walk(folder):
    """Every file under `folder`."""
    return [os.path.join(root, name) for root, _, names in os.walk(folder) for name in names]
