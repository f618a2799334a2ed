"""The clients the sign-in tests sign in with (what they run against, the provider and the
notes server with sign-in, is started by signin_stack.py): PKCE, a check of the provider
itself with its one static client, a client of raw requests (register_raw, authorize_raw,
code_grant, token_request), the Python SDK's OAuth client driven by a headless browser (Flow),
the servers of the client's own on loopback (a Client ID Metadata Document, a redirect URI),
and the reading of toolsmith's access tokens (JWT ES256, verified against /oauth/jwks).
"""

import base64
import hashlib
import json
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx2
import jwt
from mcp.client.auth import OAuthClientProvider
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

from signin_browser import Browser
from signin_stack import CLIENT_ID, IDP_CHECK_REDIRECT


def pkce():
    """(code_verifier, code_challenge) for S256 (RFC 7636)."""
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
        client_id = (await register_raw(base, callback, check, what)).get("client_id", "")
    verifier, challenge = pkce()
    query = urlencode({"response_type": "code", "client_id": client_id, "redirect_uri": callback,
                       "code_challenge": challenge, "code_challenge_method": "S256",
                       "state": what, "scope": scope, "resource": f"{base}/mcp"})
    browser = Browser(callback, login=login, remember=remember)
    got = await browser.run(f"{base}/oauth/authorize?{query}")
    check(got.get("state") == what and got.get("code") and got.get("iss") == base,
          f"{what}: the authorization comes back with a code, state and iss: {got}")
    return client_id, got, verifier, browser


async def register_raw(base, callback, check, what, name=None):
    """POST BASE/oauth/register of a public client named `name` (by default after `what`);
    the answer's JSON body ({} when it is not JSON)."""
    async with httpx2.AsyncClient(timeout=15.0) as http:
        answer = await http.post(f"{base}/oauth/register", json={
            "client_name": name or f"toolsmith interop ({what})", "redirect_uris": [callback],
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            "token_endpoint_auth_method": "none"})
    kind = answer.headers.get("content-type", "")
    body = answer.json() if kind.startswith("application/json") else {}
    check(answer.status_code == 201 and body.get("client_id"),
          f"{what}: POST /oauth/register: {answer.status_code} {answer.text[:300]}")
    return body


def code_grant(code, redirect_uri, verifier, client_id):
    """The token request's form redeeming an authorization code (a public client, PKCE)."""
    return {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
            "code_verifier": verifier, "client_id": client_id}


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


class LoopbackServer:
    """An HTTP server of the client's own on 127.0.0.1 (a port of its own), serving GETs in a
    thread from construction until stop(): `answer(path)` gives (status, content type, body)."""

    def __init__(self, answer):
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                status, kind, body = answer(self.path)
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class MetadataDocument(LoopbackServer):
    """A Client ID Metadata Document served over plain http at /clients/interop.json (its URL
    is its client_id); `fetched` counts the GETs of it."""

    def __init__(self, redirect_uri, name="toolsmith interop (metadata document)"):
        self.fetched = 0
        super().__init__(self.answer)
        self.url = f"{self.origin}/clients/interop.json"
        self.document = {
            "client_id": self.url,
            "client_name": name,
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }

    def answer(self, path):
        if path != "/clients/interop.json":
            return 404, "text/plain", b"not found"
        self.fetched += 1
        return 200, "application/json", json.dumps(self.document).encode()


class RedirectListener(LoopbackServer):
    """A native client's loopback redirect URI (RFC 8252), at /callback: records each request's
    path and query in `seen`, answers a short page."""

    def __init__(self):
        self.seen = []
        super().__init__(self.answer)
        self.uri = f"{self.origin}/callback"

    def answer(self, path):
        if path.startswith("/callback"):  # not the browser's /favicon.ico
            self.seen.append(path)
        return 200, "text/html", b"<!DOCTYPE html><title>signed in</title><p>You may close this window.</p>"


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
