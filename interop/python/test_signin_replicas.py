"""Sign-in across replicas: two notes replicas behind nginx (interop/nginx/signin.conf, round
robin, every path), sharing Debian's redis-server, signing users in at a real OpenID provider
(interop/node/idp.mjs, oidc-provider from npm).

Both replicas run `--task-store redis://127.0.0.1:PORT/0 --public-url http://127.0.0.1:NGINX/mcp
--signin-oidc ...`. Through nginx: a client registers (POST /oauth/register), and a headless
browser goes through the authorization (toolsmith, the provider's login and consent as alice,
toolsmith's consent page), its steps served by both replicas. Then, directly at each replica
(not through nginx): the code is redeemed at replica 1 (200, a token) and again at replica 2
(400 invalid_grant: a code is good once, whichever replica sees it); a second flow the other
way round (replica 2 redeems, replica 1 refuses), so that the refusal is not a replica that
knows nothing of the code. The token replica 1 issued works at both (shared signing keys).

Every wait is bounded; redis, nginx, the provider and the replicas are stopped at the end
whatever happens (their pids are in WORKDIR/*.pid for interop/run's clean-up).

Usage: python test_signin_replicas.py NOTES NODE NGINX REDIS_SERVER WORKDIR
"""

import asyncio
import os
import signal
import sys

import httpx2

from checks import check, failed_with, stop_replicas, tally
import nginx_proxy
from nginx_proxy import Nginx
from notes_http import StartError, free_port, initialize_message, request
from signin_parts import authorize_raw, check_idp, code_grant, token_request, verified_claims
from signin_stack import IdP, notes_with_signin
from test_tasks_replicas import Redis

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = os.path.join(HERE, "..", "nginx", "signin.conf")


def upstreams(nginx, before):
    """The replicas ($upstream_addr) that served the requests logged after the first `before`."""
    try:
        with open(nginx.access_log, errors="replace") as f:
            lines = f.read().splitlines()[before:]
    except FileNotFoundError:
        return set()
    return {replica for _, _, replica in map(nginx_proxy.served, lines) if replica}


async def flow(public, callback, nginx, what):
    """Registers a public client and authorizes it through nginx, as alice; returns
    (client_id, code, code_verifier)."""
    before = nginx.logged()
    client_id, got, verifier, browser = await authorize_raw(public, callback, "alice", check, what)
    served = upstreams(nginx, before)
    check(len(served) == 2, f"{what}: both replicas served steps of the sign-in: {served} "
                            f"{browser.trail()}")
    return client_id, got.get("code", ""), verifier


async def redeem(replica, public, form):
    """POST /oauth/token directly at `replica`, with the public Host."""
    host = public.split("://", 1)[1]
    async with httpx2.AsyncClient(timeout=15.0, headers={"Host": host}) as http:
        return await token_request(http, f"http://127.0.0.1:{replica.port}/oauth/token", form)


async def code_once(replicas, public, nginx, what):
    """One authorization through nginx; its code redeemed at replicas[0] directly (200), then
    at replicas[1] directly (400 invalid_grant). Returns (client_id, the token response)."""
    callback = f"http://127.0.0.1:{free_port()}/callback"
    client_id, code, verifier = await flow(public, callback, nginx, what)
    form = code_grant(code, callback, verifier, client_id)
    first, second = replicas
    status, body = await redeem(first, public, form)
    check(status == 200 and isinstance(body, dict) and body.get("access_token"),
          f"{what}: the code redeemed at {first.name} directly: {status} {body}")
    status2, body2 = await redeem(second, public, form)
    check(status2 == 400 and isinstance(body2, dict) and body2.get("error") == "invalid_grant",
          f"{what}: the same code again at {second.name} directly: 400 invalid_grant: {status2} {body2}")
    print(f"sign-in across replicas: {what}: the code at {first.name}: {status}; again at "
          f"{second.name}: {status2} {body2.get('error') if isinstance(body2, dict) else body2}")
    return client_id, body if isinstance(body, dict) else {}


async def run(replicas, idp, public, nginx):
    await check_idp(idp, check)
    # Each way round: a replica refuses a code the other redeemed, and redeems one the
    # other never saw (so the refusal is the code's single use, not a replica that knows
    # nothing of it).
    client_id, body = await code_once(replicas, public, nginx, "first flow")
    await code_once(list(reversed(replicas)), public, nginx, "second flow")
    token = body.get("access_token")
    if not token:
        return
    header, claims = await verified_claims(public, token)
    check(claims.get("sub") == "alice" and claims.get("aud") == f"{public}/mcp"
          and claims.get("client_id") == client_id,
          f"the token {replicas[0].name} issued, verified with /oauth/jwks through nginx: {header} {claims}")
    host = public.split("://", 1)[1]
    for replica in replicas:
        reply = await asyncio.to_thread(request, f"http://127.0.0.1:{replica.port}/mcp", "POST",
                                        initialize_message(), {"Authorization": f"Bearer {token}",
                                                               "Host": host})
        check(reply.status == 200, f"the token works at {replica.name} directly: {reply}")


def main(notes, node, nginx_binary, redis_binary, workdir):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.makedirs(workdir, exist_ok=True)
    redis = Redis(redis_binary, os.path.join(workdir, "redis"))
    prefix = os.path.join(workdir, "nginx")
    os.makedirs(prefix, exist_ok=True)
    nginx = Nginx(nginx_binary, prefix, TEMPLATE)
    port = free_port()
    public = f"http://127.0.0.1:{port}"
    idp = IdP(node, workdir, [f"{public}/oauth/callback"])
    replicas = []
    try:
        redis.start()
        idp.start()
        store = f"redis://127.0.0.1:{redis.port}/0"
        for i in (1, 2):
            own = free_port()
            replica = notes_with_signin(notes, idp, own, ["--public-url", f"{public}/mcp", "--task-store", store],
                                        env={"TOOLSMITH_LOG": "info"}, workdir=workdir,
                                        name=f"replica-{i}", local_port=own)
            replicas.append(replica)
            replica.start()
        nginx.write_config({"NGINX_PORT": port, "REPLICA_1": replicas[0].port,
                            "REPLICA_2": replicas[1].port})
        nginx.start(port)
        asyncio.run(asyncio.wait_for(run(replicas, idp, public, nginx), 120))
    except StartError as err:
        check(False, f"did not start: {err}")
    except Exception as err:
        failed_with("sign-in across replicas", err)
        print(nginx.errors(), file=sys.stderr)
        for replica in replicas:
            print(f"{replica.name}:\n{replica.stderr_tail()}", file=sys.stderr)
    finally:
        nginx.stop()
        stop_replicas([r for r in replicas if r.proc is not None and r.proc.poll() is None])
        idp.stop()
        redis.stop()
    return tally("sign-in across replicas")


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
