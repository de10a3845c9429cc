"""A screen reader heard the successes in Settings (their paragraphs are status regions)
and nothing of the failures: the paragraphs that say why an import, a backup check, a
sync place, a conflict copy or a pairing failed were in no live region (found by the
exploratory helper, round 15B)."""
import os

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from test_web_app import wait

FAILURES = ["import-error", "backup-error", "remote-error", "copies-error", "pairing-error"]


def test_a_failure_in_settings_is_announced(page):
    page.find_element(By.ID, "settings-button").click()
    for name in FAILURES:
        assert page.find_element(By.ID, name).get_attribute("role") == "alert", name
    # An empty file to import: the reason is said in the alert.
    path = os.path.join(os.environ.get("MIDICCIO_WORK", "/tmp"), "empty.csv")
    open(path, "w").close()
    wait(page, EC.visibility_of_element_located((By.ID, "import-file"))).send_keys(path)
    wait(page, lambda d: "empty" in d.find_element(By.ID, "import-error").text)
    said = page.find_element(By.CSS_SELECTOR, "[role=alert]#import-error").text
    assert "nothing was imported" in said, said
