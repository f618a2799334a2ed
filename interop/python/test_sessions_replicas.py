"""Sessions on any replica: two notes replicas behind nginx (round robin, no stickiness),
sharing Debian's redis-server, serve one session of the Python SDK's standard `ClientSession`
(2025-11-25), of the TypeScript SDK's client and of FastMCP's client.

Starts redis-server on a free loopback port, two `notes serve --http ... --task-store
redis://127.0.0.1:PORT/0 --state-key KEY` replicas (in the default mode, the one the quickstart shows, or
with MODE: `--sessions`) and nginx from interop/nginx/nginx.conf in front of them, which logs the
replica that served each request ($upstream_addr). Then checks, for each client:

1. One session's requests land on both replicas (its POSTs, by the access log).
2. delete_note asks for a confirmation (elicitation) on the replica that runs the call, and
   the client's answer, POSTed through nginx, reaches it through the other replica: repeated
   (bounded) until one answer crossed; each confirmed delete succeeds.
   (FastMCP's client too, deleting the notes again: each delete asks, found or not.)
3. (Python) The replica running a slow call of the session is killed (SIGKILL): that call
   ends with an error, and the same session goes on through the survivor (tools listed, a
   note read, a delete confirmed), losing nothing else.

Every wait is bounded; redis, nginx and the replicas are stopped at the end whatever happens
(their pids are in WORKDIR/*.pid for interop/run's clean-up).

Usage: python test_sessions_replicas.py NOTES NGINX REDIS_SERVER NODE WORKDIR [MODE]
"""

import asyncio
import base64
import json
import os
import signal
import subprocess
import sys
import time
import traceback

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from checks import check, stop_replicas, tally
from confirming import User, check_asked
from nginx_proxy import Nginx
from nginx_proxy import served as nginx_served
from notes_http import NotesServer, StartError, free_port
from test_tasks_replicas import Redis, imported

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = os.path.join(HERE, "..", "nginx", "nginx.conf")
TS_CLIENT = os.path.join(HERE, "..", "node", "sessions_replicas.mjs")
PUBLIC_HOST = "mcp.example.test"
# The notes every replica starts with.
SEEDED = (1, 2, 3)


def served(line):
    """(method, status, replica port) of an access log line: the replica that answered."""
    method, status, replica = nginx_served(line)
    return method, status, replica and replica.rsplit(":", 1)[-1]


def crossing(nginx, before):
    """After a confirmed call whose log began at line `before`: the replica that ran the call
    (its POST answered 200) and the one that took the answer (a POST answered 202)."""
    logged = [served(line) for line in nginx.lines_after(before, count=2)]
    calls = [port for method, status, port in logged if (method, status) == ("POST", 200)]
    answers = [port for method, status, port in logged if (method, status) == ("POST", 202)]
    return (calls[-1] if calls else None), (answers[0] if answers else None)


class Heard:
    """A message handler: the URIs of the `notifications/resources/updated` heard."""

    def __init__(self):
        self.updated = []

    async def __call__(self, message):
        root = getattr(message, "root", message)
        if type(root).__name__ == "ResourceUpdatedNotification":
            self.updated.append(root.params.uri)


async def hear(heard, uri, count, seconds=10.0):
    """Waits (bounded) until `uri` was heard `count` times, then a little more for any
    extra; how many times it was heard."""
    deadline = time.monotonic() + seconds
    while heard.updated.count(uri) < count and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    return heard.updated.count(uri)


