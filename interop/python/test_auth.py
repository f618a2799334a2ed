"""Authorization through the official Python SDK: the notes example served over Streamable
HTTP with `--auth-issuer/--auth-jwks`, keys and tokens made by the tests crate's `mint`.

    python test_auth.py NOTES_BINARY MINT_BINARY

A client with a read token lists only the read-only tools and may search; its delete_note
call surfaces as an error (HTTP 403, insufficient_scope) and the note stays; a destructive
token passes the scope check, and deletes it once the user confirms; a client without a
token, or with a token for another audience, cannot connect (HTTP 401). Every wait is
bounded.

delete_note asks the user first (`confirm`), and the server is stateless (no --sessions): at
2025-11-25 it cannot ask, so the destructive token's delete_note is refused there by the
confirmation (an error result naming --sessions and 2026-07-28; no 403, and the note stays),
and at 2026-07-28 (the SDK's Client, which answers the input_required round with its
elicitation callback) the same token deletes it.
"""

import asyncio
import json
import subprocess
import sys
import tempfile

import httpx2
from mcp import ClientSession
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

from checks import check, checks
from confirming import User, check_asked, check_refused, text_of
from notes_http import NotesServer

ISSUER = "https://issuer.interop.test"
AUDIENCE = "urn:toolsmith:interop"
READ_ONLY = ["get_note", "search_notes", "tag_chart"]


def errors_of(exc):
    """Every exception inside an exception group, flattened."""
    if isinstance(exc, BaseExceptionGroup):
        return [e for sub in exc.exceptions for e in errors_of(sub)]
    return [exc]


async def session_with(url, token, work, modern=False, user=None):
    """Runs `work(session)` in a session whose requests carry `token` (with `modern`, a
    2026-07-28 Client instead, whose elicitation callback is `user`); statuses seen go in the
    returned list."""
    statuses = []

    async def record(response):
        statuses.append((response.request.method, response.status_code,
                         response.headers.get("www-authenticate")))

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    timeout = httpx2.Timeout(20.0, read=60.0)
    async with httpx2.AsyncClient(timeout=timeout, headers=headers,
                                  event_hooks={"response": [record]}) as http:
        if modern:
            async with Client(streamable_http_client(url, http_client=http), cache=None,
                              elicitation_callback=user) as client:
                await work(client)
            return statuses
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, elicitation_callback=user) as session:
                await asyncio.wait_for(session.initialize(), 30)
                await work(session)
    return statuses


