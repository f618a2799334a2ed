// The notes example's task-capable tool, `import_notes`, driven by the TypeScript tasks client
// (`@modelcontextprotocol/ext-tasks`, on the TypeScript SDK 2.x client) at MCP 2026-07-28:
// the tasks extension `io.modelcontextprotocol/tasks` (SEP-2663, which ext-tasks calls V2).
// The client pins 2026-07-28 (`server/discover`, no `initialize`); the server's capabilities
// name the extension, so ext-tasks speaks V2, whose task traffic (`tools/call` answered with
// `resultType: "task"`, `tasks/get`, `tasks/cancel`) the SDK's own codecs do not carry: it goes
// through `rawDispatch`, here the SDK's own HTTP transport with request ids of this script's
// (its answers taken off the transport before the SDK sees them), and ext-tasks frames each
// such request's `_meta` (the revision, clientInfo, and clientCapabilities with the extension).
//   1. import_notes (5 notes, 300 ms each) through ext-tasks: a task, not an inline result;
//      polled to `completed`, its result (a CallToolResult) says created == 5.
//   2. while it works, the polls see `working` and the status message "imported N of 5 notes".
//   3. import_notes (100 notes, 100 ms each), cancelled through ext-tasks once it has begun:
//      the server acknowledges, and says the task is `cancelled` (tasks/get), and no more
//      notes are made after.
//   4. import_notes called by the SDK client alone (no tasks extension declared): an ordinary
//      complete result, created == 2.
// And on the wire (every JSON-RPC message, and over HTTP every POST): each ext-tasks request's
// `_meta` declares the extension, the plain call's does not; tasks/get and tasks/cancel are
// answered `resultType: "complete"`; every POST carries `MCP-Protocol-Version`, `Mcp-Method`
// and `Mcp-Name` (the tool's name, or the task's id) and is answered 200 without a session.
//   node test_tasks.mjs --http URL             against a fresh server listening at URL

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  DispatchError,
  createTaskSessionFromClient,
  resultFromTaskOutcome,
} from "@modelcontextprotocol/ext-tasks/client";

const MODERN = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const CLIENT_INFO = { name: "toolsmith-interop", version: "0.0.0" };
const args = process.argv.slice(2);
if (args[0] !== "--http" || !args[1]) {
  console.error("usage: node test_tasks.mjs --http URL");
  process.exit(2);
}
const label = "typescript ext-tasks";
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
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// A promise that fails after `ms`: every wait on the server is bounded.
function within(ms, promise, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: not done after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

// Every HTTP request (through a recording fetch).
const exchanges = []; // { method, headers, body, status, sessionId }
async function recordingFetch(url, init) {
  const response = await fetch(url, init);
  exchanges.push({
    method: init?.method ?? "GET",
    headers: new Headers(init?.headers),
    body: typeof init?.body === "string" ? JSON.parse(init.body) : undefined,
    status: response.status,
    sessionId: response.headers.get("mcp-session-id"),
  });
  return response;
}
const transport = new StreamableHTTPClientTransport(new URL(args[1]), { fetch: recordingFetch });

// Every JSON-RPC message the transport carries, and the raw requests' own ids: a response to
// one of them is answered to its waiter here and never reaches the SDK's Protocol.
const sent = [];
const received = [];
const waiting = new Map(); // id -> (response) => void
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
      const waiter = message.id !== undefined && (message.result || message.error) ? waiting.get(message.id) : undefined;
      if (waiter) return waiter(message);
      return fn(message, extra);
    });
  },
});

// The host's request coordinator for ext-tasks' V2 traffic: a JSON-RPC request of its own id
// over the same transport (which sets the standard headers from the body), its answer as
// ext-tasks wants it. Bounded by the request's timeout (30 s unless told) and its signal.
let rawIds = 0;
function rawDispatch(request, options = {}) {
  const id = `ext-tasks-${++rawIds}`;
  const timeoutMs = options.context?.requestTimeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    let timer;
    const onAbort = () => done(() => reject(options.signal.reason ?? new DOMException("aborted", "AbortError")));
    const done = (settle) => {
      if (!waiting.has(id)) return;
      waiting.delete(id);
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      settle();
    };
    waiting.set(id, (response) => done(() => resolve(response.error
      ? { kind: "error", error: response.error }
      : { kind: "result", result: response.result })));
    timer = setTimeout(() => done(() => reject(new DispatchError(`${request.method}: no answer after ${timeoutMs} ms`))), timeoutMs);
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    transport.send({ jsonrpc: "2.0", id, ...request }, {
      ...(options.context?.headers ? { headers: options.context.headers } : {}),
      ...(options.signal ? { requestSignal: options.signal } : {}),
    }).catch((err) => done(() => reject(new DispatchError(`${request.method}: ${err?.message ?? err}`, false, { cause: err }))));
  });
}

