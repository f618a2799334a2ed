"""The user's own identity at every upstream (issue #56), with real parts: `toolsmith
gateway` (two replicas sharing Debian's redis-server) in front of two upstream MCP servers
(the whoami example, each behind a recording proxy), oidc-provider (npm) twice, and the
official Python SDK's client (its OAuth client signing alice and bob in at the gateway, and
its elicitation callback answering URL-mode elicitation headlessly). What runs is started by
identity_stack.py; the people are identity_people.py.

    python test_identity.py WHOAMI TOOLSMITH NODE REDIS_SERVER WORKDIR

1. The providers and upstreams alone (identity_providers.py).
2. The gateway lists a_whoami and b_whoami (it lists as itself; b_sign_out too, to a token
   that may call it: tools:write, checked in part 4); idp1 alone
   exchanges alice's gateway token for one of A's (identity_providers.exchange_alone).
3. Upstream A, token exchange (RFC 8693) at idp1: alice's a_whoami answers `alice`, bob's
   `bob`; what A received on each call is a token idp1 issued for A's audience naming that
   user (and the gateway as actor), never the other user's, never a client's own token.
   With the gateway's client secret revoked at idp1, bob's call is a tool error naming
   upstream 'a' and the provider's reason, and nothing reaches A; restored, it works.
4. Upstream B, each user's own sign-in at B's authorization server (idp2, where the gateway
   registers itself once, RFC 7591, and lists B with its configured header): alice's first
   b_whoami asks her with a URL elicitation; her client follows the link (the gateway's
   start page, idp2's login as alice-b, consent, the gateway's callback) and accepts; the
   call answers `alice-b`; a second call asks nothing. Bob's client that cannot take a URL
   elicitation gets a tool error carrying the link. Bob's sign-in: a callback with a
   tampered state is refused (replica 1) with a clear page, nothing stored; the genuine one
   is completed at replica 2 (the state is shared through redis), and replayed at replica 1
   it is refused with a clear page, nothing stored. b_sign_out revokes (idp2 logs it) and
   forgets (the store holds no token of hers); her next call asks again and signs her in.
   B only ever saw each user's own idp2 subject, never a client's token.
5. Refresh: once bob's B access token has expired (idp2 issues them for 35 s), his call
   works without asking, after one refresh_token grant at idp2, with a new token at B.

Every wait is bounded; everything is stopped at the end whatever happens.
"""

import asyncio
import os
import signal
import sys
import time

import httpx2
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

from checks import check, checks, failed_with, tally
from confirming import text_of
from identity_people import Person
from identity_providers import exchange_alone, providers_alone
from identity_stack import B_ACCOUNTS, Stack, redis_keys
from notes_http import StartError
from signin_stack import CLIENT_ID

# (the store's own prefix before it)
TOKENS_B = "*gateway:upstream-token:b:*"


async def whoami_of(url, token):
    """What `url`'s whoami answers a caller holding `token` (the SDK's Client)."""
    async with httpx2.AsyncClient(timeout=20.0, headers={"Authorization": f"Bearer {token}"}) as http:
        async with Client(streamable_http_client(url, http_client=http), cache=None) as client:
            return text_of(await asyncio.wait_for(client.call_tool("whoami", {}), 30)).strip()


def everyone_sent(people):
    return set().union(*(p.sent_tokens for p in people))


def check_hits(hits, subject, people, what, issuer, audience):
    """What an upstream received during one person's call: the call itself, and every
    request carrying a token carries a token of `issuer` for `audience` naming `subject`
    (the gateway's own, when listing, aside), never a token a client sent the gateway."""
    calls = [h for h in hits if h.rpc == "tools/call"]
    check(calls, f"{what}: the call reached the upstream: {[(h.method, h.rpc, h.status) for h in hits]}")
    mine = everyone_sent(people)
    for hit in hits:
        claims = hit.claims()
        check(hit.bearer() not in mine, f"{what}: the upstream received a client's own token ({hit.rpc})")
        if hit.rpc != "tools/call" and (hit.bearer() is None or claims.get("sub") == CLIENT_ID):
            continue  # (a probe without a token, or the gateway's own listing)
        check(claims.get("sub") == subject and claims.get("aud") == audience and claims.get("iss") == issuer,
              f"{what}: {hit.method} {hit.rpc} carried a token for {subject} of {issuer} for {audience}: {claims}")


async def call_seen(person, tool, proxy):
    """(result, the hits `proxy` received during the call)."""
    mark = len(proxy.seen())
    result = await person.call(tool)
    return result, proxy.seen()[mark:]


