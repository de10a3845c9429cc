"""A tag on a quarter of a million words takes seconds: the page says how far it has come."""
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from conftest import api
from test_web_app import csrf, wait

COUNT = 20000


def watch(page, element_id):
    """Collects every text `element_id` shows from now on, with whether the bulk buttons
    were disabled at that moment."""
    page.execute_script("""
        window.seenProgress = [];
        const text = document.getElementById(arguments[0]);
        new MutationObserver(() => window.seenProgress.push(
            [text.textContent, document.getElementById('bulk-add-tag').disabled])).observe(
            text, {childList: true, characterData: true, subtree: true});""", element_id)


def counted(page, phase):
    seen = page.execute_script("return window.seenProgress")
    return [line for line, _ in seen if line.startswith(phase + ": ") and line.endswith(f" of {COUNT:,} words")], seen


def test_a_bulk_tag_on_many_words_and_its_undo_show_how_far_they_have_come(page):
    token = csrf(page)
    rows = ["term\tmeaning"] + [f"progresivo{index}\tmany words" for index in range(COUNT)]
    api("/api/import?name=progresivo.tsv", "POST", ("\n".join(rows) + "\n").encode(), token, timeout=180)
    search_box = page.find_element(By.ID, "search")
    search_box.clear()
    search_box.send_keys("progresivo")
    wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, "#words .word-pick"), seconds=20)
    page.find_elements(By.CSS_SELECTOR, "#words .word-pick")[0].click()
    select_all = wait(page, lambda d: d.find_element(By.ID, "bulk-all").is_displayed() and d.find_element(By.ID, "bulk-all"))
    select_all.click()
    wait(page, lambda d: d.find_element(By.ID, "bulk-count").text == f"All {COUNT:,} matches selected")
    page.find_element(By.ID, "bulk-tag").send_keys("repaso")
    watch(page, "bulk-progress-text")
    page.find_element(By.ID, "bulk-add-tag").click()
    wait(page, lambda d: "Press U to undo" in d.find_element(By.ID, "toast-text").text, seconds=180)
    toast = page.find_element(By.ID, "toast-text").text
    assert toast.startswith("Added the tag") and "repaso" in toast and f"to {COUNT:,} words" in toast, toast
    lines, seen = counted(page, "Adding the tag")
    assert lines, seen
    # Once every word is handed over, the label says the step is finishing (its search
    # index and commit), and no count comes after that.
    texts = [line for line, _ in seen if line]
    ending = [i for i, line in enumerate(texts) if line == f"Adding the tag: {COUNT:,} words done, finishing\u2026"]
    assert not any(line.endswith(f" of {COUNT:,} words") for line in (texts[ending[0]:] if ending else [])), texts
    assert f"Adding the tag: {COUNT:,} of {COUNT:,} words" not in texts, texts
    # The buttons stay disabled while it runs, and the progress is gone once it is done.
    assert all(disabled for line, disabled in seen if line)
    assert not page.find_element(By.ID, "bulk-progress-box").is_displayed()
    assert api("/api/search?q=tag:repaso&limit=1")["total"] == COUNT

    watch(page, "bulk-progress-text")
    ActionChains(page).send_keys("u").perform()
    wait(page, lambda d: f"{COUNT:,} words as before" in d.find_element(By.ID, "toast-text").text, seconds=180)
    lines, seen = counted(page, "Undoing")
    assert lines, seen
    assert api("/api/search?q=tag:repaso&limit=1")["total"] == 0

    # The library is shared by the scenarios that follow: take the words out again (the
    # import's undo keeps words edited since, and these were).
    assert api("/api/bulk/trash", "POST", {"select": "matches", "q": "progresivo"}, token, timeout=180)["changed"] == COUNT
    api("/api/trash/empty", "POST", {}, token, timeout=180)
