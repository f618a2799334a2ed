// The notes example's resources, prompts and completions, driven by the official TypeScript
// SDK (`@modelcontextprotocol/sdk`) with its own calls (listResources, listResourceTemplates,
// readResource, listPrompts, getPrompt, complete, callTool), each result parsed by the SDK's
// schema for it:
// - the server declares the resources, prompts and completions capabilities;
// - resources/list: notes://index (application/json, audience [user, assistant], priority
//   0.8); resources/templates/list: notes://{note_id} (application/json);
// - notes://index reads as a JSON list of the 3 seeded notes' {id, title}; notes://2, through
//   the template, as note 2 ("Standup notes", tagged work); notes://99 is the JSON-RPC error
//   -32002 (resource not found), thrown as the SDK's McpError;
// - prompts/list: summarize_notes, its `tag` argument optional; prompts/get with tag=work is
//   one user text message quoting "Standup notes" and not "Groceries"; without a tag it
//   quotes all three;
// - completion/complete: note_id of notes://{note_id} from "" gives 1, 2, 3; tag of
//   summarize_notes from "w" gives work;
// - create_note's result is the note as structuredContent plus a resource_link to
//   notes://ID (a ResourceLink by the SDK's schema), which reads back as that note; the index
//   then lists it too.
//
//   node test_items.mjs PATH_TO_NOTES_BINARY        stdio: starts `notes serve` itself
//   node test_items.mjs --http URL [--sessions]     Streamable HTTP, against a fresh server
//                                                   (the store is per process)

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError, ResourceLinkSchema } from "@modelcontextprotocol/sdk/types.js";

const args = process.argv.slice(2);
const http = args[0] === "--http";
const sessions = http && args.includes("--sessions");
const label = `typescript-sdk resources, prompts, completions${http ? " http" : ""}${sessions ? " --sessions" : ""}`;
// A transport that hangs must fail the test, not the suite.
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
// Equal as JSON, whatever the order of an object's keys.
const canon = (v) => Array.isArray(v) ? v.map(canon)
  : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])])) : v;
const same = (a, b) => JSON.stringify(canon(a)) === JSON.stringify(canon(b));
const SEEDED = [{ id: 1, title: "Groceries" }, { id: 2, title: "Standup notes" }, { id: 3, title: "Book ideas" }];
const JSON_TYPE = "application/json";
const RESOURCE_NOT_FOUND = -32002;

// resources/read of `uri`: one text content of that uri, application/json; its parsed JSON.
async function readJson(uri, what) {
  const read = await client.readResource({ uri });
  check(read.contents.length === 1, `${what}: ${read.contents.length} contents`);
  const [content] = read.contents;
  check(typeof content?.text === "string", `${what}: a text content: ${JSON.stringify(content)}`);
  check(content?.uri === uri, `${what}: uri ${content?.uri}`);
  check(content?.mimeType === JSON_TYPE, `${what}: mimeType ${content?.mimeType}`);
  try {
    return JSON.parse(content?.text);
  } catch (err) {
    check(false, `${what}: not JSON: ${err}: ${content?.text}`);
    return undefined;
  }
}

// The text of a prompt that is one user text message.
function promptText(result, what) {
  check(result.messages.length === 1, `${what}: ${result.messages.length} messages`);
  const [message] = result.messages;
  check(message?.role === "user", `${what}: role ${message?.role}`);
  check(message?.content?.type === "text", `${what}: content ${message?.content?.type}`);
  return message?.content?.text ?? "";
}

const transport = http
  ? new StreamableHTTPClientTransport(new URL(args[1]))
  : new StdioClientTransport({ command: args[0], args: ["serve"], stderr: "ignore" });
const client = new Client({ name: "toolsmith-interop", version: "0.0.0" });
await client.connect(transport);
const caps = client.getServerCapabilities() ?? {};
check(caps.resources && caps.prompts && caps.completions, `resources, prompts, completions capabilities: ${JSON.stringify(caps)}`);

