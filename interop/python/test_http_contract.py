"""The notes example's Streamable HTTP server, checked over raw HTTP against its contract.

Each case starts a fresh `notes serve --http 127.0.0.1:0 ...` and stops it with a signal:
  * the listening line, `GET /healthz` (200 `ok`), initialize over POST (protocol 2025-11-25);
  * stateless by default: no Mcp-Session-Id, and a tools/call answered without one;
  * Host validation: loopback names (any port) accepted, another host refused (4xx); Origin
    validation: a loopback origin accepted, another refused with 403 (the specification's
    status for an invalid Origin);
  * --sessions: initialize gives an Mcp-Session-Id, a request without it is refused (4xx), an
    unknown id gets 404, DELETE ends the session (then its id gets 404);
  * --http-path, --public-url (its host and origin allowed), repeated --allowed-host and
    --allowed-origin, and the same through TOOLSMITH_HTTP, TOOLSMITH_HTTP_PATH,
    TOOLSMITH_PUBLIC_URL, TOOLSMITH_ALLOWED_HOSTS, TOOLSMITH_ALLOWED_ORIGINS (comma-separated)
    and TOOLSMITH_SESSIONS;
  * SIGTERM and SIGINT stop it with exit status 0 within 15 s (the server gives calls in
    flight 10 s), also with an SSE stream open;
  * confirmation, stateless at 2025-11-25 (nothing can be asked): delete_note (it declares
    `confirm`) is refused with an error result naming --sessions and 2026-07-28, and does not
    run; `--confirm write` (and TOOLSMITH_CONFIRM=write) also refuses create_note, never a
    read-only tool; `--confirm none` adds nothing; a --state-key of under 32 bytes is refused
    at start.

Every failure prints the request and the exact response.

Usage: python test_http_contract.py PATH_TO_NOTES_BINARY
"""

import signal
import sys
import time
import traceback

from notes_http import NotesServer, StartError, free_port, initialize_message, request

from checks import check, checks

PROTOCOL = "2025-11-25"


def initialized(session=None):
    headers = {"MCP-Protocol-Version": PROTOCOL}
    if session:
        headers["Mcp-Session-Id"] = session
    return headers


def call(name, arguments, request_id):
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


class Case:
    """A server for one case: started on entry, stopped with `stop_signal` on exit (checked)."""

    def __init__(self, binary, args, env=None, stop_signal=signal.SIGTERM, label=None, local_port=None):
        self.server = NotesServer(binary, ["serve", *args], env=env, local_port=local_port)
        self.stop_signal = stop_signal
        self.label = label or " ".join(["serve", *args]) + (f" env={env}" if env else "")

    def __enter__(self):
        self.server.start()
        return self.server

    def __exit__(self, kind, value, tb):
        if self.server.proc is not None and self.server.proc.poll() is not None:
            self.server.stop()  # the case stopped it itself, and checked how
            return False
        status = self.server.stop(self.stop_signal)
        name = signal.Signals(self.stop_signal).name
        check(status == 0, f"[{self.label}] {name}: exit status {status} (None: still running after 15 s)"
              + ("" if status == 0 else "\n" + self.server.stderr_tail()))
        return False


def post(url, body, headers=None, **kw):
    return request(url, "POST", body, headers=headers, **kw)