async def python_client(url, host, nginx, replicas, kill):
    user, heard = User(), Heard()
    timeout = httpx2.Timeout(20.0, read=60.0)
    async with httpx2.AsyncClient(timeout=timeout, headers={"Host": host}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, elicitation_callback=user, message_handler=heard) as session:
                await session.initialize()
                start = nginx.logged()
                for _ in range(4):
                    listed = await session.list_tools()
                    check(any(t.name == "delete_note" for t in listed.tools), "tools listed")
                    found = await session.call_tool("search_notes", {"query": "parser"})
                    check(not found.is_error, f"search_notes: {found}")
                logged = map(served, nginx.lines_after(start, count=8))
                ports = {port for method, _, port in logged if method == "POST"}
                check(len(ports) == 2, f"python: the session's POSTs landed on both replicas: {ports}")

                crossed = 0
                for note_id in SEEDED * 2:
                    before = nginx.logged()
                    result = await session.call_tool("delete_note", {"note_id": note_id})
                    check_asked(user, note_id, f"python: delete_note {note_id}")
                    data = result.structured_content or {}
                    # It ran (a refusal is an error result): deleted, or gone already on the
                    # replica that ran it (each replica keeps its own notes; the TypeScript and
                    # FastMCP clients deleted some before).
                    check(not result.is_error and data.get("note_id") == note_id
                          and data.get("deleted") in (True, False),
                          f"python: the confirmed delete of note {note_id} ran: {result}")
                    ran, answered = crossing(nginx, before)
                    check(ran is not None and answered is not None,
                          f"python: the call and its answer are in the access log: {ran}, {answered}")
                    if ran and answered and ran != answered:
                        crossed += 1
                        break
                check(crossed > 0, "python: a confirmation asked on one replica was answered through the other")

                # Subscribed once, through whichever replica: every note made on either
                # replica is heard once on the session's GET stream, wherever it is.
                index = "notes://index"
                await session.subscribe_resource(index)
                before = nginx.logged()
                for n in range(4):
                    made = await session.call_tool("create_note", {"title": f"S{n}", "body": "b"})
                    check(not made.is_error, f"python: create_note: {made}")
                makers = {served(line)[2] for line in nginx.lines_after(before, count=5)
                          if served(line)[:2] == ("POST", 200)}
                check(len(makers) == 2, f"python: the notes were made on both replicas: {makers}")
                heard_count = await hear(heard, index, 4)
                check(heard_count == 4, f"python: each change heard once, wherever it was made: "
                      f"{heard_count} of 4: {heard.updated}")

                # A replica dies mid-session, running a call of it: that call is lost (an
                # error, not a hang), and the session goes on through the other.
                running = asyncio.create_task(
                    session.call_tool("import_notes", {"count": 400, "pace_ms": 50}))
                victim = None
                deadline = time.monotonic() + 15
                while victim is None and time.monotonic() < deadline and not running.done():
                    await asyncio.sleep(0.1)
                    for replica in replicas:
                        if await asyncio.to_thread(imported, replica) > 0:
                            victim = replica
                check(victim is not None, "python: the slow call runs on one of the replicas")
                victim = victim or replicas[0]
                survivor = next(r for r in replicas if r is not victim)
                kill(victim)
                try:
                    outcome = await asyncio.wait_for(running, 40)
                    lost = outcome.is_error
                except asyncio.TimeoutError:
                    lost = "no answer within 40 s"
                except Exception as err:  # the SDK's error for a call whose stream broke
                    lost = True
                    print(f"python: the running call on the killed replica: {type(err).__name__}: {err}")
                check(lost is True, f"python: the call running on the killed replica is lost, with an error: {lost}")
                before = nginx.logged()
                listed = await session.list_tools()
                check(any(t.name == "delete_note" for t in listed.tools), "after the kill: tools listed")
                got = await session.call_tool("get_note", {"note_id": 1})
                check(not got.is_error or "No note" in got.content[0].text,
                      f"after the kill: get_note answered: {got}")
                result = await session.call_tool("delete_note", {"note_id": 2})
                check_asked(user, 2, "python: delete_note after the kill")
                check(not result.is_error and (result.structured_content or {}).get("note_id") == 2,
                      f"after the kill: the confirmed delete ran: {result}")
                survivors = {served(line)[2] for line in nginx.lines_after(before, count=3)}
                check(survivors == {str(survivor.port)},
                      f"after the kill: served by the survivor only: {survivors}")
                # Its subscription too: the GET stream, wherever it went, hears the next change
                # (once what the delete just reported has come).
                await asyncio.sleep(1.0)
                heard.updated.clear()
                made = await session.call_tool("create_note", {"title": "After", "body": "b"})
                check(not made.is_error, f"python: create_note after the kill: {made}")
                heard_count = await hear(heard, index, 1)
                check(heard_count == 1, f"python: after the kill, the change heard once: {heard.updated}")