const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: MODERN } }, capabilities: {} });
let session;
const imported = async () => {
  const found = await client.callTool({ name: "search_notes", arguments: { query: "Imported note" } });
  return found.structuredContent?.result?.length;
};
let completedId;
let cancelledId;
try {
  await within(20_000, client.connect(transport), "connect");
  check(client.getNegotiatedProtocolVersion() === MODERN, `negotiated ${client.getNegotiatedProtocolVersion()}`);
  const extension = client.getServerCapabilities()?.extensions?.[TASKS];
  check(JSON.stringify(extension) === "{}", `the server's capabilities name the tasks extension: ${JSON.stringify(client.getServerCapabilities())}`);

  // 4. The SDK client alone: no tasks extension, so an ordinary result.
  const plain = await within(20_000, client.callTool({ name: "import_notes", arguments: { count: 2, pace_ms: 50 } }), "plain import_notes");
  check(plain.isError === false && plain.structuredContent?.created === 2 && plain.structuredContent?.note_ids?.length === 2,
    `plain import_notes: ${JSON.stringify(plain)}`);

  session = createTaskSessionFromClient(client, {
    endpointId: "toolsmith-interop-notes",
    rawDispatch,
    v2RequestFraming: { protocolVersion: MODERN, clientInfo: CLIENT_INFO, clientCapabilities: {} },
    onError: (err) => check(false, `ext-tasks reported: ${err?.stack ?? err}`),
  });
  check(session.capabilities.execution === true && session.capabilities.cancellation === true,
    `session capabilities ${JSON.stringify(session.capabilities)}`);

  // 1 and 2. A task, polled to completion, its status messages seen on the way. The server
  // writes a task's progress once per poll interval (1 s) and the client polls as often: a
  // task of 3 s has a write between its first progress (0.6 s) and the poll at 2 s, whatever
  // the phase of the two clocks (at 1.5 s, both polls could come before the first write).
  const execution = await within(20_000, session.callTool("import_notes", { count: 5, pace_ms: 600 }, { requestTimeoutMs: 20_000 }), "import_notes through ext-tasks");
  check(execution.kind === "task" && typeof execution.handle?.taskId === "string", `import_notes gave ${execution.kind}, not a task`);
  completedId = execution.handle?.taskId;
  const seen = [];
  const settled = await within(30_000, execution.settle({ onEvent: (event) => { if (event.type === "task") seen.push(event.task); } }), "the import's task");
  check(settled.outcome.status === "completed", `outcome ${JSON.stringify(settled.outcome)}`);
  if (settled.outcome.status === "completed") {
    const result = resultFromTaskOutcome(settled.outcome);
    check(result.isError === false && result.structuredContent?.created === 5 && result.structuredContent?.note_ids?.length === 5,
      `the task's result: ${JSON.stringify(result)}`);
    check(result.content?.[0]?.type === "text" && JSON.parse(result.content[0].text).created === 5, `the result's text ${JSON.stringify(result.content)}`);
  }
  check(settled.lastTask?.status === "completed" && settled.lastTask?.taskId === completedId, `last task ${JSON.stringify(settled.lastTask)}`);
  const working = seen.filter((task) => task.status === "working");
  check(working.length >= 1, `no working status seen: ${JSON.stringify(seen.map((t) => t.status))}`);
  check(working.some((task) => /^imported [1-5] of 5 notes$/.test(task.statusMessage ?? "")),
    `status messages while working: ${JSON.stringify(working.map((t) => t.statusMessage))}`);
  check(seen.every((task) => task.taskId === completedId), "an event of another task");

  // 3. Cancelled once it has begun.
  const before = await imported();
  const long = await within(20_000, session.callTool("import_notes", { count: 100, pace_ms: 100 }, { requestTimeoutMs: 20_000 }), "the long import");
  check(long.kind === "task", `the long import gave ${long.kind}, not a task`);
  cancelledId = long.handle?.taskId;
  const controller = session.task(cancelledId, { requestTimeoutMs: 20_000 });
  let begun;
  for (let i = 0; i < 50; i += 1) { // up to 5 s
    begun = await controller.snapshot();
    if (begun.status !== "working" || begun.statusMessage) break;
    await sleep(100);
  }
  check(begun?.status === "working" && /^imported \d+ of 100 notes$/.test(begun?.statusMessage ?? ""),
    `before the cancel: ${JSON.stringify(begun?.raw)}`);
  await within(20_000, long.cancel(), "the cancel");
  const outcome = await within(20_000, long.result(), "the cancelled task's outcome");
  check(outcome.status === "cancelled", `cancelled outcome ${JSON.stringify(outcome)}`);
  let ended;
  for (let i = 0; i < 50; i += 1) { // up to 5 s: cancellation is cooperative
    ended = await controller.snapshot();
    if (ended.status !== "working") break;
    await sleep(100);
  }
  check(ended?.status === "cancelled", `the server says: ${JSON.stringify(ended?.raw)}`);
  const controlled = await within(20_000, controller.result(), "tasks/get of the cancelled task");
  check(controlled.status === "cancelled", `the controller's outcome ${JSON.stringify(controlled)}`);
  const atCancel = await imported();
  await sleep(500);
  const later = await imported();
  check(atCancel === later && later - before < 100, `notes made after the cancel: ${before} before, ${atCancel} at the cancel, ${later} 0.5 s later`);
  const after = await controller.snapshot();
  check(after.status === "cancelled" && after.lastUpdatedAt === ended.lastUpdatedAt, `0.5 s after: ${JSON.stringify(after.raw)}`);
} catch (err) {
  check(false, `${label}: ${err?.stack ?? err}`);
}
try {
  await within(10_000, session?.close() ?? Promise.resolve(), "the session's close");
} catch (err) {
  check(false, `closing the session: ${err?.stack ?? err}`);
}
await client.close();

