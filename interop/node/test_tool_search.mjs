// `toolsmith gateway ... serve --tool-search --confirm destructive` in front of the notes
// example, driven by the official TypeScript SDK (`@modelcontextprotocol/sdk`) over stdio:
// - tools/list gives two tools, search_tools and call_tool, call_tool with the hints of the
//   most cautious tool it reaches (notes_delete_note: destructive);
// - search_tools finds notes_delete_note for "delete a note", with its schema and hints, and
//   only read-only tools when asked for them;
// - a call_tool of notes_delete_note is asked about once (the upstream confirms its own
//   deletes, in its own words), and the user's answer decides it: declined, refused and the
//   note stays; accepted, deleted.
//   node test_tool_search.mjs PATH_TO_TOOLSMITH PATH_TO_NOTES_BINARY

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

import { checkAsked, confirmingUser } from "./confirming.mjs";

const [toolsmith, notes] = process.argv.slice(2);
const label = "typescript sdk: search mode through toolsmith gateway";
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

const dir = mkdtempSync(join(tmpdir(), "tool-search-"));
const config = join(dir, "claude_desktop_config.json");
writeFileSync(config, JSON.stringify({ mcpServers: { notes: { command: notes, env: { TOOLSMITH_LOG: "off" } } } }));

const transport = new StdioClientTransport({
  command: toolsmith,
  args: ["gateway", "--config", config, "serve", "--tool-search", "--confirm", "destructive"],
  env: { TOOLSMITH_LOG: "off", PATH: process.env.PATH ?? "" },
  stderr: "ignore",
});
const client = new Client({ name: "toolsmith-interop", version: "0.0.0" }, { capabilities: { elicitation: {} } });
const user = confirmingUser();
client.setRequestHandler(ElicitRequestSchema, user.handle);
await client.connect(transport);

const { tools } = await client.listTools();
check(JSON.stringify(tools.map((t) => t.name)) === JSON.stringify(["search_tools", "call_tool"]), `two tools: ${tools.map((t) => t.name)}`);
const callTool = tools.find((t) => t.name === "call_tool");
check(callTool?.annotations?.destructiveHint === true && callTool?.annotations?.readOnlyHint === false, `call_tool is as cautious as a delete: ${JSON.stringify(callTool?.annotations)}`);

const search = async (args) => (await client.callTool({ name: "search_tools", arguments: args })).structuredContent ?? {};
const found = await search({ query: "delete a note" });
const first = found.tools?.[0];
check(first?.name === "notes_delete_note", `delete a note finds notes_delete_note first: ${JSON.stringify(found.tools?.map((t) => t.name))}`);
check(first?.inputSchema?.required?.includes("note_id") && first?.annotations?.destructiveHint === true, `with its schema and hints: ${JSON.stringify(first)}`);
const reading = await search({ read_only: true });
check(reading.tools?.length === 3 && reading.tools.every((t) => t.annotations.readOnlyHint === true), `read-only tools only: ${JSON.stringify(reading.tools?.map((t) => t.name))}`);

const deleteNote = { name: "call_tool", arguments: { name: "notes_delete_note", arguments: { note_id: 1 } } };
user.answer = "decline";
const refused = await client.callTool(deleteNote);
checkAsked(check, user, 1, "declined through call_tool");
check(refused.isError === true, `declined, refused: ${JSON.stringify(refused)}`);
const kept = await client.callTool({ name: "call_tool", arguments: { name: "notes_get_note", arguments: { note_id: 1 } } });
check(kept.isError !== true && kept.structuredContent?.id === 1, `the note stays: ${JSON.stringify(kept)}`);
user.answer = "accept";
const deleted = await client.callTool(deleteNote);
checkAsked(check, user, 1, "accepted through call_tool");
check(deleted.isError !== true && text(deleted).includes("true"), `accepted, deleted: ${JSON.stringify(deleted)}`);
const gone = await client.callTool({ name: "call_tool", arguments: { name: "notes_get_note", arguments: { note_id: 1 } } });
check(gone.isError === true, `the note is gone: ${JSON.stringify(gone)}`);

await client.close();
console.log(`${label}: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
