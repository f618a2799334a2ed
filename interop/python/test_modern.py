"""The notes example driven by the official Python SDK (PyPI `mcp`) at MCP 2026-07-28.

The SDK's `Client` in its default mode ("auto") probes `server/discover` and adopts the
2026-07-28 revision when the server offers it: no `initialize`, and every request carries the
revision and the client's capabilities in `_meta`. This runs the tutorial's flow on such a
connection (tools/list, search_notes, get_note of a missing id, create_note, get_note,
delete_note), validates every structuredContent against its tool's outputSchema, and checks
on the wire (every JSON-RPC message the transport carries, recorded) that:

  - the first request is `server/discover`, and no `initialize` (nor `notifications/initialized`)
    is ever sent;
  - every request's `_meta` names `io.modelcontextprotocol/protocolVersion` 2026-07-28 and
    carries `io.modelcontextprotocol/clientCapabilities`;
  - every result carries `resultType: "complete"`, and the tools/list result `ttlMs` and
    `cacheScope`; except the first round of each delete_note call.

delete_note asks the user first (`confirm`). At 2026-07-28 the server does not send a request:
it answers the call `resultType: "input_required"`, with the confirmation form under
`inputRequests.confirm` and a sealed `requestState`; the SDK asks its elicitation callback
and calls again with `inputResponses.confirm` and the state echoed. Declined, the retry is an
error result of kind `refused` and the note stays; accepted, the note is deleted. A client
that declares no elicitation capability is refused at once, unasked, and the note stays.

Over Streamable HTTP it also records every HTTP request and response: each POST must carry
`MCP-Protocol-Version: 2026-07-28`, an `Mcp-Method` equal to its body's method and, for a
tools/call, an `Mcp-Name` equal to the tool's name; each must be answered 200, with no
Mcp-Session-Id.

    python test_modern.py PATH_TO_NOTES_BINARY    stdio: starts `notes serve` itself
    python test_modern.py --http URL              against a fresh server listening at URL
"""

import asyncio
import json
import sys

import httpx2
import jsonschema
from mcp import StdioServerParameters
from mcp.client.client import Client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from checks import check, tally, within
from confirming import SCHEMA, User, check_asked, check_refused
from recording import Recording

MODERN = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
TOOLS = ["create_note", "delete_note", "get_note", "import_notes", "import_url", "search_notes", "tag_chart"]


def text(result):
    return result.content[0].text if result.content else ""


async def run_checks(client, user):
    """The tutorial's flow on an entered Client whose elicitation callback is `user`."""
    check(client.protocol_version == MODERN, f"negotiated {client.protocol_version!r}, not {MODERN}")
    info = client.server_info
    check(info is not None and info.name == "toolsmith-examples", f"server/discover serverInfo {info}")

    listed = await client.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    check(sorted(tools) == TOOLS, f"tools {sorted(tools)}")

    def validate_structured(name, result):
        schema = tools[name].output_schema
        check(schema is not None, f"{name} has an outputSchema")
        check(not result.is_error, f"{name} is not an error: {text(result)!r}")
        try:
            jsonschema.validate(result.structured_content, schema or {})
            check(True, "")
        except jsonschema.exceptions.ValidationError as err:
            check(False, f"{name} structuredContent: {err.message}")

    found = await client.call_tool("search_notes", {"query": "parser"})
    validate_structured("search_notes", found)
    titles = [n["title"] for n in (found.structured_content or {}).get("result", [])]
    check(titles == ["Standup notes"], f"search titles {titles}")

    # A missing note: an error result (isError) or a JSON-RPC error, as the server answers.
    try:
        missing = await client.call_tool("get_note", {"note_id": 99})
        check(missing.is_error is True, f"get_note 99 is an error: {missing}")
        check(text(missing) == "No note with id 99.", f"missing text {text(missing)!r}")
    except MCPError as err:
        check("99" in err.error.message, f"get_note 99 JSON-RPC error {err.error}")

    created = await client.call_tool("create_note", {"title": "Modern", "body": "at 2026-07-28"})
    validate_structured("create_note", created)
    note_id = (created.structured_content or {}).get("id")
    check(note_id == 4, f"new id {note_id}")

    got = await client.call_tool("get_note", {"note_id": note_id})
    validate_structured("get_note", got)
    check((got.structured_content or {}).get("title") == "Modern", f"get the created note {got.structured_content}")

    # Declined: refused on the retry, and the note stays.
    user.answer = "decline"
    refused = await client.call_tool("delete_note", {"note_id": note_id})
    check_asked(user, note_id, f"delete_note {note_id}, declined")
    check_refused(refused, ["declined", "'delete_note'"], f"delete_note {note_id}, declined")
    still = await client.call_tool("get_note", {"note_id": note_id})
    check((still.structured_content or {}).get("title") == "Modern",
          f"after the decline, note {note_id} is still there: {still}")

    user.answer = "accept"
    deleted = await client.call_tool("delete_note", {"note_id": note_id})
    check_asked(user, note_id, f"delete_note {note_id}, accepted")
    validate_structured("delete_note", deleted)
    check(deleted.structured_content == {"note_id": note_id, "deleted": True}, f"delete {deleted.structured_content}")


