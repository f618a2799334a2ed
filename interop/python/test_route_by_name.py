"""Routing by tool name: nginx sends the calls of destructive tools to a pool of their own.

Starts two `notes serve --http` replicas, one for the safe pool and one for the destructive
pool (each on a port of its own, each with `--public-url http://mcp.example.test:PORT/mcp`),
writes the map of destructive tools with `notes tools --nginx-map`, and starts nginx from
interop/nginx/route-by-name.conf (which includes that map) in a folder of its own under
WORKDIR, listening on 127.0.0.1:PORT. Then sends MCP 2026-07-28 requests through nginx, as raw
HTTP: every request carries `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method` and (for
tools/call) `Mcp-Name`, and its `_meta` names the protocol version, the client's capabilities
and the client. Checks:

- search_notes, get_note and tools/list are answered correctly by the safe pool, delete_note
  by the destructive pool (it deletes there only: the safe replica still has the note);
  delete_note asks the user first (`confirm`): its first round is answered `input_required`
  (the confirmation form and a sealed requestState), and the retry with the answer
  (`inputResponses.confirm`, accepted) and the state goes to the destructive pool too, by its
  Mcp-Name, and deletes; the same retry sent straight to the safe replica (another process,
  so another key: the replicas have no --state-key) is refused as an invalid state;
- a tool name sent Base64-wrapped (`=?base64?...?=`, which the server decodes) goes to the
  destructive pool;
- a request whose Mcp-Name hides a destructive call (Mcp-Name: search_notes, body
  delete_note) reaches the safe pool, which refuses it (400) without deleting;
- destructive calls past the pool's rate limit get 429 from nginx (those let through are
  answered input_required: nothing runs unconfirmed), while as many safe calls at once all
  pass;
- nginx's access log ($mcp_pool, $upstream_addr) shows each request served by the expected
  pool's replica, or by nginx itself for a 429, and nothing else.

nginx and the replicas are stopped at the end whatever happens (SIGQUIT then SIGKILL for
nginx, SIGTERM for the replicas, which must exit 0); their pids are also in WORKDIR for
interop/run to clean up after a kill. Every request has a 10 s timeout.

Usage: python test_route_by_name.py PATH_TO_NOTES_BINARY PATH_TO_NGINX WORKDIR
"""

import base64
import os
import re
import signal
import subprocess
import sys

from checks import check, stop_replicas, tally
from nginx_proxy import Nginx
from notes_http import NotesServer, StartError, free_port, request

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = os.path.join(HERE, "..", "nginx", "route-by-name.conf")
MAP_FILE = "mcp_pool_map.conf"
PUBLIC_HOST = "mcp.example.test"
VERSION = "2026-07-28"
TOOLS = ["create_note", "delete_note", "get_note", "import_notes", "import_url", "search_notes", "tag_chart"]
LOG_LINE = re.compile(r'" (\d{3}) mcp_method="[^"]*" mcp_name="[^"]*" pool=(\S*) upstream=(\S*) upstream_status=')


class Client:
    """Raw 2026-07-28 requests to one URL; remembers what went through nginx, in order."""

    def __init__(self, url, host):
        self.url = url
        self.host = host
        self.next_id = 1
        self.sent = []  # (what, expected pool) of each request through nginx

    def post(self, method, params, name=None, pool="safe", url=None):
        """POSTs `method` with `params` (and the 2026-07-28 `_meta`: a client that can ask
        the user, `elicitation`) and its headers; `name` is the Mcp-Name header (None: none).
        `pool` is where nginx should send it."""
        request_id = self.next_id
        self.next_id += 1
        params = dict(params)
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": VERSION,
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "toolsmith-interop-route", "version": "0"},
        }
        headers = {"Host": self.host, "MCP-Protocol-Version": VERSION, "Mcp-Method": method}
        if name is not None:
            headers["Mcp-Name"] = name
        body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        if url is None:
            self.sent.append((f"{method} {name or ''} #{request_id}".strip(), pool))
        return request(url or self.url, "POST", body, headers=headers, timeout=10.0)

    def call(self, tool, arguments, name=None, pool="safe", url=None, retry=None):
        """tools/call `tool`, with Mcp-Name `name` (default: the tool's own name); `retry`:
        the (inputResponses, requestState) of a later round."""
        params = {"name": tool, "arguments": arguments}
        if retry is not None:
            params["inputResponses"], params["requestState"] = retry
        return self.post("tools/call", params, name=tool if name is None else name, pool=pool, url=url)


ACCEPT = {"confirm": {"action": "accept", "content": {"confirm": True}}}


