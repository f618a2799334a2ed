// The notes example driven by the TypeScript SDK 2.x client (`@modelcontextprotocol/client`)
// at MCP 2026-07-28: `versionNegotiation: { mode: { pin: "2026-07-28" } }`, so connect() sends
// `server/discover` (on stdio, on a short-lived sibling process the SDK spawns and reaps) and
// never `initialize`, and every request carries the revision in `_meta`. Runs the tutorial's
// flow (tools/list, search_notes, get_note of a missing id, create_note, get_note, delete_note),
// with the SDK's own validation of structuredContent against each outputSchema, and checks on
// the wire (every JSON-RPC message the transport carries, recorded) that no `initialize` is
// sent, that each request's `_meta` names the revision and the client's capabilities, and
// that every result carries `resultType: "complete"` (tools/list also `ttlMs`, `cacheScope`).
// Over HTTP (through a recording fetch) every POST must carry `MCP-Protocol-Version:
// 2026-07-28`, `Mcp-Method` (and `Mcp-Name` for tools/call), and be answered 200 without a
// session id.
// delete_note asks the user first (`confirm`): its first round is answered `input_required`
// (the form "Delete note N?" under inputRequests.confirm, and a requestState); the SDK runs
// its `elicitation/create` handler and calls again with inputResponses and the state echoed.
// Declined, the retry is an error result of kind `refused` and the note stays; accepted, the
// note is deleted.
//   node test_modern.mjs PATH_TO_NOTES_BINARY   stdio: starts `notes serve` itself
//   node test_modern.mjs --http URL             against a fresh server listening at URL

import { checkAsked, confirmingUser, isConfirmation } from "./confirming.mjs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const MODERN = "2026-07-28";
const args = process.argv.slice(2);
const http = args[0] === "--http";
const label = `typescript-sdk-2 ${MODERN}${http ? " http" : ""}`;
setTimeout(() => {
  console.error(`FAILED: ${label}: not finished after 120 s`);
  process.exit(1);
}, 120_000).unref();
let passed = 0;
let failed = 0;
function check(condition, what) {
  if (condition) passed += 1;
  else {
    failed += 1;
    console.error(`FAILED: ${what}`);
  }
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// Every JSON-RPC message the client writes (sent) and reads (received), recorded on the
// transport instance (not a subclass: the SDK probes stdio on a sibling only for its own class).
const sent = [];
const received = [];
function record(transport) {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    sent.push(structuredClone(message));
    return send(message, options);
  };
  let handler;
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    get: () => handler,
    set: (fn) => {
      handler = fn && ((message, extra) => {
        received.push(structuredClone(message));
        return fn(message, extra);
      });
    },
  });
  return transport;
}

const exchanges = []; // { method, headers, body, status, sessionId } per HTTP request
async function recordingFetch(url, init) {
  const response = await fetch(url, init);
  const headers = new Headers(init?.headers);
  exchanges.push({
    method: init?.method ?? "GET",
    headers,
    body: typeof init?.body === "string" ? JSON.parse(init.body) : undefined,
    status: response.status,
    sessionId: response.headers.get("mcp-session-id"),
  });
  return response;
}

const transport = record(
  http
    ? new StreamableHTTPClientTransport(new URL(args[1]), { fetch: recordingFetch })
    : new StdioClientTransport({ command: args[0], args: ["serve"], stderr: "ignore" }),
);
const client = new Client(
  { name: "toolsmith-interop", version: "0.0.0" },
  { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: {} } },
);
// The user: answers every question with `user.answer`, and remembers what it was asked.
const user = confirmingUser();
client.setRequestHandler("elicitation/create", user.handle);

try {
  await client.connect(transport);
  check(client.getProtocolEra() === "modern", `era ${client.getProtocolEra()}`);
  check(client.getNegotiatedProtocolVersion() === MODERN, `negotiated ${client.getNegotiatedProtocolVersion()}`);
  check(client.getDiscoverResult()?.supportedVersions?.includes(MODERN), "server/discover offers 2026-07-28");
  check(client.getServerVersion()?.name === "toolsmith-examples", `server ${JSON.stringify(client.getServerVersion())}`);

  const listed = await client.listTools();
  const names = listed.tools.map((t) => t.name).sort();
  check(same(names, ["create_note", "delete_note", "get_note", "import_notes", "import_url", "search_notes", "tag_chart"]), `tools ${names}`);

  const text = (r) => r.content?.[0]?.text ?? "";
  const found = await client.callTool({ name: "search_notes", arguments: { query: "parser" } });
  check(same(found.structuredContent?.result?.map((n) => n.title), ["Standup notes"]), `search ${JSON.stringify(found)}`);
  // A missing note: an error result (isError) or a JSON-RPC error, as the server answers.
  try {
    const missing = await client.callTool({ name: "get_note", arguments: { note_id: 99 } });
    check(missing.isError === true && text(missing) === "No note with id 99.", `missing: ${JSON.stringify(missing)}`);
  } catch (err) {
    check(String(err?.message).includes("99"), `missing as a JSON-RPC error: ${err}`);
  }
  const created = await client.callTool({ name: "create_note", arguments: { title: "TS2", body: "at 2026-07-28" } });
  const id = created.structuredContent?.id;
  check(created.isError === false && id === 4, `created ${JSON.stringify(created.structuredContent)}`);
  const got = await client.callTool({ name: "get_note", arguments: { note_id: id } });
  check(got.structuredContent?.title === "TS2", `get created ${JSON.stringify(got.structuredContent)}`);
  user.answer = "decline";
  const declined = await client.callTool({ name: "delete_note", arguments: { note_id: id } });
  checkAsked(check, user, id, "delete_note, declined");
  const said = (declined.content ?? []).map((b) => b.text ?? "").join(" ");
  check(declined.isError === true && declined._meta?.["dev.toolsmith/error"] === "refused"
    && said.includes("declined") && said.includes("did not run"), `delete_note, declined: ${JSON.stringify(declined)}`);
  const still = await client.callTool({ name: "get_note", arguments: { note_id: id } });
  check(still.structuredContent?.title === "TS2", `after the decline the note is still there: ${JSON.stringify(still)}`);
  user.answer = "accept";
  const deleted = await client.callTool({ name: "delete_note", arguments: { note_id: id } });
  checkAsked(check, user, id, "delete_note, accepted");
  check(same(deleted.structuredContent, { note_id: id, deleted: true }), `delete ${JSON.stringify(deleted.structuredContent)}`);
} catch (err) {
  check(false, `${label}: ${err?.stack ?? err}`);
}
await client.close();

