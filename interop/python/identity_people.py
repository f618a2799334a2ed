"""The people of the identity tests (test_identity.py): alice and bob, each with the Python
SDK's OAuth client signed in at the gateway (signin_parts.Flow, logging in as them at idp1),
and each the elicitation callback of their client: it answers the gateway's URL-mode
elicitation by following the link headlessly (signin_browser.Browser: the gateway's start
page, idp2's login as their account there and its consent), stops at the gateway's
callback, and hands the callback's URL to `on_callback`, which by default loads it at the
gateway's public URL (replica 1) and keeps the page. Then it answers `accept`.

    alice = Person("alice", stack)
    result = await alice.call("b_whoami")      # a session of its own, the SDK's OAuth client
    alice.asked, alice.callbacks, alice.pages, alice.sent_tokens
"""

import asyncio
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx2
from mcp.shared.auth import AuthorizationCodeResult
from mcp.types import ElicitResult

from identity_stack import B_ACCOUNTS
from signin_browser import Browser
from signin_parts import Flow

# The SDK OAuth client's redirect URI: the browser stops there, it is never loaded.
CLIENT_REDIRECT = "http://127.0.0.1:1/callback"


class PersonFlow(Flow):
    """signin_parts.Flow logging in as `login` at idp1, and keeping every Authorization
    header its client sent to the gateway (`sent`)."""

    def __init__(self, mcp_url, login):
        super().__init__(mcp_url, CLIENT_REDIRECT, f"toolsmith interop ({login})")
        self.login = login
        self.sent = set()

    async def redirect(self, url):
        browser = Browser(self.callback, login=self.login)
        browser.asked = set(dict(parse_qsl(urlsplit(url).query)).get("scope", "").split())
        self.browsers.append(browser)
        got = await browser.run(url)
        self.result = AuthorizationCodeResult(code=got.get("code", ""), state=got.get("state"), iss=got.get("iss"))
        if "error" in got:
            raise RuntimeError(f"the authorization ended in {got}")

    async def record(self, response):
        await super().record(response)
        header = response.request.headers.get("authorization")
        if header:
            self.sent.add(header.partition(" ")[2])


class Person:
    def __init__(self, login, stack):
        self.login = login
        self.login_b = B_ACCOUNTS[login]
        self.stack = stack
        self.flow = PersonFlow(stack.mcp_url, login)
        self.asked = []  # the elicitations' params, in order
        self.callbacks = []  # (the gateway callback URL reached, the browser's cookies), in order
        self.pages = []  # (status, text) of each callback page loaded
        self.answer = "accept"
        self.on_callback = self.deliver

    @property
    def sent_tokens(self):
        return self.flow.sent

    def take(self):
        """The elicitations since the last take()."""
        asked, self.asked = self.asked, []
        return asked

    async def __call__(self, context, params):
        self.asked.append(params)
        if getattr(params, "mode", None) != "url" or self.answer != "accept":
            return ElicitResult(action="decline" if self.answer == "accept" else self.answer)
        browser = Browser(self.stack.callback, login=self.login_b)
        got = await browser.run(params.url)
        url = f"{self.stack.callback}?{urlencode(got)}"
        self.callbacks.append((url, browser.cookies))
        await self.on_callback(url, browser.cookies)
        return ElicitResult(action="accept")

    async def deliver(self, url, cookies=None, replica=0):
        """Loads the callback `url` at gateway replica `replica` (0: replica 1, whose origin
        is the public one), with the public Host; keeps and returns (status, text)."""
        port = self.stack.gateway_ports[replica]
        host = urlsplit(self.stack.public).netloc
        target = urlsplit(url)._replace(netloc=f"127.0.0.1:{port}").geturl()
        async with httpx2.AsyncClient(timeout=15.0, cookies=cookies, headers={"Host": host}) as http:
            answer = await http.get(target)
        page = (answer.status_code, answer.text)
        self.pages.append(page)
        return page

    async def call(self, tool, arguments=None, timeout=90, elicitation=True):
        """tools/call `tool` through the gateway in a session of its own (the SDK's Client,
        MCP 2026-07-28, its OAuth client signing in at the gateway when it has no token);
        `elicitation=False`: a client that cannot answer elicitations."""
        out = {}

        async def work(client):
            out["result"] = await asyncio.wait_for(client.call_tool(tool, arguments or {}), timeout)

        await self.flow.session(self.stack.mcp_url, work, self if elicitation else None)
        return out["result"]

    async def tools(self):
        """The names the gateway lists to this person."""
        out = {}

        async def work(client):
            out["names"] = sorted(t.name for t in (await asyncio.wait_for(client.list_tools(), 30)).tools)

        await self.flow.session(self.stack.mcp_url, work, self)
        return out["names"]
