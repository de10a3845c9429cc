"""The Study page with nothing due counts its wait for the next word on the computer's
clock, not on the device's own: a phone whose clock was an hour ahead of the computer's
asked for a card every second for that hour (found by the exploratory helper, round 20A #3)."""
import time

from selenium.webdriver.common.by import By

from test_the_study_page_keeps_limits_and_says_why_an_answer_failed import open_study
from test_web_app import wait


def test_a_device_an_hour_ahead_does_not_ask_every_second(page):
    open_study(page)
    # This device's clock an hour ahead of the computer's, and nothing due: the next word in
    # a minute by the computer's clock.
    page.execute_script("""
        const realNow = Date.now.bind(Date);
        Date.now = () => realNow() + 3600000;
        window.studyAsked = 0;
        const original = window.fetch;
        window.fetch = async (url, options) => {
            const answer = await original(url, options);
            if (!String(url).startsWith("/api/study?") && String(url) !== "/api/study") return answer;
            window.studyAsked += 1;
            const data = await answer.clone().json();
            const serverNow = data.now ? Date.parse(data.now) : realNow();
            Object.assign(data, {card: null, due: 0, new: 0, dueBeyondLimit: 0,
                                 nextDue: new Date(serverNow + 60000).toISOString()});
            return new Response(JSON.stringify(data), {status: 200, headers: {"Content-Type": "application/json"}});
        };
    """)
    page.execute_script("location.hash = '#/'")
    page.find_element(By.ID, "study-button").click()
    wait(page, lambda d: d.find_element(By.ID, "study-done").is_displayed()
         and "Come back at" in d.find_element(By.ID, "study-done-text").text)
    asked = page.execute_script("return window.studyAsked")
    time.sleep(4)
    assert page.execute_script("return window.studyAsked") == asked, "no card asked for before the minute is up"