// The wire.
const requests = sent.filter((m) => m.method !== undefined && m.id !== undefined);
const methods = sent.filter((m) => m.method !== undefined).map((m) => m.method);
check(!methods.includes("initialize") && !methods.includes("notifications/initialized"), `handshake sent: ${methods}`);
// search, get 99, create, get, delete (declined: 2 rounds), get, delete (accepted: 2 rounds)
check(methods.filter((m) => m === "tools/call").length === 9, `requests ${methods}`);
check(!received.some((m) => m.method !== undefined && m.id !== undefined), "the server sent a request (at 2026-07-28 it asks in input_required results)");
// delete_note's rounds: a first call answered input_required, then the same call with the answer and the state.
const deletes = requests.filter((m) => m.method === "tools/call" && m.params?.name === "delete_note");
check(deletes.length === 4, `delete_note sent ${deletes.length} times (2 calls of 2 rounds)`);
for (let i = 0; i + 1 < deletes.length; i += 2) {
  const [first, retry] = [deletes[i], deletes[i + 1]];
  const what = `delete_note (id ${first.id})`;
  const result = received.find((m) => m.id === first.id && m.result)?.result ?? {};
  check(first.params.requestState === undefined, `${what}: a first round with a state`);
  check(result.resultType === "input_required", `${what}: resultType ${result.resultType}`);
  const asked = result.inputRequests?.confirm;
  check(asked?.method === "elicitation/create" && asked.params?.mode === "form"
    && isConfirmation(asked.params, first.params.arguments?.note_id),
    `${what}: inputRequests ${JSON.stringify(result.inputRequests)}`);
  check(typeof result.requestState === "string" && result.requestState !== "", `${what}: requestState ${result.requestState}`);
  check(same(retry.params.arguments, first.params.arguments), `${what}: the retry's arguments ${JSON.stringify(retry.params.arguments)}`);
  check(retry.params.requestState === result.requestState, `${what}: the retry echoes the state: ${retry.params.requestState}`);
  check(["accept", "decline"].includes(retry.params.inputResponses?.confirm?.action), `${what}: inputResponses ${JSON.stringify(retry.params.inputResponses)}`);
}
const firstRounds = new Set(deletes.filter((_, i) => i % 2 === 0).map((m) => m.id));
if (http) check(methods[0] === "server/discover", `first request ${methods[0]}`);
for (const request of requests) {
  const meta = request.params?._meta ?? {};
  check(meta["io.modelcontextprotocol/protocolVersion"] === MODERN, `${request.method} _meta ${JSON.stringify(meta)}`);
  check(typeof meta["io.modelcontextprotocol/clientCapabilities"] === "object", `${request.method}: no clientCapabilities`);
  const reply = received.find((m) => m.id === request.id && (m.result || m.error));
  check(reply !== undefined, `${request.method} (id ${request.id}): no response`);
  if (!reply?.result) continue;
  if (!firstRounds.has(request.id)) check(reply.result.resultType === "complete", `${request.method}: resultType ${reply.result.resultType}`);
  if (request.method === "tools/list") {
    check(Number.isInteger(reply.result.ttlMs), `tools/list ttlMs ${reply.result.ttlMs}`);
    check(["public", "private"].includes(reply.result.cacheScope), `tools/list cacheScope ${reply.result.cacheScope}`);
  }
}
if (http) {
  const posts = exchanges.filter((e) => e.method === "POST");
  check(posts.length >= 7, `${posts.length} POSTs`);
  for (const post of posts) {
    const what = `POST ${post.body?.method}`;
    check(post.status === 200, `${what}: answered ${post.status}`);
    check(post.sessionId === null, `${what}: session id ${post.sessionId}`);
    check(post.headers.get("mcp-protocol-version") === MODERN, `${what}: MCP-Protocol-Version ${post.headers.get("mcp-protocol-version")}`);
    check(post.headers.get("mcp-method") === post.body?.method, `${what}: Mcp-Method ${post.headers.get("mcp-method")}`);
    if (post.body?.method === "tools/call") {
      check(post.headers.get("mcp-name") === post.body.params.name, `${what}: Mcp-Name ${post.headers.get("mcp-name")}`);
    }
  }
  check(!exchanges.some((e) => e.method === "DELETE"), "no session, so no DELETE");
}
console.log(`${label}: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