def input_required(reply, note_id, what):
    """The first round of a delete_note call: input_required, with the confirmation form;
    returns its requestState (None if not one)."""
    result = ((reply.result() or {}).get("result")) or {}
    check(reply.status == 200 and result.get("resultType") == "input_required",
          f"{what}: answered input_required: {reply}")
    form = ((result.get("inputRequests") or {}).get("confirm") or {})
    check(form.get("method") == "elicitation/create"
          and (form.get("params") or {}).get("message") == f"Delete note {note_id}?",
          f"{what}: asks to confirm: {result.get('inputRequests')}")
    state = result.get("requestState")
    check(isinstance(state, str) and state != "", f"{what}: a requestState: {state!r}")
    return state if isinstance(state, str) else None


def confirmed_delete(client, note_id, name=None):
    """delete_note `note_id` through nginx in two rounds, the user accepting: the retry's
    (isError, structuredContent or text), and the state."""
    state = input_required(client.call("delete_note", {"note_id": note_id}, name=name, pool="destructive"),
                           note_id, f"delete_note {note_id} through nginx, first round")
    retry = client.call("delete_note", {"note_id": note_id}, name=name, pool="destructive", retry=(ACCEPT, state))
    return structured(retry), state


def structured(reply):
    """A tools/call reply's (isError, structuredContent or text), or (None, reply) if not one."""
    message = reply.result()
    result = (message or {}).get("result")
    if reply.status != 200 or not isinstance(result, dict):
        return None, str(reply)
    content = result.get("structuredContent")
    if content is None:
        content = " ".join(c.get("text", "") for c in result.get("content", []))
    return result.get("isError"), content


def nginx_map(binary):
    """`notes tools --nginx-map`, checked: it names delete_note and no other tool."""
    out = subprocess.run([binary, "tools", "--nginx-map"], capture_output=True, text=True, timeout=30)
    check(out.returncode == 0, f"tools --nginx-map: exit status {out.returncode}: {out.stderr}")
    listed = re.findall(r'^\s*"([^"~]+)" destructive;$', out.stdout, re.MULTILINE)
    check(listed == ["delete_note"], f"the map lists the destructive tools only: {listed}\n{out.stdout}")
    return out.stdout


def routes(client, safe_url, destructive_url):
    # Reads: the safe pool.
    error, content = structured(client.call("search_notes", {"query": "milk"}))
    titles = [n["title"] for n in content.get("result", [])] if isinstance(content, dict) else content
    check(error is False and titles == ["Groceries"], f"search_notes milk through nginx: {titles}")
    error, content = structured(client.call("get_note", {"note_id": 1}))
    check(error is False and isinstance(content, dict) and content.get("title") == "Groceries",
          f"get_note 1 through nginx: {content}")
    listed = client.post("tools/list", {})
    names = [t["name"] for t in ((listed.result() or {}).get("result") or {}).get("tools", [])]
    check(listed.status == 200 and names == TOOLS, f"tools/list through nginx (no Mcp-Name): {listed}")

    # A destructive call: the destructive pool, and only there, in two rounds (confirmed).
    (error, content), state = confirmed_delete(client, 2)
    check(error is False and isinstance(content, dict) and content.get("deleted") is True,
          f"delete_note 2 through nginx, confirmed: {content}")
    # The state was sealed by the destructive replica: the safe one (its own key) refuses it.
    error, content = structured(client.call("delete_note", {"note_id": 2}, url=safe_url, retry=(ACCEPT, state)))
    check(error is True and "request state is invalid" in str(content) and "did not run" in str(content),
          f"the destructive replica's state, sent to the safe replica, is invalid there: {content}")
    error, content = structured(client.call("get_note", {"note_id": 2}, url=destructive_url))
    check(error is True and "No note with id 2" in str(content),
          f"the destructive replica deleted note 2: get_note 2 there: {content}")
    error, content = structured(client.call("get_note", {"note_id": 2}))
    check(error is False and isinstance(content, dict) and content.get("title") == "Standup notes",
          f"the safe replica did not run the delete: get_note 2 through nginx: {content}")

    # Base64-wrapped, the name is not checkable by nginx: the destructive pool all the same.
    wrapped = "=?base64?" + base64.b64encode(b"delete_note").decode() + "?="
    (error, content), _ = confirmed_delete(client, 3, name=wrapped)
    check(error is False and isinstance(content, dict) and content.get("deleted") is True,
          f"delete_note 3 with a Base64-wrapped Mcp-Name, confirmed: {content}")

    # A header that lies about the body: routed by the header, refused by the replica.
    lying = client.call("delete_note", {"note_id": 1}, name="search_notes")
    check(lying.status == 400 and "does not match" in lying.body.decode("utf-8", "replace"),
          f"Mcp-Name search_notes on a delete_note call is refused: {lying}")
    error, content = structured(client.call("get_note", {"note_id": 1}, url=safe_url))
    check(error is False and isinstance(content, dict) and content.get("title") == "Groceries",
          f"the refused delete did not run: get_note 1 on the safe replica: {content}")


