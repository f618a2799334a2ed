"""Scopes govern tools made at run time as they do a #[tool]: the plugins example served over
Streamable HTTP with `--auth-issuer/--auth-jwks`, keys and tokens made by the tests crate's
`mint`, driven by the official Python SDK.

    python test_plugins_auth.py PLUGINS_BINARY MINT_BINARY

- A read token lists word_count only (read-only), calls it, and its load_plugin (the write
  scope) and forget_words (the destructive scope) are refused with HTTP 403, naming the
  scope their hints imply; nothing is loaded.
- A write token lists word_count and load_plugin, and loads the plugin: reverse_text, added
  while serving, is read-only, so the read token now lists and calls it.
- The destructive token lists every tool.
"""

import asyncio
import json
import subprocess
import sys
import tempfile

from checks import check, checks
from confirming import text_of
from notes_http import NotesServer
from test_auth import AUDIENCE, ISSUER, errors_of, session_with


async def names_of(session):
    return sorted(t.name for t in (await asyncio.wait_for(session.list_tools(), 30)).tools)


async def refused_by_scope(session, tool, what):
    """`tool` is refused with a 403 (the SDK raises it), or an error result; never run."""
    try:
        result = await asyncio.wait_for(session.call_tool(tool, {}), 30)
        check(result.is_error is True, f"{what}: refused: {result}")
    except asyncio.TimeoutError:
        check(False, f"{what}: no answer within 30 s")
    except Exception as err:  # the SDK raises the HTTP 403
        text = " ".join(str(e) for e in errors_of(err))
        check("403" in text or "Forbidden" in text or "insufficient" in text, f"{what}: {text[:300]}")


async def main(plugins, mint):
    work = tempfile.mkdtemp(prefix="toolsmith-plugins-auth-")
    subprocess.run([mint, work, ISSUER, AUDIENCE], check=True, timeout=60)
    with open(f"{work}/tokens.json") as f:
        tokens = json.load(f)
    server = NotesServer(plugins, ["serve", "--http", "127.0.0.1:0", "--auth-issuer", ISSUER,
                                   "--auth-jwks", f"{work}/jwks.json", "--auth-audience", AUDIENCE],
                         env={"TOOLSMITH_LOG": "info"}, workdir=work, name="plugins")
    url = server.start()
    try:
        async def as_reader(session):
            check(await names_of(session) == ["word_count"], "a read token lists word_count only")
            counted = await asyncio.wait_for(session.call_tool("word_count", {"text": "a b"}), 30)
            check(counted.structured_content == {"words": 2, "tally": 2}, f"word_count: {counted}")
            await refused_by_scope(session, "load_plugin", "a read token's load_plugin")
            await refused_by_scope(session, "forget_words", "a read token's forget_words")

        statuses = await session_with(url, tokens["read"], as_reader)
        refused = [s for s in statuses if s[1] == 403]
        challenges = sorted((s[2] or "") for s in refused)
        check(len(refused) == 2 and 'scope="tools:destructive"' in challenges[0]
              and 'scope="tools:write"' in challenges[1],
              f"two 403s, naming the write and the destructive scope: {refused}")

        async def as_writer(session):
            check(await names_of(session) == ["load_plugin", "word_count"],
                  "a write token lists load_plugin and word_count")
            loaded = await asyncio.wait_for(session.call_tool("load_plugin", {}), 30)
            check(text_of(loaded) == "loaded reverse_text", f"the write token loads: {loaded}")

        await session_with(url, tokens["write"], as_writer)

        async def as_reader_after(session):
            check(await names_of(session) == ["reverse_text", "word_count"],
                  "the read token now lists reverse_text (read-only, added while serving)")
            reversed_ = await asyncio.wait_for(session.call_tool("reverse_text", {"text": "ab"}), 30)
            check(text_of(reversed_) == "ba", f"the read token calls reverse_text: {reversed_}")

        await session_with(url, tokens["read"], as_reader_after)

        async def as_admin(session):
            check(await names_of(session) == ["forget_words", "load_plugin", "reverse_text", "word_count"],
                  "the destructive token lists every tool")

        await session_with(url, tokens["destructive"], as_admin)
    except Exception as err:
        check(False, f"a session ended in {[repr(e) for e in errors_of(err)]}")
    finally:
        server.stop()
    print(f"plugins auth: {checks['passed']} passed, {checks['failed']} failed")
    return 0 if checks["failed"] == 0 and checks["passed"] > 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2])))
