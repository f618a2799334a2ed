"""`toolsmith gateway ... serve --tool-search` in front of four real upstreams (the notes
example, @modelcontextprotocol/server-everything from npm, a FastMCP server, the FastAPI notes
API), driven by the official Python SDK (PyPI `mcp`) over stdio:

- tools/list gives two tools, search_tools and call_tool;
- search_tools finds a tool by the words of what it does (notes_search_notes first for "search
  notes"), pages with nextCursor through every tool of both upstreams, and leaves out nothing
  the gateway serves;
- call_tool calls a tool found, on each upstream, and its result comes back as the tool gave
  it (notes_search_notes's structuredContent, everything_echo's text, records_find_records,
  api_get_note);
- with `--read-only`, search_tools finds only read-only tools, call_tool's hints say it only
  reads, and a call_tool of notes_delete_note is refused by the policy: the note stays.

    python test_tool_search.py PATH_TO_TOOLSMITH PATH_TO_NOTES_BINARY NODE EVERYTHING_JS
"""

import asyncio
import json
import os
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from checks import check, tally, within
from test_openapi import start_api

HERE = os.path.dirname(os.path.abspath(__file__))


def gateway(toolsmith, config, *flags):
    return StdioServerParameters(
        command=toolsmith,
        args=["gateway", "--config", config, "serve", "--tool-search", *flags],
        env={"TOOLSMITH_LOG": "off", "PATH": os.environ.get("PATH", ""), "NOTES_API_KEY": "secret-key"},
    )


async def search(session, **arguments):
    found = await asyncio.wait_for(session.call_tool("search_tools", arguments), 30)
    check(not found.is_error, f"search_tools {arguments} answers: {found}")
    return found.structured_content or {}


async def every_tool(session):
    names, cursor = [], None
    for _ in range(20):
        arguments = {"page_size": 5} | ({"cursor": cursor} if cursor else {})
        page = await search(session, **arguments)
        names += [tool["name"] for tool in page.get("tools", [])]
        cursor = page.get("nextCursor")
        if not cursor:
            break
    return names


async def served(toolsmith, config):
    async with stdio_client(gateway(toolsmith, config)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = (await session.list_tools()).tools
            check([t.name for t in listed] == ["search_tools", "call_tool"],
                  f"two tools listed: {[t.name for t in listed]}")
            found = await search(session, query="search notes")
            names = [tool["name"] for tool in found.get("tools", [])]
            check(names[:1] == ["notes_search_notes"], f"search notes finds it first: {names}")
            check(found["tools"][0]["inputSchema"]["properties"].get("query") is not None,
                  f"with its input schema: {found['tools'][0]}")
            # Wait for server-everything's tools (it adds some after it starts).
            for _ in range(50):
                everything = await search(session, query="echo")
                if any(t["name"] == "everything_echo" for t in everything.get("tools", [])):
                    break
                await asyncio.sleep(0.1)
            paged = await every_tool(session)
            total = (await search(session))["total"]
            check(len(paged) == total and len(set(paged)) == total and total > 15,
                  f"pages reach every tool once: {len(paged)} of {total}")
            check(all(n in paged for n in ["notes_delete_note", "everything_echo", "records_find_records",
                                           "api_get_note"]),
                  f"every upstream's tools: {paged}")
            records = await asyncio.wait_for(session.call_tool(
                "call_tool", {"name": "records_find_records", "arguments": {"text": "a"}}), 30)
            check(not records.is_error, f"call_tool reaches the FastMCP server: {records}")
            api_note = await asyncio.wait_for(session.call_tool(
                "call_tool", {"name": "api_get_note", "arguments": {"note_id": 1}}), 30)
            check(not api_note.is_error and (api_note.structured_content or {}).get("title") == "Groceries",
                  f"call_tool reaches the HTTP API: {api_note}")
            called = await asyncio.wait_for(session.call_tool(
                "call_tool", {"name": "notes_search_notes", "arguments": {"query": "milk"}}), 30)
            check(not called.is_error and "Groceries" in json.dumps(called.structured_content),
                  f"call_tool reaches notes_search_notes: {called}")
            echoed = await asyncio.wait_for(session.call_tool(
                "call_tool", {"name": "everything_echo", "arguments": {"message": "hi"}}), 30)
            text = " ".join(c.text for c in echoed.content if hasattr(c, "text"))
            check(not echoed.is_error and "hi" in text, f"call_tool reaches everything_echo: {text}")


async def read_only(toolsmith, config):
    async with stdio_client(gateway(toolsmith, config, "--read-only")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = (await session.list_tools()).tools
            call = next(t for t in listed if t.name == "call_tool")
            check(call.annotations.read_only_hint is True and call.annotations.destructive_hint is False,
                  f"call_tool reaches only reading tools: {call.annotations}")
            found = await search(session, page_size=100)
            check(all(t["annotations"]["readOnlyHint"] for t in found["tools"]) and found["tools"],
                  f"only read-only tools found: {[t['name'] for t in found['tools']]}")
            refused = await asyncio.wait_for(session.call_tool(
                "call_tool", {"name": "notes_delete_note", "arguments": {"note_id": 1}}), 30)
            text = " ".join(c.text for c in refused.content if hasattr(c, "text"))
            check(refused.is_error and "read-only" in text, f"the policy refuses the delete: {text}")
            kept = await asyncio.wait_for(session.call_tool(
                "call_tool", {"name": "notes_get_note", "arguments": {"note_id": 1}}), 30)
            check(not kept.is_error and (kept.structured_content or {}).get("id") == 1,
                  f"the note stays: {kept}")


async def main():
    toolsmith, notes, node, everything = sys.argv[1:5]
    api, base = start_api()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            config = os.path.join(tmp, "claude_desktop_config.json")
            with open(config, "w") as out:
                json.dump({"mcpServers": {
                    "notes": {"command": notes, "env": {"TOOLSMITH_LOG": "off"}},
                    "everything": {"command": node, "args": [everything, "stdio"]},
                    "records": {"command": sys.executable,
                                "args": [os.path.join(HERE, "..", "audit", "fastmcp_server.py")]},
                    "api": {"openapi": f"{base}/openapi.json",
                            "credentials": {"APIKeyHeader": "${NOTES_API_KEY}"}},
                }}, out)
            await within("search mode through the gateway", served(toolsmith, config), 120)
            await within("search mode, read-only", read_only(toolsmith, config), 120)
    finally:
        api.kill()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(tally("python sdk: search mode through toolsmith gateway"))
