"""The notes example's MCP Bundle, installed as a host installs it and driven by the official
Python SDK (PyPI `mcp`).

`notes bundle` wrote the bundle and server.json into OUT_DIR, and the bundle format's own CLI
(`mcpb unpack`, npm `@anthropic-ai/mcpb`) unpacked it into OUT_DIR/unpacked. Here:

- server.json validates against the MCP registry's schema (2025-12-11, the copy PyPI
  `skillsaw` ships), names the bundle's file with its SHA-256, and lists the setting the
  program declared (NOTES_FETCH_ALLOW) as an environment variable;
- the server is started as a host starts it: the command, arguments and environment come
  from the MCP Bundle library's own resolution of the manifest (interop/node/
  bundle_config.mjs) with the user's configuration. With the defaults, it answers the
  SDK: its name is the manifest's, it lists exactly the tools and prompts the manifest
  lists, search_notes finds the seeded note, and import_url may not reach this machine;
- with `read_only` on, only the read-only tools are listed and delete_note is refused;
- with `notes_fetch_allow` = 127.0.0.1 (passed in NOTES_FETCH_ALLOW), import_url makes a note
  of a page served here.

    python test_bundle.py OUT_DIR NODE
"""

import asyncio
import hashlib
import http.server
import importlib.resources
import json
import subprocess
import sys
import threading
from pathlib import Path

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from checks import check, tally, within

HERE = Path(__file__).resolve().parent
RESOLVE = HERE.parent / "node" / "bundle_config.mjs"
READ_ONLY = ["get_note", "search_notes", "tag_chart"]


def registry_schema():
    schemas = importlib.resources.files("skillsaw.schemas.mcp_registry")
    return json.loads(schemas.joinpath("v2025_12_11/server.schema.json").read_text())


def check_server_json(out: Path, manifest: dict):
    entry = json.loads((out / "server.json").read_text())
    errors = sorted(jsonschema.Draft7Validator(registry_schema(),
                                               format_checker=jsonschema.FormatChecker())
                    .iter_errors(entry), key=str)
    check(not errors, f"server.json follows the registry's schema: {[e.message for e in errors]}")
    bundles = list(out.glob("*.mcpb"))
    check(len(bundles) == 1, f"one bundle written: {bundles}")
    package = entry["packages"][0]
    digest = hashlib.sha256(bundles[0].read_bytes()).hexdigest()
    check(package["registryType"] == "mcpb", f"an mcpb package: {package}")
    check(package["fileSha256"] == digest, f"the bundle's SHA-256: {package['fileSha256']} vs {digest}")
    check(package["identifier"].endswith("/" + bundles[0].name), f"its URL names the file: {package}")
    check(entry["version"] == manifest["version"], f"the manifest's version: {entry['version']}")
    names = [v["name"] for v in package.get("environmentVariables", [])]
    check(names == ["NOTES_FETCH_ALLOW"], f"the declared setting as a variable: {names}")


def host_command(node: str, unpacked: Path, user_config: dict) -> StdioServerParameters:
    resolved = subprocess.run([node, str(RESOLVE), str(unpacked), json.dumps(user_config)],
                              check=True, capture_output=True, text=True, timeout=60)
    config = json.loads(resolved.stdout)
    return StdioServerParameters(command=config["command"], args=config.get("args", []),
                                 env=config.get("env"))


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<html><head><title>Bundled page</title></head><body>Hello from here.</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


async def session_of(params: StdioServerParameters, work):
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await asyncio.wait_for(session.initialize(), 30)
            return await work(session, init)


async def main(out: Path, node: str):
    unpacked = out / "unpacked"
    manifest = json.loads((unpacked / "manifest.json").read_text())
    check_server_json(out, manifest)
    page = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=page.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{page.server_address[1]}/page"

    async def defaults(session, init):
        check(init.server_info.name == manifest["name"],
              f"the server is the manifest's: {init.server_info.name}")
        tools = sorted(t.name for t in (await session.list_tools()).tools)
        listed = sorted(t["name"] for t in manifest["tools"])
        check(tools == listed, f"the manifest lists the tools served: {listed} vs {tools}")
        prompts = sorted(p.name for p in (await session.list_prompts()).prompts)
        check(prompts == sorted(p["name"] for p in manifest["prompts"]), f"and the prompts: {prompts}")
        found = await asyncio.wait_for(session.call_tool("search_notes", {"query": "milk"}), 30)
        check(not found.is_error and "Groceries" in json.dumps(found.structured_content),
              f"search_notes answers: {found}")
        refused = await asyncio.wait_for(session.call_tool("import_url", {"url": url}), 30)
        text = " ".join(c.text for c in refused.content if hasattr(c, "text"))
        check(refused.is_error and "fetch-allow" in text, f"import_url may not reach here: {text}")

    async def read_only(session, init):
        tools = sorted(t.name for t in (await session.list_tools()).tools)
        check(tools == READ_ONLY, f"read_only lists the read-only tools only: {tools}")
        refused = await asyncio.wait_for(session.call_tool("delete_note", {"note_id": 1}), 30)
        check(refused.is_error, f"read_only refuses delete_note: {refused}")

    async def allowed(session, init):
        made = await asyncio.wait_for(session.call_tool("import_url", {"url": url}), 30)
        check(not made.is_error and "Bundled page" in json.dumps(made.structured_content),
              f"notes_fetch_allow lets import_url reach here: {made}")

    for what, user_config, work in [
        ("the defaults", {}, defaults),
        ("read_only", {"read_only": True}, read_only),
        ("notes_fetch_allow", {"notes_fetch_allow": "127.0.0.1"}, allowed),
    ]:
        await within(what, session_of(host_command(node, unpacked, user_config), work), 60)
    page.shutdown()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), sys.argv[2]))
    sys.exit(tally("bundle"))
