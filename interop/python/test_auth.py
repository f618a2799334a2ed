"""Authorization through the official Python SDK: the notes example served over Streamable
HTTP with `--auth-issuer/--auth-jwks`, keys and tokens made by the tests crate's `mint`.

    python test_auth.py NOTES_BINARY MINT_BINARY

A client with a read token lists only the read-only tools and may search; its delete_note
call surfaces as an error (HTTP 403, insufficient_scope) and the note stays; a destructive
token deletes it; a client without a token, or with a token for another audience, cannot
connect (HTTP 401). Every wait is bounded.
"""

import asyncio
import json
import subprocess
import sys
import tempfile

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from checks import check, checks
from notes_http import NotesServer

ISSUER = "https://issuer.interop.test"
AUDIENCE = "urn:toolsmith:interop"
READ_ONLY = ["get_note", "search_notes", "tag_chart"]


def errors_of(exc):
    """Every exception inside an exception group, flattened."""
    if isinstance(exc, BaseExceptionGroup):
        return [e for sub in exc.exceptions for e in errors_of(sub)]
    return [exc]


async def session_with(url, token, work):
    """Runs `work(session)` in a session whose requests carry `token`; statuses seen go in
    the returned list."""
    statuses = []

    async def record(response):
        statuses.append((response.request.method, response.status_code,
                         response.headers.get("www-authenticate")))

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    timeout = httpx2.Timeout(20.0, read=60.0)
    async with httpx2.AsyncClient(timeout=timeout, headers=headers,
                                  event_hooks={"response": [record]}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
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

        # A destructive token: the note is still there, then it deletes it.
        async def as_admin(session):
            names = sorted(t.name for t in (await session.list_tools()).tools)
            check(names == sorted(READ_ONLY + ["create_note", "delete_note", "import_url"]), f"admin lists all: {names}")
            got = await asyncio.wait_for(session.call_tool("get_note", {"note_id": 1}), 30)
            check(not got.is_error and got.structured_content["id"] == 1, f"note 1 is still there: {got}")
            deleted = await asyncio.wait_for(session.call_tool("delete_note", {"note_id": 1}), 30)
            check(not deleted.is_error, f"a destructive token deletes: {deleted}")

        await session_with(url, tokens["destructive"], as_admin)

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
