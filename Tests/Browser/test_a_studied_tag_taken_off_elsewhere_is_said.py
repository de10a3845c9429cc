"""A tag taken off every word elsewhere while it was being studied left the Study page's tag
menu blank, over "Nothing is scheduled" (found by the exploratory helper, round 14B): the
menu keeps the tag, saying it is on no word now."""
from selenium.webdriver.common.by import By

from conftest import api
from test_web_app import csrf, wait

TAG = "efimera"


def test_a_studied_tag_taken_off_elsewhere_is_said(page):
    token = csrf(page)
    word = api("/api/words", "POST", {"term": "fugaz", "meaning": "fleeting", "tags": TAG}, token)["word"]
    page.get(page.current_url.split("#")[0] + "#study")
    wait(page, lambda d: any(o.get_attribute("value") == TAG for o in d.find_elements(By.CSS_SELECTOR, "#study-tag option")))
    page.execute_script("const s = document.getElementById('study-tag'); s.value = arguments[0];"
                        "s.dispatchEvent(new Event('change'));", TAG)
    wait(page, lambda d: d.find_element(By.ID, "study-front").text == "fugaz")
    # Elsewhere (another tab), the tag comes off its only word; here the card is answered.
    api("/api/words/" + word["id"], "PUT", {"tags": []}, token)
    page.find_element(By.ID, "study-reveal").click()
    wait(page, lambda d: d.find_element(By.ID, "study-grades").is_displayed())
    page.find_element(By.CSS_SELECTOR, "#study-grades [data-grade='3']").click()
    wait(page, lambda d: d.find_element(By.ID, "study-done").is_displayed())
    select = page.find_element(By.ID, "study-tag")
    wait(page, lambda d: "on no word now" in select.find_element(By.CSS_SELECTOR, "option:checked").text)
    assert select.get_attribute("value") == TAG


def test_a_screen_reader_hears_the_card_and_its_answer(page):
    """Neither the next term nor the revealed answer was announced (round 14B)."""
    token = csrf(page)
    api("/api/words", "POST", {"term": "anunciado", "meaning": "announced", "tags": "anuncio"}, token)
    page.get(page.current_url.split("#")[0] + "#study")
    wait(page, lambda d: any(o.get_attribute("value") == "anuncio" for o in d.find_elements(By.CSS_SELECTOR, "#study-tag option")))
    page.execute_script("const s = document.getElementById('study-tag'); s.value = 'anuncio';"
                        "s.dispatchEvent(new Event('change'));")
    announce = page.find_element(By.ID, "study-announce")
    assert announce.get_attribute("role") == "status"
    wait(page, lambda d: announce.get_attribute("textContent") == "Next: anunciado")
    page.find_element(By.ID, "study-reveal").click()
    wait(page, lambda d: announce.get_attribute("textContent") == "Answer: announced")
