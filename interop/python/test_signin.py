"""Sign-in (issue #55) through the official Python SDK's OAuth client, against a real OpenID
provider: `oidc-provider` (npm, certified) on loopback, set up as Google's is (no dynamic
registration, one static confidential client: the operator's), and the notes example served
with `--signin-oidc`.

    python test_signin.py NOTES_BINARY NODE WORKDIR

Parts 2, 3, 4 and 6 run against a server with `--signin-restrict
tools:destructive=group:admins` (alice, group admins, may be granted every scope).

1. The provider alone: alice's headless login comes back with a code, her ID token carries
   her verified email and groups; no registration endpoint.
2. The SDK's OAuthClientProvider with dynamic registration: a call without a token is
   answered 401, then discovery (RFC 9728, RFC 8414), POST /oauth/register, the authorization
   (the redirect handler is a headless browser: toolsmith redirects to the provider, the
   provider's login and consent forms are posted as alice, toolsmith's consent page is
   answered, every scope asked ticked), the token; search_notes; delete_note, whose 403
   (insufficient_scope) makes the SDK authorize again for tools:destructive (when the 401
   challenged for tools:read only), confirmed (MCP 2026-07-28); tools/list lists every tool.
   Each consent page is the contract's form, names the client ("unverified") and the tools
   of each scope asked. The access token is a JWT ES256 (typ at+jwt) verified with
   /oauth/jwks whose claims name alice, the provider, her email and groups, the scopes asked.
3. The token's expiry is passed (the SDK's own record of it): the SDK refreshes it (one
   refresh_token grant, no new login) and the new token works. The old access token, revoked
   (POST /oauth/revoke), is answered 401; the new one still works. The old refresh token,
   used again, is refused (invalid_grant), and that revokes its family: the new refresh token
   is refused, and so is the family's live access token (401).
4. The same with a Client ID Metadata Document (served by this script on 127.0.0.1 over
   http, allowed with --signin-allow-host 127.0.0.1): no registration, the client_id is the
   document's URL, the consent page names the document's client_name. The SDK refuses a
   client_metadata_url that is not https (checked); the document's http URL is given to the
   SDK's flow after construction, the rest of the flow is the SDK's own. A revoked refresh
   token is refused.
5. A second server runs with `--signin-restrict tools:destructive=group:admins
   --signin-restrict tools:write=email:*@example.com`: alice (alice@example.com, verified)
   is granted tools:write alone when she asks it; bob (group staff,
   bob@example.org), signed in through a client of raw requests, is granted tools:read only,
   and his token lists the read-only tools.
6. A consent remembered (alice ticks `remember`): her next authorization of the same client
   for the same scope goes from the provider's callback straight to the client's redirect
   URI with a code, no consent page.

Every wait is bounded; the provider and the servers are stopped at the end whatever happens.
"""

import asyncio
import os
import signal
import sys
import time

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata

from checks import check, failed_with, stop_replicas, tally
from confirming import User, check_asked
from notes_http import StartError, free_port, initialize_message, request
from signin_parts import (Flow, Memory, MetadataDocument, authorize_raw, check_idp, code_grant, token_request,
                          verified_claims)
from signin_stack import IdP, notes_with_signin

ALL_TOOLS = ["create_note", "delete_note", "get_note", "import_notes", "import_url", "search_notes", "tag_chart"]
READ_ONLY = ["get_note", "search_notes", "tag_chart"]


