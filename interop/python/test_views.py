"""Per-caller views through `toolsmith gateway` over Streamable HTTP with authorization, driven
by the official Python SDK (PyPI `mcp`) with two tokens of the same scope (made by the tests
crate's `mint`): Ada's says she is in the group admins with an example.com email, Eve's that
she is in staff at another domain.

The gateway mounts four real upstreams (the notes example, a FastMCP server, the npm
server-everything, the FastAPI notes API), each choosing its tools by name (`include` /
`exclude` globs: for everyone, none of the tools they leave out is listed or callable), and
its overrides narrow one tool of each with `only_for` (a group, an email domain, a claim). Ada lists and calls them; to Eve they do not
exist: not listed, and a call is a JSON-RPC error naming the tool, the upstream never reached
(the note Eve tried to delete is still there for Ada). Both call the tools no `only_for`
names.

    python test_views.py TOOLSMITH NOTES MINT NODE EVERYTHING_JS
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from checks import check, failed_with, tally
from notes_http import NotesServer
from test_openapi import start_api

HERE = os.path.dirname(os.path.abspath(__file__))
ISSUER = "https://issuer.views.test"
AUDIENCE = "urn:toolsmith:views"
NARROWED = ["api_delete_note", "everything_echo", "notes_delete_note", "records_delete_record"]

OVERRIDES = """
[tools.notes_delete_note]
only_for = { groups = ["admins"] }

[tools.records_delete_record]
only_for = { email_domains = ["example.com"] }

[tools.everything_echo]
only_for = { groups = ["admins"], email_domains = ["example.com"] }

[tools.api_delete_note]
only_for = { claims = { email = "ada@example.com" } }
"""


async def session_with(url, token, work):
    headers = {"Authorization": f"Bearer {token}"}
    timeout = httpx2.Timeout(20.0, read=60.0)
    async with httpx2.AsyncClient(timeout=timeout, headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await asyncio.wait_for(session.initialize(), 30)
                return await work(session)


async def names_of(session):
    for _ in range(50):
        names = sorted(t.name for t in (await session.list_tools()).tools)
        if "everything_add" in names or "everything_get-sum" in names:
            return names
        await asyncio.sleep(0.1)
    return names


LEFT_OUT = ["notes_import_url", "notes_import_notes", "records_list_records", "api_replace_note",
            "api_health", "everything_trigger-long-running-operation"]


async def as_ada(session):
    names = await names_of(session)
    check(all(n in names for n in NARROWED), f"Ada lists every narrowed tool: {names}")
    check(not any(n in names for n in LEFT_OUT), f"include/exclude leave out, for Ada too: {names}")
    check("api_get_note" in names and "records_find_records" in names, f"and keep what they name: {names}")
    try:
        left = await asyncio.wait_for(session.call_tool("notes_import_url", {"url": "http://x.test/"}), 30)
        check(False, f"a tool left out is not callable: {left}")
    except Exception as err:
        check("notes_import_url" in str(err), f"a tool left out is not callable: {err!r}")
    echoed = await asyncio.wait_for(session.call_tool("everything_echo", {"message": "hi"}), 30)
    check(not echoed.is_error, f"Ada calls everything_echo: {echoed}")
    note = await asyncio.wait_for(session.call_tool("notes_get_note", {"note_id": 1}), 30)
    check(not note.is_error and (note.structured_content or {}).get("id") == 1,
          f"note 1 is still there: {note}")
    return names


async def as_eve(session):
    names = await names_of(session)
    check(not any(n in names for n in NARROWED), f"Eve lists none of them: {names}")
    check("notes_get_note" in names and "records_find_records" in names,
          f"and the others: {names}")
    for tool, arguments in [("notes_delete_note", {"note_id": 1}), ("everything_echo", {"message": "x"}),
                            ("records_delete_record", {"record_id": 1}), ("api_delete_note", {"note_id": 1})]:
        try:
            result = await asyncio.wait_for(session.call_tool(tool, arguments), 30)
            check(False, f"Eve's call of {tool} is an error, not a result: {result}")
        except Exception as err:
            check(tool in str(err), f"Eve's call of {tool}: an error naming it: {err!r}")
    found = await asyncio.wait_for(session.call_tool("notes_search_notes", {"query": "milk"}), 30)
    check(not found.is_error, f"Eve calls what she may: {found}")
    return names


async def main(toolsmith, notes, mint, node, everything):
    work = tempfile.mkdtemp(prefix="toolsmith-views-")
    subprocess.run([mint, work, ISSUER, AUDIENCE], check=True, timeout=60)
    with open(f"{work}/tokens.json") as f:
        tokens = json.load(f)
    api, base = start_api()
    server = None
    try:
        config = os.path.join(work, "gateway.json")
        with open(config, "w") as f:
            json.dump({"mcpServers": {
                "notes": {"command": notes, "env": {"TOOLSMITH_LOG": "off"}, "exclude": ["import_*"]},
                "records": {"command": sys.executable,
                            "args": [os.path.join(HERE, "..", "audit", "fastmcp_server.py")],
                            "include": ["delete_*", "find_*"]},
                "everything": {"command": node, "args": [everything, "stdio"], "exclude": ["trigger-*"]},
                "api": {"openapi": f"{base}/openapi.json", "credentials": {"APIKeyHeader": "${NOTES_API_KEY}"},
                        "include": ["*_note", "list_notes"], "exclude": ["replace_*"]},
            }}, f)
        overrides = os.path.join(work, "overrides.toml")
        with open(overrides, "w") as f:
            f.write(OVERRIDES)
        server = NotesServer(toolsmith, ["gateway", "--config", config, "--overrides", overrides, "--",
                                         "serve", "--http", "127.0.0.1:0", "--auth-issuer", ISSUER,
                                         "--auth-jwks", f"{work}/jwks.json", "--auth-audience", AUDIENCE],
                             env={"TOOLSMITH_LOG": "info", "NOTES_API_KEY": "secret-key"}, workdir=work,
                             name="views")
        url = server.start()
        await asyncio.wait_for(session_with(url, tokens["staff"], as_eve), 120)
        await asyncio.wait_for(session_with(url, tokens["admin_group"], as_ada), 120)
    except Exception as err:
        failed_with("per-caller views", err)
        if server:
            print(server.stderr_tail(), file=sys.stderr)
    finally:
        if server:
            server.stop()
        api.kill()
    return tally("python sdk: per-caller views through toolsmith gateway")


if __name__ == "__main__":
    sys.exit(asyncio.run(main(*sys.argv[1:6])))
