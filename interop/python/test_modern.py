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
    `cacheScope`.

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
from recording import Recording

MODERN = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
TOOLS = ["create_note", "delete_note", "get_note", "import_url", "search_notes", "tag_chart"]


def text(result):
    return result.content[0].text if result.content else ""


async def run_checks(client):
    """The tutorial's flow on an entered Client."""
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

    deleted = await client.call_tool("delete_note", {"note_id": note_id})
    validate_structured("delete_note", deleted)
    check(deleted.structured_content == {"note_id": note_id, "deleted": True}, f"delete {deleted.structured_content}")


def check_wire(recording):
    """What the transport carried: 2026-07-28 envelopes, never a handshake, typed results."""
    sent = recording.sent
    requests = [m for m in sent if "method" in m and "id" in m]
    methods = [m["method"] for m in sent if "method" in m]
    check(bool(requests) and requests[0]["method"] == "server/discover", f"first request {methods[:1]}")
    check("initialize" not in methods, f"an initialize was sent: {methods}")
    check("notifications/initialized" not in methods, f"notifications/initialized was sent: {methods}")
    check(methods.count("tools/call") == 5, f"tools/call sent {methods.count('tools/call')} times: {methods}")
    for request in requests:
        meta = (request.get("params") or {}).get("_meta") or {}
        check(meta.get(VERSION_KEY) == MODERN, f"{request['method']} _meta {VERSION_KEY}: {meta.get(VERSION_KEY)!r}")
        check(isinstance(meta.get(CAPABILITIES_KEY), dict), f"{request['method']} _meta has no {CAPABILITIES_KEY}")

    by_id = {m["id"]: m for m in recording.received if "id" in m and ("result" in m or "error" in m)}
    for request in requests:
        reply = by_id.get(request["id"])
        what = f"{request['method']} (id {request['id']})"
        check(reply is not None, f"{what}: no response")
        if reply is None or "error" in reply:
            continue
        result = reply["result"]
        check(result.get("resultType") == "complete", f"{what}: resultType {result.get('resultType')!r}")
        if request["method"] == "tools/list":
            check(isinstance(result.get("ttlMs"), int), f"{what}: ttlMs {result.get('ttlMs')!r}")
            check(result.get("cacheScope") in ("public", "private"), f"{what}: cacheScope {result.get('cacheScope')!r}")


async def over_stdio(binary):
    recording = Recording(stdio_client(StdioServerParameters(command=binary, args=["serve"])))
    async with Client(recording, cache=None) as client:
        await run_checks(client)
    check_wire(recording)


async def over_http(url):
    exchanges = []  # (request, status, Mcp-Session-Id or None)

    async def record(response):
        exchanges.append((response.request, response.status_code, response.headers.get("mcp-session-id")))

    timeout = httpx2.Timeout(20.0, read=60.0)
    async with httpx2.AsyncClient(timeout=timeout, event_hooks={"response": [record]}) as http:
        recording = Recording(streamable_http_client(url, http_client=http))
        async with Client(recording, cache=None) as client:
            await run_checks(client)
    check_wire(recording)

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
