"""The pieces the sign-in tests share: the OpenID provider (interop/node/idp.mjs, oidc-provider
from npm) started on loopback, a check of the provider itself with its one static client, the
Python SDK's OAuth client driven by a headless browser (Flow), a client of raw requests
(authorize_raw), a Client ID Metadata Document served over http on loopback, and the reading
of toolsmith's access tokens (JWT ES256, verified against /oauth/jwks).

Every wait is bounded: the provider must print `idp listening on http://127.0.0.1:PORT` within
20 s; stop() sends SIGTERM, then SIGKILL after 10 s. Its pid is in WORKDIR/idp.pid meanwhile.
"""

import base64
import hashlib
import json
import os
import re
import secrets
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx2
import jwt
from mcp.client.auth import OAuthClientProvider
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

from notes_http import StartError, stop_process
from signin_browser import Browser

HERE = os.path.dirname(os.path.abspath(__file__))
IDP_SCRIPT = os.path.join(HERE, "..", "node", "idp.mjs")
CLIENT_ID = "toolsmith-interop"
# A redirect URI of the provider's static client besides toolsmith's: the provider checks
# itself there (the browser stops at it and never loads it).
IDP_CHECK_REDIRECT = "http://127.0.0.1:1/idp-check"
LISTENING = re.compile(r"idp listening on (http://127\.0\.0\.1:\d+)")


class IdP:
    """interop/node/idp.mjs under `node`, with toolsmith's redirect URIs."""

    def __init__(self, node, workdir, redirect_uris):
        self.node = node
        self.workdir = workdir
        self.redirect_uris = list(redirect_uris) + [IDP_CHECK_REDIRECT]
        self.secret = secrets.token_urlsafe(24)
        self.secret_file = os.path.join(workdir, "idp-client-secret")
        self.pid_path = os.path.join(workdir, "idp.pid")
        self.log_path = os.path.join(workdir, "idp.stderr")
        self.proc = None
        self.issuer = None

    def start(self, timeout=20.0):
        with open(self.secret_file, "w") as f:
            f.write(self.secret + "\n")
        args = [self.node, IDP_SCRIPT, "--port", "0", "--client-id", CLIENT_ID]
        for uri in self.redirect_uris:
            args += ["--redirect-uri", uri]
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


