// The notes example driven by the official TypeScript SDK (`@modelcontextprotocol/sdk`)
// over stdio: hints and titles, the tutorial's calls, and the SDK's own validation of every
// result (it checks structuredContent against the tool's outputSchema on callTool), down to
// tag_chart's image blocks (the SDK's ImageContent schema checks their base64).
//
// The same checks run over either transport:
//   node test_notes.mjs PATH_TO_NOTES_BINARY        stdio: starts `notes serve` itself
//   node test_notes.mjs --http URL [--sessions]     Streamable HTTP (StreamableHTTPClientTransport)
//                                                   against a fresh server listening at URL
// Over HTTP, a stateless server (the default) must give no session id, and one started with
// --sessions must give one; the SDK ends the session (DELETE) on close.
// delete_note asks the user first (`confirm`): the client declares `elicitation` and answers
// the server's `elicitation/create` (the form "Delete note N?"). On stdio and with --sessions,
// declined, the call is an error result of kind `refused` and the note stays; accepted, it
// deletes. Stateless over HTTP nothing can be asked at 2025-11-25: delete_note is refused,
// naming the ways out (--sessions, 2026-07-28), unasked, and the note stays.

import { checkAsked, checkRefused, confirmingUser } from "./confirming.mjs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  ImageContentSchema,
  ListToolsResultSchema,
  TextContentSchema,
} from "@modelcontextprotocol/sdk/types.js";

const args = process.argv.slice(2);
const http = args[0] === "--http";
const sessions = http && args.includes("--sessions");
const label = http ? `typescript-sdk http${sessions ? " --sessions" : ""}` : "typescript-sdk";
// A transport that hangs must fail the test, not the suite.
setTimeout(() => {
  console.error(`FAILED: ${label}: not finished after 120 s`);
  process.exit(1);
}, 120_000).unref();
// The SDK's schema validator (Ajv) warns about anything non-portable: count it as a failure.
const warnings = [];
console.warn = (...parts) => warnings.push(parts.join(" "));
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

const expected = {
  search_notes: ["Search notes", true, false, true, false],
  get_note: ["Get note", true, false, true, false],
  create_note: ["Create note", false, false, false, false],
  delete_note: ["Delete note", false, true, true, false],
  tag_chart: ["Tag chart", true, false, true, false],
  import_url: ["Import URL", false, false, false, true],
  import_notes: ["Import notes", false, false, false, false],
};

const transport = http
  ? new StreamableHTTPClientTransport(new URL(args[1]))
  : new StdioClientTransport({ command: args[0], args: ["serve"], stderr: "ignore" });
const client = new Client({ name: "toolsmith-interop", version: "0.0.0" }, { capabilities: { elicitation: {} } });
// The user: answers every question with `user.answer`, and remembers what it was asked.
const user = confirmingUser();
client.setRequestHandler(ElicitRequestSchema, user.handle);
await client.connect(transport);
if (http) {
  if (sessions) check(typeof transport.sessionId === "string" && transport.sessionId !== "", "a session id with --sessions");
  else check(transport.sessionId === undefined, `no session id when stateless: ${transport.sessionId}`);
}
check(client.getServerVersion()?.name === "toolsmith-examples", "server name");

const listed = await client.listTools();
check(ListToolsResultSchema.safeParse(listed).success, "tools/list parses with the SDK schema");
const tools = Object.fromEntries(listed.tools.map((t) => [t.name, t]));
check(same(Object.keys(tools).sort(), Object.keys(expected).sort()), `tools ${Object.keys(tools)}`);
for (const [name, [title, ro, de, idem, ow]] of Object.entries(expected)) {
  const tool = tools[name];
  const a = tool.annotations;
  check(tool.title === title && a.title === title, `${name} title`);
  check(
    same([a.readOnlyHint, a.destructiveHint, a.idempotentHint, a.openWorldHint], [ro, de, idem, ow]),
    `${name} hints ${JSON.stringify(a)}`,
  );
}

async function call(name, args) {
  const result = await client.callTool({ name, arguments: args });
  check(CallToolResultSchema.safeParse(result).success, `${name} result parses with the SDK schema`);
  return result;
}
const text = (r) => r.content?.[0]?.text ?? "";

