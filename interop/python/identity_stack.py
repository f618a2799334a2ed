"""What the identity tests (issue #56, test_identity.py) run against, the one place that
starts it, all on 127.0.0.1:

- redis-server (Debian's), the gateway replicas' shared task store;
- idp1 (interop/node/idp.mjs, oidc-provider): the users' identity provider, where the
  gateway signs them in (its one static client, `toolsmith-interop`), and the authorization
  server of upstream A: resource A's access tokens are JWTs of A's audience, issued to the
  same client by client credentials (the gateway lists A's tools as itself) and by the RFC
  8693 token exchange of a user's gateway token (checked against the gateway's JWKS);
- upstream A: the whoami example (`whoami serve --http --auth-issuer IDP1`), behind a
  recording proxy whose URL is A's public URL;
- idp2 (idp.mjs --upstream): upstream B's own authorization server, independent of idp1 (its
  own keys and accounts alice-b and bob-b; dynamic registration, PKCE, refresh tokens with
  short-lived access tokens, revocation);
- upstream B: the whoami example with `--auth-issuer IDP2`, behind its recording proxy;
- the gateway, twice (replicas sharing redis and one public URL, replica 1's):
  `toolsmith gateway --config gateway.toml serve --http ... --signin-oidc IDP1 ...`, with
  `[servers.a.exchange]` (idp1's token endpoint, the gateway's client) and
  `[servers.b.sign_in]` (B's own authorization server, found by discovery).

Every wait is bounded (each process must print its listening line within 20 s); stop()
stops everything started, whatever happened. Pid files are in WORKDIR (interop/run's
clean-up).
"""

import base64
import json
import os
import signal
import socket
import threading
import urllib.request
from urllib.parse import urlencode

from notes_http import NotesServer, StartError, free_port, stop_process
from recording_proxy import RecordingProxy
from signin_stack import CLIENT_ID, IdP
from test_tasks_replicas import Redis

# Upstream B's access tokens live this long (idp2 --access-ttl): the refresh test waits for
# one to expire.
B_ACCESS_TTL = 35
# idp2's accounts of alice and bob (their logins there).
B_ACCOUNTS = {"alice": "alice-b", "bob": "bob-b"}


def gateway_config(stack):
    """The gateway's configuration (TOML): A by token exchange at idp1, B by each user's
    sign-in at B's own authorization server (discovered from B's 401; the gateway registers
    itself there, RFC 7591)."""
    return f"""\
[servers.a]
url = "{stack.a_url}"

[servers.a.exchange]
token_endpoint = "{stack.idp1.issuer}/token"
audience = "{stack.a_url}"
scopes = ["tools:read"]
client_id = "{CLIENT_ID}"
client_secret = "${{IDP_CLIENT_SECRET}}"

[servers.b]
url = "{stack.b_url}"
# What the gateway lists B's tools with (as itself): a client-credentials token of idp2's
# static client; each user's calls carry their own token.
headers = {{ Authorization = "Bearer ${{B_LISTING_TOKEN}}" }}

[servers.b.sign_in]
scopes = ["tools:read"]
token_key = "${{GATEWAY_TOKEN_KEY}}"
wait_secs = 60
"""


