// The OAuth client side of the sign-in tests (test_signin.mjs): an OAuthClientProvider for
// either TypeScript SDK, kept in memory, whose "redirect" to the authorization endpoint runs a
// headless user agent (browse.mjs) through the provider's login and toolsmith's consent page;
// the two SDKs' transports and clients behind one face; a sign-in from the first 401 to a
// connected client; and the checks of what went over the wire (a record of the SDK's requests:
// discovery, registration, the redirect back with code, state and iss, the token's claims).

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as Transport1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
  UnauthorizedError as ModernUnauthorizedError,
} from "@modelcontextprotocol/client";
import { randomBytes } from "node:crypto";

import { Browser, pageText, parseForm } from "./browse.mjs";

export const tally = { passed: 0, failed: 0 };
export function check(ok, what) {
  if (ok) tally.passed++;
  else {
    tally.failed++;
    console.error(`FAILED: ${what}`);
  }
}
export const within = (promise, ms, what) =>
  Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms))]);

export const ALL_TOOLS = ["create_note", "delete_note", "get_note", "import_notes", "import_url", "search_notes", "tag_chart"];
export const SCOPES = ["tools:read", "tools:write", "tools:destructive"];
export const READ_ONLY = ["get_note", "search_notes", "tag_chart"];
const USER = { login: "alice", password: "alice" };

