"""The approvals page driven by a real browser: Debian's Chromium, headless, through Selenium
and Debian's chromedriver.

Against `notes serve --http 127.0.0.1:0 --approve client,page=127.0.0.1:PORT`: the official
Python SDK's client declares no elicitation (an unattended agent), so its delete_note call
cannot be confirmed by a user and waits for the approvals page. The browser opens the page
with its token, finds the waiting call (tool, class, question), keeps a screenshot of it in
ARTIFACTS, clicks Approve, and the SDK's call completes: the note was deleted. A second call
is denied from the page, and the SDK gets the refusal. Without the token the page answers
401 and lists nothing.

    python test_approvals_page.py NOTES ARTIFACTS
"""

import asyncio
import os
import sys
import threading
import time
import urllib.error
import urllib.request

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By

from checks import check, failed_with, tally
from chromium import headless_chromium
from notes_http import NotesServer, free_port

TOKEN = "an-operators-own-token-7c1e"


def press(driver, page, note_id, button, on_row, timeout=20.0):
    """Reloads the page until the call deleting `note_id` waits there, gives its row's text
    to `on_row` (before anything is pressed), then presses `button` in that row. Every lookup
    is made afresh on the page as loaded (it also refreshes itself every 5 s)."""
    question = f"Delete note {note_id}?"
    xpath = f"//li[contains(., '{question}')]"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        driver.get(page)
        rows = driver.find_elements(By.XPATH, xpath)
        buttons = driver.find_elements(By.XPATH, f"{xpath}//button[@value='{button}']")
        if rows and buttons:
            on_row(rows[0].text)
            buttons[0].click()
            return
        time.sleep(0.2)
    raise TimeoutError(f"no call asking {question!r} on the page within {timeout:.0f} s: {driver.page_source[:800]}")


def left(driver, question, timeout=10.0):
    """Whether the page the browser shows, once it loaded after the decision (the form posts,
    then is redirected back), no longer asks `question`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if driver.current_url.endswith("/") and question not in driver.find_element(By.TAG_NAME, "body").text:
                return True
        except WebDriverException:
            pass  # between the post and the page it redirects to
        time.sleep(0.1)
    return False


def operate(page, artifacts, decisions, done):
    """The operator: for each (note_id, button), waits for the call and presses the button."""
    driver = headless_chromium(480, 640)
    try:
        # Opened once with the token (kept in a cookie), then as the operator's bookmark.
        driver.get(f"{page}/?token={TOKEN}")
        for note_id, button in decisions:
            def on_row(text, note_id=note_id, button=button):
                check("delete_note" in text and "destructive" in text, f"the row names tool and class: {text!r}")
                if button == "approve":
                    path = os.path.join(artifacts, "approvals-page.png")
                    check(driver.save_screenshot(path) and os.path.getsize(path) > 1000,
                          f"a screenshot of the waiting call at {path}")
            press(driver, page + "/", note_id, button, on_row)
            # The decision redirects back to the page, where the call no longer waits.
            check(left(driver, f"Delete note {note_id}?"), f"note {note_id}: the call left the page once decided")
    except Exception as err:
        failed_with("the browser", err)
    finally:
        driver.quit()
        done.set()


async def run_checks(session, page, artifacts):
    await session.initialize()
    done = threading.Event()
    operator = threading.Thread(target=operate, args=(page, artifacts, [(1, "approve"), (2, "deny")], done))
    operator.start()
    approved = await asyncio.wait_for(session.call_tool("delete_note", {"note_id": 1}), timeout=60)
    check(not approved.is_error, f"the approved call ran: {approved}")
    check((approved.structured_content or {}).get("deleted") is True, f"note 1 deleted: {approved.structured_content}")
    denied = await asyncio.wait_for(session.call_tool("delete_note", {"note_id": 2}), timeout=60)
    text = " ".join(getattr(c, "text", "") for c in denied.content)
    check(denied.is_error and "operator denied it" in text, f"the denied call was refused: {text}")
    await asyncio.to_thread(done.wait, 60)
    operator.join(timeout=5)
    kept = await session.call_tool("get_note", {"note_id": 2})
    check(not kept.is_error, f"note 2 is still there: {kept.content}")


def unauthorized(page):
    try:
        urllib.request.urlopen(page + "/", timeout=10)
        return None
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


async def main(notes, artifacts):
    os.makedirs(artifacts, exist_ok=True)
    port = free_port()
    page = f"http://127.0.0.1:{port}"
    server = NotesServer(notes, ["serve", "--http", "127.0.0.1:0", "--approve", f"client,page=127.0.0.1:{port}"],
                         env={"TOOLSMITH_APPROVE_TOKEN": TOKEN}, name="approvals")
    try:
        url = server.start()
        status = unauthorized(page)
        check(status is not None and status[0] == 401 and "Delete" not in status[1],
              f"the page without its token: {status}")
        timeout = httpx2.Timeout(20.0, read=90.0)
        async with httpx2.AsyncClient(timeout=timeout) as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await asyncio.wait_for(run_checks(session, page, artifacts), timeout=120)
    except Exception as err:
        failed_with("python-sdk approvals page", err)
        print(server.stderr_tail(), file=sys.stderr)
    finally:
        server.stop()
    return tally("approvals page in a browser")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2])))
