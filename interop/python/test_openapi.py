"""`toolsmith gateway` in front of an HTTP API (an OpenAPI upstream): the notes API
(notes_api.py, FastAPI) started here, its generated OpenAPI 3.1 document read from
`/openapi.json`, driven by the official Python SDK (PyPI `mcp`) over stdio:

- each operation is a tool under the prefix, its hints from its HTTP method (GET read-only
  and idempotent, DELETE destructive and idempotent, POST destructive), closed-world;
- calls reach the API with the configured API key (never an argument) and come back as
  structured content; an error status is an error result with the status;
- served with `--confirm destructive`, a POST and a DELETE are confirmed first: a declined
  DELETE never reaches the API (the note is still there);
- `toolsmith audit` of the gateway finds no error in the generated tools.

    python test_openapi.py PATH_TO_TOOLSMITH
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from checks import check, tally, within
from confirming import User, check_refused, text_of

HERE = os.path.dirname(os.path.abspath(__file__))


def start_api():
    api = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "notes_api.py")],
        stdout=subprocess.PIPE, text=True,
    )
    line = api.stdout.readline().strip()
    if not line.startswith("listening on "):
        api.kill()
        raise SystemExit(f"the notes API did not start: {line!r}")
    return api, f"http://127.0.0.1:{line.split()[-1]}"


async def run_checks(toolsmith, config):
    params = StdioServerParameters(
        command=toolsmith,
        args=["gateway", "--config", config, "serve", "--confirm", "destructive"],
        env={"TOOLSMITH_LOG": "off", "PATH": os.environ.get("PATH", ""), "NOTES_API_KEY": "secret-key"},
    )
    user = User(answer="accept")
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, elicitation_callback=user) as session:
            await session.initialize()
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            check("api_get_note" in tools and "api_delete_note" in tools, f"the tools: {sorted(tools)}")
            get, delete, create = (tools.get(f"api_{n}") for n in ("get_note", "delete_note", "create_note"))
            if get and delete and create:
                g, d, c = get.annotations, delete.annotations, create.annotations
                check(g.read_only_hint is True and g.idempotent_hint is True and g.open_world_hint is False,
                      f"GET: read-only, idempotent, closed-world: {g}")
                check(d.read_only_hint is False and d.destructive_hint is True and d.idempotent_hint is True,
                      f"DELETE: destructive, idempotent: {d}")
                check(c.destructive_hint is True and c.idempotent_hint is False, f"POST: destructive: {c}")
                check("X-API-Key" not in json.dumps(create.input_schema), "the API key is not an argument")

            note = await session.call_tool("api_get_note", {"note_id": 1})
            check(not note.is_error and (note.structured_content or {}).get("title") == "Groceries",
                  f"GET /notes/1 as structured content: {note}")
            # A POST is destructive (the cautious default): confirmed, then sent.
            created = await session.call_tool("api_create_note", {"body": {"title": "Through MCP"}})
            check(len(user.take()) == 1, "the POST was confirmed first")
            made = created.structured_content or {}
            check(not created.is_error and made.get("title") == "Through MCP",
                  f"POST /notes with the configured key: {created}")
            missing = await session.call_tool("api_get_note", {"note_id": 999})
            check(missing.is_error and "HTTP 404" in text_of(missing), f"an error status: {missing}")

            # Declined at the gateway: the DELETE never reaches the API.
            user.answer = "decline"
            declined = await session.call_tool("api_delete_note", {"note_id": 1})
            check_refused(declined, ["declined"], "a declined DELETE")
            still = await session.call_tool("api_get_note", {"note_id": 1})
            check(not still.is_error, f"the note is still there: {still}")


def audit(toolsmith, config):
    out = subprocess.run(
        [toolsmith, "audit", "--json", "--", toolsmith, "gateway", "--config", config],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "TOOLSMITH_LOG": "off", "NOTES_API_KEY": "secret-key"},
    )
    try:
        report = json.loads(out.stdout)
    except json.JSONDecodeError:
        check(False, f"toolsmith audit of the gateway: {out.stdout[:400]} {out.stderr[-800:]}")
        return
    errors = [f for f in report.get("findings", []) if f.get("severity") == "error"]
    tools = report.get("tools", [])
    check(len(tools) >= 6, f"the audit read the generated tools: {len(tools)}")
    check(not errors, f"toolsmith audit: no error in the generated tools: {errors}")


def main():
    toolsmith = sys.argv[1]
    api, base = start_api()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            config = os.path.join(tmp, "gateway.json")
            with open(config, "w") as f:
                json.dump({"mcpServers": {"api": {
                    "openapi": f"{base}/openapi.json",
                    "credentials": {"APIKeyHeader": "${NOTES_API_KEY}"},
                }}}, f)
            asyncio.run(within("the OpenAPI upstream through the gateway", run_checks(toolsmith, config), 60))
            audit(toolsmith, config)
    finally:
        api.kill()
    sys.exit(tally("python sdk: an OpenAPI upstream through toolsmith gateway"))


if __name__ == "__main__":
    main()
