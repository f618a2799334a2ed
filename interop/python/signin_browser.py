"""A headless "browser" for the sign-in tests: it follows redirects and answers the forms a
person would, with a cookie jar, over httpx2 (the SDK's HTTP client), and stops at the
client's redirect URI without loading it.

    browser = Browser(stop_at="http://127.0.0.1:PORT/callback", login="alice")
    params = await browser.run(authorization_url)     # {"code": ..., "state": ..., "iss": ...}
    browser.pages                                      # [(url, status, Page or None), ...]

The forms it answers (parsed with html.parser): the OpenID provider's login form (an input
named `login`: it types `login`), the provider's consent form (hidden `prompt=consent`), and
toolsmith's consent page (action /oauth/consent, as issue #55's contract has it: hidden
`pending` and `csrf`, `scope` checkboxes, `remember`, and `decision` buttons), where it keeps
`scopes` ticked (None: all asked, as ticked on the page), ticks `remember` when told, and
presses `decision` (allow or deny); and the gateway's upstream sign-in start page (a form
posted to /upstream/start: hidden `s` and `csrf`), which it continues. Every step is bounded: at most 20 requests, 15 s each.
"""

from html.parser import HTMLParser
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

import httpx2

MAX_STEPS = 20


class Form:
    def __init__(self, action, method):
        self.action = action
        self.method = (method or "get").lower()
        self.inputs = []  # dicts of the attributes of <input>, <button>, <textarea>, <select>

    def named(self, name):
        return [i for i in self.inputs if i.get("name") == name]

    def value(self, name):
        found = self.named(name)
        return found[0].get("value") if found else None


class Page(HTMLParser):
    """The forms and the text of an HTML page."""

    def __init__(self, html):
        super().__init__(convert_charrefs=True)
        self.forms = []
        self.text_parts = []
        self._form = None
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs = {k: (v if v is not None else "") for k, v in attrs}
        if tag == "form":
            self._form = Form(attrs.get("action", ""), attrs.get("method"))
            self.forms.append(self._form)
        elif tag in ("input", "button", "textarea", "select") and self._form is not None:
            attrs["_tag"] = tag
            self._form.inputs.append(attrs)

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None

    def handle_data(self, data):
        self.text_parts.append(data)

    @property
    def text(self):
        return " ".join(" ".join(self.text_parts).split())

    def form_with(self, name):
        """The first form with an input or button named `name`."""
        return next((f for f in self.forms if f.named(name)), None)


class BrowserError(Exception):
    pass


class Browser:
    def __init__(self, stop_at, login="alice", scopes=None, remember=False, decision="allow",
                 headers=None):
        self.stop_at = stop_at
        self.login = login
        self.scopes = scopes
        self.remember = remember
        self.decision = decision
        self.headers = headers or {}
        self.pages = []
        self.consent_page = None  # toolsmith's consent Page, once seen
        self.start_page = None  # the gateway's upstream sign-in start Page, once seen
        self.cookies = httpx2.Cookies()

    async def run(self, url):
        """Loads `url` and goes on until a redirect to `stop_at`; returns its query parameters."""
        async with httpx2.AsyncClient(timeout=15.0, follow_redirects=False, cookies=self.cookies,
                                      headers=self.headers) as http:
            method, data = "GET", None
            for _ in range(MAX_STEPS):
                if self._is_stop(url):
                    return dict(parse_qsl(urlsplit(url).query))
                if method == "GET":
                    response = await http.get(url)
                else:
                    # (a list of pairs: `scope` repeats)
                    pairs = list(data.items()) if isinstance(data, dict) else data
                    response = await http.post(url, content=urlencode(pairs), headers={
                        "Content-Type": "application/x-www-form-urlencoded"})
                self.cookies = http.cookies
                kind = response.headers.get("content-type", "")
                page = Page(response.text) if "html" in kind else None
                self.pages.append((f"{method} {url}", response.status_code, page))
                if response.status_code in (301, 302, 303, 307, 308):
                    url = urljoin(url, response.headers["location"])
                    method, data = ("POST", data) if response.status_code in (307, 308) and method == "POST" else ("GET", None)
                    continue
                if response.status_code != 200 or page is None:
                    raise BrowserError(f"{method} {url} answered {response.status_code} "
                                       f"{kind}: {response.text[:400]!r}")
                method, url, data = self._answer(url, page)
            raise BrowserError(f"no redirect to {self.stop_at} within {MAX_STEPS} requests: {self.trail()}")

    def _is_stop(self, url):
        u, stop = urlsplit(url), urlsplit(self.stop_at)
        return (u.scheme, u.netloc, u.path) == (stop.scheme, stop.netloc, stop.path)

    def _answer(self, url, page):
        """The request a person would send from `page`: (method, url, form data)."""
        form = page.form_with("login")
        if form is not None and form.value("prompt") == "login":
            return "POST", urljoin(url, form.action), {"prompt": "login", "login": self.login,
                                                      "password": "any"}
        form = next((f for f in page.forms if f.value("prompt") == "consent"), None)
        if form is not None:
            fields = {i["name"]: i.get("value", "") for i in form.inputs
                      if i.get("name") and i.get("type") == "hidden"}
            return "POST", urljoin(url, form.action), fields
        form = next((f for f in page.forms if urlsplit(f.action).path == "/oauth/consent"), None)
        if form is not None:
            self.consent_page = page
            fields = [(i["name"], i.get("value", "")) for i in form.inputs
                      if i.get("name") and i.get("type") == "hidden"]
            for box in form.named("scope"):
                ticked = "checked" in box if self.scopes is None else box.get("value") in self.scopes
                if ticked:
                    fields.append(("scope", box.get("value", "")))
            if self.remember:
                fields.append(("remember", "yes"))
            fields.append(("decision", self.decision))
            return "POST", urljoin(url, form.action), fields
        form = next((f for f in page.forms
                     if urlsplit(urljoin(url, f.action)).path.endswith("/upstream/start")), None)
        if form is not None:
            # The gateway's upstream sign-in start page (issue #56): it names the gateway user
            # the account is linked to; its form carries the cookie's value (`csrf`).
            self.start_page = page
            fields = [(i["name"], i.get("value", "")) for i in form.inputs
                      if i.get("name") and i.get("type") == "hidden"]
            return "POST", urljoin(url, form.action), fields
        raise BrowserError(f"a page with no form this browser answers at {url}: {page.text[:400]!r}")

    def trail(self):
        return [(where, status) for where, status, _ in self.pages]
