"""The notes example driven by the official Python SDK (PyPI `mcp`) over stdio.

Checks the complete hint block and titles, validates every inputSchema and outputSchema
against the JSON Schema 2020-12 metaschema and every structuredContent against its
outputSchema, and runs the tutorial's calls. The SDK's own validation of results
(structuredContent against outputSchema) must accept every result. tag_chart must come back
as the SDK's own content types: an ImageContent holding a PNG alone (legend=false), and a
TextContent then that ImageContent by default.

The same checks run over either transport:

    python test_notes.py PATH_TO_NOTES_BINARY        stdio: starts `notes serve` itself
    python test_notes.py --http URL [--sessions]     Streamable HTTP, against a server already
                                                     listening at URL (a fresh process: the
                                                     store is per process)

Over HTTP it also records every HTTP response: each POST must be answered 200 or 202; a
stateless server (the default) must never send an Mcp-Session-Id, and with `--sessions` the
initialize response must carry one, every later id must be the same, and the SDK's closing
DELETE must be answered 2xx (or 405, which the specification allows).

delete_note asks the user first (`confirm`): the session's elicitation callback answers. On
stdio and with `--sessions` the server sends an `elicitation/create` (form "Delete note N?")
during the call: declined (and accepted with the box unticked), the call is an error result
of kind `refused` and the note stays; accepted, it deletes. A second session, whose client
declared no elicitation capability, is refused without being asked. Stateless over HTTP (the
default) nothing can be asked at 2025-11-25: every delete_note is refused, naming the ways out
(`--sessions`, 2026-07-28), the callback is never called and the note stays.
"""

import asyncio
import base64
import binascii
import sys

import httpx2
import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import ImageContent, TextContent

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

EXPECTED = {
    # name: (title, readOnly, destructive, idempotent, openWorld)
    "search_notes": ("Search notes", True, False, True, False),
    "get_note": ("Get note", True, False, True, False),
    "create_note": ("Create note", False, False, False, False),
    "delete_note": ("Delete note", False, True, True, False),
    "tag_chart": ("Tag chart", True, False, True, False),
    "import_url": ("Import URL", False, False, False, True),
    "import_notes": ("Import notes", False, False, False, False),
}

from checks import check, tally, within
from confirming import User, check_asked, check_refused


def text(result):
    return result.content[0].text if result.content else ""


def check_png_block(block, what):
    """An ImageContent of type image/png whose base64 data decodes to a PNG."""
    check(isinstance(block, ImageContent), f"{what}: an ImageContent, not {type(block).__name__}")
    if not isinstance(block, ImageContent):
        return
    check(block.type == "image", f"{what}: type {block.type!r}")
    check(block.mime_type == "image/png", f"{what}: mimeType {block.mime_type!r}")
    try:
        png = base64.b64decode(block.data, validate=True)
    except binascii.Error as err:
        check(False, f"{what}: data is not base64: {err}")
        return
    check(png.startswith(PNG_SIGNATURE), f"{what}: data is not a PNG: {png[:8]!r}")


