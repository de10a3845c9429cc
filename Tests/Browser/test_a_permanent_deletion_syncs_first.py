"""A permanent deletion (and a restore or an undo) syncs first: a word another device had
taken out of the Trash and given a note, that this page had not pulled yet, was purged on
every device with its note (found by the exploratory helper, round 5)."""
import os
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import api, device_in
from test_a_copy_says_it_took_a_new_device_id import sync_in_settings
from test_trash_page import trash_terms
from test_web_app import csrf, wait


def pick_both_and_delete_permanently(page, record_lost):
    """Two words in the Trash here; the phone takes the first out of the Trash, gives it a
    note and syncs (with `record_lost`, its record of that sync is put back to the one
    before, as when the record could not be written after the change file went up: a 503,
    a lock another WebDAV client held). This page, which still shows both in the Trash,
    picks both and deletes them permanently: the restore is pulled first, so only the
    second is deleted, and the Trash is shown as it is now."""
    prefix = "unnamedsync" if record_lost else "purgasync"
    folder = tempfile.mkdtemp(prefix="midiccio-browser-purge-")
    token = csrf(page)
    api("/api/remote", "PUT", {"folder": folder}, token)
    try:
        ids = [api("/api/words", "POST", {"term": prefix + "-" + end}, token)["word"]["id"] for end in ("a", "b")]
        api("/api/bulk/trash", "POST", {"ids": ids}, token)
        page.refresh()
        page.find_element(By.ID, "settings-button").click()
        sync_in_settings(page)

        on_phone = device_in(folder)
        on_phone("restore", ids[0])
        on_phone("edit", ids[0], "--notes", "kept on the phone")
        devices = os.path.join(folder, "devices")
        records = {}
        if record_lost:
            records = {name: open(os.path.join(devices, name), "rb").read() for name in os.listdir(devices) if name.endswith(".json")}
        on_phone("sync")
        for name, data in records.items():
            with open(os.path.join(devices, name), "wb") as record:
                record.write(data)

        page.get(page.current_url.split("#")[0] + "#/trash")
        wait(page, lambda d: d.find_element(By.ID, "trash-view").is_displayed())
        page.find_element(By.ID, "trash-search").send_keys(prefix.upper())
        wait(page, lambda d: "2 words match" in d.find_element(By.ID, "trash-summary").text)
        wait(page, lambda d: sorted(trash_terms(d)) == [prefix + "-a", prefix + "-b"])
        page.find_element(By.ID, "trash-all").click()
        purge = page.find_element(By.ID, "trash-purge-selected")
        wait(page, lambda d: purge.text == "Delete 2 words permanently")
        purge.click()
        wait(page, EC.alert_is_present()).accept()
        wait(page, lambda d: trash_terms(d) == [prefix + "-b"], 15)
        assert api("/api/words/" + ids[0])["word"]["notes"] == "kept on the phone"
        assert api("/api/trash?q=" + prefix)["total"] == 1
    finally:
        # The tests share one library: the next ones sync nowhere again.
        api("/api/remote", "PUT", {}, csrf(page))


def test_delete_permanently_pulls_a_restore_made_elsewhere_first(page):
    pick_both_and_delete_permanently(page, record_lost=False)


def test_delete_permanently_reads_an_upload_whose_record_failed(page):
    """The sync before the deletion reads the phone's change file that its record does not
    name yet (round 20B #11)."""
    pick_both_and_delete_permanently(page, record_lost=True)
