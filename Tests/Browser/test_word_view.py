"""A read-only word view (issue 13): clicking a word opened the editor, and Esc or Cancel
threw typed text away without asking. A 20,000-character meaning made one card 19,512 px tall."""
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from conftest import api
from test_web_app import csrf, terms, wait, word_item

LONG = " ".join("palabra%d" % n for n in range(1_500)) + " FIN"


def add(page, term, **fields):
    api("/api/words", "POST", dict(term=term, **fields), csrf(page))
    page.refresh()
    wait(page, lambda d: term in terms(d))


def shown(page, id):
    return page.find_element(By.ID, id).is_displayed()


def test_clicking_a_word_opens_a_view_with_every_field_whole(page):
    add(page, "ventana", meaning=LONG, examples=["Abre la ventana.", LONG], notes="una nota", tags=["casa"])
    item = word_item(page, "ventana")
    # The list cuts the long meaning to a few lines.
    assert item.size["height"] < 300, item.size
    cut = page.execute_script(
        "const m = arguments[0]; return [m.clientHeight, m.scrollHeight];", item.find_element(By.CSS_SELECTOR, ".meaning"))
    assert cut[0] < 100 and cut[1] > 10 * cut[0], cut
    item.find_element(By.CSS_SELECTOR, ".word-open").click()
    wait(page, lambda d: shown(d, "viewer"))
    assert not shown(page, "editor")
    assert page.find_element(By.ID, "v-meaning").text.endswith("FIN")
    examples = [li.text for li in page.find_elements(By.CSS_SELECTOR, "#v-examples li")]
    assert examples[0] == "Abre la ventana." and examples[1].endswith("FIN")
    assert page.find_element(By.ID, "v-notes").text == "una nota"
    assert page.find_element(By.ID, "v-tags").text == "casa"
    # Esc closes the view, and focus goes back to the word.
    ActionChains(page).send_keys(Keys.ESCAPE).perform()
    wait(page, lambda d: not shown(d, "viewer"))
    assert page.switch_to.active_element.get_attribute("aria-label") == "Open ventana"
    # Enter on a word opens it too.
    page.switch_to.active_element.send_keys(Keys.ENTER)
    wait(page, lambda d: shown(d, "viewer"))


def test_e_in_the_view_edits(page):
    add(page, "puerta", meaning="door", notes="de madera")
    word_item(page, "puerta").find_element(By.CSS_SELECTOR, ".word-open").click()
    wait(page, lambda d: shown(d, "viewer"))
    ActionChains(page).send_keys("e").perform()
    wait(page, lambda d: shown(d, "editor"))
    assert not shown(page, "viewer")
    assert page.find_element(By.ID, "f-meaning").get_attribute("value") == "door"
    assert page.find_element(By.ID, "f-term").get_attribute("value") == "puerta", "no stray e typed"


def test_esc_with_changes_asks_first(page):
    add(page, "silla", meaning="chair")
    word_item(page, "silla").find_element(By.CSS_SELECTOR, ".word-open").click()
    wait(page, EC.element_to_be_clickable((By.ID, "viewer-edit"))).click()
    meaning = wait(page, EC.visibility_of_element_located((By.ID, "f-meaning")))
    # Unchanged: Esc closes without asking.
    meaning.send_keys(Keys.ESCAPE)
    wait(page, lambda d: not shown(d, "editor"))
    assert not EC.alert_is_present()(page)

    word_item(page, "silla").find_element(By.CSS_SELECTOR, ".word-open").click()
    wait(page, EC.element_to_be_clickable((By.ID, "viewer-edit"))).click()
    meaning = wait(page, EC.visibility_of_element_located((By.ID, "f-meaning")))
    meaning.send_keys(" of wood")
    meaning.send_keys(Keys.ESCAPE)
    alert = wait(page, EC.alert_is_present())
    assert "Discard" in alert.text
    alert.dismiss()  # keep editing: nothing lost
    assert shown(page, "editor")
    assert page.find_element(By.ID, "f-meaning").get_attribute("value") == "chair of wood"
    page.find_element(By.ID, "editor-cancel").click()
    wait(page, EC.alert_is_present()).accept()
    wait(page, lambda d: not shown(d, "editor"))
    assert word_item(page, "silla").find_element(By.CSS_SELECTOR, ".meaning").text == "chair"


def test_keys_move_open_edit_and_delete(page):
    for term in ("uno", "dos", "tres"):
        api("/api/words", "POST", {"term": term}, csrf(page))
    page.refresh()
    wait(page, lambda d: terms(d)[:3] == ["tres", "dos", "uno"])
    page.execute_script("document.activeElement.blur()")
    ActionChains(page).send_keys("j").perform()
    assert page.switch_to.active_element.get_attribute("aria-label") == "Open tres"
    ActionChains(page).send_keys("jjk").perform()
    assert page.switch_to.active_element.get_attribute("aria-label") == "Open dos"
    ActionChains(page).send_keys(Keys.ENTER).perform()
    wait(page, lambda d: shown(d, "viewer") and d.find_element(By.ID, "v-term").text == "dos")
    ActionChains(page).send_keys(Keys.ESCAPE).perform()
    wait(page, lambda d: not shown(d, "viewer"))
    ActionChains(page).send_keys("e").perform()
    wait(page, lambda d: shown(d, "editor") and d.find_element(By.ID, "f-term").get_attribute("value") == "dos")
    ActionChains(page).send_keys(Keys.ESCAPE).perform()
    wait(page, lambda d: not shown(d, "editor"))
    ActionChains(page).send_keys("d").perform()
    wait(page, lambda d: "dos" not in terms(d))
    ActionChains(page).send_keys("?").perform()
    wait(page, lambda d: shown(d, "keys-help"))
    assert "Next and previous word" in page.find_element(By.ID, "keys-help").text