def rate_limits(client):
    """Destructive calls past the burst get 429 from nginx; safe calls are not limited."""
    statuses = []
    for _ in range(12):
        reply = client.call("delete_note", {"note_id": 99}, pool="destructive")
        statuses.append(reply.status)
        if reply.status == 200:  # let through: the first round, which asks to confirm
            input_required(reply, 99, "delete_note 99 within the rate limit")
    check(429 in statuses and set(statuses) <= {200, 429} and statuses[0] == 200,
          f"12 destructive calls at once: some 429, the rest answered: {statuses}")
    safe = [client.call("search_notes", {"query": "lighthouse"}).status for _ in range(20)]
    check(safe == [200] * 20, f"20 safe calls at once are not limited: {safe}")


def served(access_log, ports):
    """Each access log line's (status, pool, replica port or None)."""
    with open(access_log, errors="replace") as f:
        lines = f.read().splitlines()
    found = []
    for line in lines:
        match = LOG_LINE.search(line)
        if not match:
            found.append((None, None, line))
            continue
        status, pool, upstream = int(match.group(1)), match.group(2), match.group(3)
        port = next((p for p in ports if upstream == f"127.0.0.1:{p}"), None)
        found.append((status, pool, port if upstream != "-" else None))
    return found


def check_log(access_log, sent, pools):
    logged = served(access_log, list(pools.values()))
    check(len(logged) == len(sent), f"{len(logged)} lines logged for {len(sent)} requests through nginx")
    for (what, pool), (status, logged_pool, port) in zip(sent, logged):
        if status == 429:
            check(pool == "destructive" and logged_pool == "destructive" and port is None,
                  f"{what}: 429 from nginx itself, for the destructive pool (expected {pool})")
        else:
            check(logged_pool == pool and port == pools[pool],
                  f"{what}: served by pool {logged_pool} on port {port}, expected {pool} on {pools[pool]}")
    by_pool = {}
    for status, pool, port in logged:
        key = f"{pool}:{port or 'nginx'}:{status}"
        by_pool[key] = by_pool.get(key, 0) + 1
    return by_pool


def main(binary, nginx_binary, workdir):
    # A SIGTERM (interop/run's time limit) must still run the clean-up below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    prefix = os.path.join(workdir, "nginx")
    os.makedirs(prefix, exist_ok=True)
    nginx = Nginx(nginx_binary, prefix, TEMPLATE)
    replicas = {}
    try:
        map_block = nginx_map(binary)
        port = free_port()
        public = f"http://{PUBLIC_HOST}:{port}/mcp"
        for pool in ("safe", "destructive"):
            own = free_port()
            replicas[pool] = NotesServer(binary, ["serve", "--http", f"127.0.0.1:{own}", "--public-url", public],
                                         workdir=workdir, name=f"replica-{pool}", local_port=own)
            replicas[pool].start()
        pools = {pool: replica.port for pool, replica in replicas.items()}
        check(len(set(pools.values())) == 2, f"two replicas on two ports: {pools}")
        nginx.write_config({"NGINX_PORT": port, "SAFE_REPLICA": pools["safe"],
                            "DESTRUCTIVE_REPLICA": pools["destructive"]}, files={MAP_FILE: map_block})
        nginx.start(port)

        client = Client(f"http://127.0.0.1:{port}{replicas['safe'].path}", f"{PUBLIC_HOST}:{port}")
        routes(client, replicas["safe"].url, replicas["destructive"].url)
        rate_limits(client)

        nginx.stop()  # flushes the access log
        by_pool = check_log(nginx.access_log, client.sent, pools)
        print(f"route-by-name: {len(client.sent)} requests through nginx; pool:replica port:status "
              f"counts {dict(sorted(by_pool.items()))}")
    except StartError as err:
        check(False, f"a replica did not start: {err}")
    except Exception as err:
        check(False, f"{type(err).__name__}: {err}")
        print(nginx.errors(), file=sys.stderr)
    finally:
        nginx.stop()
        stop_replicas(replicas.values())
    return tally("route-by-name")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
