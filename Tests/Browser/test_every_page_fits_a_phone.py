"""Every page of the web app at a phone's 390x844: the list, a word's view, the editor,
Study with its charts, and Settings' backup and import cards. Nothing is wider than the
screen, and every button, field and link to press is at least 44 px each way."""
import os
import time

import pytest
from selenium.webdriver.common.by import By

from conftest import SCREENSHOTS, URL, api, chromium
from test_web_app import csrf, terms, wait, word_item

# Elements wider than the screen, and controls smaller than a finger (44 CSS px), among
# those shown. A control inside a box that scrolls sideways on its own may reach past
# the screen (the import preview's table); a checkbox counts by its label.
PROBLEMS = """
const width = window.innerWidth;
const shown = e => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
  return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && !e.closest('[hidden]'); };
const inScroller = e => { for (let p = e.parentElement; p; p = p.parentElement) {
  const o = getComputedStyle(p).overflowX; if (o === 'auto' || o === 'scroll') return true; } return false; };
const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ').join('.') : '')
  + ' "' + (e.textContent || e.value || '').trim().slice(0, 20) + '"';
const within = tail => arguments[0].split(',').map(s => s.trim() + ' ' + tail).join(', ');
const wide = [], small = [];
for (const e of document.querySelectorAll(within('*'))) {
  if (!shown(e) || inScroller(e)) continue;
  const r = e.getBoundingClientRect();
  if (r.left < -0.5 || r.right > width + 0.5) wide.push(name(e) + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
}
for (const e of document.querySelectorAll(within(':is(button, a, select, input, textarea, summary)'))) {
  if (!shown(e) || inScroller(e)) continue;
  let target = e;
  if (e.type === 'checkbox' || e.type === 'radio') target = e.closest('label') || e;
  const r = target.getBoundingClientRect();
  if (r.height < 43.5 || r.width < 43.5) small.push(name(target) + ' ' + Math.round(r.width) + 'x' + Math.round(r.height));
}
return {scrollWidth: document.documentElement.scrollWidth, wide: wide, small: small};
"""


@pytest.fixture
def phone(request):
    driver = chromium("390,844")
    # Headless Chromium keeps windows at least 500 px wide: the phone is emulated.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True})
    driver.get(URL)
    yield driver
    driver.quit()


def check(phone, scope, screenshot):
    time.sleep(0.3)
    os.makedirs(SCREENSHOTS, exist_ok=True)
    phone.save_screenshot(os.path.join(SCREENSHOTS, "phone-" + screenshot + ".png"))
    found = phone.execute_script(PROBLEMS, scope)
    assert phone.execute_script("return window.innerWidth") == 390
    assert found["scrollWidth"] <= 390, found
    assert not found["wide"], "wider than the screen: %s" % found["wide"]
    assert not found["small"], "smaller than a finger: %s" % found["small"]


def test_every_page_fits_a_phone(phone):
    api("/api/words", "POST", dict(term="mariposa", meaning="butterfly, " * 30, examples=["La mariposa vuela."],
                                   notes="una nota larga " * 20,
                                   # A long tag: the tag filters list it, and must still fit.
                                   tags=["animales", "campo", "english-phrasal-verbs-with-prepositions-and-particles"]),
        csrf(phone))
    phone.refresh()
    wait(phone, lambda d: "mariposa" in terms(d))
    check(phone, "body > header, #list-view", "list")

    word_item(phone, "mariposa").find_element(By.CSS_SELECTOR, ".word-open").click()
    wait(phone, lambda d: d.find_element(By.ID, "viewer").is_displayed())
    check(phone, "#viewer", "word-view")

    phone.find_element(By.CSS_SELECTOR, "#viewer-edit").click()
    wait(phone, lambda d: d.find_element(By.ID, "editor").is_displayed())
    check(phone, "#editor", "editor")
    phone.execute_script("document.getElementById('editor').close()")

    phone.find_element(By.ID, "view-table").click()
    wait(phone, lambda d: d.find_element(By.ID, "view-table").get_attribute("aria-pressed") == "true")
    check(phone, "body > header, #list-view", "table")
    phone.find_element(By.ID, "view-cards").click()

    # The notice of a move to the Trash, with its Undo: whole, and Undo inside its button
    # (from the middle of the screen it had half of it: "Press U to", round 18B).
    api("/api/words", "POST", dict(term="hormiga"), csrf(phone))
    phone.refresh()
    wait(phone, lambda d: "hormiga" in terms(d))
    word_item(phone, "hormiga").find_element(By.CSS_SELECTOR, ".delete").click()
    wait(phone, lambda d: "to the Trash" in d.find_element(By.ID, "toast").text)
    # A touch screen is told of the Undo button, not of a key (round 26B #6).
    assert "Press U" not in phone.find_element(By.ID, "toast").text
    check(phone, "#toast", "toast")
    clipped = phone.execute_script(
        "const t = document.getElementById('toast'), s = t.querySelector('span'), b = t.querySelector('button');"
        "return {text: s.scrollHeight - s.clientHeight, button: b.scrollWidth - b.clientWidth,"
        " width: t.getBoundingClientRect().width};")
    assert clipped["text"] <= 1 and clipped["button"] <= 1, clipped
    assert clipped["width"] > 390 * 0.6, clipped

    api("/api/words", "POST", dict(term="polilla", meaning="moth, " * 30), csrf(phone))
    moth = [w for w in api("/api/search?q=polilla", "GET", None, csrf(phone))["words"] if w["term"] == "polilla"][0]
    api("/api/words/" + moth["id"], "DELETE", None, csrf(phone))
    phone.get(URL.rstrip("/") + "/#/trash")
    wait(phone, lambda d: d.find_element(By.ID, "trash-view").is_displayed() and "polilla" in d.find_element(By.ID, "trash-view").text)
    check(phone, "#trash-view", "trash")

    phone.get(URL.rstrip("/") + "/#study")
    wait(phone, lambda d: d.find_element(By.ID, "study-view").is_displayed())
    wait(phone, lambda d: d.execute_script(
        "return document.querySelector('#chart-forecast svg') !== null;"))
    check(phone, "#study-view", "study")
    phone.execute_script("document.getElementById('chart-reviews').scrollIntoView()")
    check(phone, "#study-view", "study-charts")

    phone.get(URL.rstrip("/") + "/#settings")
    wait(phone, lambda d: d.find_element(By.ID, "settings-view").is_displayed())
    path = os.path.join(os.environ.get("MIDICCIO_WORK", "/tmp"), "phone-words.csv")
    with open(path, "w") as sheet:
        sheet.write("term,meaning,reading,examples,notes,tags\n"
                    + "".join("palabra%d,%s,,,%s,uno dos\n" % (n, "significado " * 12, "nota " * 12) for n in range(3)))
    phone.find_element(By.ID, "import-file").send_keys(path)
    wait(phone, lambda d: d.find_element(By.ID, "import-preview").is_displayed())
    phone.execute_script("document.getElementById('backup-title').scrollIntoView()")
    check(phone, "#settings-view", "backup-and-import")
