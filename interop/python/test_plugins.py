"""The plugins example (tools made at run time, toolsmith::Tool) driven by the official Python
SDK (PyPI `mcp`), over stdio or Streamable HTTP.

A hand-written tool is governed by its hints exactly as a `#[tool]` is:

- the three tools are listed with their complete hint blocks and titles, and their schemas
  are valid JSON Schema 2020-12; word_count's structuredContent matches its outputSchema;
- a wrong argument is refused against the tool's input schema before the tool runs, naming
  the argument and what it expects (the words a `#[tool]`'s refusal uses);
- forget_words (destructive, confirm) asks the user first: declined, it is refused and the
  tally stays; accepted, it runs. Stateless over HTTP nothing can be asked: refused;
- load_plugin adds reverse_text while the server serves: on stdio and with `--sessions` the
  client hears `notifications/tools/list_changed`; the list then holds reverse_text, which
  answers; loading again changes nothing;
- a server started with `--read-only` neither lists nor runs forget_words or load_plugin.

    python test_plugins.py PATH_TO_PLUGINS_BINARY            stdio (also --read-only)
    python test_plugins.py --http URL [--sessions]           a server already listening at URL
"""

import asyncio
import sys

import httpx2
import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from checks import check, tally, within
from confirming import User, check_refused, text_of

EXPECTED = {
    # name: (title, readOnly, destructive, idempotent, openWorld)
    "word_count": ("Count words", True, False, True, False),
    "forget_words": ("Forget words", False, True, True, False),
    "load_plugin": ("Load plugin", False, False, True, False),
}


class Heard:
    """A message handler: counts `notifications/tools/list_changed`."""

    def __init__(self):
        self.list_changed = 0

    async def __call__(self, message):
        root = getattr(message, "root", message)
        if type(root).__name__ == "ToolListChangedNotification":
            self.list_changed += 1


async def wait_for(predicate, seconds=10.0):
    deadline = asyncio.get_running_loop().time() + seconds
    while not predicate() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)
    return predicate()


async def run_checks(session, user, heard, can_hear):
    init = await session.initialize()
    check(init.server_info.name == "plugins", f"server name {init.server_info.name}")
    changes = init.capabilities.tools and init.capabilities.tools.list_changed
    check(changes is True, f"tools.listChanged declared: {init.capabilities.tools}")

    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    check(sorted(tools) == sorted(EXPECTED), f"tools {sorted(tools)}")
    meta = jsonschema.Draft202012Validator.META_SCHEMA
    for name, (title, ro, de, idem, ow) in EXPECTED.items():
        tool = tools.get(name)
        if tool is None:
            continue
        a = tool.annotations
        check(tool.title == title and a.title == title, f"{name} title {tool.title!r}")
        check((a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint)
              == (ro, de, idem, ow), f"{name} hints {a}")
        for schema in (tool.input_schema, tool.output_schema):
            if schema is not None:
                try:
                    jsonschema.validate(schema, meta)
                    check(True, "")
                except jsonschema.exceptions.SchemaError as err:
                    check(False, f"{name} schema: {err.message}")

    counted = await session.call_tool("word_count", {"text": "one two three"})
    check(counted.is_error is not True and counted.structured_content == {"words": 3, "tally": 3},
          f"word_count: {counted}")
    schema = tools["word_count"].output_schema if "word_count" in tools else None
    if schema is not None and counted.structured_content is not None:
        try:
            jsonschema.validate(counted.structured_content, schema)
            check(True, "")
        except jsonschema.exceptions.ValidationError as err:
            check(False, f"word_count structuredContent: {err.message}")
    wrong = await session.call_tool("word_count", {"text": 7})
    check(wrong.is_error is True and "argument `text` is invalid (expected a string)" in text_of(wrong),
          f"a wrong argument: {wrong}")

    if can_hear:
        user.answer = "decline"
        refused = await session.call_tool("forget_words", {})
        check_refused(refused, "declined", "forget_words declined")
        asked = user.take()
        check(len(asked) == 1 and asked[0].message == "Forget every word counted?",
              f"asked once, with the tool's question: {asked}")
        user.answer = "accept"
        forgot = await session.call_tool("forget_words", {})
        check(text_of(forgot) == "forgot 3 words", f"forget_words accepted: {forgot}")
    else:
        refused = await session.call_tool("forget_words", {})
        check(refused.is_error is True and "did not run" in text_of(refused),
              f"forget_words cannot be confirmed stateless: {refused}")
        check(not user.take(), "nobody was asked")

    loaded = await session.call_tool("load_plugin", {})
    check(text_of(loaded) == "loaded reverse_text", f"load_plugin: {loaded}")
    if can_hear:
        check(await wait_for(lambda: heard.list_changed >= 1),
              f"notifications/tools/list_changed heard ({heard.list_changed})")
    names = sorted(tool.name for tool in (await session.list_tools()).tools)
    check(names == sorted([*EXPECTED, "reverse_text"]), f"the list after loading: {names}")
    reversed_ = await session.call_tool("reverse_text", {"text": "abc"})
    check(text_of(reversed_) == "cba", f"reverse_text: {reversed_}")
    again = await session.call_tool("load_plugin", {})
    check(text_of(again) == "reverse_text is loaded already", f"load_plugin again: {again}")


async def read_only(binary):
    server = StdioServerParameters(command=binary, args=["serve", "--read-only"])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            names = sorted(tool.name for tool in (await session.list_tools()).tools)
            check(names == ["word_count"], f"read-only serving lists {names}")
            refused = await session.call_tool("load_plugin", {})
            check(refused.is_error is True, f"load_plugin refused read-only: {refused}")
            still = sorted(tool.name for tool in (await session.list_tools()).tools)
            check(still == ["word_count"], f"nothing was loaded: {still}")


async def over_stdio(binary):
    server = StdioServerParameters(command=binary, args=["serve"])
    user, heard = User(), Heard()
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, elicitation_callback=user, message_handler=heard) as session:
            await run_checks(session, user, heard, can_hear=True)
    await read_only(binary)


async def over_http(url, sessions):
    user, heard = User(), Heard()
    timeout = httpx2.Timeout(20.0, read=60.0)
    async with httpx2.AsyncClient(timeout=timeout) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, elicitation_callback=user, message_handler=heard) as session:
                await run_checks(session, user, heard, can_hear=sessions)


async def main(argv):
    if argv[:1] == ["--http"]:
        what = "python-sdk plugins http" + (" --sessions" if "--sessions" in argv else "")
        run = over_http(argv[1], "--sessions" in argv[2:])
    else:
        what = "python-sdk plugins"
        run = over_stdio(argv[0])
    await within(what, run, timeout=120)
    return tally(what)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