async def fastmcp_client(url, host, nginx):
    """FastMCP's client through nginx: each delete asks, and a confirmation answered through
    the other replica than the one that asked is confirmed all the same. FastMCP's client
    speaks 2026-07-28: the call is answered with the question (`input_required`, its request
    state sealed with the replicas' shared --state-key) and the client calls again with the
    answer, a POST of its own, which round robin sends to the other replica."""
    from fastmcp import Client
    from fastmcp.client.transports import StreamableHttpTransport

    asked = []

    async def confirm(message, response_type, params, context):
        asked.append(message)
        return {"confirm": True}

    transport = StreamableHttpTransport(url, headers={"Host": host})
    crossed = 0
    async with Client(transport, elicitation_handler=confirm) as client:
        for note_id in (3, 2, 1, 3, 2, 1):
            before = nginx.logged()
            result = await client.call_tool("delete_note", {"note_id": note_id})
            check(asked[-1:] == [f"Delete note {note_id}?"], f"fastmcp: asked before deleting {note_id}: {asked}")
            check(not result.is_error and (result.structured_content or {}).get("note_id") == note_id,
                  f"fastmcp: the confirmed delete of note {note_id} ran: {result}")
            posts = [served(line)[2] for line in nginx.lines_after(before, count=2)
                     if served(line)[:2] == ("POST", 200)]
            if len(set(posts)) == 2:
                crossed += 1
                break
    check(crossed > 0, "fastmcp: a confirmation asked on one replica was answered through the other")


def main(notes, nginx_binary, redis_binary, node, workdir, *mode):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    redis = Redis(redis_binary, os.path.join(workdir, "redis"))
    prefix = os.path.join(workdir, "nginx")
    os.makedirs(prefix, exist_ok=True)
    nginx = Nginx(nginx_binary, prefix, TEMPLATE)
    replicas = []
    try:
        redis.start()
        store = f"redis://127.0.0.1:{redis.port}/0"
        port = free_port()
        host = f"{PUBLIC_HOST}:{port}"
        # One key seals the request states of 2026-07-28 questions on every replica.
        key = base64.b64encode(os.urandom(32)).decode()
        for i in (1, 2):
            own = free_port()
            args = ["serve", "--http", f"127.0.0.1:{own}", "--public-url", f"http://{host}/mcp",
                    "--task-store", store, "--state-key", key, *mode]
            replica = NotesServer(notes, args, workdir=workdir, name=f"replica-{i}", local_port=own,
                                  env={"TOOLSMITH_LOG": os.environ.get("TOOLSMITH_LOG", "info")},
                                  default_mode=not mode)
            replicas.append(replica)
            replica.start()
        nginx.write_config({"NGINX_PORT": port, "REPLICA_1": replicas[0].port, "REPLICA_2": replicas[1].port})
        nginx.start(port)
        url = f"http://127.0.0.1:{port}/mcp"

        # The TypeScript SDK first (both replicas up), then Python, which kills one.
        ts = subprocess.run([node, TS_CLIENT, url, host, nginx.access_log],
                            capture_output=True, text=True, timeout=120)
        report = ts.stdout.strip().splitlines()[-1] if ts.stdout.strip() else "{}"
        try:
            ts_result = json.loads(report)
        except ValueError:
            ts_result = {}
        check(ts.returncode == 0 and ts_result.get("failed") == 0 and ts_result.get("passed", 0) > 0,
              f"typescript sdk through 2 replicas: {report}\n{ts.stderr[-2000:]}")
        check(ts_result.get("crossed", 0) > 0,
              f"typescript: a confirmation asked on one replica was answered through the other: {report}")

        asyncio.run(fastmcp_client(url, host, nginx))
        asyncio.run(python_client(url, host, nginx, replicas, lambda replica: replica.kill()))
    except StartError as err:
        check(False, f"did not start: {err}")
    except Exception as err:
        check(False, f"{type(err).__name__}: {err}")
        traceback.print_exc()
        print(nginx.errors(), file=sys.stderr)
        for replica in replicas:
            print(replica.stderr_tail(), file=sys.stderr)
    finally:
        nginx.stop()
        stop_replicas([r for r in replicas if r.proc is not None and r.proc.poll() is None])
        redis.stop()
    return tally(f"sessions across replicas{' ' + ' '.join(mode) if mode else ''}")


if __name__ == "__main__":
    if len(sys.argv) not in (6, 7):
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
