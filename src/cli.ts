#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command, Option } from "commander";
import { PERMISSION_MODES } from "./core/permissionTypes.js";
import type { SessionFlags } from "./cli/commands.js";

// Subcommands are imported lazily so `toolgate --help` and `exec` load only what they use (never the UI).
const version = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;

function withSessionFlags(command: Command): Command {
  return command
    .option("--cwd <dir>", "project directory (default: the current directory)")
    .option("--settings <file>", "an extra settings file (same shape as .toolgate/settings.json)")
    .addOption(new Option("--permission-mode <mode>", "permission mode").choices([...PERMISSION_MODES]))
    .option("--allowedTools <rules...>", 'rules to allow, e.g. "Bash(npm test)" Read')
    .option("--disallowedTools <rules...>", 'rules to deny, e.g. "Bash(rm:*)"')
    .option("--add-dir <dirs...>", "additional working directories")
    .option("--mcp-config <files...>", "MCP server configuration files (same shape as .mcp.json)");
}

const program = new Command("toolgate")
  .description("A fail-closed tool runtime for AI coding agents.")
  .version(version, "-V, --version", "print the version")
  .helpOption("-h, --help", "show help")
  .showHelpAfterError();

withSessionFlags(
  program
    .command("exec")
    .description(
      "Run tool calls from stdin: one JSON assistant message or tool_use block per line; prints one user message with the tool_results per line.",
    ),
)
  .option("--verbose", "print progress and diagnostics to stderr")
  .action(async (flags: SessionFlags & { verbose?: boolean }) => {
    const { execCommand } = await import("./cli/commands.js");
    process.exitCode = await execCommand(flags);
  });

withSessionFlags(program.command("tools").description("List the tools and their JSON Schemas."))
  .option("--json", "print JSON (name, description, input_schema, flags)")
  .action(async (flags: SessionFlags & { json?: boolean }) => {
    const { toolsCommand } = await import("./cli/commands.js");
    process.exitCode = await toolsCommand(flags);
  });

const permissions = program.command("permissions").description("Inspect permission decisions.");
withSessionFlags(
  permissions
    .command("explain")
    .description("Explain the decision for one call, e.g. toolgate permissions explain Bash 'git push origin main'.")
    .argument("<tool>", "tool name")
    .argument("<input>", "the tool input as JSON, or for Bash the bare command"),
).action(async (tool: string, input: string, flags: SessionFlags) => {
  const { explainCommand } = await import("./cli/commands.js");
  process.exitCode = await explainCommand(tool, input, flags);
});

const mcp = program.command("mcp").description("MCP servers: list the configured ones, or serve toolgate's tools.");
withSessionFlags(mcp.command("list").description("Show each configured MCP server, its status, tool count and schema token estimate."))
  .option("--json", "print JSON")
  .action(async (flags: SessionFlags & { json?: boolean }) => {
    const { mcpListCommand } = await import("./cli/commands.js");
    process.exitCode = await mcpListCommand(flags);
  });
withSessionFlags(mcp.command("serve").description("Serve the built-in tools over MCP (stdio, or streamable HTTP on 127.0.0.1)."))
  .option("--http <port>", "listen on 127.0.0.1:<port> instead of stdio")
  .action(async (flags: SessionFlags & { http?: string }) => {
    const { mcpServeCommand } = await import("./cli/commands.js");
    process.exitCode = await mcpServeCommand(flags);
  });

await program.parseAsync(process.argv);
