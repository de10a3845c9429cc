"""The Study page on a phone (390x844): nothing wider than the screen, every control a
touch-sized target (44 px or more), the daily limits and "more new words" set from the
page, and charts that follow dark mode. Screenshots: study-phone.png, study-phone-dark.png."""
import os

from selenium.webdriver.common.by import By

from conftest import SCREENSHOTS, api
from test_web_app import csrf, wait

TAG = "telefono"

# Every visible control of the Study view smaller than 44x44 CSS pixels (a checkbox counts
# by its label, which is what a finger hits).
SMALL_TARGETS = """
const small = [];
for (const element of document.querySelectorAll('#study-view button, #study-view select, #study-view input')) {
  if (!element.offsetParent) continue;
  const target = element.type === 'checkbox' ? element.closest('label') : element;
  const box = target.getBoundingClientRect();
  if (box.height < 44 || box.width < 44) small.push((element.id || element.textContent.trim()) + ' ' + box.width + 'x' + box.height);
}
return small;
"""


def counts(driver):
    return driver.find_element(By.ID, "study-counts").text


def test_study_page_on_a_phone(page):
    token = csrf(page)
    for n in range(3):
        api("/api/words", "POST", {"term": f"llamada{n}", "meaning": f"call {n}", "tags": TAG}, token)
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                         {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True})
    page.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True})
    try:
        page.get(page.current_url.split("#")[0] + "#study")
        wait(page, lambda d: d.find_element(By.ID, "study-view").is_displayed())
        wait(page, lambda d: any(o.get_attribute("value") == TAG
                                 for o in d.find_elements(By.CSS_SELECTOR, "#study-tag option")))
        page.execute_script("const s = document.getElementById('study-tag'); s.value = arguments[0];"
                            "s.dispatchEvent(new Event('change'));", TAG)
        wait(page, lambda d: "3 new" in counts(d))

        # Daily limits from the page: no new words a day, then two more for this visit.
        limit = page.find_element(By.ID, "study-new-per-day")
        limit.clear()
        limit.send_keys("0")
        page.find_element(By.CSS_SELECTOR, "#study-limits-form button").click()
        wait(page, lambda d: "0 new" in counts(d))
        assert api("/api/study?tag=" + TAG)["newPerDay"] == 0
        extra = page.find_element(By.ID, "study-extra")
        extra.clear()
        extra.send_keys("2")
        page.find_element(By.CSS_SELECTOR, "#study-more-form button").click()
        wait(page, lambda d: "2 new" in counts(d))

        # The card, revealed: grade buttons and every other control are finger-sized.
        reveal = page.find_element(By.ID, "study-reveal")
        page.execute_script("arguments[0].scrollIntoView({block: 'center'})", reveal)
        reveal.click()
        wait(page, lambda d: d.find_element(By.ID, "study-grades").is_displayed())
        wait(page, lambda d: d.execute_script("return document.querySelectorAll('#chart-forecast svg rect.bar').length") == 14)
        assert page.execute_script(SMALL_TARGETS) == []
        assert page.execute_script("return document.documentElement.scrollWidth") <= 390
        # A touch screen is not told of keys it has not got (round 26B #6).
        assert page.execute_script("return matchMedia('(hover: none) and (pointer: coarse)').matches")
        assert not page.find_element(By.CSS_SELECTOR, "#study-view .keys").is_displayed()
        assert [hint for hint in page.find_elements(By.CSS_SELECTOR, "#study-view .key-hint") if hint.is_displayed()] == []
        widths = page.execute_script(
            "return [...document.querySelectorAll('.chart svg')].map((s) => s.getBoundingClientRect().right)")
        assert len(widths) == 2 and all(right <= 390 for right in widths), widths
        os.makedirs(SCREENSHOTS, exist_ok=True)
        page.save_screenshot(os.path.join(SCREENSHOTS, "study-phone.png"))

        # Dark mode: the inline charts take the page's dark colours from app.css.
        bar = "return getComputedStyle(document.querySelector('#chart-reviews rect.bar')).fill"
        background = "return getComputedStyle(document.querySelector('#chart-reviews .chart-bg')).fill"
        light = (page.execute_script(bar), page.execute_script(background))
        page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        wait(page, lambda d: d.execute_script(background) == "rgb(31, 34, 39)")
        assert page.execute_script(bar) != light[0]
        assert light[1] != "rgb(31, 34, 39)"
        page.execute_script("document.getElementById('chart-reviews').scrollIntoView()")
        page.save_screenshot(os.path.join(SCREENSHOTS, "study-phone-dark.png"))

        # The notice of a deletion offers its Undo button, not a key.
        page.get(page.current_url.split("#")[0].split("?")[0] + "?q=llamada0")
        wait(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#words li button.delete")) == 1)
        page.find_element(By.CSS_SELECTOR, "#words li button.delete").click()
        toast = page.find_element(By.ID, "toast-text")
        wait(page, lambda d: "to the Trash" in toast.text)
        assert "Press U" not in toast.text, toast.text
        page.find_element(By.ID, "toast-action").click()
        wait(page, lambda d: api("/api/search/count?q=llamada0")["total"] == 1)
    finally:
        page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        page.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        page.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
        api("/api/study/limits", "POST", {"newPerDay": 20, "reviewsPerDay": 200}, csrf(page))
