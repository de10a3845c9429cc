"""A bulk action runs on the server while the page watches it. A moment without an answer
(Wi-Fi dropping) made the page say "MiDiccio is not answering" for good while the action
completed, with no Undo; Enter twice in the tag box ran the action twice, and the second's
"0 words" notice, with no Undo, replaced the first's; a reload while it ran was not asked
about, and the new page listed the words as before (found by the exploratory helper,
round 13B)."""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import api
from test_web_app import csrf, wait

# The page's looks at a running action fail (as with the network gone) while
# window.unreachable is true; its other requests go through.
BLIP = """
    window.unreachable = false;
    const original = window.fetch;
    window.fetch = (url, options) => window.unreachable && String(url).includes("/api/jobs/")
        ? Promise.reject(new TypeError("Failed to fetch"))
        : original(url, options);
"""


def tick_words(page, prefix, count):
    token = csrf(page)
    for index in range(count):
        api("/api/words", "POST", {"term": f"{prefix}{index}"}, token)
    page.refresh()
    search = wait(page, lambda d: d.find_element(By.ID, "search"))
    search.send_keys(prefix)
    # The search has settled on the whole prefix (a tick made under a shorter one is
    # dropped when the list follows the longer one).
    wait(page, lambda d: "q=" + prefix in d.current_url and d.find_element(By.ID, "count").text == f"{count} matches")
    wait(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#words .word-pick")) == count)

    def tick(index):
        box = page.find_elements(By.CSS_SELECTOR, "#words .word-pick")[index]
        if not box.is_selected():
            box.click()
        return box.is_selected()

    # The list is drawn again as the search settles: each box is found afresh.
    for index in range(count):
        wait(page, lambda d: tick(index))


def tagged(prefix, tag):
    return [w for w in api("/api/search?" + "q=" + prefix + "&limit=100")["words"] if tag in w["tags"]]


def test_a_moment_without_an_answer_still_ends_with_the_outcome_and_its_undo(page):
    tick_words(page, "parpadeo", 3)
    page.execute_script(BLIP)
    page.execute_script("window.unreachable = true; setTimeout(() => { window.unreachable = false; }, 1500)")
    page.find_element(By.ID, "bulk-tag").send_keys("corte")
    page.find_element(By.ID, "bulk-add-tag").click()
    toast = page.find_element(By.ID, "toast-text")
    wait(page, lambda d: "Press U to undo" in toast.text, seconds=15)
    assert "to 3 words" in toast.text, toast.text
    assert "not answering" not in toast.text
    assert len(tagged("parpadeo", "corte")) == 3


def test_enter_twice_in_the_tag_box_runs_the_action_once_with_its_undo(page):
    tick_words(page, "dosenter", 2)
    box = page.find_element(By.ID, "bulk-tag")
    box.send_keys("nuevo", Keys.ENTER, Keys.ENTER)
    toast = page.find_element(By.ID, "toast-text")
    wait(page, lambda d: "Added the tag" in toast.text)
    assert "to 2 words. Press U to undo." in toast.text, toast.text
    assert len(tagged("dosenter", "nuevo")) == 2
    page.find_element(By.ID, "words").send_keys("u")
    wait(page, lambda d: "Undone: 2 words as before" in toast.text)
    assert tagged("dosenter", "nuevo") == []


def test_leaving_the_page_asks_while_an_action_runs(page):
    tick_words(page, "salida", 2)
    page.execute_script(BLIP)
    asks = "const e = new Event('beforeunload', {cancelable: true}); window.dispatchEvent(e); return e.defaultPrevented;"
    assert page.execute_script(asks) is False, "nothing running: leaving does not ask"
    # The page cannot see the action end while its looks fail: it runs meanwhile.
    page.execute_script("window.unreachable = true")
    page.find_element(By.ID, "bulk-tag").send_keys("partida")
    page.find_element(By.ID, "bulk-add-tag").click()
    wait(page, lambda d: d.execute_script(asks) is True)
    page.execute_script("window.unreachable = false")
    wait(page, lambda d: "Press U to undo" in d.find_element(By.ID, "toast-text").text, seconds=15)
    assert page.execute_script(asks) is False
