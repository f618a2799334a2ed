// Sign-in (issue #55) through the official TypeScript SDKs' OAuth clients: the notes example
// serving with its own authorization server (`notes serve --http 127.0.0.1:PORT
// --signin-oidc IDP ...`) in front of a real OpenID provider (interop/node/idp.mjs,
// `oidc-provider`, users alice and bob).
//
//   node test_signin.mjs NOTES_BINARY IDP_SCRIPT
//
// Each client runs the whole flow: its first request is answered 401 (naming the resource
// metadata and the scope to ask, tools:read); it discovers the protected resource's metadata
// and the authorization server's, gets a client id, and sends the user to the authorization
// endpoint. The user is a headless user agent (browse.mjs: redirects followed one by one,
// cookies kept, forms posted): it signs in as alice at the provider, answers the provider's
// consent, then toolsmith's consent page ("allow", every scope offered ticked), and stops at
// the redirect to the client's loopback redirect URI, where the code, the state and `iss` are
// read. The client redeems the code (`finishAuth`) and calls: with tools:read, tools/list
// lists the read-only tools and search_notes answers; delete_note is refused with 403
// insufficient_scope naming tools:destructive, and the client signs in again for more.
//   1. `@modelcontextprotocol/sdk` 1.32.2 registers dynamically (POST /oauth/register). Its
//      own step-up on the 403 only refreshes its token (a refresh cannot widen a grant) and
//      gives up, so the application signs in again with every scope (`auth`, the same user
//      agent, still signed in at the provider); every tool is then listed, and delete_note,
//      at 2025-11-25 on a stateless server, passes the scope check and is refused by its
//      confirmation (no user can be asked there), not by a 403.
//   2. `@modelcontextprotocol/client` 2.4.0 (pinned to 2026-07-28) uses a Client ID Metadata
//      Document: its client id is an HTTPS URL served by this test (under a CA made for the
//      run, which the notes server trusts through SSL_CERT_FILE; 127.0.0.1 is allowed with
//      --signin-allow-host); the server fetches the document, the consent page names the
//      client it describes, and the SDK checks `iss` in the redirect. On the 403 the SDK steps
//      up by itself (tools:read and tools:destructive); once the new code is redeemed,
//      delete_note asks the user (elicitation), who accepts, and the note is deleted.
// Each access token is a JWT (typ at+jwt, ES256) naming alice (sub, email, the provider as
// idp), the client, and exactly the scopes granted.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as Transport1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError, auth } from "@modelcontextprotocol/sdk/client/auth.js";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
  UnauthorizedError as ModernUnauthorizedError,
} from "@modelcontextprotocol/client";
import { randomBytes } from "node:crypto";

import { Browser, pageText, parseForm } from "./browse.mjs";
import {
  freePort, jwtParts, makeCertificates, operatorClient, recorder, serveMetadataDocument, startNotes, startProvider, stop, tail, workDir,
} from "./signin_stack.mjs";

const [notesBinary, idpScript] = process.argv.slice(2);
if (!notesBinary || !idpScript) {
  console.error("usage: node test_signin.mjs NOTES_BINARY IDP_SCRIPT");
  process.exit(2);
}
setTimeout(() => {
  console.error("FAILED: sign-in (typescript sdk): not finished after 150 s");
  process.exit(1);
}, 150_000).unref();

let passed = 0;
let failed = 0;
function check(ok, what) {
  if (ok) passed++;
  else {
    failed++;
    console.error(`FAILED: ${what}`);
  }
}
const within = (promise, ms, what) =>
  Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms))]);

const ALL_TOOLS = ["create_note", "delete_note", "get_note", "import_notes", "import_url", "search_notes", "tag_chart"];
const SCOPES = ["tools:read", "tools:write", "tools:destructive"];
const READ_ONLY = ["get_note", "search_notes", "tag_chart"];
const USER = { login: "alice", password: "alice" };

