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
//   3. and 4. The other way round, sign-in only: sdk 1.32.2 with a Client ID Metadata
//      Document, sdk 2.4.0 with dynamic registration.
// Each access token is a JWT (typ at+jwt, ES256) naming alice (sub, email, the provider as
// idp), the client, and exactly the scopes granted.

import { auth } from "@modelcontextprotocol/sdk/client/auth.js";

import { confirmingUser } from "./confirming.mjs";
import {
  ALL_TOOLS, READ_ONLY, SCOPES, SDKS, check, checkOffered, checkRedirect, checkToken, clientMetadata, insufficient, listAndSearch,
  makeProvider, recorder, signIn, tally, within,
} from "./signin_client.mjs";
import {
  freePort, makeCertificates, operatorClient, serveMetadataDocument, startNotes, startProvider, stop, tail, workDir,
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

// A Client ID Metadata Document for `name`, served over HTTPS by the test.
function metadataDocument(certificates, name, redirectUrl) {
  return serveMetadataDocument(certificates, (url) => ({
    client_id: url,
    client_uri: new URL("/", url).href,
    ...clientMetadata(name, redirectUrl),
  }));
}

// 1. SDK 1.32.2, dynamic registration; the application signs in again for every scope.
async function sdk1Dcr({ server, idp, redirectUrl }) {
  const what = "sdk 1.32.2 (DCR)";
  const name = "Interop SDK1 client";
  const rec = recorder();
  const provider = makeProvider({ name, redirectUrl, consent: { server, idp } });
  let { client, clientId } = await signIn({ sdk: "1.32.2", provider, rec, server, idp, name, what });
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
  const { transport: retry } = SDKS["1.32.2"].make(server.url, provider, rec.fetchFn);
  await within(SDKS["1.32.2"].finish(retry, second), 30000, `${what}: finishAuth again`);
  check(rec.requests.filter((r) => r.path === "/oauth/register").length === 0, `${what}: no second registration`);
  checkToken(provider.kept.tokens, { server, idp, clientId, scopes: SCOPES, what: `${what}, again` });

  const fresh = SDKS["1.32.2"].make(server.url, provider, rec.fetchFn);
  client = fresh.client;
  await within(client.connect(fresh.transport), 30000, `${what}: connect with every scope`);
  await listAndSearch(client, ALL_TOOLS, `${what}, every scope`);
  rec.requests.length = 0;
  const refused = await within(client.callTool({ name: "delete_note", arguments: { note_id: 2 } }), 30000, "delete");
  const said = (refused.content ?? []).map((b) => b.text ?? "").join(" ");
  check(refused.isError === true && refused._meta?.["dev.toolsmith/error"] === "refused" && /confirmation/.test(said),
    `${what}: delete_note passes the scope check, and is refused by its confirmation (stateless, 2025-11-25): ${JSON.stringify(refused)}`);
  check(rec.requests.every((r) => r.status !== 401 && r.status !== 403), `${what}: no 401 nor 403 once signed in for every scope: ${JSON.stringify(rec.requests)}`);
  await client.close();
}

// 2. SDK 2.4.0, a Client ID Metadata Document; the SDK steps up by itself.
async function sdk2Cimd({ server, idp, redirectUrl, certificates }) {
  const what = "sdk 2.4.0 (Client ID Metadata Document)";
  const name = "Interop CIMD client";
  const document = await metadataDocument(certificates, name, redirectUrl);
  try {
    const rec = recorder();
    const provider = makeProvider({ name, redirectUrl, metadataUrl: document.url, consent: { server, idp } });
    const user = confirmingUser(); // answers "accept"
    const { client, transport } = await signIn({ sdk: "2.4.0", provider, rec, server, idp, document, name, onAsk: user.handle, what });
    check(client.getNegotiatedProtocolVersion() === "2026-07-28", `${what}: negotiated ${client.getNegotiatedProtocolVersion()}`);
    await listAndSearch(client, READ_ONLY, `${what}, tools:read`);
    rec.requests.length = 0;
    try {
      const result = await within(client.callTool({ name: "delete_note", arguments: { note_id: 1 } }), 60000, "delete");
      check(false, `${what}: delete_note with tools:read must not run: ${JSON.stringify(result)}`);
    } catch (err) {
      check(err instanceof SDKS["2.4.0"].Unauthorized, `${what}: delete_note with tools:read: the SDK steps up: ${err}`);
    }
    check(rec.requests.some((r) => insufficient(r, "tools:destructive")), `${what}: the 403 asks for tools:destructive: ${JSON.stringify(rec.requests)}`);
    check(provider.kept.consents.length === 2, `${what}: a second consent: ${provider.kept.consents.length}`);
    checkOffered(provider, ["tools:read", "tools:destructive"], `${what}, step-up`);
    const second = checkRedirect(provider, server, `${what}, step-up`);
    await within(SDKS["2.4.0"].finish(transport, second), 30000, `${what}: finishAuth, step-up`);
    checkToken(provider.kept.tokens, { server, idp, clientId: document.url, scopes: ["tools:read", "tools:destructive"], what: `${what}, step-up` });
    const deleted = await within(client.callTool({ name: "delete_note", arguments: { note_id: 1 } }), 30000, "delete");
    check(user.asked.length === 1 && user.asked[0]?.message === "Delete note 1?", `${what}: the user was asked once: ${JSON.stringify(user.asked)}`);
    check(!deleted.isError && deleted.structuredContent?.deleted === true, `${what}: delete_note deleted note 1: ${JSON.stringify(deleted)}`);
    await client.close();
  } finally {
    await document.close();
  }
}

// 3. and 4. Sign-in only, the other way round.
async function signInOnly({ server, idp, redirectUrl, certificates }, sdk, cimd) {
  const what = `sdk ${sdk} (${cimd ? "Client ID Metadata Document" : "DCR"})`;
  const name = `Interop SDK ${sdk} ${cimd ? "CIMD" : "DCR"} client`;
  const document = cimd ? await metadataDocument(certificates, name, redirectUrl) : undefined;
  try {
    const rec = recorder();
    const provider = makeProvider({ name, redirectUrl, metadataUrl: document?.url, consent: { server, idp } });
    const { client } = await signIn({ sdk, provider, rec, server, idp, document, name, what });
    await listAndSearch(client, READ_ONLY, `${what}, tools:read`);
    await client.close();
  } finally {
    await document?.close();
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
  const env = { server, idp, redirectUrl, certificates };
  for (const [name, run] of [
    ["sdk 1.32.2, DCR", () => sdk1Dcr(env)],
    ["sdk 2.4.0, CIMD", () => sdk2Cimd(env)],
    ["sdk 1.32.2, CIMD", () => signInOnly(env, "1.32.2", true)],
    ["sdk 2.4.0, DCR", () => signInOnly(env, "2.4.0", false)],
  ]) {
    try {
      await run();
    } catch (err) {
      check(false, `${name}: ${err?.stack ?? err}`);
    }
  }
} catch (err) {
  check(false, `sign-in: ${err?.stack ?? err}`);
}
if (tally.failed && server) console.error(`the notes server's output:\n${tail(server, 30)}`);
if (tally.failed && idp) console.error(`the provider's output:\n${tail(idp, 15)}`);
const notesStatus = await stop(server);
check(!server || notesStatus === 0, `the notes server exits 0 on SIGTERM: ${notesStatus}`);
await stop(idp);
console.log(`sign-in (typescript sdk): ${tally.passed} passed, ${tally.failed} failed`);
process.exit(tally.failed === 0 && tally.passed > 0 ? 0 : 1);