// Listed: the index, and the template.
const { resources } = await client.listResources();
check(same(resources.map((r) => r.uri), ["notes://index"]), `resources ${resources.map((r) => r.uri)}`);
check(resources[0]?.mimeType === JSON_TYPE, `notes://index mimeType ${resources[0]?.mimeType}`);
const annotations = resources[0]?.annotations;
check(same(annotations?.audience, ["user", "assistant"]), `notes://index audience ${JSON.stringify(annotations)}`);
check(annotations?.priority === 0.8, `notes://index priority ${JSON.stringify(annotations)}`);
const { resourceTemplates } = await client.listResourceTemplates();
const uriTemplates = resourceTemplates.map((t) => t.uriTemplate);
check(same(uriTemplates, ["notes://{note_id}"]), `templates ${uriTemplates}`);
check(resourceTemplates[0]?.mimeType === JSON_TYPE, `notes://{note_id} mimeType ${resourceTemplates[0]?.mimeType}`);

// Read: the index, a note through the template, a note that is not there.
check(same(await readJson("notes://index", "read notes://index"), SEEDED), "notes://index lists the 3 seeded notes");
const note = await readJson("notes://2", "read notes://2");
check(same(Object.keys(note ?? {}).sort(), ["body", "id", "tags", "title"]), `notes://2 keys: ${JSON.stringify(note)}`);
check(note?.id === 2 && note?.title === "Standup notes" && same(note?.tags, ["work"]), `notes://2 is note 2: ${JSON.stringify(note)}`);
try {
  const missing = await client.readResource({ uri: "notes://99" });
  check(false, `read notes://99: no error but ${JSON.stringify(missing)}`);
} catch (err) {
  check(err instanceof McpError, `read notes://99: an McpError, not ${err}`);
  check(err?.code === RESOURCE_NOT_FOUND, `read notes://99: error code ${err?.code} (${err?.message}), not -32002`);
}

// Prompts.
const { prompts } = await client.listPrompts();
check(same(prompts.map((p) => p.name), ["summarize_notes"]), `prompts ${prompts.map((p) => p.name)}`);
const promptArgs = (prompts[0]?.arguments ?? []).map((a) => [a.name, a.required === true]);
check(same(promptArgs, [["tag", false]]), `summarize_notes arguments ${JSON.stringify(promptArgs)}`);
const work = promptText(await client.getPrompt({ name: "summarize_notes", arguments: { tag: "work" } }), "summarize_notes tag=work");
check(work.includes("Standup notes") && !work.includes("Groceries"), `summarize_notes tag=work quotes only Standup notes: ${JSON.stringify(work)}`);
const every = promptText(await client.getPrompt({ name: "summarize_notes" }), "summarize_notes");
check(SEEDED.every((n) => every.includes(n.title)), `summarize_notes quotes every note: ${JSON.stringify(every)}`);

// Completions.
const ids = await client.complete({ ref: { type: "ref/resource", uri: "notes://{note_id}" }, argument: { name: "note_id", value: "" } });
check(same(ids.completion.values, ["1", "2", "3"]), `complete note_id '': ${ids.completion.values}`);
const tags = await client.complete({ ref: { type: "ref/prompt", name: "summarize_notes" }, argument: { name: "tag", value: "w" } });
check(same(tags.completion.values, ["work"]), `complete tag 'w': ${tags.completion.values}`);

// create_note links to its note; the link reads back as the note.
const created = await client.callTool({ name: "create_note", arguments: { title: "Linked", body: "from typescript", tags: ["ts"] } });
check(created.isError === false, `create_note: ${JSON.stringify(created)}`);
const made = created.structuredContent ?? {};
check(made.title === "Linked" && made.body === "from typescript" && same(made.tags, ["ts"]), `create_note structuredContent ${JSON.stringify(made)}`);
const links = created.content.filter((b) => b.type === "resource_link");
check(links.length === 1, `create_note: ${links.length} resource links in ${created.content.map((b) => b.type)}`);
for (const link of links.slice(0, 1)) {
  check(ResourceLinkSchema.safeParse(link).success, `the link parses as the SDK's ResourceLink: ${JSON.stringify(link)}`);
  check(link.uri === `notes://${made.id}`, `create_note link uri ${link.uri}`);
  check(link.mimeType === JSON_TYPE, `create_note link mimeType ${link.mimeType}`);
  const followed = await readJson(link.uri, `read the link ${link.uri}`);
  check(same(followed, made), `the link reads as the created note: ${JSON.stringify(followed)} != ${JSON.stringify(made)}`);
}
const after = await readJson("notes://index", "read notes://index after create_note");
check(same(after, [...SEEDED, { id: made.id, title: "Linked" }]), `notes://index after create_note: ${JSON.stringify(after)}`);

check(warnings.length === 0, `the SDK warned: ${warnings.join("; ")}`);
await client.close();
console.log(`${label}: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
