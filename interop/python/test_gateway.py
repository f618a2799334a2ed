"""`toolsmith gateway` in front of the notes example (Claude Desktop's config format), driven
by the official Python SDK (PyPI `mcp`) over stdio, served with `--confirm destructive`:

- the upstream's tools are listed under its prefix with the hints it states;
- a call reaches the upstream and its result comes back unchanged (structuredContent, the
  resource_link block);
- the upstream's own error result reaches the client as an error result with its text;
- one question per call: a delete the upstream confirms itself (and says so in its listing)
  is asked about once, in the upstream's words, not by the gateway's `--confirm` as well;
  declined, it never runs (the note is still there).

And in front of a FastMCP server with planted wrong hints (interop/audit/fastmcp_server.py):
its audit findings are logged at connect (delete_record says it is read-only), a tool that
states no hints is served with the cautious defaults (destructive), and `--strict-hints`
leaves out each tool that leaves a hint unstated (all three: none states idempotentHint),
naming it.

And in front of a FastMCP server that asks and reports (fastmcp_asking.py), on the revisions
before 2026-07-28 on both sides, served with `--confirm destructive` and overrides that say
the upstream confirms its own calls (`upstream_confirms = true`): its elicitation request,
sent while a call runs, is the only question the client gets, and the client's answer
decides the call (declined: kept; accepted: purged); its progress reaches the client under
the client's own token, its log messages as the client's.

    python test_gateway.py PATH_TO_TOOLSMITH PATH_TO_NOTES_BINARY
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp.types import ElicitResult

from checks import check, tally, within
from confirming import User, text_of

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
            check(refused.is_error is True, f"a declined delete is an error result: {refused}")
            for needle in ["declined", "did not run"]:
                check(needle in text_of(refused), f"a declined delete: {needle!r} not in {text_of(refused)!r}")
            asked = [params.message for params in user.take()]
            check(asked == [f"Delete note {note.get('id')}?"], f"asked once, in the upstream's words: {asked}")
            kept = await session.call_tool("notes_get_note", {"note_id": note.get("id")})
            check(not kept.is_error, f"the note is still there: {kept}")


class Form:
    """An elicitation callback for the archive's question: records it, answers `sure`."""

    def __init__(self):
        self.sure = False
        self.asked = []

    async def __call__(self, context, params):
        self.asked.append(params.message)
        return ElicitResult(action="accept", content={"sure": self.sure})


async def check_passed_through(toolsmith, tmp):
    """The FastMCP upstream's question, progress and logs, through the gateway."""
    server = os.path.join(os.path.dirname(__file__), "fastmcp_asking.py")
    config = os.path.join(tmp, "archive.json")
    with open(config, "w") as out:
        json.dump({"mcpServers": {"archive": {"command": sys.executable, "args": [os.path.abspath(server)]}}}, out)
    # It asks before a purge without saying so in its listing: the overrides say it.
    overrides = os.path.join(tmp, "archive.toml")
    with open(overrides, "w") as out:
        out.write('[tools.archive_purge]\nupstream_confirms = true\n')
    params = StdioServerParameters(
        command=toolsmith,
        args=["gateway", "--config", config, "--overrides", overrides, "serve", "--confirm", "destructive"],
        env={"TOOLSMITH_LOG": "off", "PATH": os.environ.get("PATH", "")},
    )
    form, logged, progress = Form(), [], []

    async def log(params):
        logged.append(params.data)

    async def on_progress(done, total, message):
        progress.append((done, total, message))

    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, elicitation_callback=form, logging_callback=log) as session:
            await session.initialize()
            kept = await session.call_tool("archive_purge", {"days": 30})
            check(text_of(kept) == "kept (accept)", f"answered not sure: kept: {kept}")
            form.sure = True
            purged = await session.call_tool("archive_purge", {"days": 30})
            check(text_of(purged) == "purged 30", f"answered sure: purged: {purged}")
            check(form.asked == ["Purge the records older than 30 days?"] * 2, f"the upstream's question, its words, once per call: {form.asked}")

            counted = await session.call_tool("archive_count", {"steps": 3}, progress_callback=on_progress)
            check(text_of(counted) == "3", f"counted: {counted}")
            check([p[:2] for p in progress] == [(1, 3), (2, 3), (3, 3)], f"the upstream's progress: {progress}")
            said = [data.get("msg") if isinstance(data, dict) else data for data in logged]
            check(said == ["counting", "counted"], f"the upstream's logs, its data unchanged: {logged}")


def check_hints_governed(toolsmith, tmp):
    """The FastMCP upstream through `toolsmith gateway ... tools`, with and without --strict-hints."""
    server = os.path.join(os.path.dirname(__file__), "..", "audit", "fastmcp_server.py")
    config = os.path.join(tmp, "records.json")
    with open(config, "w") as out:
        json.dump({"mcpServers": {"records": {"command": sys.executable, "args": [os.path.abspath(server)]}}}, out)

    def tools(*flags):
        run = subprocess.run(
            [toolsmith, "gateway", "--config", config, *flags, "tools", "--json"],
            capture_output=True, text=True, timeout=120,
        )
        check(run.returncode == 0, f"gateway tools {flags}: exit {run.returncode}: {run.stderr}")
        listed = json.loads(run.stdout) if run.returncode == 0 else []
        return {tool["name"]: tool for tool in listed}, run.stderr

    listed, said = tools()
    check(set(listed) == {"records_list_records", "records_delete_record", "records_find_records"}, f"listed: {sorted(listed)}")
    hints = listed.get("records_list_records", {})
    check(hints.get("destructive") is True and hints.get("readOnly") is False and hints.get("openWorld") is True,
          f"no hints stated: the cautious defaults: {hints}")
    check("delete_record" in said and "verb" in said, f"the audit's finding on delete_record is logged: {said!r}")

    # No tool of it states idempotentHint: --strict-hints leaves out each, naming it, and
    # with nothing left to serve the gateway says so and stops.
    run = subprocess.run(
        [toolsmith, "gateway", "--config", config, "--strict-hints", "tools"],
        capture_output=True, text=True, timeout=120,
    )
    check(run.returncode == 1, f"--strict-hints with nothing left: exit {run.returncode}")
    for name in ["list_records", "delete_record", "find_records"]:
        check(f"tool={name}" in run.stderr and "left out" in run.stderr, f"--strict-hints names {name}: {run.stderr!r}")
    check("no upstream tool to serve" in run.stderr, f"the gateway says why it stops: {run.stderr!r}")


async def main():
    toolsmith, notes = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(tmp, "claude_desktop_config.json")
        with open(config, "w") as out:
            json.dump({"mcpServers": {"notes": {"command": notes, "env": {"TOOLSMITH_LOG": "off"}}}}, out)
        await within("the gateway over stdio", run_checks(toolsmith, config), 120)
        check_hints_governed(toolsmith, tmp)
        await within("the upstream's questions, progress and logs", check_passed_through(toolsmith, tmp), 120)
    return tally("python sdk through toolsmith gateway")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
