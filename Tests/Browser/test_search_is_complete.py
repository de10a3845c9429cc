"""Search done by the server (issue 13): every match counted and reachable, a tag that
filters before the page is cut, and the search kept in the page's address."""
from urllib.parse import quote

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

from conftest import api
from test_web_app import csrf, terms, wait


def import_sheet(token, name, text):
    return api("/api/import?name=" + quote(name), "POST", text.encode(), token)


def fill(page, word, count, tagged=None, tag=None):
    """`count` words whose meaning holds `word`, oldest first; word number `tagged` gets `tag`."""
    rows = ["term\tmeaning\ttags"]
    for index in range(count):
        rows.append(f"{word}{index}\tthe {word} number {index}\t{tag if index == tagged else ''}")
    report = import_sheet(csrf(page), word + ".tsv", "\n".join(rows) + "\n")
    assert report["added"] == count


def count_text(driver):
    return driver.find_element(By.ID, "count").text


def test_search_with_a_tag_finds_a_word_ranked_250th(page):
    fill(page, "quetzal", 300, tagged=49, tag="rarebird")
    page.refresh()
    search = wait(page, EC.element_to_be_clickable((By.ID, "search")))
    search.send_keys("quetzal")
    # Every match is counted, not the first page's.
    wait(page, lambda d: count_text(d) == "300 matches")
    wait(page, lambda d: Select(d.find_element(By.ID, "tag-filter")).options and any(
        option.get_attribute("value") == "rarebird" for option in Select(d.find_element(By.ID, "tag-filter")).options))
    Select(page.find_element(By.ID, "tag-filter")).select_by_value("rarebird")
    # The 251st of 300 by rank (newest first among equals): filtered before the page is cut.
    wait(page, lambda d: terms(d) == ["quetzal49"])
    assert count_text(page) == "1 match"


def test_scrolling_reaches_every_match(page):
    fill(page, "ocelote", 260)
    page.get(page.current_url.split("?")[0].split("#")[0] + "?q=ocelote")
    wait(page, lambda d: count_text(d) == "260 matches")
    for _ in range(20):
        if len(terms(page)) >= 260:
            break
        page.execute_script("window.scrollTo(0, document.body.scrollHeight)")
        wait(page, lambda d: len(terms(d)) % 50 == 0 or len(terms(d)) == 260, seconds=3)
    wait(page, lambda d: len(set(terms(d))) == 260, seconds=10)


def test_search_tag_and_order_are_kept_in_the_address(page):
    token = csrf(page)
    for term in ("zarzamora", "zarza", "zarzal"):
        api("/api/words", "POST", {"term": term, "meaning": "bramble", "tags": ["plants"]}, token)
    page.refresh()
    search = wait(page, EC.element_to_be_clickable((By.ID, "search")))
    search.send_keys("zarz")
    wait(page, lambda d: "q=zarz" in d.current_url)
    Select(page.find_element(By.ID, "sort")).select_by_value("term")
    wait(page, lambda d: "sort=term" in d.current_url and terms(d) == ["zarza", "zarzal", "zarzamora"])
    # Reload keeps all of it.
    page.refresh()
    wait(page, lambda d: d.find_element(By.ID, "search").get_attribute("value") == "zarz")
    wait(page, lambda d: terms(d) == ["zarza", "zarzal", "zarzamora"])
    assert Select(page.find_element(By.ID, "sort")).first_selected_option.get_attribute("value") == "term"
    # Back goes to the order before.
    page.back()
    wait(page, lambda d: "sort=term" not in d.current_url)
    wait(page, lambda d: Select(d.find_element(By.ID, "sort")).first_selected_option.get_attribute("value") == "relevance")
    assert terms(page)[0] == "zarza"  # the exact-prefix tier, shortest term key first


def test_prefixes_narrow_a_search(page):
    token = csrf(page)
    api("/api/words", "POST", {"term": "albaricoque", "meaning": "apricot", "tags": ["fruit"]}, token)
    api("/api/words", "POST", {"term": "apricot", "meaning": "albaricoque", "tags": ["english"]}, token)
    page.get(page.current_url.split("?")[0].split("#")[0] + "?q=" + quote("meaning:apricot -tag:english"))
    wait(page, lambda d: terms(d) == ["albaricoque"])
