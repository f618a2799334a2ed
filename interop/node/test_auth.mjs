// Authorization through the official TypeScript SDK: the notes example over Streamable HTTP
// with bearer tokens (made by the tests crate's `mint`, passed in a JSON file).
//
//   node test_auth.mjs URL TOKENS_JSON
//
// A read token lists only the read-only tools and searches; its delete_note call surfaces
// as an error (HTTP 403) and the note stays; a destructive token deletes it; without a token
// the client cannot connect (HTTP 401).

import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

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

async function connect(token) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "toolsmith-interop-auth", version: "0.0.0" });
  await within(client.connect(transport), 30000, "connect");
  return client;
}

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
check(all.length === READ_ONLY.length + 3, `a destructive token lists every tool: ${all}`);
const got = await within(admin.callTool({ name: "get_note", arguments: { note_id: 1 } }), 30000, "get");
check(!got.isError && got.structuredContent?.id === 1, `note 1 is still there: ${JSON.stringify(got)}`);
const deleted = await within(admin.callTool({ name: "delete_note", arguments: { note_id: 1 } }), 30000, "delete");
check(!deleted.isError, `a destructive token deletes: ${JSON.stringify(deleted)}`);
await admin.close();

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