async def run_checks(session, user, can_ask=True):
    """Every check of this file, on a connected (not yet initialized) session whose
    elicitation callback is `user`; `can_ask`: the server can ask it (not stateless HTTP)."""
    init = await session.initialize()
    check(init.server_info.name == "toolsmith-examples", f"server name {init.server_info.name}")

    listed = await session.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    check(sorted(tools) == sorted(EXPECTED), f"tools {sorted(tools)}")
    metaschema = jsonschema.Draft202012Validator.META_SCHEMA
    for name, (title, ro, de, idem, ow) in EXPECTED.items():
        tool = tools[name]
        a = tool.annotations
        check(tool.title == title and a.title == title, f"{name} title")
        check(
            (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint)
            == (ro, de, idem, ow),
            f"{name} hints {a}",
        )
        for kind, schema in (("input", tool.input_schema), ("output", tool.output_schema)):
            if schema is None:
                continue
            try:
                jsonschema.validate(schema, metaschema)
                jsonschema.Draft202012Validator.check_schema(schema)
                check(True, "")
            except jsonschema.exceptions.SchemaError as err:
                check(False, f"{name} {kind}Schema is not valid 2020-12: {err.message}")
            check("$schema" not in schema, f"{name} {kind}Schema has no $schema")

    def validate_structured(name, result):
        schema = tools[name].output_schema
        if schema is not None and not result.is_error:
            try:
                jsonschema.validate(result.structured_content, schema)
                check(True, "")
            except jsonschema.exceptions.ValidationError as err:
                check(False, f"{name} structuredContent: {err.message}")

    found = await session.call_tool("search_notes", {"query": "parser"})
    validate_structured("search_notes", found)
    titles = [n["title"] for n in found.structured_content["result"]]
    check(titles == ["Standup notes"], f"search titles {titles}")

    missing = await session.call_tool("get_note", {"note_id": 99})
    check(missing.is_error is True, "missing note is an error")
    check(text(missing) == "No note with id 99.", f"missing text {text(missing)!r}")

    created = await session.call_tool("create_note", {"title": "Py", "body": "from python"})
    validate_structured("create_note", created)
    note_id = created.structured_content["id"]
    check(note_id == 4, f"new id {note_id}")

    got = await session.call_tool("get_note", {"note_id": note_id})
    validate_structured("get_note", got)
    check(got.structured_content["title"] == "Py", "get the created note")

    if can_ask:
        # Declined, cancelled, or accepted with the box unticked: refused, and the note stays.
        for answer, needle in (("decline", "declined"), ("cancel", "cancelled"), ("untick", "declined")):
            user.answer = answer
            refused = await session.call_tool("delete_note", {"note_id": note_id})
            check_asked(user, note_id, f"delete_note {note_id}, {answer}")
            check_refused(refused, [needle, "'delete_note'"], f"delete_note {note_id}, {answer}")
            still = await session.call_tool("get_note", {"note_id": note_id})
            check(still.is_error is False and (still.structured_content or {}).get("title") == "Py",
                  f"after the {answer}, note {note_id} is still there: {still}")

        user.answer = "accept"
        deleted = await session.call_tool("delete_note", {"note_id": note_id})
        check_asked(user, note_id, f"delete_note {note_id}, accepted")
        validate_structured("delete_note", deleted)
        check(deleted.structured_content == {"note_id": note_id, "deleted": True}, f"delete {deleted.structured_content}")
        retry = await session.call_tool("delete_note", {"note_id": note_id})
        check_asked(user, note_id, f"delete_note {note_id} again, accepted")
        validate_structured("delete_note", retry)
        check(retry.is_error is False, "retry is not an error")
        check(retry.structured_content == {"note_id": note_id, "deleted": False}, "retry deleted false")
        gone = await session.call_tool("get_note", {"note_id": note_id})
        check(gone.is_error is True, f"the accepted delete deleted note {note_id}: {gone}")
    else:
        # Stateless over HTTP at 2025-11-25: the answer could reach another replica, so the
        # server cannot ask, and says how to make it possible.
        refused = await session.call_tool("delete_note", {"note_id": note_id})
        check_refused(refused, ["stateless", "--sessions", "2026-07-28"], "stateless delete_note")
        check(not user.take(), "stateless: the elicitation callback was never called")
        still = await session.call_tool("get_note", {"note_id": note_id})
        check(still.is_error is False and (still.structured_content or {}).get("title") == "Py",
              f"the refused delete did not run: note {note_id} is still there: {still}")

    bad = await session.call_tool("get_note", {"note_id": "x"})
    check(bad.is_error is True and "note_id" in text(bad), f"bad argument {text(bad)!r}")

    # An image result: the chart alone.
    check(tools["tag_chart"].output_schema is None, "tag_chart has no outputSchema")
    image = await session.call_tool("tag_chart", {"legend": False})
    check(image.is_error is False, f"tag_chart legend=false is not an error: {image}")
    check(image.structured_content is None, "tag_chart has no structuredContent")
    check(len(image.content) == 1, f"tag_chart legend=false: {len(image.content)} blocks")
    if image.content:
        check_png_block(image.content[0], "tag_chart legend=false")

    # A mixed result: the legend as text, then the chart.
    mixed = await session.call_tool("tag_chart", {})
    check(mixed.is_error is False, f"tag_chart is not an error: {mixed}")
    kinds = [type(block).__name__ for block in mixed.content]
    check(kinds == ["TextContent", "ImageContent"], f"tag_chart blocks {kinds}")
    if len(mixed.content) == 2:
        legend = mixed.content[0]
        check(isinstance(legend, TextContent), "tag_chart legend is a TextContent")
        check(
            getattr(legend, "text", None) == "home: 1\npersonal: 1\nwork: 1",
            f"tag_chart legend {getattr(legend, 'text', None)!r}",
        )
        check_png_block(mixed.content[1], "tag_chart chart")



