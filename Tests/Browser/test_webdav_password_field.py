"""Saving a WebDAV address with user:password@ in it leaves no password on the page."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

from conftest import api
from test_web_app import csrf, wait


def test_saving_a_webdav_address_keeps_no_password_in_the_field(page):
    page.find_element(By.ID, "settings-button").click()
    Select(wait(page, EC.visibility_of_element_located((By.ID, "remote-kind")))).select_by_value("webdav")
    url = wait(page, EC.visibility_of_element_located((By.ID, "remote-url")))
    url.clear()
    # Port 9 of this computer: nothing listens there, so the first sync fails at once.
    url.send_keys("http://ana:s3cret-pass@127.0.0.1:9/palabras/")
    page.find_element(By.ID, "remote-save").click()
    try:
        wait(page, lambda d: "s3cret" not in d.find_element(By.ID, "remote-url").get_attribute("value"))
        assert page.find_element(By.ID, "remote-url").get_attribute("value") == "http://127.0.0.1:9/palabras"
        assert page.find_element(By.ID, "remote-user").get_attribute("value") == "ana"
        assert page.find_element(By.ID, "remote-password").get_attribute("value") == ""
        assert "s3cret" not in page.page_source
    finally:
        api("/api/remote", "PUT", {}, csrf(page))
