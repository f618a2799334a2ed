// A headless user agent for the sign-in tests: follows redirects one by one (each hop
// recorded), keeps cookies per origin (a jar, as a browser would for these loopback hosts),
// reads the first <form> of an HTML page and posts it, with fields filled in and a submit
// button pressed. No JavaScript: the pages under test (the provider's login and consent, and
// toolsmith's consent page) are plain forms. Every request is bounded in time.

const TIMEOUT_MS = 15_000;

const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
export function decodeEntities(text) {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return String.fromCodePoint(code);
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

// The attributes of one tag's text (`<input type="checkbox" name="scope" checked>`).
function attributes(tag) {
  const found = {};
  const body = tag.replace(/^<\s*[a-z]+/i, "").replace(/\/?>$/, "");
  for (const m of body.matchAll(/([^\s=/"'>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g)) {
    found[m[1].toLowerCase()] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? "");
  }
  return found;
}

// The first <form> of `html`: action, method, and its controls in document order
// (input, button, textarea), each with its attributes.
export function parseForm(html, index = 0) {
  const forms = [...html.matchAll(/<form\b[^>]*>([\s\S]*?)<\/form>/gi)];
  const m = forms[index];
  if (!m) return undefined;
  const form = attributes(m[0].match(/<form\b[^>]*>/i)[0]);
  const controls = [];
  for (const c of m[1].matchAll(/<(input|button)\b[^>]*>|<textarea\b[^>]*>([\s\S]*?)<\/textarea>/gi)) {
    const tag = (c[1] ?? "textarea").toLowerCase();
    const attrs = attributes(c[0].match(/<[a-z]+\b[^>]*>/i)[0]);
    if (tag === "textarea") attrs.value = decodeEntities(c[2] ?? "");
    controls.push({ tag, ...attrs });
  }
  return { action: form.action ?? "", method: (form.method ?? "get").toLowerCase(), controls };
}

// The fields a browser would submit for `form`: hidden, text and password inputs by their
// value (or `fill[name]`), checkboxes that are checked (or, given `checks[name]`, only the
// values listed there), and the submit button `press` ({name, value}, or the first submit).
export function formFields(form, { fill = {}, checks = {}, press } = {}) {
  const fields = new URLSearchParams();
  const filled = new Set();
  for (const c of form.controls) {
    const type = (c.type ?? (c.tag === "button" ? "submit" : "text")).toLowerCase();
    if (!c.name || c.disabled !== undefined) continue;
    if (type === "submit" || type === "button" || type === "image" || type === "reset") continue;
    if (type === "checkbox" || type === "radio") {
      const on = c.name in checks ? checks[c.name].includes(c.value ?? "on") : c.checked !== undefined;
      if (on) fields.append(c.name, c.value ?? "on");
      continue;
    }
    if (c.name in fill) {
      fields.append(c.name, fill[c.name]);
      filled.add(c.name);
    } else fields.append(c.name, c.value ?? "");
  }
  for (const [name, value] of Object.entries(fill)) if (!filled.has(name)) throw new Error(`the form has no field ${name}`);
  const submits = form.controls.filter((c) => (c.type ?? (c.tag === "button" ? "submit" : "")).toLowerCase() === "submit");
  const button = press
    ? submits.find((c) => c.name === press.name && (press.value === undefined || c.value === press.value))
    : submits[0];
  if (press && !button) throw new Error(`the form has no button ${JSON.stringify(press)}`);
  if (button?.name) fields.append(button.name, button.value ?? "");
  return fields;
}

export class Browser {
  constructor() {
    this.jar = new Map(); // origin -> Map(name -> value)
    this.hops = []; // every request: {method, url, status, location}
  }

  cookieHeader(url) {
    const cookies = this.jar.get(new URL(url).origin);
    return cookies && cookies.size ? [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") : undefined;
  }

  keep(url, response) {
    const origin = new URL(url).origin;
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair.indexOf("=");
      if (eq < 1) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const gone = attrs.some((a) => /^\s*max-age\s*=\s*(0|-\d+)\s*$/i.test(a)
        || (/^\s*expires\s*=/i.test(a) && Date.parse(a.split("=").slice(1).join("=")) < Date.now()));
      if (!this.jar.has(origin)) this.jar.set(origin, new Map());
      if (gone) this.jar.get(origin).delete(name);
      else this.jar.get(origin).set(name, value);
    }
  }

  // One request, no redirect followed; the response's body read as text.
  async request(method, url, { body, headers = {}, cookies = true } = {}) {
    const all = { ...headers };
    const cookie = cookies ? this.cookieHeader(url) : undefined;
    if (cookie) all.cookie = cookie;
    if (body !== undefined) all["content-type"] = "application/x-www-form-urlencoded";
    const response = await fetch(url, {
      method,
      headers: all,
      body: body === undefined ? undefined : String(body),
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    this.keep(url, response);
    const text = await response.text();
    const location = response.headers.get("location");
    this.hops.push({ method, url: String(url), status: response.status, location: location ?? undefined });
    return { status: response.status, headers: response.headers, text, location: location && new URL(location, url).href, url: String(url) };
  }

  // GET `url` (or POST `body`), then follows redirects until a page that is not a redirect,
  // or until a Location that `stop(location)` accepts (not requested: e.g. the client's own
  // redirect URI). At most 20 hops.
  async go(url, { method = "GET", body, stop = () => false } = {}) {
    let page = await this.request(method, url, { body });
    for (let hop = 0; hop < 20; hop++) {
      if (![301, 302, 303, 307, 308].includes(page.status) || !page.location) return page;
      if (stop(page.location)) return { ...page, stopped: page.location };
      page = await this.request("GET", page.location);
    }
    throw new Error(`more than 20 redirects from ${url}`);
  }

  // Submits the first form of `page` (as a browser would: its action resolved against the
  // page's URL) and follows the redirects.
  async submit(page, options = {}, stop) {
    const form = parseForm(page.text);
    if (!form) throw new Error(`no form on ${page.url}: ${page.text.slice(0, 300)}`);
    const fields = formFields(form, options);
    const action = new URL(form.action || page.url, page.url);
    if (form.method === "post") return this.go(action.href, { method: "POST", body: fields, stop });
    for (const [k, v] of fields) action.searchParams.append(k, v);
    return this.go(action.href, { stop });
  }
}

// The visible text of an HTML page, tags and scripts removed, whitespace collapsed.
export function pageText(html) {
  return decodeEntities(html.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]+>/g, " "))
    .replace(/\s+/g, " ").trim();
}
