"""The notes example's resources, prompts and completions, driven by the official Python SDK
(PyPI `mcp`), with the SDK's own calls (list_resources, list_resource_templates,
read_resource, list_prompts, get_prompt, complete, call_tool):

- the server declares the resources, prompts and completions capabilities;
- resources/list: notes://index (application/json, audience [user, assistant], priority 0.8);
  resources/templates/list: notes://{note_id} (application/json);
- notes://index reads as a JSON list of the 3 seeded notes' {id, title}; notes://2, through
  the template, as note 2 ("Standup notes", tagged work); notes://99 is the JSON-RPC error
  -32002 (resource not found), raised as the SDK's MCPError;
- prompts/list: summarize_notes, its `tag` argument optional; prompts/get with tag=work is
  one user text message quoting "Standup notes" and not "Groceries"; without a tag it quotes
  all three;
- completion/complete: note_id of notes://{note_id} from "" gives 1, 2, 3; tag of
  summarize_notes from "w" gives work;
- create_note's result is the note as structuredContent plus a ResourceLink to notes://ID,
  which reads back as that note; the index then lists it too.

    python test_items.py PATH_TO_NOTES_BINARY        stdio: starts `notes serve` itself
    python test_items.py --http URL [--sessions]     Streamable HTTP, against a fresh server
                                                     (the store is per process)
"""

import asyncio
import json
import sys

import httpx2
from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import PromptReference, ResourceLink, ResourceTemplateReference, TextContent, TextResourceContents

from checks import check, tally, within

SEEDED = [{"id": 1, "title": "Groceries"}, {"id": 2, "title": "Standup notes"}, {"id": 3, "title": "Book ideas"}]
JSON = "application/json"
RESOURCE_NOT_FOUND = -32002


async def read_json(session, uri, what):
    """resources/read of `uri`: one text content of that uri, application/json; its parsed
    JSON (None when it is not that)."""
    read = await session.read_resource(uri)
    check(len(read.contents) == 1, f"{what}: {len(read.contents)} contents")
    if not read.contents:
        return None
    content = read.contents[0]
    check(isinstance(content, TextResourceContents), f"{what}: a TextResourceContents, not {type(content).__name__}")
    check(content.uri == uri, f"{what}: uri {content.uri!r}")
    check(content.mime_type == JSON, f"{what}: mimeType {content.mime_type!r}")
    try:
        return json.loads(getattr(content, "text", ""))
    except ValueError as err:
        check(False, f"{what}: not JSON: {err}: {getattr(content, 'text', None)!r}")
        return None


def prompt_text(result, what):
    """The text of a prompt that is one user text message."""
    check(len(result.messages) == 1, f"{what}: {len(result.messages)} messages")
    if not result.messages:
        return ""
    message = result.messages[0]
    check(message.role == "user", f"{what}: role {message.role!r}")
    check(isinstance(message.content, TextContent), f"{what}: content {type(message.content).__name__}")
    return getattr(message.content, "text", "")


