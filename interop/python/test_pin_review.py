"""A changed tool held by the gateway's pin and reviewed on the approvals page in a real
browser (Debian's Chromium, headless, through Selenium), with the official Python SDK
(PyPI `mcp`) as the client.

`toolsmith gateway --config ... --pin SNAPSHOT --on-change hold serve --http ... --approve
page=ADDR` in front of four real upstreams (the notes example, a FastMCP server, the npm
server-everything, the FastAPI notes API), whose snapshot (written by `check --write`) says
notes_get_note was not idempotent and had another description, and one tool of each other
upstream (and notes_search_notes) another description: all are held, and their calls
refused. The browser opens the page with its token, finds each under "Changes to review" with
what changed (idempotent false -> true, the description as it is now), keeps a screenshot of
the diff in ARTIFACTS, approves notes_get_note in the name "Ada" (and the others' as Ada too)
and rejects notes_search_notes in the name "Bo". Then each approved tool answers the SDK (the
same session, no restart), the snapshot file holds notes_get_note's line as it is now, the
gateway's log names Ada and Bo; notes_search_notes stays refused.

    python test_pin_review.py TOOLSMITH NOTES NODE EVERYTHING_JS ARTIFACTS
"""

import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By

from checks import check, failed_with, tally
from chromium import headless_chromium
from notes_http import NotesServer, free_port
from test_openapi import start_api

HERE = os.path.dirname(os.path.abspath(__file__))

TOKEN = "a-reviewers-own-token-9f2d"


# (tool, who decides, the button): notes_get_note's diff is the screenshot.
DECISIONS = [("notes_get_note", "Ada", "approve"), ("notes_search_notes", "Bo", "deny"),
             ("records_find_records", "Ada", "approve"), ("everything_echo", "Ada", "approve"),
             ("api_get_note", "Ada", "approve")]


def tampered(snapshot):
    """The snapshot as if notes_get_note had been reviewed not idempotent, with another
    description, and each other tool decided on with another description."""
    lines = []
    for line in snapshot.splitlines():
        if line.startswith('tool "notes_get_note" '):
            line = line.replace("idempotent=true", "idempotent=false")
        if any(line.startswith(f'tool "{tool}" ') for tool, _, _ in DECISIONS):
            line = re.sub(r"description=[0-9a-f]+", "description=000000000000", line)
        lines.append(line)
    return "\n".join(lines) + "\n"


def body_text(driver):
    """The text of the page the browser shows; empty between a post and its redirect."""
    try:
        return driver.find_element(By.TAG_NAME, "body").text
    except WebDriverException:
        return ""


def decide(driver, page, tool, name, button, seen, artifacts):
    """Reloads the page until `tool` is under review, keeps its row's text in `seen` (and a
    screenshot), types `name` and presses `button` in its row; then waits for it to leave."""
    xpath = f"//li[@class='review'][contains(., '{tool} changed')]"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            driver.get(page + "/")
            row = driver.find_element(By.XPATH, xpath)
            seen[tool] = row.text
            if tool == "notes_get_note":
                path = os.path.join(artifacts, "pin-review.png")
                check(driver.save_screenshot(path) and os.path.getsize(path) > 1000,
                      f"a screenshot of the diff at {path}")
            row.find_element(By.NAME, "by").send_keys(name)
            row.find_element(By.XPATH, f".//button[@value='{button}']").click()
            break
        except WebDriverException:
            time.sleep(0.2)  # not there yet, or the page refreshed itself under the lookup
    else:
        raise TimeoutError(f"{tool} is not under review: {driver.page_source[:600]}")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        text = body_text(driver)
        if text and f"{tool} changed" not in text:
            return True
        time.sleep(0.1)
    return False


def review(page, artifacts, done, seen):
    """The reviewer: approves notes_get_note as Ada, rejects notes_search_notes as Bo."""
    driver = headless_chromium(640, 900)
    try:
        # Opened once with the token (kept in a cookie), until the page answers.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                driver.get(f"{page}/?token={TOKEN}")
                if "Changes to review" in body_text(driver):
                    break
            except WebDriverException:
                pass
            time.sleep(0.2)
        for tool, name, button in DECISIONS:
            check(decide(driver, page, tool, name, button, seen, artifacts),
                  f"{tool} left the review list once decided")
    except Exception as err:
        failed_with("the browser", err)
    finally:
        driver.quit()
        done.set()


