"""What the sign-in tests run against: the OpenID provider (interop/node/idp.mjs,
`oidc-provider`, users alice and bob) with the operator's one client, and the notes example
serving with sign-in (`notes serve --http 127.0.0.1:PORT --signin-oidc ...`); a loopback
listener standing for a native client's redirect URI (RFC 8252); PKCE. Every wait is bounded
and everything listens on 127.0.0.1.
"""

import atexit
import base64
import hashlib
import http.server
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
from urllib.parse import urlsplit

from notes_http import NotesServer, free_port, stop_process

START_TIMEOUT = 20.0


class Provider:
    """`node idp.mjs --port 0 --client-id ID --redirect-uri URI` (secret in the environment);
    `issuer` is read from its `idp listening on http://127.0.0.1:PORT` line."""

    def __init__(self, node, script, client_id, client_secret, redirect_uri, workdir):
        self.log_path = os.path.join(workdir, "idp.log")
        self.pid_path = os.path.join(workdir, "idp.pid")
        self.args = [node, script, "--port", "0", "--client-id", client_id, "--redirect-uri", redirect_uri]
        self.env = dict(os.environ, IDP_CLIENT_SECRET=client_secret)
        self.proc = None
        self.issuer = None

    def start(self):
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                         env=self.env)
        with open(self.pid_path, "w") as f:
            f.write(f"{self.proc.pid}\n")
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            match = re.search(r"idp listening on (http://127\.0\.0\.1:\d+)", self.output())
            if match:
                self.issuer = match.group(1)
                return self.issuer
            if self.proc.poll() is not None:
                raise RuntimeError(f"the provider exited ({self.proc.returncode}) before listening:\n{self.output()[-2000:]}")
            time.sleep(0.05)
        raise RuntimeError(f"the provider printed no listening line within 20 s:\n{self.output()[-2000:]}")

    def output(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def stop(self):
        stop_process(self.proc, self.pid_path)


class SignIn:
    """The provider and the notes server with sign-in, started together: the server's port
    is chosen first, as the provider must know its redirect URI (ISSUER/oauth/callback)."""

    def __init__(self, notes, node, idp_script, extra=()):
        self.workdir = tempfile.mkdtemp(prefix="toolsmith-signin-")
        # Its logs are read until the script ends; then nothing is left behind.
        atexit.register(shutil.rmtree, self.workdir, ignore_errors=True)
        self.client_id = "toolsmith-operator"
        self.client_secret = secrets.token_hex(24)
        self.secret_file = os.path.join(self.workdir, "client-secret")
        with open(self.secret_file, "w") as f:
            f.write(self.client_secret + "\n")
        os.chmod(self.secret_file, 0o600)
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.provider = Provider(node, idp_script, self.client_id, self.client_secret,
                                 f"{self.issuer}/oauth/callback", self.workdir)
        self.notes = notes
        self.extra = list(extra)
        self.server = None
        self.url = None

    def start(self):
        idp = self.provider.start()
        self.server = NotesServer(self.notes, [
            "serve", "--http", f"127.0.0.1:{self.port}", "--signin-oidc", idp,
            "--signin-client-id", self.client_id, "--signin-client-secret-file", self.secret_file, *self.extra,
        ], workdir=self.workdir, name="notes-signin")
        self.url = self.server.start()
        return self.url

    def stop(self):
        status = self.server.stop() if self.server is not None else None
        self.provider.stop()
        return status


def pkce():
    """A PKCE verifier and its S256 challenge (RFC 7636)."""
    verifier = base64.urlsafe_b64encode(secrets.token_bytes(48)).rstrip(b"=").decode()
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


class RedirectListener:
    """The client's loopback redirect URI: records each request's path and query, answers a
    short page."""

    def __init__(self):
        self.seen = []
        seen = self.seen

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (the standard library's name)
                if self.path.startswith("/callback"):  # not the browser's /favicon.ico
                    seen.append(self.path)
                body = b"<!DOCTYPE html><title>signed in</title><p>You may close this window.</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.uri = f"http://127.0.0.1:{self.server.server_address[1]}/callback"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def origin(url):
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