async def without_elicitation(session):
    """A client that declared no elicitation capability: delete_note is refused unasked."""
    await session.initialize()
    refused = await session.call_tool("delete_note", {"note_id": 1})
    check_refused(refused, "declared no elicitation capability", "delete_note without elicitation")
    still = await session.call_tool("get_note", {"note_id": 1})
    check(still.is_error is False and (still.structured_content or {}).get("id") == 1,
          f"without elicitation, note 1 is still there: {still}")


async def over_stdio(binary):
    server = StdioServerParameters(command=binary, args=["serve"])
    user = User()
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, elicitation_callback=user) as session:
            await run_checks(session, user)
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await without_elicitation(session)


async def over_http(url, sessions):
    responses = []  # (method, status, Mcp-Session-Id or None), in order

    async def record(response):
        responses.append(
            (response.request.method, response.status_code, response.headers.get("mcp-session-id"))
        )

    timeout = httpx2.Timeout(20.0, read=60.0)
    async with httpx2.AsyncClient(timeout=timeout, event_hooks={"response": [record]}) as http:
        user = User()
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, elicitation_callback=user) as session:
                await run_checks(session, user, can_ask=sessions)
    if sessions:  # a second session (not recorded), on the same server, whose client cannot ask
        async with httpx2.AsyncClient(timeout=timeout) as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await without_elicitation(session)

    posts = [r for r in responses if r[0] == "POST"]
    check(len(posts) >= 2, f"HTTP: {len(posts)} POST responses")
    for method, status, _ in posts:
        check(status in (200, 202), f"HTTP: POST answered {status}")
    ids = [sid for _, _, sid in responses if sid is not None]
    deletes = [r for r in responses if r[0] == "DELETE"]
    if sessions:
        check(bool(posts) and posts[0][2] is not None, f"HTTP --sessions: initialize gave no Mcp-Session-Id: {posts[:1]}")
        check(len(set(ids)) == 1, f"HTTP --sessions: session ids {sorted(set(ids))}")
        check(len(deletes) == 1, f"HTTP --sessions: {len(deletes)} DELETE on close")
        for _, status, _ in deletes:
            check(200 <= status < 300 or status == 405, f"HTTP --sessions: DELETE answered {status}")
        for method, status, _ in responses:
            if method == "GET":
                check(status in (200, 405), f"HTTP --sessions: GET stream answered {status}")
    else:
        check(not ids, f"HTTP stateless: the server sent Mcp-Session-Id {sorted(set(ids))}")
        check(not deletes, "HTTP stateless: no session, so no DELETE")


async def main(argv):
    if argv[:1] == ["--http"]:
        what = "python-sdk http" + (" --sessions" if "--sessions" in argv else "")
        run = over_http(argv[1], "--sessions" in argv[2:])
    else:
        what = "python-sdk"
        run = over_stdio(argv[0])
    await within(what, run, timeout=120)
    return tally(what)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
