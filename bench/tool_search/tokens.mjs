// What a client reads before it can call a tool: the size in tokens of the tool listing of a
// gateway of about 500 tools, served in full and in search mode (`serve --tool-search`), and
// of one page of search_tools' answer. The gateway mounts real servers, each under a prefix
// of its own: the notes example, the npm reference servers everything and memory, and COPIES
// (default 34) of the npm reference server filesystem (14 tools each); the official
// TypeScript SDK lists every page. Tokens are counted with gpt-tokenizer's o200k_base encoding (a
// public BPE; Claude's own tokenizer is not published), bytes as JSON.
//
//   node bench/tool_search/tokens.mjs PATH_TO_TOOLSMITH PATH_TO_NOTES_BINARY [COPIES]

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, "..", "..", "interop", "node", "node_modules");
const require = createRequire(join(modules, "x.js"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { encode } = require("gpt-tokenizer/encoding/o200k_base");

const [toolsmith, notes, copiesArg] = process.argv.slice(2);
const copies = Number(copiesArg ?? 34);
const node = process.execPath;
const server = (name) => join(modules, "@modelcontextprotocol", `server-${name}`, "dist", "index.js");
const dir = mkdtempSync(join(tmpdir(), "tool-search-tokens-"));
const mcpServers = {};
// One notes, one everything and one memory (their resources' URIs are the same in every
// copy, and a gateway serves one resource per URI), and COPIES filesystem servers.
mcpServers.notes = { command: notes, env: { TOOLSMITH_LOG: "off" } };
mcpServers.everything = { command: node, args: [server("everything"), "stdio"] };
mcpServers.memory = { command: node, args: [server("memory")], env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } };
for (let i = 1; i <= copies; i += 1) {
  mcpServers[`files${i}`] = { command: node, args: [server("filesystem"), dir] };
}
const config = join(dir, "claude_desktop_config.json");
writeFileSync(config, JSON.stringify({ mcpServers }));

async function connected(flags) {
  const transport = new StdioClientTransport({
    command: toolsmith,
    args: ["gateway", "--config", config, "serve", ...flags],
    env: { TOOLSMITH_LOG: "error", PATH: process.env.PATH ?? "" },
    stderr: "ignore",
  });
  const client = new Client({ name: "tokens", version: "0" }, { capabilities: {} });
  await client.connect(transport);
  return client;
}

async function everyTool(client) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

const size = (value) => {
  const json = JSON.stringify(value);
  return { bytes: Buffer.byteLength(json), tokens: encode(json).length };
};

const full = await connected([]);
// server-everything adds tools once it knows the client; list until the count holds.
let tools = [];
for (let i = 0; i < 50; i += 1) {
  const now = await everyTool(full);
  if (now.length === tools.length && now.length > 0) break;
  tools = now;
  await new Promise((r) => setTimeout(r, 200));
}
await full.close();

const searching = await connected(["--tool-search"]);
const listed = await everyTool(searching);
const page = (await searching.callTool({ name: "search_tools", arguments: { query: "read a file" } })).structuredContent;
await searching.close();

const rows = [
  ["full tools/list", tools.length, size({ tools })],
  ["--tool-search tools/list", listed.length, size({ tools: listed })],
  ["one search_tools page (\"read a file\")", page.tools.length, size(page)],
];
console.log(`| listing | tools | bytes | tokens (o200k_base) |\n| --- | --- | --- | --- |`);
for (const [what, count, { bytes, tokens }] of rows) console.log(`| ${what} | ${count} | ${bytes} | ${tokens} |`);
console.log(`\nsearch mode lists ${(size({ tools }).tokens / size({ tools: listed }).tokens).toFixed(0)}x fewer tokens`);
process.exit(0);