async def the_tools_work(flow, mcp_url, note_id, what):
    """search_notes, a confirmed delete_note (the SDK steps up to tools:destructive when its
    token lacks it), then tools/list: every tool (destructive implies every scope)."""
    user = User()

    async def work(client):
        found = await asyncio.wait_for(client.call_tool("search_notes", {"query": "milk"}), 30)
        titles = [n.get("title") for n in (found.structured_content or {}).get("result", [])]
        check(not found.is_error and titles == ["Groceries"], f"{what}: search_notes: {found}")
        deleted = await asyncio.wait_for(client.call_tool("delete_note", {"note_id": note_id}), 30)
        check_asked(user, note_id, f"{what}: delete_note")
        check(not deleted.is_error and deleted.structured_content == {"note_id": note_id, "deleted": True},
              f"{what}: delete_note deletes, confirmed: {deleted}")
        names = sorted(t.name for t in (await asyncio.wait_for(client.list_tools(), 30)).tools)
        check(names == ALL_TOOLS, f"{what}: tools/list lists every tool: {names}")

    await flow.session(mcp_url, work, user)


async def check_token(issuer, idp, token, client_id, scopes, what):
    """A toolsmith access token for alice, granting `scopes`; its claims."""
    header, claims = await verified_claims(issuer, token)
    check(header.get("typ") == "at+jwt" and header.get("alg") == "ES256" and header.get("kid"),
          f"{what}: the access token's header: {header}")
    check(claims.get("aud") == f"{issuer}/mcp" and claims.get("sub") == "alice"
          and claims.get("idp") == idp.issuer and claims.get("email") == "alice@example.com"
          and claims.get("groups") == ["staff", "admins"]
          and set((claims.get("scope") or "").split()) == scopes and "tools:destructive" in scopes
          and claims.get("client_id") == client_id and claims.get("jti") and claims.get("fam"),
          f"{what}: the access token's claims (scopes {sorted(scopes)}): {claims}")
    return claims


def check_consent_pages(flow, names, what):
    """Each authorization's consent page: the contract's form, offering every scope asked
    (alice may be granted them all), naming the client and the tools of each scope."""
    for browser in flow.browsers:
        page = browser.consent_page
        check(page is not None, f"{what}: toolsmith's consent page was shown: {browser.trail()}")
        if page is None:
            continue
        form = next(f for f in page.forms if f.action.endswith("/oauth/consent"))
        hidden = {i.get("name") for i in form.inputs if i.get("type") == "hidden"}
        boxes = {i.get("value") for i in form.named("scope") if i.get("type") == "checkbox"}
        decisions = {i.get("value") for i in form.named("decision") if i.get("_tag") == "button"}
        check(form.method == "post" and {"pending", "csrf"} <= hidden and boxes == browser.asked
              and form.named("remember") and decisions == {"allow", "deny"},
              f"{what}: the consent form (pending, csrf, a checkbox per scope asked "
              f"{sorted(browser.asked)}, remember, allow/deny): {form.inputs}")
        titles = {"tools:read": "Search notes", "tools:write": "Create note", "tools:destructive": "Delete note"}
        for name in names + ["127.0.0.1"] + [titles[s] for s in browser.asked if s in titles]:
            check(name.lower() in page.text.lower(),
                  f"{what}: the consent page names {name!r}: {page.text[:600]!r}")


async def mcp_status(mcp_url, token):
    """The status of a raw initialize POST to /mcp with `token`."""
    reply = await asyncio.to_thread(request, mcp_url, "POST", initialize_message(),
                                    {"Authorization": f"Bearer {token}"})
    return reply.status


