"""A confirmation answered in the MCP Inspector's web UI, in the default HTTP mode.

Against `notes serve --http 127.0.0.1:0` (no mode flag: sessions, the mode the quickstart
shows), the Inspector's web client (npm `@modelcontextprotocol/inspector`, `--web`, its own
backend started here on free loopback ports) is opened in Debian's Chromium (headless,
through Selenium). In each protocol era the Inspector speaks (`legacy`, 2025-11-25, its
default for a server named on the command line; `modern`, 2026-07-28) the browser connects,
opens the Tools tab and runs delete_note on a note the Python SDK made: the Inspector shows
the server's question ("Delete note N?", a Confirm box); declined, the call ends in the
refusal and the note stays; asked again and submitted, the note is deleted, as the Python
SDK then sees. A screenshot of each question is kept in ARTIFACTS.

    python test_inspector_web.py NOTES NODE INSPECTOR ARTIFACTS [PIDS]

PIDS: a folder for the Inspector's pid file (interop/run's, whose clean-up stops it should
this script be killed); the script's own temporary folder otherwise.
"""

import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By

from checks import check, failed_with, tally
from chromium import headless_chromium
from notes_http import NotesServer, free_port

# The connection line the Inspector shows for each era, once connected.
ERAS = {"legacy": "MCP 2025-11-25", "modern": "MCP 2026-07-28"}


async def with_session(url, act):
    """Runs `act(session)` in a fresh session of the Python SDK's ClientSession."""
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(20.0, read=60.0)) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await act(session)


def create_note(url, title):
    async def act(session):
        made = await session.call_tool("create_note", {"title": title, "body": "made for the Inspector"})
        return made.structured_content["id"]
    return asyncio.run(with_session(url, act))


def note_exists(url, note_id):
    async def act(session):
        found = await session.call_tool("get_note", {"note_id": note_id})
        return not found.is_error
    return asyncio.run(with_session(url, act))


class Inspector:
    """The Inspector's web backend for one server URL and era, on a free loopback port."""

    def __init__(self, node, launcher, url, era, home, pids):
        self.port = free_port()
        env = dict(os.environ, HOME=home, HOST="127.0.0.1", MCP_AUTO_OPEN_ENABLED="false",
                   CLIENT_PORT=str(self.port), MCP_SANDBOX_PORT="0", MCP_APP_ORIGIN_PORT="0",
                   MCP_INSPECTOR_SECRET_STORE="memory")
        for unsafe in ("DANGEROUSLY_OMIT_AUTH", "MCP_INSPECTOR_API_TOKEN"):  # its token, its auth
            env.pop(unsafe, None)
        self.out = os.path.join(home, f"inspector-{era}.out")
        with open(self.out, "wb") as out:
            self.proc = subprocess.Popen(
                [node, launcher, "--web", "--transport", "http", "--server-url", url, "--protocol-era", era],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                start_new_session=True)  # its children go with it
        with open(os.path.join(pids, f"inspector-{era}.pid"), "w") as f:  # for interop/run's clean-up
            f.write(f"{self.proc.pid}\n")

    def page(self, timeout=60.0):
        """The page's URL with the backend's token, once the backend says it is up."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            with open(self.out, encoding="utf-8", errors="replace") as f:
                token = re.search(r"Auth token: ([0-9a-f]+)", f.read())
            if token:
                return f"http://127.0.0.1:{self.port}/?MCP_INSPECTOR_API_TOKEN={token.group(1)}"
            time.sleep(0.2)
        with open(self.out, encoding="utf-8", errors="replace") as f:
            raise RuntimeError(f"the Inspector did not start: {f.read()[-1500:]}")

    def log_tail(self):
        with open(self.out, encoding="utf-8", errors="replace") as f:
            return f.read()[-1500:]

    def stop(self):
        """Ends its process group (the launcher and whatever it started), even if the
        launcher itself has already exited."""
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def wait_for(driver, what, found, timeout=20.0):
    """Polls `found()` (a lookup on the page as it is) until it is truthy; its value. An
    element the page re-rendered meanwhile is looked up again at the next poll."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = found()
        except (StaleElementReferenceException, NoSuchElementException):
            value = None
        if value:
            return value
        time.sleep(0.1)
    body = driver.find_element(By.TAG_NAME, "body").text
    raise TimeoutError(f"{what} not on the page within {timeout:.0f} s; it shows: {body[-1500:]!r}")


def page_text(driver):
    return driver.find_element(By.TAG_NAME, "body").text


def connect(driver, page, era):
    """Opens the Inspector and switches its one server on; checks the era it negotiated."""
    driver.get(page)
    switch = wait_for(driver, "the server's connect switch",
                      lambda: driver.find_elements(By.CSS_SELECTOR, "input[role=switch][aria-label^='Connect']"))
    driver.execute_script("arguments[0].click()", switch[0])  # the styled track covers the input
    wait_for(driver, "Connected", lambda: "Connected" in page_text(driver))
    shown = wait_for(driver, "the negotiated version", lambda: re.search(r"MCP \d{4}-\d\d-\d\d", page_text(driver)))
    check(shown.group(0) == ERAS[era], f"{era}: the Inspector negotiated {shown.group(0)}, not {ERAS[era]}")
    tab = "//*[@role='radiogroup' or contains(@class, 'SegmentedControl')]//*[normalize-space(text())='Tools']"
    wait_for(driver, "the Tools tab", lambda: driver.find_elements(By.XPATH, tab))[0].click()