def pkce():
    """(code_verifier, code_challenge) for S256."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).decode().rstrip("=")


async def check_idp(idp, check):
    """The provider alone, with its static client: no registration endpoint (as Google's and
    GitHub's have none), and alice's headless login gives a code whose ID token carries her
    verified email and groups."""
    async with httpx2.AsyncClient(timeout=15.0) as http:
        conf = (await http.get(f"{idp.issuer}/.well-known/openid-configuration")).json()
        check(conf.get("issuer") == idp.issuer and "registration_endpoint" not in conf,
              f"the provider's discovery: its issuer, and no dynamic registration: {conf}")
        verifier, challenge = pkce()
        query = urlencode({"response_type": "code", "client_id": CLIENT_ID,
                           "redirect_uri": IDP_CHECK_REDIRECT, "scope": "openid email profile",
                           "state": "idp-check", "code_challenge": challenge,
                           "code_challenge_method": "S256"})
        browser = Browser(IDP_CHECK_REDIRECT)
        got = await browser.run(f"{conf['authorization_endpoint']}?{query}")
        check(got.get("state") == "idp-check" and got.get("code") and got.get("iss") == idp.issuer,
              f"alice's login at the provider comes back with a code: {got}")
        answer = await http.post(conf["token_endpoint"], auth=(CLIENT_ID, idp.secret), data={
            "grant_type": "authorization_code", "code": got.get("code", ""),
            "redirect_uri": IDP_CHECK_REDIRECT, "code_verifier": verifier})
        claims = {}
        if answer.status_code == 200:
            claims = jwt.decode(answer.json()["id_token"], options={"verify_signature": False})
        check(claims.get("sub") == "alice" and claims.get("email") == "alice@example.com"
              and claims.get("email_verified") is True and claims.get("groups") == ["staff", "admins"],
              f"the provider's ID token for alice: {answer.status_code} {claims or answer.text[:300]}")


async def authorize_raw(base, callback, login, check, what,
                        scope="tools:read tools:write tools:destructive", client_id=None,
                        remember=False):
    """A client of raw requests: registers (POST BASE/oauth/register, a public client) unless
    `client_id` is given, then a headless browser goes through BASE/oauth/authorize as
    `login`, ticking every scope offered (and `remember`). Returns (client_id, the redirect's
    parameters, code_verifier, the browser)."""
    if client_id is None:
        client_id = await register_raw(base, callback, check, what)
    verifier, challenge = pkce()
    query = urlencode({"response_type": "code", "client_id": client_id, "redirect_uri": callback,
                       "code_challenge": challenge, "code_challenge_method": "S256",
                       "state": what, "scope": scope, "resource": f"{base}/mcp"})
    browser = Browser(callback, login=login, remember=remember)
    got = await browser.run(f"{base}/oauth/authorize?{query}")
    check(got.get("state") == what and got.get("code") and got.get("iss") == base,
          f"{what}: the authorization comes back with a code, state and iss: {got}")
    return client_id, got, verifier, browser


async def register_raw(base, callback, check, what):
    """POST BASE/oauth/register of a public client; its client_id ("" when refused)."""
    async with httpx2.AsyncClient(timeout=15.0) as http:
        answer = await http.post(f"{base}/oauth/register", json={
            "client_name": f"toolsmith interop ({what})", "redirect_uris": [callback],
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            "token_endpoint_auth_method": "none"})
    kind = answer.headers.get("content-type", "")
    body = answer.json() if kind.startswith("application/json") else {}
    check(answer.status_code == 201 and body.get("client_id"),
          f"{what}: POST /oauth/register: {answer.status_code} {answer.text[:300]}")
    return body.get("client_id", "")


class Memory:
    """The SDK's TokenStorage, in memory."""

    def __init__(self):
        self.tokens = None
        self.client = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


class Flow:
    """One OAuth client of the SDK (its provider, storage and a log of its HTTP exchanges),
    whose redirect handler is a headless browser that logs in as alice."""

    def __init__(self, mcp_url, callback, name, metadata_url=None):
        self.storage = Memory()
        self.callback = callback
        self.browsers = []
        self.result = None
        self.exchanges = []  # (method, path, status)
        metadata = OAuthClientMetadata(client_name=name, redirect_uris=[callback],
                                       grant_types=["authorization_code", "refresh_token"],
                                       response_types=["code"])
        self.auth = OAuthClientProvider(mcp_url, metadata, self.storage, redirect_handler=self.redirect,
                                        callback_handler=self.answered)
        if metadata_url is not None:
            # The SDK's constructor refuses an http URL (see main); its flow takes it.
            self.auth.context.client_metadata_url = metadata_url

    async def redirect(self, url):
        browser = Browser(self.callback, login="alice")
        browser.asked = set(dict(parse_qsl(urlsplit(url).query)).get("scope", "").split())
        self.browsers.append(browser)
        got = await browser.run(url)
        self.result = AuthorizationCodeResult(code=got.get("code", ""), state=got.get("state"),
                                              iss=got.get("iss"))
        if "error" in got:
            raise RuntimeError(f"the authorization ended in {got}")

    async def answered(self):
        return self.result

    async def record(self, response):
        self.exchanges.append((response.request.method, response.request.url.path, response.status_code))

    async def session(self, mcp_url, work, user=None):
        """Runs `work(client)` in an MCP 2026-07-28 Client whose HTTP client is authorized by
        the SDK's OAuth provider."""
        timeout = httpx2.Timeout(20.0, read=60.0)
        async with httpx2.AsyncClient(timeout=timeout, auth=self.auth,
                                      event_hooks={"response": [self.record]}) as http:
            async with Client(streamable_http_client(mcp_url, http_client=http), cache=None,
                              elicitation_callback=user) as client:
                await work(client)

    def paths(self, method, path):
        return [status for m, p, status in self.exchanges if (m, p) == (method, path)]


class MetadataDocument:
    """A Client ID Metadata Document served on 127.0.0.1 over plain http, at /clients/interop.json
    (its URL is its client_id); `fetched` counts the GETs of it."""

    def __init__(self, redirect_uri, name="toolsmith interop (metadata document)"):
        outer = self
        self.fetched = 0

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                if self.path != "/clients/interop.json":
                    self.send_error(404)
                    return
                outer.fetched += 1
                body = json.dumps(outer.document).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/clients/interop.json"
        self.document = {
            "client_id": self.url,
            "client_name": name,
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self.thread.start()
        return self.url

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


async def verified_claims(issuer, token):
    """The header and claims of a toolsmith access token, its signature checked against
    ISSUER/oauth/jwks (ES256) and its issuer and lifetime checked; ({}, {error}) when not."""
    try:
        header = jwt.get_unverified_header(token)
        async with httpx2.AsyncClient(timeout=15.0) as http:
            keys = (await http.get(f"{issuer}/oauth/jwks")).json().get("keys", [])
        key = next((k for k in keys if k.get("kid") == header.get("kid")), None)
        if key is None:
            return header, {"error": f"no key {header.get('kid')!r} in /oauth/jwks: {keys}"}
        claims = jwt.decode(token, jwt.PyJWK(key, algorithm="ES256").key, algorithms=["ES256"],
                            issuer=issuer, options={"verify_aud": False})
        return header, claims
    except Exception as err:  # a malformed token or a bad signature: reported by the caller
        return {}, {"error": f"{type(err).__name__}: {err}"}


async def token_request(http, url, form, client=None):
    """POST to the token (or revocation) endpoint, with the client's secret when it has one
    (client_secret_basic or _post, as registered). Returns (status, JSON body or text)."""
    headers = {}
    form = dict(form)
    if client is not None:
        form["client_id"] = client.client_id
        method = client.token_endpoint_auth_method
        if client.client_secret and method == "client_secret_basic":
            raw = f"{client.client_id}:{client.client_secret}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(raw).decode()
        elif client.client_secret:
            form["client_secret"] = client.client_secret
    answer = await http.post(url, data=form, headers=headers)
    try:
        return answer.status_code, answer.json()
    except ValueError:
        return answer.status_code, answer.text[:300]
