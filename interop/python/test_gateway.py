"""`toolsmith gateway` in front of the notes example (Claude Desktop's config format), driven
by the official Python SDK (PyPI `mcp`) over stdio, served with `--confirm destructive`:

- the upstream's tools are listed under its prefix with the hints it states;
- a call reaches the upstream and its result comes back unchanged (structuredContent, the
  resource_link block);
- the upstream's own error result reaches the client as an error result with its text;
- a destructive call is confirmed by the gateway first: declined, it is refused and never
  reaches the upstream (the note is still there).

    python test_gateway.py PATH_TO_TOOLSMITH PATH_TO_NOTES_BINARY
"""

import asyncio
import json
import os
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from checks import check, tally, within
from confirming import User, check_refused, text_of

PREFIXED = {
    "notes_create_note", "notes_delete_note", "notes_get_note", "notes_import_notes",
    "notes_import_url", "notes_search_notes", "notes_tag_chart",
}


async def run_checks(toolsmith, config):
    params = StdioServerParameters(
        command=toolsmith,
        args=["gateway", "--config", config, "serve", "--confirm", "destructive"],
        env={"TOOLSMITH_LOG": "off", "PATH": os.environ.get("PATH", "")},
    )
    user = User(answer="decline")
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, elicitation_callback=user) as session:
            await session.initialize()
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            check(set(tools) == PREFIXED, f"the prefixed tools: {sorted(tools)}")
            delete = tools.get("notes_delete_note")
            hints = delete.annotations if delete else None
            check(
                hints is not None
                and (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint, hints.open_world_hint)
                == (False, True, True, False),
                f"notes_delete_note's hints as the upstream states them: {hints}",
            )
            search = tools.get("notes_search_notes")
            check(search is not None and search.annotations.read_only_hint is True, "notes_search_notes reads only")

            created = await session.call_tool("notes_create_note", {"title": "Via the gateway", "body": "b"})
            note = created.structured_content or {}
            check(not created.is_error and note.get("title") == "Via the gateway", f"created: {created}")
            check(
                any(block.type == "resource_link" for block in created.content),
                f"the upstream's resource_link passes through: {created.content}",
            )
            missing = await session.call_tool("notes_get_note", {"note_id": 999})
            check(missing.is_error is True and "999" in text_of(missing), f"the upstream's error: {missing}")

            refused = await session.call_tool("notes_delete_note", {"note_id": note.get("id")})
            check_refused(refused, "declined", "a declined delete through the gateway")
            check(len(user.take()) == 1, "the gateway asked once")
            kept = await session.call_tool("notes_get_note", {"note_id": note.get("id")})
            check(not kept.is_error, f"the note is still there: {kept}")


async def main():
    toolsmith, notes = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(tmp, "claude_desktop_config.json")
        with open(config, "w") as out:
            json.dump({"mcpServers": {"notes": {"command": notes, "env": {"TOOLSMITH_LOG": "off"}}}}, out)
        await within("the gateway over stdio", run_checks(toolsmith, config), 120)
    return tally("python sdk through toolsmith gateway")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