async def dynamic_registration(issuer, idp, mcp_url, callback):
    """Part 2 and 3 (see the module's doc)."""
    what = "DCR"
    flow = Flow(mcp_url, callback, "toolsmith interop (registered)")
    await the_tools_work(flow, mcp_url, 2, what)
    check(401 in flow.paths("POST", "/mcp"), f"{what}: /mcp answered 401 first: {flow.exchanges}")
    check(flow.paths("GET", "/.well-known/oauth-protected-resource/mcp")[:1] == [200]
          or flow.paths("GET", "/.well-known/oauth-protected-resource")[:1] == [200],
          f"{what}: protected resource metadata: {flow.exchanges}")
    check(200 in flow.paths("GET", "/.well-known/oauth-authorization-server")
          or 200 in flow.paths("GET", "/.well-known/openid-configuration"),
          f"{what}: authorization server metadata: {flow.exchanges}")
    check(flow.paths("POST", "/oauth/register") == [201], f"{what}: registered once: {flow.exchanges}")
    # One authorization asking every scope; or, when the first 401 challenged for fewer
    # scopes, a second one (the SDK's step-up, on delete_note's 403 insufficient_scope).
    check(len(flow.browsers) in (1, 2) and flow.paths("POST", "/oauth/token") == [200] * len(flow.browsers),
          f"{what}: an authorization and its token request (2 with a step-up): {flow.exchanges}")
    print(f"sign-in: {what}: {len(flow.browsers)} authorization(s), asking "
          f"{[' '.join(sorted(b.asked)) for b in flow.browsers]}")
    client = flow.storage.client
    check_consent_pages(flow, ["toolsmith interop (registered)", "unverified"], what)
    if flow.browsers:
        trail = " ".join(where for where, _, _ in flow.browsers[0].pages)
        check(f"{idp.issuer}/auth" in trail and "/oauth/callback" in trail,
              f"{what}: the browser went through the provider and back: {flow.browsers[0].trail()}")
    first = flow.storage.tokens
    if first is None or client is None:
        check(False, f"{what}: no tokens, stopping here: {flow.exchanges}")
        return
    granted = flow.browsers[-1].asked if flow.browsers else set()
    await check_token(issuer, idp, first.access_token, client.client_id, granted, what)
    check(bool(first.refresh_token), f"{what}: a refresh token: {first}")

    # 3. Refresh: the SDK refreshes once its record says the token expired.
    authorizations = len(flow.browsers)
    flow.auth.context.token_expiry_time = time.time() - 1
    flow.exchanges.clear()
    await the_tools_work(flow, mcp_url, 3, f"{what}, refreshed")
    second = flow.storage.tokens
    check(flow.paths("POST", "/oauth/token") == [200] and len(flow.browsers) == authorizations
          and 401 not in flow.paths("POST", "/mcp"),
          f"{what}: one refresh, no new login, no 401: {flow.exchanges}")
    check(second.access_token != first.access_token and second.refresh_token
          and second.refresh_token != first.refresh_token,
          f"{what}: the refresh gives a new access token and a new refresh token")
    claims = await check_token(issuer, idp, second.access_token, client.client_id, granted,
                               f"{what}, refreshed")

    token_url = f"{issuer}/oauth/token"
    async with httpx2.AsyncClient(timeout=15.0) as http:
        status, body = await token_request(http, f"{issuer}/oauth/revoke",
                                           {"token": first.access_token, "token_type_hint": "access_token"}, client)
        check(status == 200, f"{what}: POST /oauth/revoke of the first access token: {status} {body}")
        check(await mcp_status(mcp_url, first.access_token) == 401,
              f"{what}: the revoked access token is refused (401)")
        check(await mcp_status(mcp_url, second.access_token) == 200,
              f"{what}: the refreshed access token still works")

        status, body = await token_request(http, token_url, {"grant_type": "refresh_token",
                                                             "refresh_token": first.refresh_token}, client)
        check(status == 400 and isinstance(body, dict) and body.get("error") == "invalid_grant",
              f"{what}: the used refresh token, again: 400 invalid_grant: {status} {body}")
        status, body = await token_request(http, token_url, {"grant_type": "refresh_token",
                                                             "refresh_token": second.refresh_token}, client)
        check(status == 400 and isinstance(body, dict) and body.get("error") == "invalid_grant",
              f"{what}: its family is revoked: the new refresh token is refused too: {status} {body}")
    after = await mcp_status(mcp_url, second.access_token)
    check(after == 401, f"{what}: the revoked family's live access token is refused: {after}")
    print(f"sign-in: family {claims.get('fam')} revoked; its live access token now answers {after}")


