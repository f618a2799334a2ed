"""Start and stop the notes example's Streamable HTTP server, and talk raw HTTP to it.

Shared by the contract and scale-out tests. Every wait is bounded: a server that has not
printed its `listening on http://...` line within START_TIMEOUT (20) seconds is a StartError
(its stderr is kept in a file and shown), and stop() sends SIGTERM, waits STOP_TIMEOUT (15)
seconds for a graceful exit, then kills.
"""

import atexit
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from urllib.parse import urlsplit

START_TIMEOUT = 20.0
# The server gives calls in flight 10 s after SIGTERM; a few seconds more for it to exit.
STOP_TIMEOUT = 15.0

# The contract: a line on stderr containing `listening on http://127.0.0.1:PORT/PATH`. With
# --public-url the server names the public URL there instead, and the port it bound cannot be
# read from it: give such a server a port of its own (NotesServer's local_port).
LISTENING = re.compile(r"listening on (https?://[^\s\"'\x1b]+)")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class StartError(Exception):
    pass


def stop_process(proc, pid_path, timeout=10.0):
    """Stops a helper process (prometheus, redis-server) started by a test: SIGTERM, then
    SIGKILL after `timeout` seconds; then forgets its pid file, kept for interop/run's clean-up."""
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)
    try:
        os.unlink(pid_path)
    except FileNotFoundError:
        pass


def free_port():
    """A port free on 127.0.0.1 now (for a server whose bound port its stderr does not tell)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class NotesServer:
    """One `notes serve --http ...` process (flags and env given by the caller).

    `url` is where to reach it on 127.0.0.1: the listening line's URL, or, when `local_port`
    is given (the caller chose the port, e.g. with --public-url), that port on 127.0.0.1 with
    the path of the listening line's URL. `announced` is the listening line's URL.
    """

    def __init__(self, binary, args, env=None, workdir=None, name="notes", local_port=None,
                 default_mode=False):
        self.binary = binary
        self.args = list(args)
        # `serve --http` is stateless here unless the args name the mode (or `default_mode`:
        # no mode flag, sessions): each script says which mode it checks.
        named = any(a.startswith(("--sessions", "--stateless")) for a in self.args)
        if "serve" in self.args and "--http" in self.args and not named and not default_mode:
            self.args.append("--stateless")
        self.env = dict(os.environ)
        self.env.update(env or {})
        if workdir is None:
            workdir = tempfile.mkdtemp(prefix="toolsmith-http-")
            # Its logs are read until the script ends; then nothing is left behind.
            atexit.register(shutil.rmtree, workdir, ignore_errors=True)
        self.workdir = workdir
        self.name = name
        self.log_path = os.path.join(self.workdir, f"{name}.stderr")
        self.pid_path = os.path.join(self.workdir, f"{name}.pid")
        self.local_port = local_port
        self.proc = None
        self.url = None
        self.announced = None

    def start(self, timeout=START_TIMEOUT):
        """Starts the server; returns its URL, parsed from the listening line."""
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [self.binary, *self.args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                env=self.env,
            )
        with open(self.pid_path, "w") as f:  # for interop/run's clean-up, should this process die
            f.write(f"{self.proc.pid}\n")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = LISTENING.search(self.stderr())
            if match:
                self.announced = match.group(1)
                announced = urlsplit(self.announced)
                if self.local_port is not None:
                    self.url = f"http://127.0.0.1:{self.local_port}{announced.path}"
                elif announced.hostname == "127.0.0.1" and announced.port:
                    self.url = self.announced
                else:
                    self.kill()
                    raise StartError(
                        f"{self.name}: the listening line names {self.announced}, not "
                        "http://127.0.0.1:PORT/...:\n" + self.stderr_tail()
                    )
                return self.url
            if self.proc.poll() is not None:
                raise StartError(
                    f"{self.name} exited with status {self.proc.returncode} before listening:\n"
                    + self.stderr_tail()
                )
            time.sleep(0.05)
        self.kill()
        raise StartError(
            f"{self.name} printed no `listening on http://...` line within "
            f"{timeout:.0f} s (args {self.args}):\n" + self.stderr_tail()
        )

    def stderr(self):
        try:
            with open(self.log_path, "rb") as f:
                return ANSI.sub("", f.read().decode("utf-8", "replace"))
        except FileNotFoundError:
            return ""

    def stderr_tail(self, lines=20):
        return "\n".join("    " + line for line in self.stderr().splitlines()[-lines:])

    def stop(self, sig=signal.SIGTERM, timeout=STOP_TIMEOUT):
        """Sends `sig` and waits for the exit; returns the exit status, or None if it had to be killed."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                return None
        self._forget_pid()
        return self.proc.returncode

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                pass
        self._forget_pid()

    def _forget_pid(self):
        try:
            os.unlink(self.pid_path)
        except FileNotFoundError:
            pass

    @property
    def port(self):
        return urlsplit(self.url).port

    @property
    def path(self):
        return urlsplit(self.url).path


class Reply:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers  # lower-cased names
        self.body = body

    def header(self, name):
        return self.headers.get(name.lower())

    def messages(self):
        """The JSON-RPC messages of a JSON or an SSE body."""
        kind = self.header("content-type") or ""
        text = self.body.decode("utf-8", "replace")
        if "text/event-stream" in kind:
            found = []
            for event in re.split(r"\r?\n\r?\n", text):
                data = "\n".join(
                    line[5:].lstrip(" ") for line in event.splitlines() if line.startswith("data:")
                )
                if data.strip():
                    found.append(json.loads(data))
            return found
        if "application/json" in kind and text.strip():
            value = json.loads(text)
            return value if isinstance(value, list) else [value]
        return []

    def result(self):
        """The first response's result (or error) object, or None."""
        for message in self.messages():
            if "result" in message or "error" in message:
                return message
        return None

    def __str__(self):
        shown = {k: v for k, v in self.headers.items() if k in ("content-type", "mcp-session-id", "allow")}
        body = self.body[:300].decode("utf-8", "replace")
        return f"HTTP {self.status} {shown} {body!r}"


def request(url, method="POST", body=None, headers=None, path=None, timeout=10.0, read=True):
    """One HTTP/1.1 request to the server at `url` (its path unless `path` is given).

    `headers` may set Host and Origin; Accept and Content-Type default to what MCP needs.
    Returns a Reply; with read=False, (Reply without body, connection) so that a stream can be
    kept open.
    """
    u = urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    all_headers = {"Accept": "application/json, text/event-stream"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        all_headers["Content-Type"] = "application/json"
    all_headers.update(headers or {})
    conn.request(method, path or u.path or "/", body=data, headers=all_headers)
    response = conn.getresponse()
    got = {k.lower(): v for k, v in response.getheaders()}
    if not read:
        return Reply(response.status, got, b""), conn
    try:
        payload = response.read()
    finally:
        conn.close()
    return Reply(response.status, got, payload)


def initialize_message(request_id=1, version="2025-11-25"):
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "toolsmith-interop-raw", "version": "0.0.0"},
        },
    }
