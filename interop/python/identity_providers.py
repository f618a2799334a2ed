"""Part 1 of the identity tests (test_identity.py): the two providers and the two upstreams
alone, before the gateway is asked anything, so that a failure later is the gateway's.

- idp1 gives the gateway's client a client-credentials token for resource A (a JWT, `typ
  at+jwt`, A's audience, the client as subject); upstream A, through its recording proxy,
  answers `whoami` with that subject, and refuses a call without a token (401, naming its
  protected resource metadata, whose authorization server is idp1).
- idp2 offers dynamic registration and PKCE S256 only; a client registered there is refused
  an authorization without PKCE; with PKCE, alice-b's headless login and consent give a code
  whose token is a JWT of B's audience for alice-b, with a refresh token; the refresh gives
  a new access token; once the refresh token is revoked (RFC 7009) it is refused.

And, once the gateway runs, idp1's token exchange alone (exchange_alone): a user's gateway
token, exchanged by the gateway's client, gives a token for A naming the user, the gateway
as actor; a token that is not the gateway's (A's own) is refused, invalid_grant.
"""

from urllib.parse import urlencode

import httpx2

from checks import check
from recording_proxy import Hit
from signin_browser import Browser
from signin_parts import pkce
from signin_stack import CLIENT_ID

REDIRECT = "http://127.0.0.1:1/idp2-check"


def claims_of(token):
    return Hit("GET", "/", None, f"Bearer {token}").claims()


async def upstream_a_alone(stack, http):
    idp = stack.idp1
    answer = await http.post(f"{idp.issuer}/token", auth=(CLIENT_ID, idp.secret), data={
        "grant_type": "client_credentials", "resource": stack.a_url, "scope": "tools:read"})
    token = answer.json().get("access_token") if answer.status_code == 200 else None
    claims = claims_of(token) if token else {}
    check(claims.get("aud") == stack.a_url and claims.get("sub") == CLIENT_ID
          and claims.get("iss") == idp.issuer and claims.get("scope") == "tools:read",
          f"idp1: a client-credentials token for A: {answer.status_code} {claims or answer.text[:300]}")
    refused = await http.post(stack.a_url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                              headers={"Accept": "application/json, text/event-stream"})
    challenge = refused.headers.get("www-authenticate", "")
    check(refused.status_code == 401 and "resource_metadata=" in challenge,
          f"upstream A without a token: 401 with a resource-metadata challenge: {refused.status_code} {challenge!r}")
    metadata = (await http.get(f"{stack.proxies['a'].origin}/.well-known/oauth-protected-resource/mcp")).json()
    check(metadata.get("resource") == stack.a_url and metadata.get("authorization_servers") == [idp.issuer],
          f"upstream A's protected resource metadata names its URL and idp1: {metadata}")
    return token


