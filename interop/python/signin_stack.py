"""What the sign-in tests run against, the one place that starts it: the OpenID provider
(interop/node/idp.mjs, `oidc-provider` from npm, users alice and bob) with the operator's one
static client, and the notes example serving with sign-in (`notes serve --http
127.0.0.1:PORT --signin-oidc ISSUER ...`). The clients the tests sign in with are in
signin_parts.py.

Every wait is bounded and everything listens on 127.0.0.1: the provider must print `idp
listening on http://127.0.0.1:PORT` within 20 s; stop() sends SIGTERM, then SIGKILL after
10 s. Its pid is in WORKDIR/idp.pid meanwhile (for interop/run's clean-up).
"""

import atexit
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import threading

from notes_http import NotesServer, StartError, free_port, stop_process

HERE = os.path.dirname(os.path.abspath(__file__))
IDP_SCRIPT = os.path.join(HERE, "..", "node", "idp.mjs")
# The operator's client at the provider (as --signin-client-id names it).
CLIENT_ID = "toolsmith-interop"
# A redirect URI of the provider's static client besides toolsmith's: the provider checks
# itself there (signin_parts.check_idp; the browser stops at it and never loads it).
IDP_CHECK_REDIRECT = "http://127.0.0.1:1/idp-check"
LISTENING = re.compile(r"idp listening on (http://127\.0\.0\.1:\d+)")


class IdP:
    """`node SCRIPT --port 0 --client-id CLIENT_ID --redirect-uri URI... EXTRA...` (the client's
    secret in the environment, and in WORKDIR/idp-client-secret for --signin-client-secret-file),
    with toolsmith's redirect URIs; `issuer` is read from its listening line."""

    def __init__(self, node, workdir, redirect_uris, script=IDP_SCRIPT, extra=()):
        self.node = node
        self.script = script
        self.workdir = workdir
        self.redirect_uris = list(redirect_uris) + [IDP_CHECK_REDIRECT]
        self.secret = secrets.token_urlsafe(24)
        self.secret_file = os.path.join(workdir, "idp-client-secret")
        self.pid_path = os.path.join(workdir, "idp.pid")
        self.log_path = os.path.join(workdir, "idp.stderr")
        self.extra = list(extra)
        self.proc = None
        self.issuer = None

    def start(self, timeout=20.0):
        with open(self.secret_file, "w") as f:
            f.write(self.secret + "\n")
        os.chmod(self.secret_file, 0o600)
        args = [self.node, self.script, "--port", "0", "--client-id", CLIENT_ID]
        for uri in self.redirect_uris:
            args += ["--redirect-uri", uri]
        args += self.extra
        env = dict(os.environ, IDP_CLIENT_SECRET=self.secret)
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=log, env=env)
        with open(self.pid_path, "w") as f:
            f.write(f"{self.proc.pid}\n")
        found = {}

        def read():
            line = self.proc.stdout.readline().decode("utf-8", "replace")
            match = LISTENING.search(line)
            if match:
                found["issuer"] = match.group(1)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout)
        if "issuer" not in found:
            self.stop()
            raise StartError(f"idp.mjs printed no `idp listening on` line within {timeout:.0f} s:\n"
                             + self.stderr_tail())
        self.issuer = found["issuer"]
        return self.issuer

    def stderr_tail(self, lines=20):
        try:
            with open(self.log_path, errors="replace") as f:
                return "\n".join("    " + line for line in f.read().splitlines()[-lines:])
        except FileNotFoundError:
            return ""

    def stop(self):
        stop_process(self.proc, self.pid_path)


def notes_with_signin(notes, idp, port, extra=(), **server):
    """`notes serve --http 127.0.0.1:PORT --signin-oidc ISSUER` with the operator's client at
    the started provider `idp`, then `extra` flags: a NotesServer (not started; `server`: its
    env, workdir, name, local_port)."""
    return NotesServer(notes, ["serve", "--http", f"127.0.0.1:{port}", "--signin-oidc", idp.issuer,
                               "--signin-client-id", CLIENT_ID,
                               "--signin-client-secret-file", idp.secret_file, *extra], **server)


class SignIn:
    """The provider and one notes server with sign-in, started together in a folder of their
    own: the server's port is chosen first, as the provider must know its redirect URI
    (ISSUER/oauth/callback)."""

    def __init__(self, notes, node, idp_script=IDP_SCRIPT, extra=()):
        self.workdir = tempfile.mkdtemp(prefix="toolsmith-signin-")
        # Its logs are read until the script ends; then nothing is left behind.
        atexit.register(shutil.rmtree, self.workdir, ignore_errors=True)
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.idp = IdP(node, self.workdir, [f"{self.issuer}/oauth/callback"], idp_script)
        self.notes = notes
        self.extra = list(extra)
        self.server = None
        self.url = None

    def start(self):
        """Starts both; returns the server's MCP endpoint URL."""
        self.idp.start()
        self.server = notes_with_signin(self.notes, self.idp, self.port, self.extra,
                                        workdir=self.workdir, name="notes-signin")
        self.url = self.server.start()
        return self.url

    def stop(self):
        """Stops both; returns the server's exit status (None when it never started)."""
        status = self.server.stop() if self.server is not None else None
        self.idp.stop()
        return status
