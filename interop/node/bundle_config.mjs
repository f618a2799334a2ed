// How a host starts an unpacked MCP Bundle: the MCP Bundle library's own
// getMcpConfigForManifest (`@anthropic-ai/mcpb`, as Claude Desktop resolves a bundle) turns
// the manifest's mcp_config into a command, its arguments and its environment, with the
// user's configuration (and the defaults of what the user left out) in place of each
// ${user_config.KEY}, and ${__dirname} the bundle's folder. Prints that as JSON, or exits 1
// when the bundle needs configuration the user did not give.
//
//   node bundle_config.mjs UNPACKED_DIR '{"read_only": true}'

import { readFileSync } from "node:fs";
import path from "node:path";
import { getMcpConfigForManifest } from "@anthropic-ai/mcpb";

const [dir, userConfig = "{}"] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
const config = await getMcpConfigForManifest({
  manifest,
  extensionPath: path.resolve(dir),
  systemDirs: { HOME: process.env.HOME ?? "/" },
  userConfig: JSON.parse(userConfig),
  pathSeparator: path.sep,
});
if (!config) {
  console.error("the bundle needs configuration that was not given");
  process.exit(1);
}
console.log(JSON.stringify(config));