def stateless_default(binary):
    label = "serve --http 127.0.0.1:0"
    with Case(binary, ["--http", "127.0.0.1:0"], label=label) as server:
        url = server.url
        check(server.path == "/mcp", f"[{label}] path {server.path!r}, expected /mcp ({url})")
        base = url[: -len(server.path)] if server.path else url

        health = request(base + "/healthz", "GET", headers={"Accept": "*/*"})
        check(health.status == 200 and health.body.strip() == b"ok",
              f"[{label}] GET /healthz: {health}")

        init = post(url, initialize_message())
        result = init.result() or {}
        check(init.status == 200 and result.get("result", {}).get("protocolVersion") == PROTOCOL,
              f"[{label}] POST initialize: {init}")
        check(init.header("mcp-session-id") is None,
              f"[{label}] stateless initialize must carry no Mcp-Session-Id: {init}")
        info = result.get("result", {}).get("serverInfo", {})
        check(info.get("name") == "toolsmith-examples", f"[{label}] serverInfo {info}")

        note = post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    headers=initialized())
        check(note.status == 202, f"[{label}] POST notifications/initialized: {note}")

        found = post(url, call("search_notes", {"query": "milk"}, 2), headers=initialized())
        answer = (found.result() or {}).get("result", {})
        titles = [n.get("title") for n in (answer.get("structuredContent") or {}).get("result", [])]
        check(found.status == 200 and titles == ["Groceries"] and found.header("mcp-session-id") is None,
              f"[{label}] POST tools/call search_notes without a session: {found}")

        listed = post(url, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, headers=initialized())
        names = sorted(t.get("name") for t in ((listed.result() or {}).get("result", {}).get("tools", [])))
        check(names == ["create_note", "delete_note", "get_note", "import_notes", "import_url", "search_notes", "tag_chart"],
              f"[{label}] POST tools/list: {listed}")

        # Host validation: loopback names on any port pass, any other host is refused.
        port = server.port
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "localhost"):
            reply = post(url, initialize_message(), headers={"Host": host})
            check(reply.status == 200, f"[{label}] POST initialize with Host: {host}: {reply}")
        for host in ("evil.example.com", f"evil.example.com:{port}", f"127.0.0.1.evil.example.com:{port}"):
            reply = post(url, initialize_message(), headers={"Host": host})
            check(400 <= reply.status < 500, f"[{label}] POST initialize with Host: {host} must be refused (4xx): {reply}")

        # Origin validation: loopback origins pass (browsers on the same machine, the
        # conformance suite's dns-rebinding check), any other origin gets 403.
        for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}"):
            reply = post(url, initialize_message(), headers={"Origin": origin})
            check(reply.status == 200, f"[{label}] POST initialize with Origin: {origin}: {reply}")
        for origin in ("http://evil.example.com", "https://evil.example.com", "null"):
            reply = post(url, initialize_message(), headers={"Origin": origin})
            check(reply.status == 403, f"[{label}] POST initialize with Origin: {origin} must get 403: {reply}")

        # A stateless server has no stream to offer: GET is 405 (or an SSE stream).
        got, conn = request(url, "GET", headers={"Accept": "text/event-stream"}, read=False)
        conn.close()
        check(got.status == 405 or (got.status == 200 and "text/event-stream" in (got.header("content-type") or "")),
              f"[{label}] GET {server.path} stateless: {got}")


def sessions(binary):
    label = "serve --http 127.0.0.1:0 --sessions"
    with Case(binary, ["--http", "127.0.0.1:0", "--sessions"], label=label) as server:
        url = server.url
        init = post(url, initialize_message())
        session = init.header("mcp-session-id")
        check(init.status == 200 and bool(session), f"[{label}] POST initialize gives an Mcp-Session-Id: {init}")
        if not session:
            return
        note = post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    headers=initialized(session))
        check(note.status == 202, f"[{label}] POST notifications/initialized: {note}")
        listed = post(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                      headers=initialized(session))
        tools = (listed.result() or {}).get("result", {}).get("tools", [])
        check(listed.status == 200 and len(tools) == 7, f"[{label}] POST tools/list in the session: {listed}")

        missing = post(url, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, headers=initialized())
        check(400 <= missing.status < 500, f"[{label}] POST tools/list without Mcp-Session-Id must be refused (4xx, 400 advised): {missing}")
        unknown = post(url, {"jsonrpc": "2.0", "id": 4, "method": "tools/list"},
                       headers=initialized("no-such-session"))
        check(unknown.status == 404, f"[{label}] POST with an unknown Mcp-Session-Id must get 404: {unknown}")

        # A second session, ended by DELETE.
        other = post(url, initialize_message()).header("mcp-session-id")
        check(bool(other) and other != session, f"[{label}] a second session has its own id: {other!r} vs {session!r}")
        if other:
            ended = request(url, "DELETE", headers=initialized(other))
            check(200 <= ended.status < 300 or ended.status == 405, f"[{label}] DELETE the session: {ended}")
            if 200 <= ended.status < 300:
                after = post(url, {"jsonrpc": "2.0", "id": 5, "method": "tools/list"},
                             headers=initialized(other))
                check(after.status == 404, f"[{label}] POST with an ended session's id must get 404: {after}")

        # A graceful stop with a client's SSE stream still open must still end (exit 0).
        stream, conn = request(url, "GET", headers={"Accept": "text/event-stream", **initialized(session)},
                               read=False)
        check(stream.status in (200, 405), f"[{label}] GET stream: {stream}")
        started = time.monotonic()
        status = server.stop(signal.SIGTERM)
        took = time.monotonic() - started
        conn.close()
        check(status == 0, f"[{label}] SIGTERM with an SSE stream open: exit status {status} "
              "(None: still running after 15 s)\n" + server.stderr_tail())
        if status == 0 and took > 2:
            print(f"http-contract: note: with an idle SSE stream open, SIGTERM took {took:.1f} s to stop the server")


