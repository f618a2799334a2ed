"""tools/list in pages, with the official Python SDK (PyPI `mcp`) over Streamable HTTP.

Against `notes serve --http 127.0.0.1:0 --page-size 2`: the SDK's list_tools, given each
next_cursor in turn (its ClientSession does not follow them by itself), lists every notes
tool exactly once, in pages of at most 2, the last without a next_cursor. A tool from the
last page is then called, and the SDK validates its structuredContent against the
outputSchema it listed. A tampered cursor is an MCPError with code -32602.

    python test_pages.py URL      against a server already listening at URL
"""

import asyncio
import sys

import httpx2
from mcp import ClientSession, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.types import PaginatedRequestParams

from checks import check, failed_with, tally

TOOLS = ["create_note", "delete_note", "get_note", "import_notes", "import_url", "search_notes", "tag_chart"]


async def run_checks(session):
    await session.initialize()
    names, pages, cursors, cursor = [], 0, [], None
    while pages < 10:
        listed = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
        pages += 1
        check(len(listed.tools) <= 2, f"page {pages}: {len(listed.tools)} tools, page size 2")
        names += [tool.name for tool in listed.tools]
        cursor = listed.next_cursor
        if cursor is None:
            break
        cursors.append(cursor)
    check(names == TOOLS, f"every tool once, in order: {names}")
    check(pages == 4, f"{pages} pages for {len(TOOLS)} tools")

    found = await session.call_tool("search_notes", {"query": "milk"})
    titles = [n["title"] for n in (found.structured_content or {}).get("result", [])]
    check(not found.is_error and titles == ["Groceries"], f"search_notes from the last page: {titles}")

    tampered = cursors[0][:-1] + ("1" if cursors[0][-1] == "0" else "0")
    try:
        await session.list_tools(params=PaginatedRequestParams(cursor=tampered))
        check(False, "a tampered cursor was accepted")
    except MCPError as err:
        check(err.code == -32602, f"a tampered cursor: error {err.code} {err}")


async def main(url):
    timeout = httpx2.Timeout(20.0, read=60.0)
    try:
        async with httpx2.AsyncClient(timeout=timeout) as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await asyncio.wait_for(run_checks(session), timeout=60)
    except Exception as err:  # a transport that fails or hangs is a failed check
        failed_with("python-sdk pages", err)
    return tally("python-sdk pages")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(asyncio.run(main(sys.argv[1])))
