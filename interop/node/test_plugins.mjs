// The plugins example (tools made at run time, toolsmith::Tool) driven by the official
// TypeScript SDK (`@modelcontextprotocol/sdk`): a hand-written tool is listed with its
// complete hint block, called (the SDK validates structuredContent against its outputSchema),
// confirmed when destructive (declined: refused, the tally stays), and load_plugin adds
// reverse_text while the server serves: on stdio and with --sessions the SDK hears
// `notifications/tools/list_changed`; the new tool is listed and answers.
//   node test_plugins.mjs PATH_TO_PLUGINS_BINARY        stdio
//   node test_plugins.mjs --http URL [--sessions]       Streamable HTTP

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { confirmingUser } from "./confirming.mjs";

const args = process.argv.slice(2);
const http = args[0] === "--http";
const sessions = http && args.includes("--sessions");
const canHear = !http || sessions;
const label = http ? `typescript-sdk plugins http${sessions ? " --sessions" : ""}` : "typescript-sdk plugins";
setTimeout(() => {
  console.error(`FAILED: ${label}: not finished after 120 s`);
  process.exit(1);
}, 120_000).unref();
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
const text = (r) => (r.content ?? []).map((b) => b.text ?? "").join(" ");

const expected = {
  word_count: ["Count words", true, false, true, false],
  forget_words: ["Forget words", false, true, true, false],
  load_plugin: ["Load plugin", false, false, true, false],
};

const transport = http
  ? new StreamableHTTPClientTransport(new URL(args[1]))
  : new StdioClientTransport({ command: args[0], args: ["serve"], stderr: "ignore" });
const client = new Client({ name: "toolsmith-interop", version: "0.0.0" }, { capabilities: { elicitation: {} } });
const user = confirmingUser();
client.setRequestHandler(ElicitRequestSchema, user.handle);
let listChanged = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  listChanged += 1;
});
await client.connect(transport);
check(client.getServerVersion()?.name === "plugins", "server name");
check(client.getServerCapabilities()?.tools?.listChanged === true, "tools.listChanged declared");

const listed = await client.listTools();
const tools = Object.fromEntries(listed.tools.map((t) => [t.name, t]));
check(same(Object.keys(tools).sort(), Object.keys(expected).sort()), `tools ${Object.keys(tools)}`);
for (const [name, [title, ro, de, idem, ow]] of Object.entries(expected)) {
  const a = tools[name]?.annotations ?? {};
  check(tools[name]?.title === title && a.title === title, `${name} title`);
  check(same([a.readOnlyHint, a.destructiveHint, a.idempotentHint, a.openWorldHint], [ro, de, idem, ow]), `${name} hints ${JSON.stringify(a)}`);
}

async function call(name, args) {
  const result = await client.callTool({ name, arguments: args });
  check(CallToolResultSchema.safeParse(result).success, `${name} result parses with the SDK schema`);
  return result;
}

const counted = await call("word_count", { text: "one two three four" });
check(same(counted.structuredContent, { words: 4, tally: 4 }), `word_count: ${JSON.stringify(counted)}`);
const wrong = await call("word_count", { text: 7 });
// Refused against word_count's input schema before the tool runs, in a `#[tool]`'s words.
check(wrong.isError === true && text(wrong).includes("argument `text` is invalid (expected a string)"), `a wrong argument: ${JSON.stringify(wrong)}`);

if (canHear) {
  user.answer = "decline";
  const declined = await call("forget_words", {});
  check(declined.isError === true && text(declined).includes("did not run"), `declined: ${JSON.stringify(declined)}`);
  const asked = user.asked.splice(0);
  check(asked.length === 1 && asked[0]?.message === "Forget every word counted?", `asked once: ${JSON.stringify(asked)}`);
  user.answer = "accept";
  const forgot = await call("forget_words", {});
  check(text(forgot) === "forgot 4 words", `accepted: ${JSON.stringify(forgot)}`);
} else {
  const refused = await call("forget_words", {});
  check(refused.isError === true && text(refused).includes("did not run"), `stateless: refused ${JSON.stringify(refused)}`);
  check(user.asked.length === 0, "stateless: nobody was asked");
}

const loaded = await call("load_plugin", {});
check(text(loaded) === "loaded reverse_text", `load_plugin: ${JSON.stringify(loaded)}`);
if (canHear) {
  for (let i = 0; i < 200 && listChanged === 0; i += 1) await new Promise((r) => setTimeout(r, 50));
  check(listChanged >= 1, `notifications/tools/list_changed heard (${listChanged})`);
}
const after = (await client.listTools()).tools.map((t) => t.name).sort();
check(same(after, [...Object.keys(expected), "reverse_text"].sort()), `the list after loading: ${after}`);
const reversed = await call("reverse_text", { text: "abc" });
check(text(reversed) === "cba", `reverse_text: ${JSON.stringify(reversed)}`);

check(warnings.length === 0, `the SDK warned: ${warnings.join("; ")}`);
await client.close();
console.log(`${label}: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
