"""Sign-in's consent page driven by a real browser: Debian's Chromium, headless, through
Selenium and Debian's chromedriver.

Against the notes example serving with sign-in (`notes serve --http 127.0.0.1:PORT
--signin-oidc IDP ...`) in front of a real OpenID provider (interop/node/idp.mjs,
`oidc-provider`): the test registers a public client itself (POST /oauth/register, a loopback
redirect URI, no secret), builds the authorization request (PKCE S256, state, the three
scopes, the resource) and opens it in the browser, which signs in as alice at the provider
and answers its consent, then reaches toolsmith's consent page. The page names the client
(its name, its redirect host, unverified) and groups the tools: read-only, that change
things, destructive, each with its scope and its tools' titles. A screenshot of it is kept in
ARTIFACTS (its path printed). The page is served with `Content-Security-Policy:
frame-ancestors 'none'`; its form posted without the cookie, or with a wrong csrf, is
refused (403) and never redirects with a code. Then every scope but tools:read is unticked,
"allow" pressed: the browser lands on the redirect URI with a code, the state and iss; the
code is redeemed at /oauth/token (once: a second time is invalid_grant) for a token of
tools:read only. With it tools/list lists the read-only tools only, search_notes answers,
and delete_note (create_note) is answered 403 with `WWW-Authenticate: Bearer
error="insufficient_scope", scope="tools:destructive"` (`"tools:write"`).

    python test_consent_page.py NOTES NODE IDP_SCRIPT ARTIFACTS
"""

import asyncio
import http.client
import json
import os
import re
import secrets
import signal
import sys
import time
from urllib.parse import urlencode, urlsplit, parse_qs

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By

from checks import check, failed_with, tally
from chromium import headless_chromium
from notes_http import request
from signin_parts import RedirectListener, code_grant, pkce, register_raw
from signin_stack import SignIn

SCOPES = ["tools:read", "tools:write", "tools:destructive"]
# Each scope's group: words that say what it allows, its tools' titles (the notes example).
GROUPS = {
    "tools:read": (r"read-only|read only|only read", ["Search notes", "Get note", "Tag chart"]),
    "tools:write": (r"change", ["Create note", "Import notes", "Import URL"]),
    "tools:destructive": (r"destructive|delete", ["Delete note"]),
}
CLIENT_NAME = "Interop consent-page client"
READ_ONLY = ["get_note", "search_notes", "tag_chart"]


def send(url, fields=None, cookie=None):
    """GET `url`, or POST `fields` to it as an urlencoded form; no redirect followed:
    (status, headers, body)."""
    u = urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    headers = {"Cookie": cookie} if cookie else {}
    if fields is None:
        conn.request("GET", u.path + (f"?{u.query}" if u.query else ""), headers=headers)
    else:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        conn.request("POST", u.path, body=urlencode(fields, doseq=True), headers=headers)
    response = conn.getresponse()
    got = {k.lower(): v for k, v in response.getheaders()}
    body = response.read().decode("utf-8", "replace")
    conn.close()
    return response.status, got, body


def register(issuer, redirect_uri):
    registered = asyncio.run(register_raw(issuer, redirect_uri, check, "the consent page", name=CLIENT_NAME))
    check(registered.get("client_id") and "client_secret" not in registered, f"a public client, no secret: {registered}")
    return registered["client_id"]


def to_consent_page(driver, sign_in, idp, redirect_uri, timeout=45.0):
    """From the authorization request to toolsmith's consent page: the provider's login
    (alice), its consent if it asks. Returns False if the browser got elsewhere."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        url = driver.current_url
        if url.startswith(f"{sign_in.issuer}/oauth/consent"):
            if driver.find_elements(By.CSS_SELECTOR, "form[action='/oauth/consent']"):
                return True
        elif url.startswith(redirect_uri):
            raise AssertionError(f"redirected to the client before any consent: {url}")
        elif url.startswith(idp):
            logins = driver.find_elements(By.NAME, "login")
            buttons = driver.find_elements(By.CSS_SELECTOR, "form button[type='submit'], form [type='submit']")
            if logins and buttons:
                logins[0].send_keys("alice")
                for field in driver.find_elements(By.NAME, "password"):
                    field.send_keys("alice")
                buttons[0].click()
                wait_leaving(driver, url)
                continue
            if buttons and "interaction" in url:  # the provider's own consent: continue
                buttons[0].click()
                wait_leaving(driver, url)
                continue
        time.sleep(0.1)
    raise TimeoutError(f"no consent page within {timeout:.0f} s; at {driver.current_url}: {driver.page_source[:600]}")


def wait_leaving(driver, url, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if driver.current_url != url:
                return
        except WebDriverException:
            pass
        time.sleep(0.1)


def group_of(checkbox):
    """The smallest element around a scope's checkbox that names a tool: its group."""
    element = checkbox
    titles = [t for _, ts in GROUPS.values() for t in ts]
    for _ in range(8):
        element = element.find_element(By.XPATH, "..")
        if element.tag_name.lower() in ("form", "body"):
            break
        if any(t in element.text for t in titles):
            return element.text
    return ""