async def main(notes, mint):
    work = tempfile.mkdtemp(prefix="toolsmith-auth-")
    subprocess.run([mint, work, ISSUER, AUDIENCE], check=True, timeout=60)
    with open(f"{work}/tokens.json") as f:
        tokens = json.load(f)
    server = NotesServer(notes, ["serve", "--http", "127.0.0.1:0", "--auth-issuer", ISSUER,
                                 "--auth-jwks", f"{work}/jwks.json", "--auth-audience", AUDIENCE],
                         env={"TOOLSMITH_LOG": "info"}, workdir=work)
    url = server.start()
    try:
        # A read token: lists the read-only tools, searches, cannot delete.
        async def as_reader(session):
            listed = await asyncio.wait_for(session.list_tools(), 30)
            names = sorted(t.name for t in listed.tools)
            check(names == READ_ONLY, f"a read token lists the read-only tools: {names}")
            found = await asyncio.wait_for(session.call_tool("search_notes", {"query": "milk"}), 30)
            check(not found.is_error, f"a read token searches: {found}")
            try:
                result = await asyncio.wait_for(session.call_tool("delete_note", {"note_id": 1}), 30)
                check(result.is_error, f"a read token's delete_note is refused: {result}")
            except asyncio.TimeoutError:
                check(False, "the refused delete_note surfaced no error within 30 s")
            except Exception as err:  # the SDK raises the HTTP 403 (an McpError or httpx's)
                text = " ".join(str(e) for e in errors_of(err))
                check("403" in text or "Forbidden" in text or "insufficient" in text,
                      f"the refused delete_note surfaces as an error: {text[:300]}")

        try:
            statuses = await session_with(url, tokens["read"], as_reader)
        except Exception as err:
            statuses = []
            check(False, f"the read session ended in {[repr(e) for e in errors_of(err)]}")
        refused = [s for s in statuses if s[1] == 403]
        check(len(refused) == 1, f"one POST answered 403: {statuses}")
        if refused:
            challenge = refused[0][2] or ""
            check('error="insufficient_scope"' in challenge and 'scope="tools:destructive"' in challenge,
                  f"the 403 challenge: {challenge}")

        # A destructive token: the note is still there; the scope check passes, and at
        # 2025-11-25 over stateless HTTP the confirmation refuses (it cannot be asked).
        admin_user = User()

        async def as_admin(session):
            names = sorted(t.name for t in (await session.list_tools()).tools)
            check(names == sorted(READ_ONLY + ["create_note", "delete_note", "import_notes", "import_url"]), f"admin lists all: {names}")
            got = await asyncio.wait_for(session.call_tool("get_note", {"note_id": 1}), 30)
            check(not got.is_error and got.structured_content["id"] == 1, f"note 1 is still there: {got}")
            refused = await asyncio.wait_for(session.call_tool("delete_note", {"note_id": 1}), 30)
            check_refused(refused, ["--sessions", "2026-07-28"],
                          "a destructive token's delete_note at 2025-11-25, stateless")
            check("confirmation" in text_of(refused) and "scope" not in text_of(refused),
                  f"refused by the confirmation, not by scope: {text_of(refused)!r}")
            check(not admin_user.take(), "stateless at 2025-11-25: the user was never asked")
            got = await asyncio.wait_for(session.call_tool("get_note", {"note_id": 1}), 30)
            check(not got.is_error and got.structured_content["id"] == 1, f"note 1 is still there: {got}")

        try:
            statuses = await session_with(url, tokens["destructive"], as_admin, user=admin_user)
        except Exception as err:
            statuses = []
            check(False, f"the admin session ended in {[repr(e) for e in errors_of(err)]}")
        check(statuses and all(s[1] in (200, 202) for s in statuses if s[0] == "POST"),
              f"the destructive token: every POST 200 or 202, no 403: {statuses}")

        # At 2026-07-28 the same token deletes it, once the user accepts.
        async def as_modern_admin(client):
            check(client.protocol_version == "2026-07-28", f"negotiated {client.protocol_version!r}")
            deleted = await asyncio.wait_for(client.call_tool("delete_note", {"note_id": 1}), 30)
            check_asked(admin_user, 1, "a destructive token's delete_note at 2026-07-28")
            check(not deleted.is_error and deleted.structured_content == {"note_id": 1, "deleted": True},
                  f"a destructive token deletes, confirmed: {deleted}")
            gone = await asyncio.wait_for(client.call_tool("get_note", {"note_id": 1}), 30)
            check(gone.is_error, f"note 1 is gone: {gone}")

        try:
            statuses = await session_with(url, tokens["destructive"], as_modern_admin, modern=True, user=admin_user)
        except Exception as err:
            statuses = []
            check(False, f"the 2026-07-28 admin client ended in {[repr(e) for e in errors_of(err)]}")
        check(statuses and all(s[1] == 200 for s in statuses if s[0] == "POST"),
              f"the destructive token at 2026-07-28: every POST 200: {statuses}")

        # Without a token, and with one for another audience: 401 before any session.
        for what, token in [("no token", None), ("another audience", tokens["other_audience"])]:
            seen = []
            try:
                seen = await asyncio.wait_for(session_with(url, token, lambda s: asyncio.sleep(0)), 40)
                check(False, f"{what}: the client connected")
            except BaseException as err:  # noqa: BLE001 - whatever the SDK raises, it must not connect
                if isinstance(err, (KeyboardInterrupt, SystemExit)):
                    raise
                text = " ".join(repr(e) for e in errors_of(err))
                check("401" in text or "Unauthorized" in text,
                      f"{what}: refused with 401: {text[:300]}")
            del seen
        with httpx2.Client(timeout=10) as http:
            bare = http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                             headers={"Accept": "application/json, text/event-stream"})
            check(bare.status_code == 401, f"no token: {bare.status_code}")
            challenge = bare.headers.get("www-authenticate", "")
            check(challenge.startswith("Bearer resource_metadata=") and 'scope="tools:read"' in challenge,
                  f"the 401 challenge: {challenge}")
            meta_url = challenge.split('resource_metadata="')[1].split('"')[0]
            meta = http.get(meta_url).json()
            check(meta["authorization_servers"] == [ISSUER], f"metadata: {meta}")
    finally:
        server.stop()
    print(f"auth: {checks['passed']} passed, {checks['failed']} failed")
    return 0 if checks["failed"] == 0 and checks["passed"] > 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2])))