// The OAuth client provider of one client (either SDK): everything kept in memory. Its
// "redirect" to the authorization endpoint runs the headless user agent (one per client, so
// that a second authorization finds the user still signed in at the provider) to the
// redirect back to the client, and keeps where it stopped and what the consent page offered.
function makeProvider({ name, redirectUrl, metadataUrl, consent }) {
  const kept = { state: randomBytes(16).toString("hex"), browser: new Browser(), consents: [] };
  return {
    kept,
    get redirectUrl() {
      return redirectUrl;
    },
    ...(metadataUrl ? { clientMetadataUrl: metadataUrl } : {}),
    get clientMetadata() {
      return {
        client_name: name,
        redirect_uris: [redirectUrl],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        scope: SCOPES.join(" "),
      };
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
async function authorize(browser, url, { server, idp, redirectUrl }) {
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

function checkRedirect(provider, server, what) {
  const redirect = provider.kept.redirect;
  if (!redirect) throw new Error(`${what}: the user agent never reached the redirect URI`);
  const params = redirect.searchParams;
  check(params.get("code") && !params.get("error"), `${what}: the redirect carries a code: ${redirect}`);
  check(params.get("state") === provider.kept.state, `${what}: the state comes back: ${params.get("state")}`);
  check(params.get("iss") === server.issuer, `${what}: iss is the server's issuer: ${params.get("iss")}`);
  return redirect;
}

function checkOffered(provider, scopes, what) {
  const last = provider.kept.consents.at(-1);
  check(JSON.stringify([...(last?.offered ?? [])].sort()) === JSON.stringify([...scopes].sort()),
    `${what}: the consent page offers ${scopes}: ${last?.offered}`);
}

function checkToken(tokens, { server, idp, clientId, scopes, what }) {
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

function checkDiscovery(requests, { dcr, what }) {
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

const insufficient = (r, scope) => r.status === 403 && /error="insufficient_scope"/.test(r.challenge ?? "")
  && r.challenge.includes(`scope="${scope}"`);

async function listAndSearch(client, want, what) {
  const names = (await within(client.listTools(), 30000, "list")).tools.map((t) => t.name).sort();
  check(JSON.stringify(names) === JSON.stringify(want), `${what}: tools/list: ${names} (want ${want})`);
  const found = await within(client.callTool({ name: "search_notes", arguments: { query: "milk" } }), 30000, "search");
  check(!found.isError && found.structuredContent?.result?.[0]?.title === "Groceries", `${what}: search_notes: ${JSON.stringify(found)}`);
}

// 1. SDK 1.32.2, dynamic client registration. It asks for the scope of the server's 401
// (tools:read); its delete_note is then refused (403, insufficient_scope, tools:destructive).
// The SDK's own step-up first tries its refresh token, which cannot widen a grant, and gives
// up; so the application signs in again for every scope (the same user agent: still signed in
// at the provider), and the SDK redeems the new code.
async function sdk1(server, idp, redirectUrl) {
  const what = "sdk 1.32.2 (DCR)";
  const rec = recorder();
  const provider = makeProvider({ name: "Interop SDK1 client", redirectUrl, consent: { server, idp } });
  const connect = async () => {
    const transport = new Transport1(new URL(server.url), { authProvider: provider, fetch: rec.fetchFn });
    const client = new Client({ name: "toolsmith-interop-signin", version: "0.0.0" });
    await within(client.connect(transport), 30000, `${what}: connect`);
    return client;
  };
  const transport = new Transport1(new URL(server.url), { authProvider: provider, fetch: rec.fetchFn });
  try {
    await within(new Client({ name: "toolsmith-interop-signin", version: "0.0.0" }).connect(transport), 60000, `${what}: first connect`);
    check(false, `${what}: connected without signing in`);
  } catch (err) {
    check(err instanceof UnauthorizedError, `${what}: the first connect asks for sign-in: ${err}`);
  }
  const text = provider.kept.consents[0]?.text ?? "";
  check(text.includes("Interop SDK1 client") && /unverified/i.test(text) && text.includes("127.0.0.1"),
    `${what}: the consent page names the client, its redirect host, unverified: ${text.slice(0, 400)}`);
  checkOffered(provider, ["tools:read"], what);
  const redirect = checkRedirect(provider, server, what);
  check(provider.kept.authorizationUrl.searchParams.get("resource") === server.url,
    `${what}: resource is the MCP endpoint: ${provider.kept.authorizationUrl.searchParams.get("resource")}`);
  await within(transport.finishAuth(redirect.searchParams.get("code")), 30000, `${what}: finishAuth`);
  checkDiscovery(rec.requests, { dcr: true, what });
  const clientId = provider.kept.client?.client_id;
  checkToken(provider.kept.tokens, { server, idp, clientId, scopes: ["tools:read"], what });

  let client = await connect();
  await listAndSearch(client, READ_ONLY, `${what}, tools:read`);
  rec.requests.length = 0;
  try {
    const result = await within(client.callTool({ name: "delete_note", arguments: { note_id: 2 } }), 30000, "delete");
    check(false, `${what}: delete_note with tools:read must fail: ${JSON.stringify(result)}`);
  } catch (err) {
    check(/403/.test(String(err?.message ?? err)), `${what}: delete_note with tools:read fails with a 403: ${err}`);
  }
  check(rec.requests.some((r) => insufficient(r, "tools:destructive")),
    `${what}: the 403 asks for tools:destructive: ${JSON.stringify(rec.requests)}`);
  await client.close();

  // Signing in again, for every scope.
  provider.kept.tokens = undefined;
  const again = await within(auth(provider, { serverUrl: server.url, scope: SCOPES.join(" "), fetchFn: rec.fetchFn }), 60000, `${what}: sign in again`);
  check(again === "REDIRECT", `${what}: signing in again goes through the authorization endpoint: ${again}`);
  checkOffered(provider, SCOPES, `${what}, again`);
  const second = checkRedirect(provider, server, `${what}, again`);
  const hops = provider.kept.browser.hops.map((h) => new URL(h.url).pathname);
  check(hops.filter((p) => p === "/oauth/register").length === 0, `${what}: no second registration`);
  const retry = new Transport1(new URL(server.url), { authProvider: provider, fetch: rec.fetchFn });
  await within(retry.finishAuth(second.searchParams.get("code")), 30000, `${what}: finishAuth again`);
  checkToken(provider.kept.tokens, { server, idp, clientId, scopes: SCOPES, what: `${what}, again` });

  client = await connect();
  await listAndSearch(client, ALL_TOOLS, `${what}, every scope`);
  rec.requests.length = 0;
  const refused = await within(client.callTool({ name: "delete_note", arguments: { note_id: 2 } }), 30000, "delete");
  const said = (refused.content ?? []).map((b) => b.text ?? "").join(" ");
  check(refused.isError === true && refused._meta?.["dev.toolsmith/error"] === "refused" && /confirmation/.test(said),
    `${what}: delete_note passes the scope check, and is refused by its confirmation (stateless, 2025-11-25): ${JSON.stringify(refused)}`);
  check(rec.requests.every((r) => r.status !== 401 && r.status !== 403), `${what}: no 401 nor 403 once signed in for every scope: ${JSON.stringify(rec.requests)}`);
  await client.close();
}

// 2. SDK 2.4.0 at 2026-07-28, a Client ID Metadata Document. Signed in for tools:read (the
// 401's scope), its delete_note gets the 403 and the SDK steps up by itself (SEP-835): it
// sends the user to the authorization endpoint for tools:read and tools:destructive, and the
// call fails with UnauthorizedError; the application redeems the code (`finishAuth`, which
// checks `iss`) and calls again: the user is asked to confirm (elicitation), accepts, and the
// note is deleted.
async function sdk2(server, idp, redirectUrl, certificates) {
  const what = "sdk 2.4.0 (Client ID Metadata Document)";
  const document = await serveMetadataDocument(certificates, (url) => ({
    client_id: url,
    client_name: "Interop CIMD client",
    client_uri: new URL("/", url).href,
    redirect_uris: [redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  }));
  try {
    const rec = recorder();
    const provider = makeProvider({ name: "Interop CIMD client", redirectUrl, metadataUrl: document.url, consent: { server, idp } });
    const asked = [];
    const make = () => {
      const transport = new ModernTransport(new URL(server.url), { authProvider: provider, fetch: rec.fetchFn });
      const client = new ModernClient({ name: "toolsmith-interop-signin", version: "0.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: {} } });
      client.setRequestHandler("elicitation/create", async (request) => {
        asked.push(request.params);
        return { action: "accept", content: { confirm: true } };
      });
      return { client, transport };
    };
    let { client, transport } = make();
    try {
      await within(client.connect(transport), 60000, `${what}: first connect`);
      check(false, `${what}: connected without signing in`);
    } catch (err) {
      check(err instanceof ModernUnauthorizedError, `${what}: the first connect asks for sign-in: ${err}`);
    }
    check(provider.kept.authorizationUrl?.searchParams.get("client_id") === document.url,
      `${what}: the client id is the document's URL: ${provider.kept.authorizationUrl?.searchParams.get("client_id")}`);
    check(document.requests.some((r) => r.method === "GET" && r.path === "/client.json"),
      `${what}: the server fetched the document: ${JSON.stringify(document.requests)}`);
    const text = provider.kept.consents[0]?.text ?? "";
    check(text.includes("Interop CIMD client") && text.includes("127.0.0.1") && !/unverified/i.test(text),
      `${what}: the consent page names the client of the document and its host: ${text.slice(0, 400)}`);
    checkOffered(provider, ["tools:read"], what);
    const redirect = checkRedirect(provider, server, what);
    await within(transport.finishAuth(redirect.searchParams), 30000, `${what}: finishAuth`);
    checkDiscovery(rec.requests, { dcr: false, what });
    checkToken(provider.kept.tokens, { server, idp, clientId: document.url, scopes: ["tools:read"], what });

    ({ client, transport } = make());
    await within(client.connect(transport), 30000, `${what}: connect`);
    check(client.getNegotiatedProtocolVersion() === "2026-07-28", `${what}: negotiated ${client.getNegotiatedProtocolVersion()}`);
    await listAndSearch(client, READ_ONLY, `${what}, tools:read`);
    rec.requests.length = 0;
    try {
      const result = await within(client.callTool({ name: "delete_note", arguments: { note_id: 1 } }), 60000, "delete");
      check(false, `${what}: delete_note with tools:read must not run: ${JSON.stringify(result)}`);
    } catch (err) {
      check(err instanceof ModernUnauthorizedError, `${what}: delete_note with tools:read: the SDK steps up: ${err}`);
    }
    check(rec.requests.some((r) => insufficient(r, "tools:destructive")), `${what}: the 403 asks for tools:destructive: ${JSON.stringify(rec.requests)}`);
    check(provider.kept.consents.length === 2, `${what}: a second consent: ${provider.kept.consents.length}`);
    checkOffered(provider, ["tools:read", "tools:destructive"], `${what}, step-up`);
    const second = checkRedirect(provider, server, `${what}, step-up`);
    await within(transport.finishAuth(second.searchParams), 30000, `${what}: finishAuth, step-up`);
    checkToken(provider.kept.tokens, { server, idp, clientId: document.url, scopes: ["tools:read", "tools:destructive"], what: `${what}, step-up` });
    const deleted = await within(client.callTool({ name: "delete_note", arguments: { note_id: 1 } }), 30000, "delete");
    check(asked.length === 1 && asked[0]?.message === "Delete note 1?", `${what}: the user was asked once: ${JSON.stringify(asked)}`);
    check(!deleted.isError && deleted.structuredContent?.deleted === true, `${what}: delete_note deleted note 1: ${JSON.stringify(deleted)}`);
    await client.close();
  } finally {
    await document.close();
  }
}

const dir = workDir();
let idp;
let server;
try {
  const certificates = makeCertificates(dir);
  const operator = operatorClient(dir);
  const port = await freePort();
  idp = await startProvider(idpScript, { ...operator, redirectUri: `http://127.0.0.1:${port}/oauth/callback` });
  server = await startNotes(notesBinary, { port, idpIssuer: idp.issuer, ...operator, caFile: certificates.ca });
  // The client's loopback redirect URI (RFC 8252): nothing listens there; the user agent stops
  // at the redirect and hands its URL over, as a client's own listener would.
  const redirectUrl = `http://127.0.0.1:${await freePort()}/callback`;
  for (const [name, run] of [["sdk1", () => sdk1(server, idp, redirectUrl)], ["sdk2", () => sdk2(server, idp, redirectUrl, certificates)]]) {
    try {
      await run();
    } catch (err) {
      check(false, `${name}: ${err?.stack ?? err}`);
    }
  }
} catch (err) {
  check(false, `sign-in: ${err?.stack ?? err}`);
}
if (failed && server) console.error(`the notes server's output:\n${tail(server, 30)}`);
if (failed && idp) console.error(`the provider's output:\n${tail(idp, 15)}`);
const notesStatus = await stop(server);
check(!server || notesStatus === 0, `the notes server exits 0 on SIGTERM: ${notesStatus}`);
await stop(idp);
console.log(`sign-in (typescript sdk): ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