// The wire.
const requests = sent.filter((m) => m.method !== undefined && m.id !== undefined);
const replyTo = (request) => received.find((m) => m.id === request.id && (m.result || m.error));
const declaresTasks = (request) => JSON.stringify(request.params?._meta?.["io.modelcontextprotocol/clientCapabilities"]?.extensions?.[TASKS]) === "{}";
check(!requests.some((m) => m.method === "initialize"), "initialize sent");
for (const request of requests) {
  const meta = request.params?._meta ?? {};
  check(meta["io.modelcontextprotocol/protocolVersion"] === MODERN, `${request.method} _meta ${JSON.stringify(meta)}`);
  const reply = replyTo(request);
  check(reply?.result !== undefined, `${request.method} (id ${request.id}): ${JSON.stringify(reply)}`);
}
const imports = requests.filter((m) => m.method === "tools/call" && m.params?.name === "import_notes");
check(imports.length === 3, `${imports.length} import_notes calls`);
const [plainCall, ...taskCalls] = imports;
if (plainCall) {
  check(!declaresTasks(plainCall), `the plain call declares the tasks extension: ${JSON.stringify(plainCall.params._meta)}`);
  const result = replyTo(plainCall)?.result;
  check(result?.resultType === "complete" && result.taskId === undefined, `the plain call's answer ${JSON.stringify(result)}`);
}
for (const call of taskCalls) {
  check(declaresTasks(call), `ext-tasks' call does not declare the tasks extension: ${JSON.stringify(call.params._meta)}`);
  check(JSON.stringify(call.params._meta["io.modelcontextprotocol/clientInfo"]) === JSON.stringify(CLIENT_INFO), `clientInfo ${JSON.stringify(call.params._meta)}`);
  const result = replyTo(call)?.result;
  check(result?.resultType === "task" && result.status === "working" && typeof result.taskId === "string"
    && typeof result.createdAt === "string" && Number.isInteger(result.ttlMs) && result.content === undefined,
    `the created task ${JSON.stringify(result)}`);
}
const taskRequests = requests.filter((m) => m.method?.startsWith("tasks/"));
const gets = taskRequests.filter((m) => m.method === "tasks/get");
const cancels = taskRequests.filter((m) => m.method === "tasks/cancel");
check(gets.some((m) => m.params.taskId === completedId) && gets.some((m) => m.params.taskId === cancelledId), "tasks/get of both tasks");
check(cancels.length === 1 && cancels[0].params.taskId === cancelledId, `tasks/cancel sent ${JSON.stringify(cancels)}`);
for (const request of taskRequests) {
  check(declaresTasks(request), `${request.method} does not declare the tasks extension`);
  const result = replyTo(request)?.result;
  check(result?.resultType === "complete", `${request.method}: ${JSON.stringify(result)}`);
  if (request.method === "tasks/cancel") check(Object.keys(result ?? {}).join() === "resultType", `tasks/cancel answered ${JSON.stringify(result)}`);
  if (request.method === "tasks/get") check(result?.taskId === request.params.taskId, `tasks/get answered another task: ${JSON.stringify(result)}`);
}
const completedGet = gets.map(replyTo).find((reply) => reply?.result?.status === "completed")?.result;
check(completedGet?.taskId === completedId && completedGet.result?.resultType === "complete"
  && completedGet.result.structuredContent?.created === 5, `the completed task's tasks/get: ${JSON.stringify(completedGet)}`);
const posts = exchanges.filter((e) => e.method === "POST" && e.body?.id !== undefined);
check(posts.length === requests.length, `${posts.length} POSTs for ${requests.length} requests`);
for (const post of posts) {
  const what = `POST ${post.body?.method}`;
  check(post.status === 200, `${what}: answered ${post.status}`);
  check(post.sessionId === null, `${what}: session id ${post.sessionId}`);
  check(post.headers.get("mcp-protocol-version") === MODERN, `${what}: MCP-Protocol-Version ${post.headers.get("mcp-protocol-version")}`);
  check(post.headers.get("mcp-method") === post.body?.method, `${what}: Mcp-Method ${post.headers.get("mcp-method")}`);
  const name = post.body?.method === "tools/call" ? post.body.params.name : post.body?.method?.startsWith("tasks/") ? post.body.params.taskId : null;
  if (name !== null) check(post.headers.get("mcp-name") === name, `${what}: Mcp-Name ${post.headers.get("mcp-name")} (want ${name})`);
}
check(!exchanges.some((e) => e.method === "DELETE"), "no session, so no DELETE");
console.log(`${label}: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