def check_page(driver, sign_in):
    text = driver.find_element(By.TAG_NAME, "body").text
    check(CLIENT_NAME in text, f"the page names the client: {text[:500]!r}")
    check("127.0.0.1" in text, f"the page names the redirect host: {text[:500]!r}")
    check("unverified" in text.lower(), f"the registered client is marked unverified: {text[:500]!r}")
    boxes = driver.find_elements(By.CSS_SELECTOR, "input[type='checkbox'][name='scope']")
    values = sorted(b.get_attribute("value") for b in boxes)
    check(values == sorted(SCOPES), f"a checkbox per scope asked: {values}")
    check(all(b.is_selected() for b in boxes), "every scope is ticked to begin with")
    for box in boxes:
        scope = box.get_attribute("value")
        if scope not in GROUPS:
            continue
        word, titles = GROUPS[scope]
        group = group_of(box)
        others = [t for s, (_, ts) in GROUPS.items() if s != scope for t in ts]
        check(scope in group and re.search(word, group, re.IGNORECASE),
              f"{scope}'s group names the scope and says /{word}/: {group!r}")
        check(all(t in group for t in titles) and not any(t in group for t in others),
              f"{scope}'s group lists {titles} and no other tool: {group!r}")
    check(driver.find_elements(By.CSS_SELECTOR, "input[type='checkbox'][name='remember'][value='yes']"), "a remember checkbox")
    for decision in ("allow", "deny"):
        check(driver.find_elements(By.CSS_SELECTOR, f"button[type='submit'][name='decision'][value='{decision}']"),
              f"a {decision} button")


def check_refusals(sign_in, driver, page_url):
    """The page's headers, and its form posted without the cookie or with a wrong csrf."""
    cookie = driver.get_cookie("toolsmith_signin")
    check(cookie is not None and cookie.get("httpOnly") is True, f"the toolsmith_signin cookie, HttpOnly: {cookie}")
    jar = f"toolsmith_signin={cookie['value']}" if cookie else None
    status, headers, body = send(page_url, cookie=jar)
    csp = headers.get("content-security-policy", "")
    check(status == 200 and "frame-ancestors 'none'" in csp, f"the consent page's CSP: {status} {csp!r}")
    status, _, body = send(page_url)
    check(status >= 400 and 'name="csrf"' not in body, f"the consent page without the cookie: {status} {body[:200]!r}")
    pending = driver.find_element(By.NAME, "pending").get_attribute("value")
    csrf = driver.find_element(By.NAME, "csrf").get_attribute("value")
    form = {"pending": pending, "csrf": csrf, "scope": ["tools:read"], "decision": "allow"}
    for what, fields, with_cookie in [
        ("without the cookie", form, None),
        ("with a wrong csrf", {**form, "csrf": csrf[:-2] + ("AA" if not csrf.endswith("AA") else "BB")}, jar),
        ("without a csrf", {k: v for k, v in form.items() if k != "csrf"}, jar),
    ]:
        status, headers, body = send(f"{sign_in.issuer}/oauth/consent", fields, cookie=with_cookie)
        location = headers.get("location", "")
        check(status == 403 and "code=" not in location, f"POST /oauth/consent {what}: {status} {location!r} {body[:200]!r}")


def exchange(sign_in, client_id, code, redirect_uri, verifier):
    fields = code_grant(code, redirect_uri, verifier, client_id)
    status, headers, body = send(f"{sign_in.issuer}/oauth/token", fields)
    check(status == 200, f"POST /oauth/token: {status} {body[:300]!r}")
    token = json.loads(body) if status == 200 else {}
    check(token.get("token_type", "").lower() == "bearer" and token.get("access_token"), f"a bearer token: {token}")
    check(token.get("scope") == "tools:read", f"the token's scope is tools:read only: {token.get('scope')!r}")
    status, _, body = send(f"{sign_in.issuer}/oauth/token", fields)
    check(status == 400 and json.loads(body or "{}").get("error") == "invalid_grant",
          f"the same code a second time: {status} {body[:200]!r}")
    return token.get("access_token")


def mcp(url, token, message):
    headers = {"Authorization": f"Bearer {token}", "MCP-Protocol-Version": "2025-11-25"}
    return request(url, body=message, headers=headers, timeout=20)