async def without_elicitation(client):
    """A client that declares no elicitation capability: delete_note is refused at once."""
    check(client.protocol_version == MODERN, f"negotiated {client.protocol_version!r}, not {MODERN}")
    refused = await client.call_tool("delete_note", {"note_id": 1})
    check_refused(refused, "declared no elicitation capability", "delete_note without elicitation")
    still = await client.call_tool("get_note", {"note_id": 1})
    check(not still.is_error and (still.structured_content or {}).get("id") == 1,
          f"without elicitation, note 1 is still there: {still}")


def check_rounds(requests, by_id):
    """delete_note's rounds on the wire: each first call is answered input_required with the
    confirmation form and a state; the next call is the same call again with the answer and
    that state, answered complete."""
    calls = [r for r in requests if r["method"] == "tools/call"]
    deletes = [r for r in calls if r["params"]["name"] == "delete_note"]
    check(len(deletes) == 4, f"delete_note sent {len(deletes)} times (2 calls of 2 rounds): {deletes}")
    for first, retry in zip(deletes[0::2], deletes[1::2]):
        params = first["params"]
        what = f"delete_note {params.get('arguments')} (id {first['id']})"
        check("requestState" not in params and "inputResponses" not in params, f"{what}: a first round with a state: {params}")
        result = (by_id.get(first["id"]) or {}).get("result") or {}
        check(result.get("resultType") == "input_required", f"{what}: resultType {result.get('resultType')!r}")
        asked = (result.get("inputRequests") or {}).get("confirm") or {}
        check(asked.get("method") == "elicitation/create", f"{what}: inputRequests {result.get('inputRequests')}")
        form = asked.get("params") or {}
        note_id = (params.get("arguments") or {}).get("note_id")
        check(form.get("mode") == "form" and form.get("message") == f"Delete note {note_id}?"
              and form.get("requestedSchema") == SCHEMA, f"{what}: the confirmation form {form}")
        state = result.get("requestState")
        check(isinstance(state, str) and state != "", f"{what}: requestState {state!r}")
        check("content" not in result and "isError" not in result, f"{what}: input_required with a result: {result}")
        again = retry["params"]
        check(again.get("arguments") == params.get("arguments"), f"{what}: the retry's arguments {again.get('arguments')}")
        check(again.get("requestState") == state, f"{what}: the retry echoes the state: {again.get('requestState')!r}")
        answer = (again.get("inputResponses") or {}).get("confirm") or {}
        check(answer.get("action") in ("accept", "decline"), f"{what}: the retry's inputResponses {again.get('inputResponses')}")


