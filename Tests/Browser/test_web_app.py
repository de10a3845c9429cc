"""What a person does in the MiDiccio web app, in a real (headless) Chromium."""
import json
import os

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import api


def wait(driver, condition, seconds=6):
    # The list is rebuilt after every change: an element found a moment ago may be gone.
    return WebDriverWait(driver, seconds, ignored_exceptions=[StaleElementReferenceException, AssertionError]).until(condition)


def wait_through_navigation(driver, condition, seconds=15):
    # While the browser goes to a sign-in page and back, an element found a moment ago can
    # belong to the page being left: Chromium then says "Node with given id does not belong
    # to the document", which Selenium reports as a plain WebDriverException.
    return WebDriverWait(driver, seconds, ignored_exceptions=[WebDriverException, AssertionError]).until(condition)


def map_column(driver, index, field):
    """Sets column `index` of an import preview to `field`. The preview is drawn again after
    each change, its menus with it: one found a moment before may be gone (a busy CI
    machine met that), so the menu is found again until the choice is made."""
    def chosen(d):
        menu = Select(d.find_elements(By.CSS_SELECTOR, "#import-head select")[index])
        if menu.first_selected_option.text != field:
            menu.select_by_visible_text(field)
        return menu.first_selected_option.text == field
    wait(driver, chosen)