async def run_checks(session, page, artifacts, snapshot_path, fresh_line):
    await session.initialize()
    held = await session.call_tool("notes_get_note", {"note_id": 1})
    check(held.is_error, f"a held tool is refused before its review: {held}")
    done, seen = threading.Event(), {}
    reviewer = threading.Thread(target=review, args=(page, artifacts, done, seen))
    reviewer.start()
    await asyncio.to_thread(done.wait, 90)
    reviewer.join(timeout=5)
    get = seen.get("notes_get_note", "")
    check("idempotent" in get and "false" in get and "true" in get, f"the diff shows the hint: {get!r}")
    check("Get one note by its id." in get, f"and the description as it is now: {get!r}")
    got = await session.call_tool("notes_get_note", {"note_id": 1})
    check(not got.is_error and (got.structured_content or {}).get("id") == 1,
          f"approved, it answers in the same session: {got}")
    with open(snapshot_path) as f:
        pinned = [line for line in f.read().splitlines() if line.startswith('tool "notes_get_note" ')]
    check(pinned == [fresh_line], f"the snapshot file holds its line as it is now: {pinned} vs {fresh_line}")
    found = await session.call_tool("notes_search_notes", {"query": "milk"})
    check(found.is_error, f"rejected, it stays refused: {found}")
    for tool, arguments in [("records_find_records", {"text": "a"}), ("everything_echo", {"message": "hi"}),
                            ("api_get_note", {"note_id": 1})]:
        answered = await session.call_tool(tool, arguments)
        check(not answered.is_error, f"approved, {tool} answers: {answered}")


async def main(toolsmith, notes, node, everything, artifacts):
    os.makedirs(artifacts, exist_ok=True)
    api, base = start_api()
    os.environ["NOTES_API_KEY"] = "secret-key"
    try:
        await checked(toolsmith, notes, node, everything, artifacts, base)
    finally:
        api.kill()
    return tally("pin review on the approvals page in a browser")


async def checked(toolsmith, notes, node, everything, artifacts, base):
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(tmp, "claude_desktop_config.json")
        with open(config, "w") as f:
            json.dump({"mcpServers": {
                "notes": {"command": notes, "env": {"TOOLSMITH_LOG": "off"}},
                "records": {"command": sys.executable,
                            "args": [os.path.join(HERE, "..", "audit", "fastmcp_server.py")]},
                "everything": {"command": node, "args": [everything, "stdio"]},
                "api": {"openapi": f"{base}/openapi.json", "credentials": {"APIKeyHeader": "${NOTES_API_KEY}"}},
            }}, f)
        snapshot_path = os.path.join(tmp, "tools.snapshot")
        subprocess.run([toolsmith, "gateway", "--config", config, "check", snapshot_path, "--write"],
                       check=True, capture_output=True, timeout=60)
        with open(snapshot_path) as f:
            fresh = f.read()
        fresh_line = next(line for line in fresh.splitlines() if line.startswith('tool "notes_get_note" '))
        with open(snapshot_path, "w") as f:
            f.write(tampered(fresh))
        port = free_port()
        page = f"http://127.0.0.1:{port}"
        server = NotesServer(toolsmith, ["gateway", "--config", config, "--pin", snapshot_path, "--on-change",
                                         "hold", "--", "serve", "--http", "127.0.0.1:0", "--approve",
                                         f"page=127.0.0.1:{port}"],
                             env={"TOOLSMITH_APPROVE_TOKEN": TOKEN, "TOOLSMITH_LOG": "info"}, name="pin-review")
        try:
            url = server.start()
            timeout = httpx2.Timeout(20.0, read=90.0)
            async with httpx2.AsyncClient(timeout=timeout) as http:
                async with streamable_http_client(url, http_client=http) as (read, write):
                    async with ClientSession(read, write) as session:
                        await asyncio.wait_for(
                            run_checks(session, page, artifacts, snapshot_path, fresh_line), timeout=150)
            log = server.stderr()
            check("approved" in log and "Ada" in log, f"the approval is logged with who made it: {server.stderr_tail()}")
            check("rejected" in log and "Bo" in log, f"and the rejection: {server.stderr_tail()}")
        except Exception as err:
            failed_with("pin review", err)
            print(server.stderr_tail(), file=sys.stderr)
        finally:
            server.stop()


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    sys.exit(asyncio.run(main(*sys.argv[1:6])))