async def metadata_document(issuer, idp, mcp_url, callback):
    """Part 4 (see the module's doc)."""
    what = "CIMD"
    document = MetadataDocument(callback)
    url = document.url
    try:
        try:
            OAuthClientProvider(mcp_url, OAuthClientMetadata(redirect_uris=[callback]), Memory(),
                                client_metadata_url=url)
            refused = None
        except ValueError as err:
            refused = err
        check(refused is not None and "HTTPS" in str(refused),
              f"the SDK refuses a client_metadata_url over http ({url}): {refused!r}")
        print(f"sign-in: the SDK refuses an http client_metadata_url ({refused}); "
              "its flow is given the URL after construction")
        flow = Flow(mcp_url, callback, "toolsmith interop (unused name)", metadata_url=url)
        await the_tools_work(flow, mcp_url, 1, what)
        check(flow.paths("POST", "/oauth/register") == [], f"{what}: no registration: {flow.exchanges}")
        # One authorization asking every scope; or, when the first 401 challenged for fewer
        # scopes, a second one (the SDK's step-up, on delete_note's 403 insufficient_scope).
        check(len(flow.browsers) in (1, 2) and flow.paths("POST", "/oauth/token") == [200] * len(flow.browsers),
              f"{what}: an authorization and its token request (2 with a step-up): {flow.exchanges}")
        print(f"sign-in: {what}: {len(flow.browsers)} authorization(s), asking "
              f"{[' '.join(sorted(b.asked)) for b in flow.browsers]}")
        check(document.fetched >= 1, f"{what}: the server fetched the document ({document.fetched} times)")
        check_consent_pages(flow, [document.document["client_name"]], what)
        tokens, client = flow.storage.tokens, flow.storage.client
        if tokens is None or client is None:
            check(False, f"{what}: no tokens, stopping here: {flow.exchanges}")
            return
        check(client.client_id == url, f"{what}: the client_id is the document's URL: {client.client_id}")
        granted = flow.browsers[-1].asked if flow.browsers else set()
        await check_token(issuer, idp, tokens.access_token, url, granted, what)
        async with httpx2.AsyncClient(timeout=15.0) as http:
            status, body = await token_request(http, f"{issuer}/oauth/revoke",
                                               {"token": tokens.refresh_token}, client)
            check(status == 200, f"{what}: POST /oauth/revoke of the refresh token: {status} {body}")
            status, body = await token_request(http, f"{issuer}/oauth/token", {
                "grant_type": "refresh_token", "refresh_token": tokens.refresh_token}, client)
            check(status == 400 and isinstance(body, dict) and body.get("error") == "invalid_grant",
                  f"{what}: the revoked refresh token is refused: {status} {body}")
    finally:
        document.stop()


async def raw_token(issuer, callback, login, scope, what):
    """A client of raw requests signs `login` in, asking `scope`, ticking all offered; the
    token's verified claims and the token ({}, None when refused)."""
    client_id, got, verifier, browser = await authorize_raw(issuer, callback, login, check, what, scope=scope)
    page = browser.consent_page
    offered = sorted(i.get("value") for f in (page.forms if page else []) for i in f.named("scope"))
    print(f"sign-in: {what}: asked {scope!r}, the consent page offers {offered}")
    if not got.get("code"):  # (a failed check already)
        return {}, None
    async with httpx2.AsyncClient(timeout=15.0) as http:
        status, body = await token_request(http, f"{issuer}/oauth/token",
                                           code_grant(got.get("code", ""), callback, verifier, client_id))
    token = body.get("access_token") if status == 200 and isinstance(body, dict) else None
    check(token, f"{what}: the token request: {status} {body}")
    if not token:
        return {}, None
    _, claims = await verified_claims(issuer, token)
    return claims, token