def check_calls(url, token):
    initialized = mcp(url, token, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "toolsmith-interop-consent", "version": "0"}}})
    check(initialized.status == 200, f"initialize with the token: {initialized}")
    listed = mcp(url, token, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    names = sorted(t["name"] for t in ((listed.result() or {}).get("result") or {}).get("tools", []))
    check(listed.status == 200 and names == READ_ONLY, f"tools/list: the read-only tools only: {names} {listed}")
    found = mcp(url, token, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                             "params": {"name": "search_notes", "arguments": {"query": "milk"}}})
    result = (found.result() or {}).get("result") or {}
    check(found.status == 200 and not result.get("isError")
          and [n.get("title") for n in (result.get("structuredContent") or {}).get("result", [])] == ["Groceries"],
          f"search_notes with tools:read: {found}")
    for tool, arguments, scope in [("delete_note", {"note_id": 1}, "tools:destructive"),
                                   ("create_note", {"title": "t", "body": "b"}, "tools:write")]:
        refused = mcp(url, token, {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                                   "params": {"name": tool, "arguments": arguments}})
        challenge = refused.header("www-authenticate") or ""
        check(refused.status == 403 and challenge.lower().startswith("bearer")
              and 'error="insufficient_scope"' in challenge and f'scope="{scope}"' in challenge,
              f"{tool} with tools:read: 403 asking for {scope}: {refused} {challenge!r}")
    kept = mcp(url, token, {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                            "params": {"name": "get_note", "arguments": {"note_id": 1}}})
    check(not ((kept.result() or {}).get("result") or {}).get("isError", True), f"note 1 is still there: {kept}")


def run(sign_in, artifacts):
    listener = RedirectListener()
    driver = None
    try:
        url = sign_in.start()
        client_id = register(sign_in.issuer, listener.uri)
        verifier, challenge = pkce()
        state = secrets.token_urlsafe(16)
        authorize = f"{sign_in.issuer}/oauth/authorize?" + urlencode({
            "response_type": "code", "client_id": client_id, "redirect_uri": listener.uri,
            "code_challenge": challenge, "code_challenge_method": "S256", "state": state,
            "scope": " ".join(SCOPES), "resource": url})
        driver = headless_chromium(900, 1200)
        driver.get(authorize)
        to_consent_page(driver, sign_in, sign_in.idp.issuer, listener.uri)
        page_url = driver.current_url
        check_page(driver, sign_in)
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(900, max(600, min(int(height) + 40, 3000)))
        path = os.path.join(artifacts, "consent-page.png")
        check(driver.save_screenshot(path) and os.path.getsize(path) > 1000, f"a screenshot of the consent page at {path}")
        print(f"consent page screenshot: {path}")
        check_refusals(sign_in, driver, page_url)
        for box in driver.find_elements(By.CSS_SELECTOR, "input[type='checkbox'][name='scope']"):
            if (box.get_attribute("value") == "tools:read") != box.is_selected():
                box.click()
        driver.find_element(By.CSS_SELECTOR, "button[name='decision'][value='allow']").click()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not listener.seen:
            time.sleep(0.1)
        check(len(listener.seen) == 1, f"the browser landed on the redirect URI once: {listener.seen} (at {driver.current_url})")
        query = parse_qs(urlsplit(listener.seen[0] if listener.seen else "").query)
        code = (query.get("code") or [None])[0]
        check(code and "error" not in query, f"the redirect carries a code: {query}")
        check(query.get("state") == [state], f"the state comes back: {query.get('state')}")
        check(query.get("iss") == [sign_in.issuer], f"iss is the server's issuer: {query.get('iss')}")
        if code:
            token = exchange(sign_in, client_id, code, listener.uri, verifier)
            if token:
                check_calls(url, token)
    finally:
        if driver is not None:
            driver.quit()
        listener.stop()


def main(notes, node, idp_script, artifacts):
    os.makedirs(artifacts, exist_ok=True)
    sign_in = SignIn(notes, node, idp_script)
    try:
        run(sign_in, artifacts)
    except Exception as err:
        failed_with("the consent page", err)
        if sign_in.server is not None:
            print(sign_in.server.stderr_tail(30), file=sys.stderr)
        print(sign_in.idp.stderr_tail(30), file=sys.stderr)
    finally:
        status = sign_in.stop()
        check(sign_in.server is None or status == 0, f"the notes server exits 0 on SIGTERM: {status}")
    return tally("sign-in consent page in a browser")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    # Cut short (interop/run's `timeout`): the servers and the browser are stopped on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main(*sys.argv[1:]))