def http_path(binary):
    label = "serve --http 127.0.0.1:0 --http-path /other"
    with Case(binary, ["--http", "127.0.0.1:0", "--http-path", "/other"], stop_signal=signal.SIGINT,
              label=label) as server:
        check(server.path == "/other", f"[{label}] listening URL {server.url}")
        reply = post(server.url, initialize_message())
        check(reply.status == 200, f"[{label}] POST /other initialize: {reply}")
        old = post(server.url, initialize_message(), path="/mcp")
        check(old.status == 404, f"[{label}] POST /mcp must be 404 now: {old}")


def public_url(binary):
    public = "http://mcp.example.test:8443/mcp"
    port = free_port()  # the listening line names the public URL, so the port is chosen here
    label = f"serve --http 127.0.0.1:{port} --public-url {public}"
    with Case(binary, ["--http", f"127.0.0.1:{port}", "--public-url", public], label=label,
              local_port=port) as server:
        check(server.announced in (public, f"http://127.0.0.1:{port}/mcp"),
              f"[{label}] listening line names {server.announced}")
        for host in ("mcp.example.test:8443", f"127.0.0.1:{server.port}"):
            reply = post(server.url, initialize_message(), headers={"Host": host})
            check(reply.status == 200, f"[{label}] POST initialize with Host: {host}: {reply}")
        reply = post(server.url, initialize_message(), headers={"Origin": "http://mcp.example.test:8443"})
        check(reply.status == 200, f"[{label}] POST initialize with the public URL's Origin: {reply}")
        reply = post(server.url, initialize_message(), headers={"Host": "other.example.test:8443"})
        check(400 <= reply.status < 500, f"[{label}] POST initialize with Host: other.example.test:8443 must be refused: {reply}")


def allow_lists(binary):
    args = ["--http", "127.0.0.1:0",
            "--allowed-host", "notes.internal", "--allowed-host", "tools.internal",
            "--allowed-origin", "https://app.example.test", "--allowed-origin", "https://ide.example.test:8443"]
    label = "serve " + " ".join(args)
    with Case(binary, args, label=label) as server:
        for host in ("notes.internal", "tools.internal", f"127.0.0.1:{server.port}"):
            reply = post(server.url, initialize_message(), headers={"Host": host})
            check(reply.status == 200, f"[{label}] POST initialize with Host: {host}: {reply}")
        reply = post(server.url, initialize_message(), headers={"Host": "evil.example.com"})
        check(400 <= reply.status < 500, f"[{label}] Host: evil.example.com must be refused: {reply}")
        for origin in ("https://app.example.test", "https://ide.example.test:8443"):
            reply = post(server.url, initialize_message(), headers={"Origin": origin})
            check(reply.status == 200, f"[{label}] POST initialize with Origin: {origin}: {reply}")
        reply = post(server.url, initialize_message(), headers={"Origin": "https://evil.example.com"})
        check(reply.status == 403, f"[{label}] Origin: https://evil.example.com must get 403: {reply}")