async def exchange(stack, alice, bob):
    """Part 3 (see the module's doc)."""
    proxy = stack.proxies["a"]
    for person in (alice, bob):
        if person is bob:
            # (bob signed in at the gateway already: idp1's client is the gateway's too)
            check(stack.revoke_client_secret(True), "idp1: the gateway's client secret revoked")
            mark = len(proxy.seen())
            failed = await person.call("a_whoami")
            text = text_of(failed)
            check(failed.is_error and "'a'" in text and "invalid_client" in text,
                  f"a failed exchange: a tool error naming upstream 'a' and idp1's reason: {failed}")
            check(not [h for h in proxy.seen()[mark:] if h.rpc == "tools/call"],
                  "a failed exchange: nothing reaches upstream A (no shared credential instead)")
            print(f"identity: a failed exchange answers: {text}")
            check(stack.revoke_client_secret(False), "idp1: the gateway's client secret restored")
        result, hits = await call_seen(person, "a_whoami", proxy)
        check(not result.is_error and text_of(result).strip() == person.login,
              f"{person.login}'s a_whoami answers {person.login}: {result}")
        check_hits(hits, person.login, [alice, bob], f"A, {person.login}", stack.idp1.issuer, stack.a_url)
        exchanged = [h.claims() for h in hits if h.rpc == "tools/call"]
        check(all(c.get("act") == {"sub": CLIENT_ID} and c.get("scope") == "tools:read" for c in exchanged),
              f"A, {person.login}: the exchanged token names the gateway as actor, scope tools:read: {exchanged}")


async def first_sign_in(stack, person, replica, what, tamper=False):
    """A person's first b_whoami: one URL elicitation, followed, the callback loaded at
    `replica` (with `tamper`, first with a tampered state at the other replica: refused,
    nothing stored); the call answers their idp2 subject. Returns (the callback's URL, the
    browser's cookies)."""
    async def at_replica(url, cookies):
        if tamper:
            kept = redis_keys(stack.redis.port, TOKENS_B)
            bad = url.replace("state=", "state=x", 1)
            await refused_page(person, bad, cookies, 1 - replica, f"{what}: a callback with a tampered state")
            check(redis_keys(stack.redis.port, TOKENS_B) == kept, f"{what}: the tampered callback stored nothing")
        await person.deliver(url, cookies, replica)

    person.on_callback = at_replica
    result, hits = await call_seen(person, "b_whoami", stack.proxies["b"])
    person.on_callback = person.deliver
    asked = person.take()
    check(len(asked) == 1 and getattr(asked[0], "mode", None) == "url"
          and asked[0].url.startswith(stack.public + "/"),
          f"{what}: one URL elicitation, to the gateway's start page: {asked}")
    status, text = person.pages[-1] if person.pages else (None, "")
    check(status == 200, f"{what}: the gateway's callback page: {status} {text[:300]!r}")
    check(not result.is_error and text_of(result).strip() == person.login_b,
          f"{what}: b_whoami answers {person.login_b}: {result}")
    check_hits(hits, person.login_b, [person], what, stack.idp2.issuer, stack.b_url)
    return person.callbacks[-1] if person.callbacks else (None, None)


async def refused_page(person, url, cookies, replica, what):
    """The callback `url` (with the browser's `cookies`) loaded at `replica` is refused with a
    page that says so."""
    status, text = await person.deliver(url, cookies, replica)
    check(400 <= status < 500 and "<" in text and "sign" in text.lower(),
          f"{what}: refused with a page that says why: {status} {text[:300]!r}")
    print(f"identity: {what}: {status} {' '.join(text.split())[:200]}")