def terms(driver):
    return [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#words .term")]


def csrf(driver):
    return driver.find_element(By.CSS_SELECTOR, 'meta[name="csrf-token"]').get_attribute("content")


def add_through_page(driver, term, meaning="", tags=""):
    driver.find_element(By.ID, "add-button").click()
    field = wait(driver, EC.visibility_of_element_located((By.ID, "f-term")))
    field.clear()
    field.send_keys(term)
    if meaning:
        driver.find_element(By.ID, "f-meaning").send_keys(meaning)
    if tags:
        driver.find_element(By.ID, "f-tags").send_keys(tags)
    field.send_keys(Keys.ENTER)  # Enter in a one-line field saves
    wait(driver, lambda d: not d.find_element(By.ID, "editor").is_displayed())
    wait(driver, lambda d: term in terms(d))


def go_back_to_words(driver):
    # The back button sits at the top of Settings; scroll there as a person would.
    driver.execute_script("window.scrollTo(0, 0)")
    driver.find_element(By.ID, "back-button").click()


def word_item(driver, term):
    for item in driver.find_elements(By.CSS_SELECTOR, "#words .word"):
        if item.find_element(By.CSS_SELECTOR, ".term").text == term:
            return item
    raise AssertionError(f"{term!r} is not in the list: {terms(driver)}")


def test_add_a_word_with_the_keyboard(page):
    page.find_element(By.ID, "add-button").click()
    term = wait(page, EC.visibility_of_element_located((By.ID, "f-term")))
    term.send_keys(Keys.ENTER)
    error = wait(page, EC.visibility_of_element_located((By.ID, "e-term")))
    assert "word" in error.text.lower()
    term.send_keys("mesa")
    page.find_element(By.ID, "f-reading").send_keys("ME-sa")
    page.find_element(By.ID, "f-meaning").send_keys("table")
    page.find_element(By.ID, "f-tags").send_keys("spanish home")
    page.find_element(By.ID, "f-tags").send_keys(Keys.ENTER)
    wait(page, lambda d: "mesa" in terms(d))
    item = word_item(page, "mesa")
    assert "table" in item.text and "ME-sa" in item.text and "home" in item.text
    assert terms(page)[0] == "mesa", "newest first"


def test_search_filters_as_you_type(page):
    token = csrf(page)
    for term, meaning in (("gato", "cat"), ("gatito", "kitten"), ("perro", "dog")):
        api("/api/words", "POST", {"term": term, "meaning": meaning}, token)
    page.refresh()
    search = wait(page, EC.element_to_be_clickable((By.ID, "search")))
    search.send_keys("gat")
    wait(page, lambda d: set(terms(d)) == {"gato", "gatito"})
    search.send_keys(Keys.BACKSPACE * 3 + "dog")
    wait(page, lambda d: terms(d) == ["perro"])
    search.send_keys(Keys.ESCAPE)
    wait(page, lambda d: "gato" in terms(d) and "perro" in terms(d))


def test_edit_saves_with_enter_and_escape_cancels(page):
    add_through_page(page, "libro", "book")
    word_item(page, "libro").find_element(By.CSS_SELECTOR, ".word-open").click()
    wait(page, EC.element_to_be_clickable((By.ID, "viewer-edit"))).click()
    meaning = wait(page, EC.visibility_of_element_located((By.ID, "f-meaning")))
    meaning.clear()
    meaning.send_keys("a book")
    page.find_element(By.ID, "f-reading").send_keys("LI-bro", Keys.ENTER)
    wait(page, lambda d: "a book" in word_item(d, "libro").text)

    word_item(page, "libro").find_element(By.CSS_SELECTOR, ".word-open").click()
    wait(page, EC.element_to_be_clickable((By.ID, "viewer-edit"))).click()
    meaning = wait(page, EC.visibility_of_element_located((By.ID, "f-meaning")))
    meaning.send_keys(" that was never saved")
    meaning.send_keys(Keys.ESCAPE)
    wait(page, EC.alert_is_present()).accept()  # "Discard your changes?"
    wait(page, lambda d: not d.find_element(By.ID, "editor").is_displayed())
    page.refresh()
    wait(page, lambda d: "libro" in terms(d))
    assert "never saved" not in word_item(page, "libro").text


def test_delete_then_undo(page):
    add_through_page(page, "silla", "chair")
    word_item(page, "silla").find_element(By.CSS_SELECTOR, ".delete").click()
    wait(page, lambda d: "silla" not in terms(d))
    toast = wait(page, EC.visibility_of_element_located((By.ID, "toast")))
    assert "Trash" in toast.text
    page.find_element(By.ID, "toast-action").click()
    wait(page, lambda d: "silla" in terms(d))


def test_restore_from_the_trash(page):
    add_through_page(page, "ventana", "window")
    word_item(page, "ventana").find_element(By.CSS_SELECTOR, ".delete").click()
    wait(page, lambda d: "ventana" not in terms(d))
    page.find_element(By.ID, "trash-link").click()
    entry = wait(page, EC.visibility_of_element_located(
        (By.XPATH, "//ul[@id='trash-list']/li[.//*[@class='term' and text()='ventana']]")))
    assert "deleted" in entry.text
    restore = entry.find_element(By.XPATH, ".//button[text()='Restore']")
    # The "Undo" toast sits over the bottom of the window for a few seconds; a person
    # scrolls the button up to where they can press it.
    page.execute_script("arguments[0].scrollIntoView({block: 'center'})", restore)
    restore.click()
    wait(page, lambda d: "ventana" not in d.find_element(By.ID, "trash-list").text)
    page.execute_script("window.scrollTo(0, 0)")
    page.find_element(By.ID, "trash-back").click()
    wait(page, lambda d: "ventana" in terms(d))


def test_backup_restore_shows_a_preview_and_can_be_undone(page):
    token = csrf(page)
    api("/api/words", "POST", {"term": "antes", "meaning": "before"}, token)
    backup = api("/api/backup", raw=True)
    path = os.path.join(os.environ.get("MIDICCIO_WORK", "/tmp"), "backup.json")
    with open(path, "wb") as file:
        file.write(backup)
    api("/api/words", "POST", {"term": "despues", "meaning": "after"}, token)

    page.find_element(By.ID, "settings-button").click()
    wait(page, EC.visibility_of_element_located((By.ID, "backup-file"))).send_keys(path)
    page.find_element(By.ID, "backup-replace").click()
    page.find_element(By.ID, "backup-check").click()
    report = wait(page, EC.visibility_of_element_located((By.ID, "restore-report")))
    assert "1 would move to the Trash" in report.text and "Nothing has changed yet" in report.text
    # "antes" is here as the backup holds it: the replace still gives it a new time, and says so.
    assert "would get a new time, so it wins on every device" in report.text
    go_back_to_words(page)
    wait(page, lambda d: "despues" in terms(d))

    page.find_element(By.ID, "settings-button").click()
    wait(page, EC.element_to_be_clickable((By.ID, "restore-confirm"))).click()
    wait(page, lambda d: "Restored" in d.find_element(By.ID, "restore-done").text)
    assert "got a new time, so it wins on every device" in page.find_element(By.ID, "restore-done").text
    undo = wait(page, EC.element_to_be_clickable((By.ID, "restore-undo")))
    go_back_to_words(page)
    wait(page, lambda d: "despues" not in terms(d) and "antes" in terms(d))

    page.find_element(By.ID, "settings-button").click()
    undo = wait(page, EC.element_to_be_clickable((By.ID, "restore-undo")))
    page.execute_script("arguments[0].scrollIntoView({block: 'center'})", undo)
    undo.click()
    wait(page, lambda d: "undone" in d.find_element(By.ID, "undo-result").text)
    go_back_to_words(page)
    wait(page, lambda d: "despues" in terms(d))


def test_a_backup_restore_names_the_settings_it_takes(page):
    """A backup holds the library's settings; a restore takes one set later there, and the
    page names it (round 23A #5)."""
    token = csrf(page)
    api("/api/words", "POST", {"term": "ajustes", "meaning": "settings"}, token)
    backup = json.loads(api("/api/backup", raw=True))
    backup["settings"] = {"trash.hideAfterDays": {"value": "45", "time": "2026-12-06T10:00:00.000Z",
                                                  "writer": "0b6c2f1e-4d3a-4c5b-9e8f-7a6b5c4d3e2f"}}
    path = os.path.join(os.environ.get("MIDICCIO_WORK", "/tmp"), "backup-settings.json")
    with open(path, "w", encoding="utf-8") as file:
        json.dump(backup, file)
    page.find_element(By.ID, "settings-button").click()
    wait(page, EC.visibility_of_element_located((By.ID, "backup-file"))).send_keys(path)
    page.find_element(By.ID, "backup-check").click()
    report = wait(page, EC.visibility_of_element_located((By.ID, "restore-report")))
    assert "settings that would be taken from it: trash.hideAfterDays" in report.text, report.text
    wait(page, EC.element_to_be_clickable((By.ID, "restore-confirm"))).click()
    wait(page, lambda d: "Restored" in d.find_element(By.ID, "restore-done").text)
    assert "settings taken from it: trash.hideAfterDays" in page.find_element(By.ID, "restore-done").text
    go_back_to_words(page)


def test_a_word_that_is_html_shows_as_text(page):
    xss = "<script>alert(1)</script>"
    add_through_page(page, xss, '<img src=x onerror="alert(2)">')
    item = word_item(page, xss)
    assert '<img src=x onerror="alert(2)">' in item.text
    assert item.find_elements(By.TAG_NAME, "script") == []
    assert item.find_elements(By.TAG_NAME, "img") == []
    # An alert would be open now had anything run.
    assert page.execute_script("return document.querySelectorAll('#words script, #words img').length") == 0
    page.refresh()
    wait(page, lambda d: xss in terms(d))


def test_import_a_list_without_a_header_with_a_changed_column_mapping(page):
    path = os.path.join(os.environ.get("MIDICCIO_WORK", "/tmp"), "cards.txt")
    with open(path, "w", encoding="utf-8") as file:
        file.write("hund\tdog\tanimals\nkatze\tcat\tanimals\n<b>maus</b>\tmouse\tsmall\n")

    page.find_element(By.ID, "settings-button").click()
    wait(page, EC.visibility_of_element_located((By.ID, "import-file"))).send_keys(path)
    read_as = wait(page, EC.visibility_of_element_located((By.ID, "import-read-as")))
    assert "list without a header" in read_as.text and "tabs" in read_as.text
    selects = page.find_elements(By.CSS_SELECTOR, "#import-head select")
    assert [Select(s).first_selected_option.text for s in selects] == ["term", "meaning", "notes"]
    cells = [cell.text for cell in page.find_elements(By.CSS_SELECTOR, "#import-rows tr:last-child td")]
    assert cells == ["<b>maus</b>", "mouse", "small"]  # a file's text shows as text
    assert "3 words of 3 will be imported" in page.find_element(By.ID, "import-count").text

    # A mapping that cannot be imported is said beside the columns, which stay to be put right.
    map_column(page, 1, "term")
    wait(page, lambda d: "Two columns are set to" in d.find_element(By.ID, "import-error").text)
    assert page.find_element(By.ID, "import-preview").is_displayed()
    page.find_element(By.ID, "import-button").click()
    assert "Two columns" in page.find_element(By.ID, "import-error").text
    assert not [w for w in api("/api/words?limit=50")["words"] if w["term"] == "hund"], "nothing imported"
    map_column(page, 1, "meaning")
    wait(page, lambda d: d.find_element(By.ID, "import-error").text == "")

    # The third column holds tags, not notes: the preview is read again with the new mapping.
    map_column(page, 2, "tags")
    wait(page, lambda d: [Select(s).first_selected_option.text
                          for s in d.find_elements(By.CSS_SELECTOR, "#import-head select")] == ["term", "meaning", "tags"])
    page.find_element(By.ID, "import-button").click()
    wait(page, lambda d: "Imported 3 words" in d.find_element(By.ID, "import-result").text)

    words = {word["term"]: word for word in api("/api/words?limit=50")["words"]}
    assert words["katze"]["meaning"] == "cat" and words["katze"]["tags"] == ["animals"]
    assert words["katze"]["notes"] == ""
    assert words["<b>maus</b>"]["tags"] == ["small"]

    undo_import = wait(page, EC.element_to_be_clickable((By.ID, "import-undo")))
    page.execute_script("arguments[0].scrollIntoView({block: 'center'})", undo_import)
    undo_import.click()
    wait(page, lambda d: "undone" in d.find_element(By.ID, "undo-result").text)
    assert not [w for w in api("/api/words?limit=50")["words"] if w["term"] in ("hund", "katze", "<b>maus</b>")]