// The metadata of a public client (no secret) named `name`, redirected to `redirectUrl`: what
// it registers (POST /oauth/register) or what its Client ID Metadata Document says.
export function clientMetadata(name, redirectUrl) {
  return {
    client_name: name,
    redirect_uris: [redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

// The OAuth client provider of one client (either SDK): everything kept in memory. Its
// "redirect" to the authorization endpoint runs the headless user agent (one per client, so
// that a second authorization finds the user still signed in at the provider) to the
// redirect back to the client, and keeps where it stopped and what the consent page offered.
export function makeProvider({ name, redirectUrl, metadataUrl, consent }) {
  const kept = { state: randomBytes(16).toString("hex"), browser: new Browser(), consents: [] };
  return {
    kept,
    get redirectUrl() {
      return redirectUrl;
    },
    ...(metadataUrl ? { clientMetadataUrl: metadataUrl } : {}),
    get clientMetadata() {
      return { ...clientMetadata(name, redirectUrl), scope: SCOPES.join(" ") };
    },
    state: () => kept.state,
    clientInformation: () => kept.client,
    saveClientInformation: (info) => {
      kept.client = info;
    },
    tokens: () => kept.tokens,
    saveTokens: (tokens) => {
      kept.tokens = tokens;
    },
    saveCodeVerifier: (verifier) => {
      kept.verifier = verifier;
    },
    codeVerifier: () => kept.verifier,
    saveDiscoveryState: (state) => {
      kept.discovery = state;
    },
    discoveryState: () => kept.discovery,
    redirectToAuthorization: async (url) => {
      kept.authorizationUrl = new URL(url);
      kept.redirect = undefined;
      const { redirect, offered, text } = await authorize(kept.browser, new URL(url), { ...consent, redirectUrl });
      kept.redirect = redirect;
      kept.consents.push({ offered, text });
    },
  };
}

// The user at the browser: from the authorization endpoint to the redirect to the client
// (the provider's login as alice and its consent when it asks; toolsmith's consent page
// answered "allow" with every scope it offers ticked). Returns the URL it was sent to, and
// what the consent page offered and said.
export async function authorize(browser, url, { server, idp, redirectUrl }) {
  const stop = (loc) => loc.startsWith(redirectUrl);
  const from = browser.hops.length;
  let page = await browser.go(url.href, { stop });
  const first = browser.hops[from];
  check(first.status === 302 && first.location?.startsWith(idp.issuer),
    `GET /oauth/authorize sends the user to the provider: ${JSON.stringify(first)}`);
  let offered;
  let text = "";
  for (let step = 0; step < 8 && !page.stopped; step++) {
    const at = new URL(page.url);
    if (page.status !== 200) throw new Error(`${page.status} at ${page.url}: ${pageText(page.text).slice(0, 300)}`);
    if (at.origin === idp.issuer) {
      const form = parseForm(page.text);
      const login = form?.controls.some((c) => c.name === "login");
      page = await browser.submit(page, login ? { fill: USER } : {}, stop);
    } else if (at.origin === server.issuer && at.pathname === "/oauth/consent") {
      text = pageText(page.text);
      const form = parseForm(page.text);
      offered = form.controls.filter((c) => c.name === "scope").map((c) => c.value);
      check(browser.cookieHeader(page.url)?.includes("toolsmith_signin="), "the consent page came with the toolsmith_signin cookie");
      check(/frame-ancestors 'none'/.test(page.headers.get("content-security-policy") ?? ""),
        `the consent page may not be framed: ${page.headers.get("content-security-policy")}`);
      page = await browser.submit(page, { press: { name: "decision", value: "allow" } }, stop);
    } else {
      throw new Error(`unexpected page ${page.url}: ${pageText(page.text).slice(0, 300)}`);
    }
  }
  if (!page.stopped) throw new Error(`never redirected to ${redirectUrl}; hops: ${JSON.stringify(browser.hops.slice(from))}`);
  const paths = browser.hops.slice(from).map((h) => `${h.method} ${new URL(h.url).origin === server.issuer ? "AS" : "IDP"}${new URL(h.url).pathname}`);
  check(paths.includes("GET AS/oauth/callback") && paths.includes("POST AS/oauth/consent"),
    `the provider came back to /oauth/callback, the consent was posted: ${paths.join(", ")}`);
  return { redirect: new URL(page.stopped), offered, text };
}

export function checkRedirect(provider, server, what) {
  const redirect = provider.kept.redirect;
  if (!redirect) throw new Error(`${what}: the user agent never reached the redirect URI`);
  const params = redirect.searchParams;
  check(params.get("code") && !params.get("error"), `${what}: the redirect carries a code: ${redirect}`);
  check(params.get("state") === provider.kept.state, `${what}: the state comes back: ${params.get("state")}`);
  check(params.get("iss") === server.issuer, `${what}: iss is the server's issuer: ${params.get("iss")}`);
  return redirect;
}

export function checkOffered(provider, scopes, what) {
  const last = provider.kept.consents.at(-1);
  check(JSON.stringify([...(last?.offered ?? [])].sort()) === JSON.stringify([...scopes].sort()),
    `${what}: the consent page offers ${scopes}: ${last?.offered}`);
}

export function checkToken(tokens, { server, idp, clientId, scopes, what }) {
  check(/^bearer$/i.test(tokens?.token_type ?? "") && tokens?.refresh_token, `${what}: a Bearer token and a refresh token: ${JSON.stringify(tokens)}`);
  const granted = (tokens?.scope ?? "").split(" ").sort();
  check(JSON.stringify(granted) === JSON.stringify([...scopes].sort()), `${what}: granted ${scopes}: ${tokens?.scope}`);
  const { header, claims } = jwtParts(tokens.access_token);
  check(header.typ === "at+jwt" && header.alg === "ES256" && header.kid, `${what}: the token's header: ${JSON.stringify(header)}`);
  check(claims.iss === server.issuer && claims.aud === server.url, `${what}: iss and aud: ${claims.iss} ${JSON.stringify(claims.aud)}`);
  check(claims.sub === "alice" && claims.email === "alice@example.com" && claims.idp === idp.issuer,
    `${what}: alice, from the provider: ${JSON.stringify(claims)}`);
  check(claims.client_id === clientId && JSON.stringify(claims.scope?.split(" ").sort()) === JSON.stringify(granted),
    `${what}: the client and the scopes in the token: ${claims.client_id} (want ${clientId}) ${claims.scope}`);
}

export function checkDiscovery(requests, { dcr, what }) {
  const seen = requests.map((r) => `${r.method} ${r.path} ${r.status}`);
  check(requests[0]?.path === "/mcp" && requests[0]?.status === 401 && /resource_metadata=/.test(requests[0]?.challenge ?? ""),
    `${what}: the first request is answered 401, naming the resource metadata: ${seen} ${requests[0]?.challenge}`);
  check(requests.some((r) => r.path.startsWith("/.well-known/oauth-protected-resource") && r.status === 200),
    `${what}: the protected resource's metadata: ${seen}`);
  check(requests.some((r) => /^\/\.well-known\/(oauth-authorization-server|openid-configuration)/.test(r.path) && r.status === 200),
    `${what}: the authorization server's metadata: ${seen}`);
  const registered = requests.filter((r) => r.path === "/oauth/register");
  check(dcr ? registered.length === 1 && registered[0].status === 201 : registered.length === 0,
    `${what}: ${dcr ? "registered once (201)" : "never registered"}: ${seen}`);
  check(requests.some((r) => r.method === "POST" && r.path === "/oauth/token" && r.status === 200), `${what}: the code redeemed: ${seen}`);
}

export const insufficient = (r, scope) => r.status === 403 && /error="insufficient_scope"/.test(r.challenge ?? "")
  && r.challenge.includes(`scope="${scope}"`);

export async function listAndSearch(client, want, what) {
  const names = (await within(client.listTools(), 30000, "list")).tools.map((t) => t.name).sort();
  check(JSON.stringify(names) === JSON.stringify(want), `${what}: tools/list: ${names} (want ${want})`);
  // (note 2: the one no flow deletes)
  const found = await within(client.callTool({ name: "search_notes", arguments: { query: "standup" } }), 30000, "search");
  check(!found.isError && found.structuredContent?.result?.[0]?.title === "Standup notes", `${what}: search_notes: ${JSON.stringify(found)}`);
}

// The two SDKs behind one face: `make()` a transport and a client (the 2.x one pinned to
// 2026-07-28, answering elicitations with `onAsk`), `finish(transport, redirect)` redeems the
// code (the 2.x one given the whole callback query, so that it checks `iss`).
export const SDKS = {
  "1.32.2": {
    make(url, provider, fetchFn) {
      return { transport: new Transport1(new URL(url), { authProvider: provider, fetch: fetchFn }),
        client: new Client({ name: "toolsmith-interop-signin", version: "0.0.0" }) };
    },
    finish: (transport, redirect) => transport.finishAuth(redirect.searchParams.get("code")),
    Unauthorized: UnauthorizedError,
  },
  "2.4.0": {
    make(url, provider, fetchFn, onAsk) {
      const transport = new ModernTransport(new URL(url), { authProvider: provider, fetch: fetchFn });
      const client = new ModernClient({ name: "toolsmith-interop-signin", version: "0.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: {} } });
      if (onAsk) client.setRequestHandler("elicitation/create", onAsk);
      return { transport, client };
    },
    finish: (transport, redirect) => transport.finishAuth(redirect.searchParams),
    Unauthorized: ModernUnauthorizedError,
  },
};

// From the first request to a connected client, signed in for the 401's scope (tools:read):
// the first connect is refused with the SDK's UnauthorizedError once the user agent reached
// the redirect URI; the code is redeemed; a new transport connects. `document` is the Client
// ID Metadata Document's server (undefined: dynamic registration). Checks the consent page
// (the client named, "unverified" only for a registered one), the redirect, discovery and the
// token. Returns {client, clientId}.
export async function signIn({ sdk, provider, rec, server, idp, document, name, onAsk, what }) {
  const face = SDKS[sdk];
  const first = face.make(server.url, provider, rec.fetchFn, onAsk);
  try {
    await within(first.client.connect(first.transport), 60000, `${what}: first connect`);
    check(false, `${what}: connected without signing in`);
  } catch (err) {
    check(err instanceof face.Unauthorized, `${what}: the first connect asks for sign-in: ${err}`);
  }
  const asked = provider.kept.authorizationUrl?.searchParams;
  check(asked?.get("resource") === server.url, `${what}: resource is the MCP endpoint: ${asked?.get("resource")}`);
  if (document) {
    check(asked?.get("client_id") === document.url, `${what}: the client id is the document's URL: ${asked?.get("client_id")}`);
    check(document.requests.some((r) => r.method === "GET" && r.path === new URL(document.url).pathname),
      `${what}: the server fetched the document: ${JSON.stringify(document.requests)}`);
  }
  const text = provider.kept.consents[0]?.text ?? "";
  check(text.includes(name) && text.includes("127.0.0.1") && /unverified/i.test(text) === !document,
    `${what}: the consent page names the client and its host${document ? "" : ", unverified"}: ${text.slice(0, 400)}`);
  checkOffered(provider, ["tools:read"], what);
  const redirect = checkRedirect(provider, server, what);
  await within(face.finish(first.transport, redirect), 30000, `${what}: finishAuth`);
  checkDiscovery(rec.requests, { dcr: !document, what });
  const clientId = document ? document.url : provider.kept.client?.client_id;
  checkToken(provider.kept.tokens, { server, idp, clientId, scopes: ["tools:read"], what });
  const { client, transport } = face.make(server.url, provider, rec.fetchFn, onAsk);
  await within(client.connect(transport), 30000, `${what}: connect`);
  return { client, transport, clientId };
}

// The claims of a JWT (not verified: the server under test verifies it), and its header.
export function jwtParts(token) {
  const [header, payload] = String(token).split(".");
  const decode = (part) => JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  return { header: decode(header), claims: decode(payload) };
}

// Records every request the SDK makes (method, path, status, WWW-Authenticate) through its `fetch`.
export function recorder() {
  const requests = [];
  const fetchFn = async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    requests.push({ method: init?.method ?? (input instanceof Request ? input.method : "GET"), path: url.pathname,
      status: response.status, challenge: response.headers.get("www-authenticate") ?? undefined });
    return response;
  };
  return { requests, fetchFn };
}
