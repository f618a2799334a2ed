"""A call's log messages reach the official Python SDK's logging callback over Streamable HTTP.

Starts `fixture_server serve --http 127.0.0.1:0` (stateless), then again with `--sessions`,
and calls its `steps` tool, which logs at every level while it runs. The SDK's
logging_callback must have received the info, warning and error messages by the time the
call returns: the server sends them on the call's own response, before its result.

Usage: python test_logging.py PATH_TO_FIXTURE_SERVER_BINARY
"""

import asyncio
import sys

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from checks import check, failed_with, tally
from notes_http import NotesServer


async def logged_by_a_call(url, log_level):
    received = []

    async def on_log(params):
        received.append(params.level)

    timeout = httpx2.Timeout(20.0, read=60.0)
    async with httpx2.AsyncClient(timeout=timeout) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, logging_callback=on_log, log_level=log_level) as session:
                await session.initialize()
                result = await session.call_tool("steps", {"steps": 2})
                levels = list(received)
    return result, levels


async def case(binary, args):
    what = "python-sdk logging " + (" ".join(args) or "stateless")
    server = NotesServer(binary, ["serve", "--http", "127.0.0.1:0", *args], name="fixture")
    url = server.start()
    try:
        for log_level in (None, "info"):
            result, levels = await asyncio.wait_for(logged_by_a_call(url, log_level), timeout=60)
            label = f"{what} (log_level={log_level})"
            check(not result.is_error, f"{label}: the call failed: {result}")
            for level in ("info", "warning", "error"):
                check(level in levels, f"{label}: no {level} message before the result: {levels}")
    finally:
        server.stop()


async def main(argv):
    binary = argv[0]
    for args in ([], ["--sessions"]):
        try:
            await case(binary, args)
        except Exception as err:  # a transport that fails or hangs is a failed check
            failed_with(str(args), err)
    return tally("python-sdk logging")


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
