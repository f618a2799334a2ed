"""Scale-out: the official Python SDK, through nginx, against two stateless replicas.

Starts two `notes serve --http 127.0.0.1:0` replicas (each on its own port, each with
`--public-url http://mcp.example.test:NGINX_PORT/mcp`), and nginx from interop/nginx/nginx.conf
(round robin, no affinity) in a folder of its own: its prefix, pid, logs and temp folders are
under WORKDIR and it listens on 127.0.0.1:NGINX_PORT. The SDK connects to nginx, sending the
public Host, and makes 200 read calls (search_notes and get_note, 10 at a time), each checked
against the seeded notes, then lists the tools in pages of 2 (the replicas run with
`--page-size 2`), following each next_cursor through nginx, so that a page's cursor is read
by the other replica (round robin). Passes when every call is answered correctly, every
tool is listed once, and nginx's access log ($upstream_addr) shows that each replica served
some of the requests, with no 5xx.

Then a confirmed delete across replicas, at MCP 2026-07-28 over raw HTTP (the Python SDK's
ClientSession speaks 2025-11-25, at which a stateless server cannot ask): delete_note asks
the user first (`confirm`), so its first round is answered `input_required` with a sealed
requestState, and the retry with the answer (accepted) and the state goes through nginx again,
so to the other replica (round robin, which the access log must show). The replicas share one
key (`--state-key` for one, TOOLSMITH_STATE_KEY for the other), so the other replica opens the
state and deletes: the note is gone from the replica that served the retry and still on the
one that served the first round. A declined answer, the same way across replicas, is refused
and deletes nothing.

nginx and the replicas are stopped at the end whatever happens (SIGQUIT then SIGKILL for
nginx, SIGTERM for the replicas, which must exit 0); their pids are also in WORKDIR/*.pid for
interop/run to clean up after a kill.

Usage: python test_scale.py PATH_TO_NOTES_BINARY PATH_TO_NGINX WORKDIR
"""

import asyncio
import base64
import collections
import os
import signal
import sys

import httpx2
from mcp import ClientSession
from mcp.types import PaginatedRequestParams
from mcp.client.streamable_http import streamable_http_client

import nginx_proxy
from nginx_proxy import Nginx
from notes_http import NotesServer, StartError, free_port, request

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = os.path.join(HERE, "..", "nginx", "nginx.conf")
PUBLIC_HOST = "mcp.example.test"
CALLS = 200
AT_ONCE = 10

# The seeded store: id -> title, and queries with the titles they find.
NOTES = {1: "Groceries", 2: "Standup notes", 3: "Book ideas"}
SEARCHES = {"milk": ["Groceries"], "parser": ["Standup notes"], "lighthouse": ["Book ideas"],
            "o": ["Groceries", "Standup notes", "Book ideas"], "nothing-like-this": []}

from checks import check, stop_replicas, tally