async def idp2_alone(stack, http):
    idp = stack.idp2
    conf = (await http.get(f"{idp.issuer}/.well-known/openid-configuration")).json()
    check(conf.get("registration_endpoint") and conf.get("code_challenge_methods_supported") == ["S256"]
          and conf.get("revocation_endpoint"),
          f"idp2's discovery: registration, PKCE S256, revocation: {conf}")
    registered = await http.post(conf.get("registration_endpoint", f"{idp.issuer}/reg"), json={
        "client_name": "idp2 check", "redirect_uris": [REDIRECT],
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]})
    client = registered.json() if registered.status_code == 201 else {}
    check(client.get("client_id") and client.get("client_secret"),
          f"idp2: a client registered dynamically: {registered.status_code} {registered.text[:300]}")
    if not client:
        return
    auth = (client["client_id"], client["client_secret"])
    base = {"response_type": "code", "client_id": client["client_id"], "redirect_uri": REDIRECT,
            "scope": "tools:read", "resource": stack.b_url, "state": "idp2-check"}
    got = await Browser(REDIRECT, login="alice-b").run(f"{conf['authorization_endpoint']}?{urlencode(base)}")
    check(got.get("error") == "invalid_request" and "PKCE" in got.get("error_description", ""),
          f"idp2 refuses an authorization without PKCE: {got}")
    verifier, challenge = pkce()
    query = urlencode({**base, "code_challenge": challenge, "code_challenge_method": "S256"})
    got = await Browser(REDIRECT, login="alice-b").run(f"{conf['authorization_endpoint']}?{query}")
    answer = await http.post(conf["token_endpoint"], auth=auth, data={
        "grant_type": "authorization_code", "code": got.get("code", ""), "redirect_uri": REDIRECT,
        "code_verifier": verifier, "resource": stack.b_url})
    body = answer.json() if answer.status_code == 200 else {}
    claims = claims_of(body["access_token"]) if body.get("access_token") else {}
    check(claims.get("sub") == "alice-b" and claims.get("aud") == stack.b_url and claims.get("iss") == idp.issuer
          and body.get("refresh_token") and claims.get("exp", 0) - claims.get("iat", 0) == stack.b_ttl,
          f"idp2: alice-b's token for B (a JWT of B's audience, {stack.b_ttl} s, with a refresh token): "
          f"{answer.status_code} {claims or answer.text[:300]}")
    if not body.get("refresh_token"):
        return
    refreshed = await http.post(conf["token_endpoint"], auth=auth, data={
        "grant_type": "refresh_token", "refresh_token": body["refresh_token"]})
    again = refreshed.json() if refreshed.status_code == 200 else {}
    new = claims_of(again["access_token"]) if again.get("access_token") else {}
    check(new.get("sub") == "alice-b" and new.get("aud") == stack.b_url and new.get("jti") != claims.get("jti"),
          f"idp2: the refresh gives a new token for B: {refreshed.status_code} {new or refreshed.text[:300]}")
    last = again.get("refresh_token", body["refresh_token"])
    revoked = await http.post(conf["revocation_endpoint"], auth=auth, data={"token": last})
    refused = await http.post(conf["token_endpoint"], auth=auth, data={
        "grant_type": "refresh_token", "refresh_token": last})
    check(revoked.status_code == 200 and "idp: revoked" in stack.idp2_log() and refused.status_code == 400 and refused.json().get("error") == "invalid_grant",
          f"idp2: a revoked refresh token is refused: {revoked.status_code}, then {refused.status_code} {refused.text[:200]}")


async def providers_alone(stack, whoami_of):
    """Part 1 (see the module's doc). `whoami_of(url, token)`: what upstream `url` answers."""
    async with httpx2.AsyncClient(timeout=15.0) as http:
        token = await upstream_a_alone(stack, http)
        if token:
            seen = await whoami_of(stack.a_url, token)
            check(seen == CLIENT_ID, f"upstream A answers whoami with the subject it sees: {seen!r}")
        await idp2_alone(stack, http)


TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token"


async def exchange_alone(stack, login, gateway_token):
    """idp1's token exchange, asked directly with the gateway's client (see the module's doc)."""
    idp = stack.idp1

    def form(subject):
        return {"grant_type": TOKEN_EXCHANGE, "subject_token": subject, "subject_token_type": ACCESS_TOKEN,
                "resource": stack.a_url, "audience": stack.a_url, "scope": "tools:read"}

    async with httpx2.AsyncClient(timeout=15.0) as http:
        answer = await http.post(f"{idp.issuer}/token", auth=(CLIENT_ID, idp.secret), data=form(gateway_token))
        body = answer.json() if answer.status_code == 200 else {}
        claims = claims_of(body["access_token"]) if body.get("access_token") else {}
        check(claims.get("sub") == login and claims.get("aud") == stack.a_url and claims.get("act") == {"sub": CLIENT_ID}
              and body.get("issued_token_type") == ACCESS_TOKEN,
              f"idp1 alone: {login}'s gateway token exchanged for A: {answer.status_code} {claims or answer.text[:300]}")
        if not body.get("access_token"):
            return
        refused = await http.post(f"{idp.issuer}/token", auth=(CLIENT_ID, idp.secret), data=form(body["access_token"]))
        check(refused.status_code == 400 and refused.json().get("error") == "invalid_grant"
              and "subject token" in refused.json().get("error_description", ""),
              f"idp1 alone: a subject token not the gateway's (A's own) is refused: {refused.status_code} {refused.text[:300]}")
