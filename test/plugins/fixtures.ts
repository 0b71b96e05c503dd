/** Real plugin folders on disk for the plugin tests: a command, an agent, a skill, a hook and an MCP server. */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { repoRoot } from "../cliCommand.js";

export function write(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

const sdk = (file: string) => pathToFileURL(path.join(repoRoot, "node_modules/@modelcontextprotocol/sdk/dist/esm/server", file)).href;

/** The tool name the plugin's server `echo` gets. */
export const SHOUT_TOOL = (plugin = "kit") => `mcp__plugin_${plugin}_echo__shout`;

/**
 * A plugin named `name` in `root`: `/hello` (a command), `reviewer` (an agent), `style` (a skill), a PreToolUse
 * hook that blocks Bash and records the CLAUDE_PLUGIN_ROOT it saw in `<root>/hook-ran.txt`, and an MCP server
 * `echo` whose `shout` tool answers in capitals with the plugin root it was started with.
 */
export function writePlugin(root: string, name = "kit"): string {
  write(path.join(root, ".claude-plugin/plugin.json"), JSON.stringify({ name, version: "1.2.0", description: "A test kit", author: { name: "Tester" } }, null, 2));
  write(path.join(root, "commands/hello.md"), "---\ndescription: Greet someone\nargument-hint: [who]\n---\nSay hello to $ARGUMENTS in the kit style.\n");
  write(path.join(root, "agents/reviewer.md"), "---\ndescription: Reviews changes for the kit.\n---\nYou are the kit reviewer. Answer with REVIEWED.\n");
  write(path.join(root, "skills/style/SKILL.md"), "---\nname: style\ndescription: The kit's house style.\n---\nWrite in the kit house style, short sentences.\n");
  write(
    path.join(root, "hooks/hooks.json"),
    JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: 'node "${CLAUDE_PLUGIN_ROOT}/hooks/guard.mjs"' }] }] } }),
  );
  write(
    path.join(root, "hooks/guard.mjs"),
    `import fs from "node:fs";\nfs.writeFileSync(process.env.CLAUDE_PLUGIN_ROOT + "/hook-ran.txt", process.env.CLAUDE_PLUGIN_ROOT);\nprocess.stderr.write("kit guard blocked Bash");\nprocess.exit(2);\n`,
  );
  write(path.join(root, ".mcp.json"), JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs"] } } }));
  write(
    path.join(root, "server.mjs"),
    [
      `import { McpServer } from ${JSON.stringify(sdk("mcp.js"))};`,
      `import { StdioServerTransport } from ${JSON.stringify(sdk("stdio.js"))};`,
      `import { z } from ${JSON.stringify(pathToFileURL(path.join(repoRoot, "node_modules/zod/index.js")).href)};`,
      `const server = new McpServer({ name: "kit-echo", version: "1.0.0" });`,
      `server.registerTool("shout", { description: "Repeats the text in capitals.", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text: text.toUpperCase() + " from " + process.env.CLAUDE_PLUGIN_ROOT }] }));`,
      `await server.connect(new StdioServerTransport());`,
    ].join("\n"),
  );
  return root;
}