def environment(binary):
    port = free_port()
    env = {
        "TOOLSMITH_HTTP": f"127.0.0.1:{port}",
        "TOOLSMITH_HTTP_PATH": "/from-env",
        "TOOLSMITH_PUBLIC_URL": "http://env.example.test/from-env",
        "TOOLSMITH_ALLOWED_HOSTS": "a.internal,b.internal",
        "TOOLSMITH_ALLOWED_ORIGINS": "https://a.example.test,https://b.example.test:8443",
        "TOOLSMITH_SESSIONS": "true",
    }
    label = f"serve with {' '.join(f'{k}={v}' for k, v in env.items())}"
    with Case(binary, [], env=env, label=label, local_port=port) as server:
        check(server.path == "/from-env", f"[{label}] listening URL {server.url}")
        for host in ("env.example.test", "a.internal", "b.internal"):
            reply = post(server.url, initialize_message(), headers={"Host": host})
            check(reply.status == 200, f"[{label}] POST initialize with Host: {host}: {reply}")
            check(bool(reply.header("mcp-session-id")), f"[{label}] TOOLSMITH_SESSIONS: a session id: {reply}")
        for origin in ("https://a.example.test", "https://b.example.test:8443", "http://env.example.test"):
            reply = post(server.url, initialize_message(), headers={"Origin": origin})
            check(reply.status == 200, f"[{label}] POST initialize with Origin: {origin}: {reply}")
        reply = post(server.url, initialize_message(), headers={"Host": "c.internal"})
        check(400 <= reply.status < 500, f"[{label}] Host: c.internal must be refused: {reply}")


def confirmation(binary):
    def tool_call(url, name, arguments, request_id):
        reply = post(url, call(name, arguments, request_id), headers=initialized())
        result = (reply.result() or {}).get("result") or {}
        text = " ".join(c.get("text", "") for c in result.get("content", []))
        return reply, result, text

    cases = [(["--confirm", "write"], None, True), ([], {"TOOLSMITH_CONFIRM": "write"}, True),
             (["--confirm", "none"], None, False), ([], None, False)]
    for flags, env, writes_ask in cases:
        label = " ".join(["serve --http 127.0.0.1:0", *flags]) + (f" env={env}" if env else "")
        with Case(binary, ["--http", "127.0.0.1:0", *flags], env=env, label=label) as server:
            url = server.url
            refused_tools = ["delete_note"] + (["create_note"] if writes_ask else [])
            for i, (name, arguments) in enumerate([("delete_note", {"note_id": 1}),
                                                    ("create_note", {"title": "C", "body": "c"})]):
                reply, result, text = tool_call(url, name, arguments, 10 + i)
                if name in refused_tools:
                    check(reply.status == 200 and result.get("isError") is True
                          and (result.get("_meta") or {}).get("dev.toolsmith/error") == "refused"
                          and "confirmation" in text and "--sessions" in text and "2026-07-28" in text
                          and "did not run" in text,
                          f"[{label}] {name} is refused, stateless, naming the ways out: {reply}")
                else:
                    check(reply.status == 200 and result.get("isError") is False
                          and (result.get("structuredContent") or {}).get("id") == 4,
                          f"[{label}] {name} runs unasked: {reply}")
            reply, result, _ = tool_call(url, "get_note", {"note_id": 1}, 20)
            check(result.get("isError") is False and (result.get("structuredContent") or {}).get("id") == 1,
                  f"[{label}] the refused delete_note did not run, and a read-only tool never asks: {reply}")

    short = NotesServer(binary, ["serve", "--http", "127.0.0.1:0", "--state-key", "AAAAAAAAAAAAAAAAAAAAAA=="])
    try:
        short.start()
        check(False, "serve --state-key of 16 bytes: the server started")
    except StartError as err:
        check("32" in str(err) and short.proc.returncode not in (0, None),
              f"serve --state-key of 16 bytes is refused at start, asking for 32: {err}")
    finally:
        short.kill()


def main(binary):
    for case in (stateless_default, sessions, http_path, public_url, allow_lists, environment, confirmation):
        try:
            case(binary)
        except StartError as err:
            check(False, f"[{case.__name__}] the server did not start: {err}")
        except Exception as err:  # one broken case must not hide the others
            check(False, f"[{case.__name__}] {type(err).__name__}: {err}\n{traceback.format_exc()}")
    print(f"http-contract: {checks['passed']} passed, {checks['failed']} failed")
    return 0 if checks["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