const found = await call("search_notes", { query: "parser" });
check(same(found.structuredContent.result.map((n) => n.title), ["Standup notes"]), "search");
const missing = await call("get_note", { note_id: 99 });
check(missing.isError === true && text(missing) === "No note with id 99.", `missing: ${text(missing)}`);
const created = await call("create_note", { title: "TS", body: "from typescript", tags: ["ts"] });
const id = created.structuredContent.id;
check(id === 4, `created id ${id}`);
const got = await call("get_note", { note_id: id });
check(got.structuredContent.title === "TS", "get created");
if (!http || sessions) {
  user.answer = "decline";
  const declined = await call("delete_note", { note_id: id });
  checkAsked(check, user, id, "delete_note, declined");
  checkRefused(check, declined, ["declined", "'delete_note'"], "delete_note, declined");
  const still = await call("get_note", { note_id: id });
  check(still.structuredContent?.title === "TS", `after the decline the note is still there: ${JSON.stringify(still)}`);
  user.answer = "accept";
  const deleted = await call("delete_note", { note_id: id });
  checkAsked(check, user, id, "delete_note, accepted");
  check(same(deleted.structuredContent, { note_id: id, deleted: true }), "delete");
  const retry = await call("delete_note", { note_id: id });
  checkAsked(check, user, id, "delete_note again, accepted");
  check(retry.isError === false && same(retry.structuredContent, { note_id: id, deleted: false }), "retry");
} else {
  const refused = await call("delete_note", { note_id: id });
  checkRefused(check, refused, ["stateless", "--sessions", "2026-07-28"], "stateless delete_note");
  check(user.asked.length === 0, `stateless: the elicitation handler was called: ${JSON.stringify(user.asked)}`);
  const still = await call("get_note", { note_id: id });
  check(still.structuredContent?.title === "TS", `the refused delete did not run: ${JSON.stringify(still)}`);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
function checkPngBlock(block, what) {
  check(block?.type === "image", `${what}: type ${block?.type}`);
  check(ImageContentSchema.safeParse(block).success, `${what}: parses as the SDK's ImageContent`);
  check(block?.mimeType === "image/png", `${what}: mimeType ${block?.mimeType}`);
  const png = Buffer.from(block?.data ?? "", "base64");
  check(png.toString("base64") === block?.data, `${what}: data is canonical base64`);
  check(png.subarray(0, 8).equals(PNG_SIGNATURE), `${what}: data is not a PNG: ${png.subarray(0, 8).toString("hex")}`);
}

// An image result: the chart alone.
check(tools.tag_chart.outputSchema === undefined, "tag_chart has no outputSchema");
const image = await call("tag_chart", { legend: false });
check(image.isError === false && image.structuredContent === undefined, "tag_chart legend=false result");
check(image.content.length === 1, `tag_chart legend=false: ${image.content.length} blocks`);
checkPngBlock(image.content[0], "tag_chart legend=false");

// A mixed result: the legend as text, then the chart.
const mixed = await call("tag_chart", {});
check(mixed.isError === false, "tag_chart result");
check(same(mixed.content.map((b) => b.type), ["text", "image"]), `tag_chart blocks ${mixed.content.map((b) => b.type)}`);
check(TextContentSchema.safeParse(mixed.content[0]).success, "tag_chart legend parses as the SDK's TextContent");
// (Stateless, the refused delete left the note tagged "ts".)
const legend = http && !sessions ? "home: 1\npersonal: 1\nts: 1\nwork: 1" : "home: 1\npersonal: 1\nwork: 1";
check(text(mixed) === legend, `tag_chart legend ${JSON.stringify(text(mixed))}`);
checkPngBlock(mixed.content[1], "tag_chart chart");

check(warnings.length === 0, `the SDK warned: ${warnings.join("; ")}`);
if (sessions) {
  // DELETE: 2xx ends the session; 405 (the server keeps sessions) is allowed, and the SDK accepts both.
  try {
    await transport.terminateSession();
    check(transport.sessionId === undefined, "the session ended");
  } catch (err) {
    check(false, `ending the session: ${err}`);
  }
}
await client.close();
console.log(`${label}: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