async def restricted(issuer, idp, mcp_url, callback):
    """Part 5 (see the module's doc): alice at example.com may be granted tools:write alone;
    bob, neither in group admins nor at example.com, tools:read only."""
    claims, _ = await raw_token(issuer, callback, "alice", "tools:write", "alice, tools:write")
    check(claims.get("sub") == "alice" and claims.get("scope") == "tools:write",
          f"alice (alice@example.com, verified) is granted tools:write under "
          f"tools:write=email:*@example.com: {claims}")
    what = "bob"
    claims, token = await raw_token(issuer, callback, "bob", "tools:read tools:write tools:destructive", what)
    if not token:
        return
    check(claims.get("sub") == "bob" and claims.get("email") == "bob@example.org"
          and claims.get("groups") == ["staff"] and claims.get("scope") == "tools:read",
          f"{what}: granted tools:read only (the rules keep tools:write and tools:destructive "
          f"from him): {claims}")
    async with httpx2.AsyncClient(timeout=15.0, headers={"Authorization": f"Bearer {token}"}) as http:
        async with Client(streamable_http_client(mcp_url, http_client=http), cache=None) as client:
            names = sorted(t.name for t in (await asyncio.wait_for(client.list_tools(), 30)).tools)
    check(names == READ_ONLY, f"{what}: his token lists the read-only tools: {names}")


async def remembered(issuer, idp, mcp_url, callback):
    """Part 6 (see the module's doc)."""
    what = "remembered consent"
    scope = "tools:read"
    client_id, got, _, browser = await authorize_raw(issuer, callback, "alice", check, what,
                                                     scope=scope, remember=True)
    check(browser.consent_page is not None, f"{what}: the first time, the consent page: {browser.trail()}")
    client_id, got, verifier, browser = await authorize_raw(issuer, callback, "alice", check, what,
                                                            scope=scope, client_id=client_id)
    check(browser.consent_page is None and got.get("code"),
          f"{what}: the second time, no consent page: from the provider's callback straight to "
          f"the client with a code: {browser.trail()}")
    async with httpx2.AsyncClient(timeout=15.0) as http:
        status, body = await token_request(http, f"{issuer}/oauth/token",
                                           code_grant(got.get("code", ""), callback, verifier, client_id))
    check(status == 200 and isinstance(body, dict) and body.get("scope") == scope,
          f"{what}: its code gives a token for {scope}: {status} {body}")


async def main(notes, node, workdir):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.makedirs(workdir, exist_ok=True)
    # Two servers: one for the flows (restricting tools:destructive to group admins), one for
    # the rules (an email rule besides), so that a failing rule fails part 5 only.
    ports = [free_port(), free_port()]
    issuers = [f"http://127.0.0.1:{port}" for port in ports]
    callback = f"http://127.0.0.1:{free_port()}/callback"  # the SDK client's; never loaded
    idp = IdP(node, workdir, [f"{issuer}/oauth/callback" for issuer in issuers])
    rules = [["--signin-restrict", "tools:destructive=group:admins"],
             ["--signin-restrict", "tools:destructive=group:admins",
              "--signin-restrict", "tools:write=email:*@example.com"]]
    parts = [[("DCR", dynamic_registration), ("CIMD", metadata_document),
              ("remembered", remembered)], [("rules", restricted)]]
    servers = []
    try:
        idp.start()
        await asyncio.wait_for(check_idp(idp, check), 60)
        for i, port in enumerate(ports):
            server = notes_with_signin(notes, idp, port, ["--signin-allow-host", "127.0.0.1", *rules[i]],
                                       env={"TOOLSMITH_LOG": "info"}, workdir=workdir, name=f"signin-{i + 1}")
            servers.append(server)
            server.start()
        for server, issuer, runs in zip(servers, issuers, parts):
            for part, run in runs:
                try:
                    await asyncio.wait_for(run(issuer, idp, f"{issuer}/mcp", callback), 120)
                except Exception as err:
                    failed_with(f"{part}: the flow", err)
                    print(server.stderr_tail(), file=sys.stderr)
    except StartError as err:
        check(False, f"did not start: {err}")
    except Exception as err:
        failed_with("sign-in", err)
    finally:
        stop_replicas(servers)
        idp.stop()
    return tally("sign-in through the python sdk")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(asyncio.run(main(*sys.argv[1:])))