async def run_checks(session):
    init = await session.initialize()
    caps = init.capabilities
    check(caps.resources is not None, f"the resources capability: {caps}")
    check(caps.prompts is not None, f"the prompts capability: {caps}")
    check(caps.completions is not None, f"the completions capability: {caps}")

    # Listed: the index, and the template.
    resources = (await session.list_resources()).resources
    check([r.uri for r in resources] == ["notes://index"], f"resources {[r.uri for r in resources]}")
    for r in resources[:1]:
        check(r.mime_type == JSON, f"notes://index mimeType {r.mime_type!r}")
        a = r.annotations
        check(a is not None and a.audience == ["user", "assistant"], f"notes://index audience {a}")
        check(a is not None and a.priority == 0.8, f"notes://index priority {a}")
    templates = (await session.list_resource_templates()).resource_templates
    check([t.uri_template for t in templates] == ["notes://{note_id}"], f"templates {[t.uri_template for t in templates]}")
    for t in templates[:1]:
        check(t.mime_type == JSON, f"notes://{{note_id}} mimeType {t.mime_type!r}")

    # Read: the index, a note through the template, a note that is not there.
    index = await read_json(session, "notes://index", "read notes://index")
    check(index == SEEDED, f"notes://index lists the 3 seeded notes: {index}")
    note = await read_json(session, "notes://2", "read notes://2")
    check(isinstance(note, dict) and sorted(note) == ["body", "id", "tags", "title"], f"notes://2 keys: {note}")
    check(isinstance(note, dict) and (note.get("id"), note.get("title"), note.get("tags")) == (2, "Standup notes", ["work"]),
          f"notes://2 is note 2: {note}")
    try:
        missing = await session.read_resource("notes://99")
        check(False, f"read notes://99: no error but {missing}")
    except MCPError as err:
        check(err.code == RESOURCE_NOT_FOUND, f"read notes://99: error code {err.code} ({err.message}), not -32002")

    # Prompts.
    prompts = (await session.list_prompts()).prompts
    check([p.name for p in prompts] == ["summarize_notes"], f"prompts {[p.name for p in prompts]}")
    for p in prompts[:1]:
        args = [(a.name, bool(a.required)) for a in p.arguments or []]
        check(args == [("tag", False)], f"summarize_notes arguments {args}")
    work = prompt_text(await session.get_prompt("summarize_notes", {"tag": "work"}), "summarize_notes tag=work")
    check("Standup notes" in work and "Groceries" not in work, f"summarize_notes tag=work quotes only Standup notes: {work!r}")
    every = prompt_text(await session.get_prompt("summarize_notes"), "summarize_notes")
    check(all(n["title"] in every for n in SEEDED), f"summarize_notes quotes every note: {every!r}")

    # Completions.
    ids = await session.complete(ResourceTemplateReference(uri="notes://{note_id}"), {"name": "note_id", "value": ""})
    check(ids.completion.values == ["1", "2", "3"], f"complete note_id '': {ids.completion.values}")
    tags = await session.complete(PromptReference(name="summarize_notes"), {"name": "tag", "value": "w"})
    check(tags.completion.values == ["work"], f"complete tag 'w': {tags.completion.values}")

    # create_note links to its note; the link reads back as the note.
    created = await session.call_tool("create_note", {"title": "Linked", "body": "from python", "tags": ["py"]})
    check(created.is_error is False, f"create_note: {created}")
    made = created.structured_content or {}
    check((made.get("title"), made.get("body"), made.get("tags")) == ("Linked", "from python", ["py"]),
          f"create_note structuredContent {made}")
    links = [b for b in created.content if isinstance(b, ResourceLink)]
    check(len(links) == 1, f"create_note: {len(links)} resource links in {[b.type for b in created.content]}")
    for link in links[:1]:
        check(link.uri == f"notes://{made.get('id')}", f"create_note link uri {link.uri!r}")
        check(link.mime_type == JSON, f"create_note link mimeType {link.mime_type!r}")
        followed = await read_json(session, link.uri, f"read the link {link.uri}")
        check(followed == made, f"the link reads as the created note: {followed} != {made}")
    index = await read_json(session, "notes://index", "read notes://index after create_note")
    check(index == SEEDED + [{"id": made.get("id"), "title": "Linked"}], f"notes://index after create_note: {index}")


async def over_stdio(binary):
    server = StdioServerParameters(command=binary, args=["serve"], env={"TOOLSMITH_LOG": "off"})
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await run_checks(session)


async def over_http(url):
    timeout = httpx2.Timeout(20.0, read=60.0)
    async with httpx2.AsyncClient(timeout=timeout) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await run_checks(session)


async def main(argv):
    if argv[:1] == ["--http"]:
        what = "python-sdk resources, prompts, completions http" + (" --sessions" if "--sessions" in argv else "")
        run = over_http(argv[1])
    else:
        what = "python-sdk resources, prompts, completions"
        run = over_stdio(argv[0])
    await within(what, run, timeout=120)
    return tally(what)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
