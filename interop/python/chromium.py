"""The real browser of the page tests (the approvals page, sign-in's consent page): Debian's
Chromium, headless, through Selenium and Debian's chromedriver, named so that Selenium Manager
never downloads one. A page load is bounded (20 s)."""

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def headless_chromium(width, height):
    """A Chrome WebDriver on /usr/bin/chromium with a window of `width` x `height`."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--window-size={width},{height}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(20)
    return driver