def check_wire(recording):
    """What the transport carried: 2026-07-28 envelopes, never a handshake, typed results."""
    sent = recording.sent
    requests = [m for m in sent if "method" in m and "id" in m]
    methods = [m["method"] for m in sent if "method" in m]
    check(bool(requests) and requests[0]["method"] == "server/discover", f"first request {methods[:1]}")
    check("initialize" not in methods, f"an initialize was sent: {methods}")
    check("notifications/initialized" not in methods, f"notifications/initialized was sent: {methods}")
    # search, get 99, create, get, delete (declined: 2 rounds), get, delete (accepted: 2 rounds)
    check(methods.count("tools/call") == 9, f"tools/call sent {methods.count('tools/call')} times: {methods}")
    for request in requests:
        meta = (request.get("params") or {}).get("_meta") or {}
        check(meta.get(VERSION_KEY) == MODERN, f"{request['method']} _meta {VERSION_KEY}: {meta.get(VERSION_KEY)!r}")
        check(isinstance(meta.get(CAPABILITIES_KEY), dict), f"{request['method']} _meta has no {CAPABILITIES_KEY}")

    by_id = {m["id"]: m for m in recording.received if "id" in m and ("result" in m or "error" in m)}
    check_rounds(requests, by_id)
    check(not [m for m in recording.received if "method" in m and "id" in m],
          "the server sent a request (at 2026-07-28 it asks in input_required results)")
    for request in requests:
        reply = by_id.get(request["id"])
        what = f"{request['method']} (id {request['id']})"
        check(reply is not None, f"{what}: no response")
        if reply is None or "error" in reply:
            continue
        result = reply["result"]
        first_delete = (request["method"] == "tools/call" and request["params"]["name"] == "delete_note"
                        and "requestState" not in request["params"])
        if not first_delete:
            check(result.get("resultType") == "complete", f"{what}: resultType {result.get('resultType')!r}")
        if request["method"] == "tools/list":
            check(isinstance(result.get("ttlMs"), int), f"{what}: ttlMs {result.get('ttlMs')!r}")
            check(result.get("cacheScope") in ("public", "private"), f"{what}: cacheScope {result.get('cacheScope')!r}")


async def over_stdio(binary):
    server = StdioServerParameters(command=binary, args=["serve"])
    recording, user = Recording(stdio_client(server)), User()
    async with Client(recording, cache=None, elicitation_callback=user) as client:
        await run_checks(client, user)
    check_wire(recording)
    async with Client(stdio_client(server), cache=None) as client:
        await without_elicitation(client)


async def over_http(url):
    exchanges = []  # (request, status, Mcp-Session-Id or None)

    async def record(response):
        exchanges.append((response.request, response.status_code, response.headers.get("mcp-session-id")))

    timeout = httpx2.Timeout(20.0, read=60.0)
    async with httpx2.AsyncClient(timeout=timeout, event_hooks={"response": [record]}) as http:
        recording, user = Recording(streamable_http_client(url, http_client=http)), User()
        async with Client(recording, cache=None, elicitation_callback=user) as client:
            await run_checks(client, user)
    check_wire(recording)
    async with httpx2.AsyncClient(timeout=timeout) as http:  # not recorded
        async with Client(streamable_http_client(url, http_client=http), cache=None) as client:
            await without_elicitation(client)

    posts = [(r, status, sid) for r, status, sid in exchanges if r.method == "POST"]
    check(len(posts) >= 7, f"HTTP: {len(posts)} POSTs")
    for request, status, sid in posts:
        body = json.loads(request.content)
        what = f"HTTP POST {body.get('method')}"
        check(status == 200, f"{what}: answered {status}")
        check(sid is None, f"{what}: the server sent Mcp-Session-Id {sid}")
        check(request.headers.get("mcp-protocol-version") == MODERN,
              f"{what}: MCP-Protocol-Version {request.headers.get('mcp-protocol-version')!r}")
        check(request.headers.get("mcp-method") == body.get("method"),
              f"{what}: Mcp-Method {request.headers.get('mcp-method')!r}")
        if body.get("method") == "tools/call":
            name = body["params"]["name"]
            check(request.headers.get("mcp-name") == name, f"{what} {name}: Mcp-Name {request.headers.get('mcp-name')!r}")
    check(not [r for r, _, _ in exchanges if r.method == "DELETE"], "HTTP: no session, so no DELETE")


async def main(argv):
    if argv[:1] == ["--http"]:
        what, run = "python-sdk 2026-07-28 http", over_http(argv[1])
    else:
        what, run = "python-sdk 2026-07-28", over_stdio(argv[0])
    await within(what, run, timeout=120)
    return tally(what)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
