"""Tools reshaped by the gateway's overrides file, driven by the official Python SDK (PyPI
`mcp`) over stdio, through `toolsmith gateway` in front of four real upstreams:

- the FastAPI notes API (notes_api.py, an OpenAPI upstream): its library operation takes its
  key as an ordinary header parameter, which the overrides hide with a secret reference
  (`${env:LIBRARY_KEY}`): the client never sees the argument nor the key, and the call
  reaches the API with it; its `item` argument is renamed `book`;
- the notes example (toolsmith): search_notes served as `find_notes` with its own
  description, its `query` renamed `word`;
- a FastMCP server (interop/audit/fastmcp_server.py): find_records's `limit` given a default;
- @modelcontextprotocol/server-everything (npm): echo's `message` renamed `text`.

Each call comes back as the upstream answers it; an argument's old name is refused.

    python test_reshape.py PATH_TO_TOOLSMITH PATH_TO_NOTES_BINARY NODE EVERYTHING_JS
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

OVERRIDES = """
[tools.api_library_item]
description = "Find where a book is shelved in the partner library."
arguments.x-library-key = { value = "${env:LIBRARY_KEY}" }
arguments.item = { rename = "book", description = "The book's title." }

[tools.notes_search_notes]
name = "find_notes"
description = "Find notes by a word of their title or body."
arguments.query = { rename = "word" }

[tools.records_find_records]
arguments.limit = { default = 1 }

[tools.everything_echo]
arguments.message = { rename = "text" }
"""


def text_of(result):
    return " ".join(c.text for c in result.content if hasattr(c, "text"))


async def run_checks(toolsmith, config, overrides):
    params = StdioServerParameters(
        command=toolsmith,
        args=["gateway", "--config", config, "--overrides", overrides, "serve"],
        env={"TOOLSMITH_LOG": "off", "PATH": os.environ.get("PATH", ""), "LIBRARY_KEY": "library-key",
             "NOTES_API_KEY": "secret-key"},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for _ in range(50):
                tools = {t.name: t for t in (await session.list_tools()).tools}
                if "everything_echo" in tools:
                    break
                await asyncio.sleep(0.1)
            library = tools.get("api_library_item")
            shown = json.dumps(library.input_schema if library else {})
            check(library is not None and "library-key" not in shown and '"book"' in shown
                  and '"item"' not in shown,
                  f"the key is not an argument (nor its value), item is book: {shown}")
            check(library is not None and library.description.startswith("Find where a book"),
                  f"its description: {library and library.description}")
            found = await asyncio.wait_for(session.call_tool("api_library_item", {"book": "Dune"}), 30)
            check(not found.is_error and (found.structured_content or {}).get("shelf") == "B3",
                  f"the API got its key and the item: {found}")
            old = await asyncio.wait_for(session.call_tool("api_library_item", {"item": "Dune"}), 30)
            check(old.is_error, f"the old name is refused: {text_of(old)}")

            check("find_notes" in tools and "notes_search_notes" not in tools, f"renamed: {sorted(tools)}")
            notes = await asyncio.wait_for(session.call_tool("find_notes", {"word": "milk"}), 30)
            check(not notes.is_error and "Groceries" in json.dumps(notes.structured_content),
                  f"find_notes reaches search_notes: {notes}")

            limit = tools["records_find_records"].input_schema["properties"]["limit"]
            check(limit.get("default") == 1, f"limit shows its default: {limit}")
            records = await asyncio.wait_for(session.call_tool("records_find_records", {"text": "a"}), 30)
            check(not records.is_error, f"find_records with its default: {records}")

            echo = tools["everything_echo"].input_schema["properties"]
            check("text" in echo and "message" not in echo, f"echo takes text: {echo}")
            echoed = await asyncio.wait_for(session.call_tool("everything_echo", {"text": "hi"}), 30)
            check(not echoed.is_error and "hi" in text_of(echoed), f"echo: {text_of(echoed)}")


def main():
    toolsmith, notes, node, everything = sys.argv[1:5]
    api, base = start_api()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            config = os.path.join(tmp, "gateway.json")
            with open(config, "w") as f:
                json.dump({"mcpServers": {
                    "api": {"openapi": f"{base}/openapi.json",
                            "credentials": {"APIKeyHeader": "${NOTES_API_KEY}"}},
                    "notes": {"command": notes, "env": {"TOOLSMITH_LOG": "off"}},
                    "records": {"command": sys.executable,
                                "args": [os.path.join(HERE, "..", "audit", "fastmcp_server.py")]},
                    "everything": {"command": node, "args": [everything, "stdio"]},
                }}, f)
            overrides = os.path.join(tmp, "overrides.toml")
            with open(overrides, "w") as f:
                f.write(OVERRIDES)
            asyncio.run(within("reshaped tools through the gateway",
                               run_checks(toolsmith, config, overrides), 120))
    finally:
        api.kill()
    sys.exit(tally("python sdk: reshaped tools through toolsmith gateway"))


if __name__ == "__main__":
    main()
