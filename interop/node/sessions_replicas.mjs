// The TypeScript SDK's half of interop/python/test_sessions_replicas.py: one session through
// nginx (round robin) to two notes replicas sharing Redis. Its requests must land on both
// replicas, and a confirmation asked on one replica must be answered through the other.
//
//   node sessions_replicas.mjs URL HOST ACCESS_LOG
//
// URL: nginx's MCP endpoint; HOST: the Host the replicas accept (their --public-url's);
// ACCESS_LOG: nginx's access log, whose lines say which replica answered each request.
// Prints its tally as one JSON line: {"passed": N, "failed": N, "crossed": N}.

import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { checkAsked, confirmingUser } from "./confirming.mjs";

const [url, host, accessLog] = process.argv.slice(2);
setTimeout(() => {
  console.error("FAILED: not finished after 100 s");
  process.exit(1);
}, 100_000).unref();
let passed = 0;
let failed = 0;
function check(condition, what) {
  if (condition) passed += 1;
  else {
    failed += 1;
    console.error(`FAILED: typescript: ${what}`);
  }
}

// The access log's lines; (method, status, replica port) of one.
const lines = () => readFileSync(accessLog, "utf8").split("\n").filter(Boolean);
function served(line) {
  const found = /"(\w+) [^"]*" (\d+) upstream=(.*?) upstream_status=/.exec(line);
  if (!found) return [null, null, null];
  return [found[1], Number(found[2]), found[3].split(",").pop().trim().split(":").pop()];
}
// nginx writes a line once it answered: wait (bounded) for `count` lines after `before`.
async function linesAfter(before, count) {
  for (let i = 0; i < 50; i += 1) {
    const after = lines().slice(before);
    if (after.length >= count) return after;
    await new Promise((r) => setTimeout(r, 100));
  }
  return lines().slice(before);
}

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Host: host } },
});
const client = new Client({ name: "toolsmith-interop-replicas", version: "0.0.0" }, { capabilities: { elicitation: {} } });
const user = confirmingUser();
client.setRequestHandler(ElicitRequestSchema, user.handle);
await client.connect(transport);
check(typeof transport.sessionId === "string" && transport.sessionId !== "", `a session id: ${transport.sessionId}`);

const start = lines().length;
for (let i = 0; i < 4; i += 1) {
  const listed = await client.listTools();
  check(listed.tools.some((t) => t.name === "delete_note"), "tools listed");
  const found = await client.callTool({ name: "search_notes", arguments: { query: "parser" } });
  check(found.isError !== true, `search_notes: ${JSON.stringify(found)}`);
}
const ports = new Set((await linesAfter(start, 8)).map(served).filter(([m]) => m === "POST").map(([, , p]) => p));
check(ports.size === 2, `the session's POSTs landed on both replicas: ${[...ports]}`);

// Confirmed deletes until one answer went through the other replica than its call (bounded).
let crossed = 0;
for (const noteId of [1, 2, 3]) {
  const before = lines().length;
  const result = await client.callTool({ name: "delete_note", arguments: { note_id: noteId } });
  checkAsked(check, user, noteId, `delete_note ${noteId}`);
  check(result.isError === false && result.structuredContent?.note_id === noteId, `the confirmed delete ran: ${JSON.stringify(result)}`);
  const after = (await linesAfter(before, 2)).map(served);
  const ran = after.filter(([m, s]) => m === "POST" && s === 200).map(([, , p]) => p).pop();
  const answered = after.filter(([m, s]) => m === "POST" && s === 202).map(([, , p]) => p)[0];
  check(ran && answered, `the call and its answer are in the access log: ${ran}, ${answered}`);
  if (ran && answered && ran !== answered) {
    crossed += 1;
    break;
  }
}
await client.close();
console.log(JSON.stringify({ passed, failed, crossed }));
process.exit(failed === 0 ? 0 : 1);