def redis_keys(port, pattern):
    """KEYS `pattern` in the redis on 127.0.0.1:`port` (RESP over a socket, bounded)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        command = [b"KEYS", pattern.encode()]
        s.sendall(b"*%d\r\n" % len(command) + b"".join(b"$%d\r\n%s\r\n" % (len(c), c) for c in command))
        data = b""
        while True:
            got = s.recv(65536)
            if not got:
                raise OSError(f"redis closed the connection after {data[:200]!r}")
            data += got
            lines = data.split(b"\r\n")
            if not lines[0].startswith(b"*"):
                raise OSError(f"redis answered {data[:200]!r}")
            count = int(lines[0][1:])
            if count <= 0:
                return []
            if len(lines) >= 1 + 2 * count + 1:
                return [lines[2 + 2 * i].decode() for i in range(count)]


class Lines:
    """The stdout lines of a started IdP after its listening line (SIGUSR2's answers)."""

    def __init__(self, idp):
        self.lines = []
        self.changed = threading.Condition()
        threading.Thread(target=self.read, args=(idp.proc.stdout,), daemon=True).start()

    def read(self, stream):
        for raw in stream:
            with self.changed:
                self.lines.append(raw.decode("utf-8", "replace").strip())
                self.changed.notify_all()

    def wait_for(self, text, timeout=10.0):
        with self.changed:
            return self.changed.wait_for(lambda: text in self.lines, timeout)


class Stack:
    def __init__(self, node, whoami, toolsmith, redis_binary, workdir):
        self.node, self.whoami, self.toolsmith = node, whoami, toolsmith
        self.workdir = workdir
        self.redis = Redis(redis_binary, os.path.join(workdir, "redis"))
        self.gateway_ports = [free_port(), free_port()]
        self.public = f"http://127.0.0.1:{self.gateway_ports[0]}"
        self.mcp_url = f"{self.public}/mcp"
        self.callback = f"{self.public}/upstream/callback"
        self.upstream_ports = {"a": free_port(), "b": free_port()}
        self.proxies = {name: RecordingProxy(port) for name, port in self.upstream_ports.items()}
        self.a_url = f"{self.proxies['a'].origin}/mcp"
        self.b_url = f"{self.proxies['b'].origin}/mcp"
        self.b_ttl = B_ACCESS_TTL
        self.token_key = base64.b64encode(os.urandom(32)).decode()
        self.idp1 = IdP(node, self._dir("idp1"), [f"{self.public}/oauth/callback"], extra=[
            "--resource", self.a_url, "--exchange-jwks", f"{self.public}/oauth/jwks",
            "--exchange-audience", self.mcp_url, "--exchange-issuer", self.public])
        self.idp2 = IdP(node, self._dir("idp2"), [self.callback], extra=[
            "--upstream", "--resource", self.b_url, "--access-ttl", str(B_ACCESS_TTL)])
        self.idp1_lines = None
        self.upstreams = {}
        self.gateways = []

    def _dir(self, name):
        path = os.path.join(self.workdir, name)
        os.makedirs(path, exist_ok=True)
        return path

    def start_parts(self):
        """Everything but the gateway."""
        self.redis.start()
        self.idp1.start()
        self.idp1_lines = Lines(self.idp1)
        self.idp2.start()
        for name, idp in (("a", self.idp1), ("b", self.idp2)):
            port = self.upstream_ports[name]
            server = NotesServer(self.whoami, [
                "serve", "--http", f"127.0.0.1:{port}", "--public-url", f"{self.proxies[name].origin}/mcp",
                "--auth-issuer", idp.issuer, "--auth-jwks", f"{idp.issuer}/jwks", "--auth-token-type", "at+jwt"],
                env={"TOOLSMITH_LOG": "info"}, workdir=self.workdir, name=f"upstream-{name}", local_port=port)
            self.upstreams[name] = server
            server.start()

    def listing_token(self):
        """A client-credentials token of idp2's static client for B (what the gateway lists
        B's tools with)."""
        form = urlencode({"grant_type": "client_credentials", "resource": self.b_url, "scope": "tools:read"})
        auth = base64.b64encode(f"{CLIENT_ID}:{self.idp2.secret}".encode()).decode()
        asked = urllib.request.Request(f"{self.idp2.issuer}/token", data=form.encode(), headers={
            "Authorization": f"Basic {auth}", "Content-Type": "application/x-www-form-urlencoded"})
        try:
            with urllib.request.urlopen(asked, timeout=10) as answer:
                return json.loads(answer.read())["access_token"]
        except (OSError, ValueError, KeyError) as err:
            raise StartError(f"idp2 gave no client-credentials token for B: {err}") from err

    def start_gateways(self):
        config = os.path.join(self.workdir, "gateway.toml")
        with open(config, "w") as f:
            f.write(gateway_config(self))
        env = {"TOOLSMITH_LOG": "info", "IDP_CLIENT_SECRET": self.idp1.secret,
               "GATEWAY_TOKEN_KEY": self.token_key, "B_LISTING_TOKEN": self.listing_token()}
        store = f"redis://127.0.0.1:{self.redis.port}/0"
        for i, port in enumerate(self.gateway_ports, start=1):
            gateway = NotesServer(self.toolsmith, [
                "gateway", "--config", config, "serve", "--http", f"127.0.0.1:{port}",
                "--public-url", self.mcp_url, "--task-store", store,
                "--signin-oidc", self.idp1.issuer, "--signin-client-id", CLIENT_ID,
                "--signin-client-secret-file", self.idp1.secret_file],
                env=env, workdir=self.workdir, name=f"gateway-{i}", local_port=port)
            self.gateways.append(gateway)
            gateway.start(timeout=40.0)

    def revoke_client_secret(self, revoked=True):
        """SIGUSR2 to idp1: the gateway's client secret revoked (or restored); waits for its
        answer on idp1's stdout. Returns whether it came within 10 s."""
        self.idp1.proc.send_signal(signal.SIGUSR2)
        return self.idp1_lines.wait_for(f"idp: client secret {'revoked' if revoked else 'restored'}")

    def idp2_log(self):
        """Everything idp2 logged (its grants, registrations and revocations)."""
        try:
            with open(self.idp2.log_path, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def logs(self):
        """The tails of every log, for a failure's report."""
        parts = [f"{server.name}:\n{server.stderr_tail(30)}" for server in [*self.gateways, *self.upstreams.values()]]
        parts += [f"idp1:\n{self.idp1.stderr_tail(30)}", f"idp2:\n{self.idp2.stderr_tail(30)}"]
        return "\n".join(parts)

    def stop(self):
        """Stops everything started; returns the exit statuses of the gateways that listened."""
        statuses = []
        for gateway in self.gateways:
            if gateway.url is None:  # never listened: already reported
                gateway.kill()
            else:
                statuses.append(gateway.stop())
        for server in self.upstreams.values():
            server.stop()
        for proxy in self.proxies.values():
            proxy.stop()
        for idp in (self.idp1, self.idp2):
            stop_process(idp.proc, idp.pid_path)
        self.redis.stop()
        return statuses