def open_tool(driver, name):
    """Picks `name` in the Tools tab's list: its form (a result shown in its place is closed)."""
    for close in driver.find_elements(By.CSS_SELECTOR, "button[aria-label='Close results']"):
        close.click()
    wait_for(driver, f"{name} in the tool list",
             lambda: driver.find_elements(By.XPATH, f"//p[normalize-space(text())='{name}']"))[0].click()


def ask_delete(driver, note_id):
    """Runs delete_note on `note_id`; the question's dialog, once shown."""
    open_tool(driver, "delete_note")
    box = wait_for(driver, "the note_id field",
                   lambda: driver.find_elements(By.CSS_SELECTOR, "input.mantine-NumberInput-input"))[0]
    box.send_keys("\b" * 12 + str(note_id))
    driver.find_element(By.XPATH, "//button[normalize-space(.)='Execute Tool']").click()
    shown = "//*[@role='dialog'][contains(., 'Elicitation Request')]"
    # It fades in: its text is there once it shows (looked up afresh on each poll).
    return wait_for(driver, "the question, shown",
                    lambda: [d for d in driver.find_elements(By.XPATH, shown)
                             if f"Delete note {note_id}?" in d.text])[0]


def answer(driver, dialog, button):
    wait_for(driver, f"the {button} button",
             lambda: dialog.find_elements(By.XPATH, f".//button[normalize-space(.)='{button}']"))[0].click()
    wait_for(driver, "the dialog closed",
             lambda: not driver.find_elements(By.XPATH, "//*[@role='dialog'][contains(., 'Elicitation Request')]"))


def results(driver):
    """The Results panel's text (the tool's answer), or "" while there is none."""
    text = page_text(driver)
    start = text.find("Results\n")
    return text[start:] if start >= 0 else ""


def in_era(notes_url, node, launcher, era, artifacts, home, pids):
    declined_id = create_note(notes_url, f"kept ({era})")
    deleted_id = create_note(notes_url, f"deleted ({era})")
    inspector = Inspector(node, launcher, notes_url, era, home, pids)
    driver = None
    try:
        page = inspector.page()
        driver = headless_chromium(1400, 1000)
        connect(driver, page, era)

        dialog = ask_delete(driver, declined_id)
        question = dialog.text
        check(f"Delete note {declined_id}?" in question and "Confirm" in question,
              f"{era}: the dialog shows the server's question and its Confirm box: {question!r}")
        path = os.path.join(artifacts, f"inspector-confirmation-{era}.png")
        check(driver.save_screenshot(path) and os.path.getsize(path) > 1000, f"{era}: screenshot {path}")
        answer(driver, dialog, "Decline")
        refused = wait_for(driver, "the declined call's result",
                           lambda: "declined" in results(driver) and results(driver))
        check("The user declined to confirm tool 'delete_note': it did not run." in refused,
              f"{era}: the declined delete's result names the refusal: {refused[:300]!r}")
        check(note_exists(notes_url, declined_id), f"{era}: the declined delete left note {declined_id}")

        dialog = ask_delete(driver, deleted_id)
        check(f"Delete note {deleted_id}?" in dialog.text, f"{era}: asked again: {dialog.text!r}")
        answer(driver, dialog, "Submit")
        done = wait_for(driver, "the confirmed call's result",
                        lambda: '"deleted": true' in results(driver) and results(driver))
        check(f'"note_id": {deleted_id}' in done, f"{era}: the result names note {deleted_id}: {done[:300]!r}")
        check(not note_exists(notes_url, deleted_id), f"{era}: the confirmed delete removed note {deleted_id}")
    except Exception as err:  # a page that never shows what is awaited is a failed check
        failed_with(f"the Inspector's web UI ({era})", err)
        print(f"the Inspector's output ({era}):\n{inspector.log_tail()}", file=sys.stderr)
    finally:
        if driver is not None:
            driver.quit()
        inspector.stop()


def main(notes, node, launcher, artifacts, pids=None):
    # Stopped by interop/run's `timeout`: clean up (the Inspector runs in a group of its own).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.makedirs(artifacts, exist_ok=True)
    home = tempfile.mkdtemp(prefix="toolsmith-inspector-")  # the Inspector's own ~/.mcp-inspector
    server = NotesServer(notes, ["serve", "--http", "127.0.0.1:0"], default_mode=True)
    try:
        url = server.start()
        for era in ERAS:
            in_era(url, node, launcher, era, artifacts, home, pids or home)
    except Exception as err:
        failed_with("notes in the default mode", err)
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)
    return tally("inspector web: confirmation in the default mode")


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:6]))
