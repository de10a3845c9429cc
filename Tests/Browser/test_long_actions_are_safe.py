"""Long actions (issue 13): two clicks on Import 0.3 s apart imported a file twice."""
import os
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import api
from test_web_app import wait

WORK = os.environ.get("MIDICCIO_WORK", "/tmp")


def test_a_double_clicked_import_imports_once(page):
    path = os.path.join(WORK, "doble-clic.tsv")
    rows = ["term\tmeaning"] + [f"dobleclic{index}\tclicked twice" for index in range(3000)]
    with open(path, "w") as file:
        file.write("\n".join(rows) + "\n")
    page.find_element(By.ID, "settings-button").click()
    chooser = wait(page, EC.presence_of_element_located((By.ID, "import-file")))
    chooser.send_keys(path)
    button = page.find_element(By.ID, "import-button")
    page.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    # Two clicks in a row, as a double click does.
    page.execute_script("const button = arguments[0]; button.click(); button.click();", button)
    wait(page, lambda d: "Imported" in d.find_element(By.ID, "import-result").text, seconds=60)
    assert "3,000 words" in page.find_element(By.ID, "import-result").text
    # A second import would still be running when the first answer arrives: give it time.
    time.sleep(3)
    assert api("/api/search?q=dobleclic&limit=1")["total"] == 3000
    # The button is back for the next file.
    assert page.find_element(By.ID, "import-button").is_enabled()