async def sign_in(stack, alice, bob):
    """Part 4 (see the module's doc)."""
    proxy = stack.proxies["b"]
    await first_sign_in(stack, alice, 0, "B, alice's sign-in")
    result, hits = await call_seen(alice, "b_whoami", proxy)
    check(not alice.take() and text_of(result).strip() == "alice-b",
          f"B, alice again: no sign-in asked, answers alice-b: {result}")
    check_hits(hits, "alice-b", [alice, bob], "B, alice again", stack.idp2.issuer, stack.b_url)

    # (one registration was part 1's own check of idp2)
    registered = stack.idp2_log().count("idp: registered")
    check(registered == 2, f"B: the gateway registered itself at idp2 once, for every user: {registered - 1}")

    cannot = await bob.call("b_whoami", elicitation=False)
    check(cannot.is_error and f"{stack.public}/upstream/start?" in text_of(cannot) and "'b'" in text_of(cannot),
          f"B, bob's client that cannot take a URL elicitation: a tool error carrying the link: {cannot}")
    callback, cookies = await first_sign_in(stack, bob, 1, "B, bob's sign-in completed at replica 2", tamper=True)
    keys = redis_keys(stack.redis.port, TOKENS_B)
    check(len(keys) == 2, f"B: the store holds a token for each user: {keys}")
    if callback:
        await refused_page(bob, callback, cookies, 0, "B, bob's callback replayed at replica 1")
        check(sorted(redis_keys(stack.redis.port, TOKENS_B)) == sorted(keys), "B: the replay stored nothing")

    revocations = stack.idp2_log().count("idp: revoked")
    out = await alice.call("b_sign_out")
    check(not out.is_error, f"alice's b_sign_out: {out}")
    check(len(redis_keys(stack.redis.port, TOKENS_B)) == 1, "B: alice's tokens forgotten, bob's kept")
    check(stack.idp2_log().count("idp: revoked") > revocations, "B: alice's sign-out revoked her token at idp2")
    names = await alice.tools()  # (her token grants tools:write now: b_sign_out is not read-only)
    check("b_sign_out" in names, f"the gateway lists b_sign_out: {names}")

    result, hits = await call_seen(alice, "b_whoami", proxy)
    asked = alice.take()
    check(len(asked) == 1 and text_of(result).strip() == "alice-b",
          f"B, after sign-out: asked again, then answers alice-b: {len(asked)} {result}")
    check_hits(hits, "alice-b", [alice, bob], "B, alice signed in again", stack.idp2.issuer, stack.b_url)


async def refresh(stack, bob):
    """Part 5 (see the module's doc)."""
    proxy = stack.proxies["b"]
    tokens = [h.claims() for h in proxy.seen() if h.claims().get("sub") == B_ACCOUNTS["bob"]]
    if not tokens:
        check(False, "refresh: no token of bob's reached B")
        return
    last = tokens[-1]
    wait = last.get("exp", 0) + 1 - time.time()
    print(f"identity: waiting {max(wait, 0):.0f} s for bob's B token to expire")
    await asyncio.sleep(min(max(wait, 0), stack.b_ttl + 5))
    grants = stack.idp2_log().count("idp: grant refresh_token")
    result, hits = await call_seen(bob, "b_whoami", proxy)
    check(not bob.take() and text_of(result).strip() == "bob-b",
          f"refresh: bob's call after his B token expired, no sign-in asked: {result}")
    check(stack.idp2_log().count("idp: grant refresh_token") > grants, "refresh: idp2 granted a refresh")
    fresh = [h.claims() for h in hits if h.rpc == "tools/call"]
    check(fresh and all(c.get("jti") != last.get("jti") and c.get("exp", 0) > time.time() for c in fresh),
          f"refresh: B received a new, live token: {fresh}")
    check_hits(hits, "bob-b", [bob], "refresh", stack.idp2.issuer, stack.b_url)


async def through_gateway(stack):
    alice, bob = Person("alice", stack), Person("bob", stack)
    names = await alice.tools()
    check({"a_whoami", "b_whoami"} <= set(names), f"the gateway lists a_whoami and b_whoami: {names}")
    await bob.tools()  # (bob signs in at the gateway before idp1's client secret is revoked)
    if alice.flow.storage.tokens is not None:
        await exchange_alone(stack, "alice", alice.flow.storage.tokens.access_token)
    for what, part in (("exchange", exchange(stack, alice, bob)), ("sign-in", sign_in(stack, alice, bob)),
                       ("refresh", refresh(stack, bob))):
        try:
            await asyncio.wait_for(part, 150)
        except Exception as err:
            failed_with(f"identity: {what}", err)


async def main(whoami, toolsmith, node, redis_binary, workdir):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.makedirs(workdir, exist_ok=True)
    stack = Stack(node, whoami, toolsmith, redis_binary, workdir)
    try:
        stack.start_parts()
        await asyncio.wait_for(providers_alone(stack, whoami_of), 60)
        stack.start_gateways()
        await through_gateway(stack)
    except StartError as err:
        check(False, f"did not start: {err}")
    except Exception as err:
        failed_with("identity", err)
    finally:
        if checks["failed"]:
            print(stack.logs(), file=sys.stderr)
        statuses = stack.stop()
        check(all(s == 0 for s in statuses), f"the gateways exit 0 on SIGTERM: {statuses}")
    return tally("identity at every upstream")


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    sys.exit(asyncio.run(main(*sys.argv[1:])))