async def read_calls(url, host):
    """200 read calls through nginx; returns how many were answered as expected."""
    good = 0
    async with httpx2.AsyncClient(headers={"Host": host}, timeout=httpx2.Timeout(20.0, read=60.0)) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                check(init.server_info.name == "toolsmith-examples", f"server name {init.server_info.name}")
                # First, so that the SDK has seen every tool's output schema before the calls.
                await list_pages(session)
                queries = list(SEARCHES)

                async def one(i):
                    if i % 2 == 0:
                        query = queries[(i // 2) % len(queries)]
                        result = await session.call_tool("search_notes", {"query": query})
                        titles = [n["title"] for n in (result.structured_content or {}).get("result", [])]
                        ok = not result.is_error and titles == SEARCHES[query]
                        what = f"search_notes {query!r}: {titles}"
                    else:
                        note_id = (i // 2) % 3 + 1
                        result = await session.call_tool("get_note", {"note_id": note_id})
                        title = (result.structured_content or {}).get("title")
                        ok = not result.is_error and title == NOTES[note_id]
                        what = f"get_note {note_id}: {title!r}"
                    if not ok:
                        print(f"FAILED: call {i}: {what}", file=sys.stderr)
                    return ok

                for start in range(0, CALLS, AT_ONCE):
                    answers = await asyncio.gather(
                        *(one(i) for i in range(start, min(start + AT_ONCE, CALLS))), return_exceptions=True
                    )
                    for answer in answers:
                        if isinstance(answer, BaseException):
                            print(f"FAILED: a call raised {answer!r}", file=sys.stderr)
                        elif answer:
                            good += 1
    return good


TOOLS = ["create_note", "delete_note", "get_note", "import_notes", "import_url", "search_notes", "tag_chart"]
MODERN = "2026-07-28"


def modern_call(url, host, request_id, tool, arguments, retry=None):
    """One raw tools/call at 2026-07-28 (its `_meta`, headers, and a client that can ask the
    user); `retry`: the (inputResponses, requestState) of a later round. The result object,
    or None (a failed check)."""
    params = {"name": tool, "arguments": arguments, "_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "toolsmith-interop-scale", "version": "0"},
    }}
    if retry is not None:
        params["inputResponses"], params["requestState"] = retry
    headers = {"Host": host, "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": tool}
    reply = request(url, "POST", {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params},
                    headers=headers, timeout=10.0)
    result = (reply.result() or {}).get("result")
    check(reply.status == 200 and isinstance(result, dict), f"tools/call {tool} {arguments}: {reply}")
    return result if isinstance(result, dict) else {}


def upstreams(lines):
    """The replica ($upstream_addr) that answered each access log line."""
    return [nginx_proxy.served(line)[2] for line in lines]


def across_replicas(url, host, nginx, replicas):
    """delete_note in two rounds through nginx, each round on another replica."""
    answers = {"accept": {"confirm": {"action": "accept", "content": {"confirm": True}}},
               "decline": {"confirm": {"action": "decline"}}}
    by_port = {f"127.0.0.1:{r.port}": r for r in replicas}
    for note_id, answer in ((2, "decline"), (3, "accept")):
        what = f"delete_note {note_id} across replicas, {answer}"
        before = nginx.logged()
        first = modern_call(url, host, 1, "delete_note", {"note_id": note_id})
        state = first.get("requestState")
        asked = (first.get("inputRequests") or {}).get("confirm") or {}
        check(first.get("resultType") == "input_required" and isinstance(state, str)
              and (asked.get("params") or {}).get("message") == f"Delete note {note_id}?",
              f"{what}: the first round asks to confirm: {first}")
        retry = modern_call(url, host, 2, "delete_note", {"note_id": note_id}, retry=(answers[answer], state))
        served = upstreams(nginx.lines_after(before, 2))
        check(len(served) == 2 and served[0] in by_port and served[1] in by_port and served[0] != served[1],
              f"{what}: the first round and the retry went to two replicas: {served}")
        text = " ".join(c.get("text", "") for c in retry.get("content", []))
        if answer == "accept":
            check(retry.get("resultType") == "complete" and not retry.get("isError")
                  and retry.get("structuredContent") == {"note_id": note_id, "deleted": True},
                  f"{what}: the other replica opened the state (the shared key) and deleted: {retry}")
        else:
            check(retry.get("isError") is True and "declined" in text and "did not run" in text,
                  f"{what}: refused on the other replica: {retry}")
        # Which replica still has the note: the one of the first round always, the one of the
        # retry only if declined.
        for where, expected in ((served[0], True), (served[-1], answer == "decline")):
            replica = by_port.get(where)
            if replica is None:
                continue
            got = modern_call(replica.url, f"127.0.0.1:{replica.port}", 3, "get_note", {"note_id": note_id})
            title = (got.get("structuredContent") or {}).get("title")
            check((title == NOTES[note_id]) == expected and bool(got.get("isError")) != expected,
                  f"{what}: note {note_id} {'still' if expected else 'no longer'} on {replica.name}: {got}")


async def list_pages(session):
    """tools/list page by page through nginx: each cursor goes to the other replica."""
    names, cursor, pages = [], None, 0
    while pages < 10:
        listed = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
        pages += 1
        names += [tool.name for tool in listed.tools]
        cursor = listed.next_cursor
        if cursor is None:
            break
    check(names == TOOLS, f"every tool once across replicas, in pages of 2: {names}")
    check(pages == 4, f"{pages} pages for {len(TOOLS)} tools")


def per_replica(access_log, replicas):
    """Requests per replica port, from the access log's upstream=$upstream_addr, and bad lines."""
    counts = collections.Counter()
    bad = []
    with open(access_log, errors="replace") as f:
        lines = f.read().splitlines()
    for line in lines:
        _, status, tried = nginx_proxy.tried(line)
        if status is None:
            bad.append(line)
            continue
        if status >= 500:
            bad.append(line)
        for addr in tried:
            if addr and addr != "-":
                counts[addr] += 1
    return {port: counts.get(f"127.0.0.1:{port}", 0) for port in replicas}, bad, len(lines)


def main(binary, nginx_binary, workdir):
    # A SIGTERM (interop/run's time limit) must still run the clean-up below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    prefix = os.path.join(workdir, "nginx")
    os.makedirs(prefix, exist_ok=True)
    nginx = Nginx(nginx_binary, prefix, TEMPLATE)
    replicas = []
    try:
        port = free_port()
        public = f"http://{PUBLIC_HOST}:{port}/mcp"
        # One key for both replicas, so that either opens the other's request states: on the
        # command line of one, in the environment of the other.
        key = base64.b64encode(os.urandom(32)).decode()
        for i in (1, 2):
            # Each on a port chosen here: with --public-url, the listening line names the
            # public URL, not the port bound.
            own = free_port()
            args = ["serve", "--http", f"127.0.0.1:{own}", "--public-url", public, "--page-size", "2"]
            replica = NotesServer(binary, args + (["--state-key", key] if i == 1 else []),
                                  env={"TOOLSMITH_STATE_KEY": key} if i == 2 else None,
                                  workdir=workdir, name=f"replica-{i}", local_port=own)
            replicas.append(replica)
            replica.start()
        ports = [r.port for r in replicas]
        check(len(set(ports)) == 2, f"two replicas on two ports: {ports}")
        nginx.write_config({"NGINX_PORT": port, "REPLICA_1": ports[0], "REPLICA_2": ports[1]})
        nginx.start(port)

        health = request(f"http://127.0.0.1:{port}/healthz", "GET", headers={"Host": f"{PUBLIC_HOST}:{port}"})
        check(health.status == 200 and health.body.strip() == b"ok", f"GET /healthz through nginx: {health}")

        url = f"http://127.0.0.1:{port}{replicas[0].path}"
        try:
            good = asyncio.run(asyncio.wait_for(read_calls(url, f"{PUBLIC_HOST}:{port}"), timeout=180))
        except Exception as err:
            good = 0
            check(False, f"the SDK through nginx: {type(err).__name__}: {err!r}")
        check(good == CALLS, f"{good} of {CALLS} read calls answered as expected")
        across_replicas(url, f"{PUBLIC_HOST}:{port}", nginx, replicas)

        nginx.stop()  # flushes the access log
        served, bad, lines = per_replica(nginx.access_log, ports)
        check(not bad, f"access log lines without an upstream or with a 5xx: {bad[:5]}")
        check(lines >= CALLS, f"{lines} requests logged, fewer than the {CALLS} calls")
        for replica_port, count in served.items():
            check(count > 0, f"replica on port {replica_port} served no request: {served}")
        print(f"scale-out: {CALLS} calls through nginx, requests per replica port {served}")
    except StartError as err:
        check(False, f"a replica did not start: {err}")
    except Exception as err:
        check(False, f"{type(err).__name__}: {err}")
        print(nginx.errors(), file=sys.stderr)
    finally:
        nginx.stop()
        stop_replicas(replicas)
    return tally("scale-out")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
