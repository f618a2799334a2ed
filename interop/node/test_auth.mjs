// Authorization through the official TypeScript SDK: the notes example over Streamable HTTP
// with bearer tokens (made by the tests crate's `mint`, passed in a JSON file).
//
//   node test_auth.mjs URL TOKENS_JSON
//
// A read token lists only the read-only tools and searches; its delete_note call surfaces
// as an error (HTTP 403) and the note stays; a destructive token passes the scope check and
// deletes it once the user confirms; without a token the client cannot connect (HTTP 401).
//
// delete_note asks the user first (`confirm`), and the server is stateless: at 2025-11-25
// (`@modelcontextprotocol/sdk`) it cannot ask, so the destructive token's delete_note is
// refused by the confirmation (an error result naming --sessions and 2026-07-28, not a 403),
// and the note stays; at 2026-07-28 (`@modelcontextprotocol/client`, which answers the
// input_required round with its elicitation handler) the same token deletes it.

import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";

const [url, tokensFile] = process.argv.slice(2);
const tokens = JSON.parse(readFileSync(tokensFile, "utf8"));
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

// The user, asked by either client: answers "accept", and remembers what it was asked.
const asked = [];
async function accept(request) {
  asked.push(request.params);
  return { action: "accept", content: { confirm: true } };
}

const statuses = []; // every HTTP status the clients got, in order
async function recordingFetch(input, init) {
  const response = await fetch(input, init);
  statuses.push(response.status);
  return response;
}

async function connect(token) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, fetch: recordingFetch });
  const client = new Client({ name: "toolsmith-interop-auth", version: "0.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, accept);
  await within(client.connect(transport), 30000, "connect");
  return client;
}

async function connectModern(token) {
  const transport = new ModernTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: recordingFetch,
  });
  const client = new ModernClient(
    { name: "toolsmith-interop-auth", version: "0.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: {} } },
  );
  client.setRequestHandler("elicitation/create", accept);
  await within(client.connect(transport), 30000, "connect at 2026-07-28");
  return client;
}
const said = (result) => (result.content ?? []).map((b) => b.text ?? "").join(" ");

const READ_ONLY = ["get_note", "search_notes", "tag_chart"];

const reader = await connect(tokens.read);
const names = (await within(reader.listTools(), 30000, "list")).tools.map((t) => t.name).sort();
check(JSON.stringify(names) === JSON.stringify(READ_ONLY), `a read token lists the read-only tools: ${names}`);
const found = await within(reader.callTool({ name: "search_notes", arguments: { query: "milk" } }), 30000, "search");
check(!found.isError, `a read token searches: ${JSON.stringify(found)}`);
try {
  const result = await within(reader.callTool({ name: "delete_note", arguments: { note_id: 1 } }), 30000, "delete");
  check(false, `a read token's delete_note must fail: ${JSON.stringify(result)}`);
} catch (err) {
  const text = String(err?.message ?? err);
  check(/403|insufficient_scope|Forbidden/.test(text), `the refused delete_note surfaces as an error: ${text.slice(0, 300)}`);
}
await reader.close();

const admin = await connect(tokens.destructive);
const all = (await within(admin.listTools(), 30000, "list")).tools.map((t) => t.name).sort();
check(all.length === READ_ONLY.length + 4, `a destructive token lists every tool: ${all}`);
const got = await within(admin.callTool({ name: "get_note", arguments: { note_id: 1 } }), 30000, "get");
check(!got.isError && got.structuredContent?.id === 1, `note 1 is still there: ${JSON.stringify(got)}`);
statuses.length = 0;
const refused = await within(admin.callTool({ name: "delete_note", arguments: { note_id: 1 } }), 30000, "delete");
check(refused.isError === true && refused._meta?.["dev.toolsmith/error"] === "refused"
  && /confirmation/.test(said(refused)) && /--sessions/.test(said(refused)) && /2026-07-28/.test(said(refused))
  && !/scope/.test(said(refused)), `a destructive token's delete_note at 2025-11-25, stateless, is refused by the confirmation: ${JSON.stringify(refused)}`);
check(!statuses.includes(403) && statuses.every((s) => s === 200 || s === 202), `the destructive token: no 403: ${statuses}`);
check(asked.length === 0, `stateless at 2025-11-25: the user was asked ${JSON.stringify(asked)}`);
const kept = await within(admin.callTool({ name: "get_note", arguments: { note_id: 1 } }), 30000, "get");
check(!kept.isError && kept.structuredContent?.id === 1, `note 1 is still there: ${JSON.stringify(kept)}`);
await admin.close();

try {
  const modern = await connectModern(tokens.destructive);
  check(modern.getNegotiatedProtocolVersion() === "2026-07-28", `negotiated ${modern.getNegotiatedProtocolVersion()}`);
  statuses.length = 0;
  const deleted = await within(modern.callTool({ name: "delete_note", arguments: { note_id: 1 } }), 30000, "delete at 2026-07-28");
  check(asked.length === 1 && asked[0]?.message === "Delete note 1?", `the user was asked once: ${JSON.stringify(asked)}`);
  check(!deleted.isError && deleted.structuredContent?.deleted === true, `a destructive token deletes, confirmed: ${JSON.stringify(deleted)}`);
  check(statuses.length === 2 && statuses.every((s) => s === 200), `2 rounds, each 200: ${statuses}`);
  const gone = await within(modern.callTool({ name: "get_note", arguments: { note_id: 1 } }), 30000, "get at 2026-07-28");
  check(gone.isError === true, `note 1 is gone: ${JSON.stringify(gone)}`);
  await modern.close();
} catch (err) {
  check(false, `the destructive token at 2026-07-28: ${err?.stack ?? err}`);
}

for (const [what, token] of [["no token", undefined], ["another audience", tokens.other_audience]]) {
  try {
    const client = await connect(token);
    check(false, `${what}: the client connected`);
    await client.close();
  } catch (err) {
    const text = String(err?.message ?? err);
    check(/401|Unauthorized/.test(text), `${what}: refused with 401: ${text.slice(0, 300)}`);
  }
}

console.log(`auth (typescript sdk): ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
