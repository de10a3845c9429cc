"""Two faults of the Study page (found by the exploratory helper, round 13B): saving one
daily limit put back the other one's box, undoing a value another device (or the command
line) had set meanwhile; and an answer the server refused because it now serves another
library read "no longer in the library (deleted meanwhile)", card after card."""
import os
import subprocess

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from conftest import BINARY, api
from test_web_app import csrf, wait

LIBRARY = os.environ.get("MIDICCIO_LIBRARY", "")


def open_study(page):
    page.refresh()
    page.find_element(By.ID, "study-button").click()
    wait(page, lambda d: d.find_element(By.ID, "study-view").is_displayed())


def setting(name):
    return subprocess.run([BINARY, "--library", LIBRARY, "config", "get", name], capture_output=True, text=True,
                          check=True, env=dict(os.environ, MIDICCIO_OFFLINE="1")).stdout.strip()


def test_saving_one_limit_keeps_the_other_set_elsewhere_meanwhile(page):
    open_study(page)
    wait(page, lambda d: d.find_element(By.ID, "study-reviews-per-day").get_attribute("value") != "")
    # Set elsewhere while the page is open.
    subprocess.run([BINARY, "--library", LIBRARY, "config", "set", "study.reviewsPerDay", "500"], check=True,
                   capture_output=True, env=dict(os.environ, MIDICCIO_OFFLINE="1"))
    new = page.find_element(By.ID, "study-new-per-day")
    new.clear()
    new.send_keys("30")
    page.find_element(By.ID, "study-new-per-day").submit()
    wait(page, lambda d: "Daily limits" in d.find_element(By.ID, "toast-text").text)
    assert setting("study.newPerDay") == "30"
    assert setting("study.reviewsPerDay") == "500", "the limit set elsewhere stays"
    assert page.find_element(By.ID, "study-reviews-per-day").get_attribute("value") == "500"
    api("/api/study/limits", "POST", {"newPerDay": 20, "reviewsPerDay": 200}, csrf(page))


def test_an_answer_refused_for_another_library_says_so_and_stays(page):
    api("/api/words", "POST", {"term": "otrabiblioteca", "meaning": "another library"}, csrf(page))
    open_study(page)
    wait(page, lambda d: d.find_element(By.ID, "study-card").is_displayed())
    # What the server answers once it was started again on another library.
    page.execute_script("""
        const original = window.fetch;
        window.fetch = (url, options) => String(url).includes("/api/study/answer")
            ? Promise.resolve(new Response(JSON.stringify({error: "this page was opened for another library than the one MiDiccio serves now; nothing was changed. Copy anything you typed, then reload the page.", field: "library"}), {status: 409, headers: {"Content-Type": "application/json"}}))
            : original(url, options);
    """)
    card = page.find_element(By.ID, "study-front").text
    ActionChains(page).send_keys(" ").perform()
    wait(page, lambda d: d.find_element(By.ID, "study-grades").is_displayed())
    ActionChains(page).send_keys("3").perform()
    toast = page.find_element(By.ID, "toast-text")
    wait(page, lambda d: "another library" in toast.text)
    assert "deleted meanwhile" not in toast.text
    assert page.find_element(By.ID, "study-front").text == card, "the card stays: nothing was recorded"
