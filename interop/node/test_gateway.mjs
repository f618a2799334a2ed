// `toolsmith gateway` in front of @modelcontextprotocol/server-everything (npm, over stdio),
// driven by the official TypeScript SDK (`@modelcontextprotocol/sdk`) over stdio:
// - the upstream's tools, prompts and resources are served under its prefix (`everything_`),
//   its tools with the hints it states; the tools it registers once it knows what the client
//   can answer (elicitation, sampling) come with its `tools/list_changed`;
// - calls pass through (text, structured content);
// - its progress on a call reaches the client under the client's own token;
// - its own elicitation and sampling requests, sent while a call runs, reach this client and
//   the answers go back (the upstream's result says what it was told).
//   node test_gateway.mjs PATH_TO_TOOLSMITH PATH_TO_NODE PATH_TO_SERVER_EVERYTHING_INDEX_JS

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const [toolsmith, node, everything] = process.argv.slice(2);
const label = "typescript-sdk through toolsmith gateway (server-everything)";
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
const text = (r) => (r.content ?? []).map((b) => b.text ?? "").join(" ");

const dir = mkdtempSync(join(tmpdir(), "gateway-everything-"));
const config = join(dir, "claude_desktop_config.json");
writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: node, args: [everything, "stdio"] } } }));

const transport = new StdioClientTransport({
  command: toolsmith,
  args: ["gateway", "--config", config],
  env: { TOOLSMITH_LOG: "off", PATH: process.env.PATH ?? "" },
  stderr: "ignore",
});
const client = new Client(
  { name: "toolsmith-interop", version: "0.0.0" },
  { capabilities: { elicitation: {}, sampling: {} } },
);
const asked = [];
client.setRequestHandler(ElicitRequestSchema, (request) => {
  asked.push(request.params.message);
  return { action: "accept", content: { name: "Ada Lovelace", check: true } };
});
const sampled = [];
client.setRequestHandler(CreateMessageRequestSchema, (request) => {
  sampled.push(request.params.messages[0]?.content?.text);
  return { role: "assistant", content: { type: "text", text: "sampled by the client" }, model: "interop-model", stopReason: "endTurn" };
});
let listChanged = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  listChanged += 1;
});
await client.connect(transport);

// The tools it registers once it knows the client can answer come with a list_changed.
let tools = [];
for (let i = 0; i < 100; i += 1) {
  tools = (await client.listTools()).tools;
  if (tools.some((t) => t.name === "everything_trigger-elicitation-request")) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const names = tools.map((t) => t.name);
check(names.length > 10 && names.every((n) => n.startsWith("everything_")), `prefixed tools: ${names}`);
for (const name of ["echo", "get-sum", "trigger-long-running-operation", "trigger-elicitation-request", "trigger-sampling-request"]) {
  check(names.includes(`everything_${name}`), `everything_${name} is served: ${names}`);
}
const longRunning = tools.find((t) => t.name === "everything_trigger-long-running-operation");
const a = longRunning?.annotations ?? {};
check(
  a.readOnlyHint === true && a.destructiveHint === false && a.idempotentHint === true && a.openWorldHint === false,
  `the hints the upstream states: ${JSON.stringify(a)}`,
);

const echoed = await client.callTool({ name: "everything_echo", arguments: { message: "through the gateway" } });
check(text(echoed) === "Echo: through the gateway", `echo: ${JSON.stringify(echoed)}`);
const sum = await client.callTool({ name: "everything_get-sum", arguments: { a: 2, b: 3 } });
check(text(sum).includes("5"), `get-sum: ${JSON.stringify(sum)}`);

const progress = [];
const operated = await client.callTool(
  { name: "everything_trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } },
  CallToolResultSchema,
  { onprogress: (p) => progress.push([p.progress, p.total]) },
);
check(text(operated).includes("Steps: 3"), `long running: ${JSON.stringify(operated)}`);
check(JSON.stringify(progress) === "[[1,3],[2,3],[3,3]]", `the upstream's progress: ${JSON.stringify(progress)}`);

const elicited = await client.callTool({ name: "everything_trigger-elicitation-request", arguments: {} });
check(asked.length === 1, `the upstream's question reached the client once: ${asked}`);
check(text(elicited).includes("Ada Lovelace"), `the client's answer reached the upstream: ${text(elicited).slice(0, 300)}`);

const sampling = await client.callTool({ name: "everything_trigger-sampling-request", arguments: { prompt: "hello", maxTokens: 10 } });
check(sampled.length === 1 && sampled[0]?.includes("hello"), `the upstream's sampling request reached the client: ${sampled}`);
check(text(sampling).includes("sampled by the client"), `the client's answer reached the upstream: ${text(sampling).slice(0, 300)}`);

const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
check(prompts.includes("everything_simple-prompt"), `prefixed prompts: ${prompts}`);
const simple = await client.getPrompt({ name: "everything_simple-prompt", arguments: {} });
check(simple.messages.length > 0, `a prompt through the gateway: ${JSON.stringify(simple)}`);
const resources = (await client.listResources()).resources;
check(resources.length > 0, `resources: ${resources.length}`);
if (resources.length > 0) {
  const read = await client.readResource({ uri: resources[0].uri });
  check(read.contents.length > 0 && read.contents[0].uri === resources[0].uri, `a read through the gateway: ${resources[0].uri}`);
}

await client.close();
console.log(`${label}: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
