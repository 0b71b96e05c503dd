#!/usr/bin/env node
import { Command, CommanderError, Option } from "commander";
import { PERMISSION_MODES } from "../core/permissionTypes.js";
import { packageVersion } from "./version.js";
import { endBySignalIfTerminalGoes } from "../core/termination.js";
import { EXIT_USAGE, reportFailure, UsageError, wantsStackTraces } from "./errors.js";
import { editDistance } from "../tools/files/similarPath.js";
import { collect } from "./collect.js";
import type { SessionFlags } from "./flags.js";
import { watchLifeline } from "../fleet/lifeline.js";

// A fleet worker's session process stops when its worker dies (see fleet/lifeline.ts).
watchLifeline();

// Subcommands are imported lazily so `toolgate --help` and `exec` load only what they use (never the UI).

// Each list flag takes one value per occurrence (repeat it, or use --flag=value), so it can never swallow
// the positional arguments that follow it; rule flags also split one value on commas and spaces outside ().
function withSessionFlags(command: Command): Command {
  return command
    .option("--cwd <dir>", "project directory (default: the current directory)")
    .option("--settings <file-or-json>", "extra settings: a file, or JSON text (same shape as .toolgate/settings.json)")
    .addOption(new Option("--permission-mode <mode>", "permission mode").choices([...PERMISSION_MODES]))
    .option("--allowedTools <rules>", 'rules to allow, repeatable: --allowedTools "Bash(npm test)" --allowedTools Read (or "Bash(npm test),Read")', collect)
    .option("--disallowedTools <rules>", 'rules to deny, repeatable, e.g. "Bash(rm:*)"', collect)
    .option("--add-dir <dir>", "an additional working directory (repeatable)", collect)
    .option("--mcp-config <file>", "an MCP server configuration file or JSON (same shape as .mcp.json; repeatable)", collect)
    .option("--strict", "refuse to run when a deny or ask rule names no tool (also: permissions.strict in settings)")
    .option("--sandbox", "run Bash in the OS sandbox, and fail Bash calls if it cannot run (default: on where supported)")
    .option("--no-sandbox", "run Bash without the OS sandbox: the permission rules alone decide")
    .option("--trust", "trust this folder for this run: its hooks, MCP servers, allow rules, provider settings apply (toolgate trust add remembers it)")
    .option("--computer-use", "offer the computer tool: on DISPLAY, or without one on a virtual display (Xvfb) toolgate starts and stops")
    .option("--computer-use-app <command>", 'with --computer-use: a program to start in the display, e.g. "xterm" (stopped at the end)');
}

/** commander's "error: …" as toolgate's one line, with the hint that fixes the usual cause. */
function formatCommanderError(text: string): string {
  const stripped = text.trim().replace(/^error: /, "");
  const message = /[.!?]$/.test(stripped) ? stripped : `${stripped}.`;
  const hint = /too many arguments/.test(message)
    ? " Flags take one value each: repeat them (--allowedTools A --allowedTools B) or join rules with commas (--allowedTools \"A,B\")."
    : "";
  return `toolgate: ${message}${hint} See --help.\n`;
}

/** Runs `load` with the named environment variables removed, and puts them back afterwards. */
async function whileHidden<T>(names: string[], load: () => Promise<T>): Promise<T> {
  const saved = names.filter((name) => name in process.env).map((name) => [name, process.env[name]] as const);
  for (const [name] of saved) delete process.env[name];
  try {
    return await load();
  } finally {
    for (const [name, value] of saved) process.env[name] = value;
  }
}

const program = new Command("toolgate")
  .description("A fail-closed tool runtime for AI coding agents.")
  .version(packageVersion(), "-V, --version", "print the version")
  .helpOption("-h, --help", "show help")
  // Errors are thrown to the guard at the bottom instead of exiting, and printed as one line.
  .exitOverride()
  .configureOutput({ outputError: (text, write) => write(formatCommanderError(text)) });

/** The subcommand a lone word was probably meant to be: a small edit away from one, and not a sentence. */
function misspeltCommand(word: string, commands: readonly string[]): string | undefined {
  if (!/^[a-z][a-z-]{2,}$/i.test(word)) return undefined;
  const lower = word.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of commands) {
    const distance = editDistance(lower, name);
    if (distance > 0 && distance <= Math.min(2, Math.floor(name.length / 3)) && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

// `toolgate -p PROMPT`: the agent without a UI. Program options come before any subcommand, so `exec --cwd`
// stays exec's own flag.
program.enablePositionalOptions();
withSessionFlags(program)
  .argument("[prompt]", "the prompt: with -p (or on stdin) the task to run; without -p the first prompt of the interactive session")
  .option("-p, --print", "run the agent on the prompt and print the answer, without a UI")
  .option("--output-format <format>", "with -p: text (the answer), json (one result object) or stream-json (one event per line)")
  .option("--input-format <format>", "with -p: text, or stream-json (user messages and control requests on stdin, one JSON per line)")
  .option("--verbose", "with -p: tool activity and warnings on stderr (text, json); progress events (stream-json)")
  .option("--include-partial-messages", "with --output-format stream-json: also print the model's output as it streams")
  .option("--model <model>", "the model, e.g. claude-sonnet-4-5 or qwen3:8b (default: settings, env, then the provider's default)")
  .option("--provider <name>", "anthropic, openai (any OpenAI-compatible server), openai-responses (OpenAI's Responses API), bedrock (Amazon Bedrock) or vertex (Google Vertex AI)")
  .option("--base-url <url>", "the API's base URL, e.g. http://127.0.0.1:11434/v1 for Ollama")
  .option("--system-prompt <text>", "replace toolgate's system prompt (the environment and project instructions stay)")
  .option("--append-system-prompt <text>", "add to the end of the system prompt")
  .option("--max-turns <n>", "stop after this many model requests")
  .option("--permission-prompt-tool <mcp-tool>", "an MCP tool (mcp__server__tool) that answers permission questions")
  .option("-c, --continue", "continue the most recent session of this project")
  .option("-r, --resume [id]", "continue the session with this id (or the start of it; without one the interactive UI lists them); toolgate sessions lists them")
  .option("--toolgate-events", "with --output-format stream-json: also print toolgate's own events (tool_status, tool_progress, change_summary, notice, input_error)")
  .option("--session-id <uuid>", "with -p: the id of the new session (a UUID)")
  .option("--no-session-persistence", "with -p: write no transcript; the session cannot be resumed")
  .option("--fork-session", "with --resume or --continue: continue the conversation in a new session")
  .option("--resume-session-at <uuid>", "with --resume: continue from this assistant message, dropping what came after it")
  .option("--json-schema <json>", "with -p: the answer must be JSON of this schema (the result carries structured_output)")
  .option("--max-budget-usd <amount>", "with -p: stop once the estimated cost of this run reaches this many US dollars")
  .option("--tools <names>", 'the built-in tools to offer, comma-separated ("default": all; "": none)')
  .option("--setting-sources <sources>", "which settings files to read: user, project, local, comma-separated (default all)")
  .option("--strict-mcp-config", "use only the MCP servers of --mcp-config, not .mcp.json")
  .option("--await-initialize", "with --input-format stream-json: wait for the client's initialize request before starting the session")
  .option("--initialize-fields <fields>", "with --await-initialize: settings, disallowedTools, additionalDirectories arrive in initialize")
  .option("--managed-settings <json>", "managed settings as JSON: the highest-precedence layer, as /etc/toolgate/managed-settings.json")
  .option("--managed-settings-in-initialize", "with --await-initialize: managed settings arrive in initialize")
  .option("--permission-prompts <who>", "host (ask the controlling client) or none (deny what would ask)")
  .option("--allow-dangerously-skip-permissions", "allow --permission-mode bypassPermissions (toolgate allows it without this flag)")
  .option("--max-thinking-tokens <n>", "extended thinking with this token budget (Anthropic models)")
  .option("--thinking <mode>", "adaptive, enabled or disabled: extended thinking (Anthropic models)")
  .option("--thinking-display <mode>", "accepted for the Agent SDK; toolgate always passes thinking through")
  .option("--effort <level>", "accepted for the Agent SDK; no effect in toolgate yet")
  .option("--fallback-model <model>", "when the model is overloaded (529) or not found, try the request on these models (comma-separated, in order); the next prompt starts on the main model again")
  .option("--betas <list>", "accepted for the Agent SDK; no effect in toolgate")
  .option("--task-budget <n>", "accepted for the Agent SDK; no effect in toolgate")
  .option("--agent <name>", "accepted for the Agent SDK; no effect in toolgate yet")
  .option("--agents <json>", 'subagents defined inline: {"name": {"description", "prompt", "tools"?, "model"?}}, over the agent files of the same name')
  .option("--include-hook-events", "stream-json: a hook_started and a hook_response system message for each hook run")
  .option("--plugin-dir <dir>", "load the plugin in this folder for this run (.claude-plugin/plugin.json; repeatable)", collect)
  .option("--plugin-dir-no-mcp <dir>", "as --plugin-dir, without the plugin's MCP servers (repeatable)", collect)
  .option("--channels <name>", "accepted for the Agent SDK; no effect in toolgate (repeatable)", collect)
  .option("--resume-drops-turn <value>", "accepted for the Agent SDK; no effect in toolgate")
  .option("--session-mirror", "accepted for the Agent SDK; no effect in toolgate")
  .option("--project-config-root <dir>", "accepted for the Agent SDK; no effect in toolgate")
  .option("--debug [filter]", "with -p: diagnostics on stderr (as --verbose for text and json)")
  .option("--debug-to-stderr", "with -p: diagnostics on stderr")
  .option("--debug-file <file>", "with -p: diagnostics appended to this file")
  .action(async (prompt: string | undefined, flags: SessionFlags & { print?: boolean; inputFormat?: string; outputFormat?: string }) => {
    // stream-json in or out means a program drives toolgate (the Claude Agent SDK never passes -p): headless.
    if (!flags.print && flags.inputFormat !== "stream-json" && flags.outputFormat !== "stream-json") {
      // `toolgate sesions` is a typo far more often than a one-word first prompt.
      const command = prompt === undefined ? undefined : misspeltCommand(prompt, program.commands.map((c) => c.name()));
      if (command) throw new UsageError(`unknown command '${prompt}': did you mean 'toolgate ${command}'? (To start the interactive UI with it as the first prompt, add a word.)`);
      // Ink's colour library reads FORCE_COLOR, not NO_COLOR (no-color.org): translate before it loads.
      if (process.env.NO_COLOR) process.env.FORCE_COLOR = "0";
      // The UI (React, Ink) is imported only here, so every other command starts without it. Ink decides once,
      // when it loads, that CI (or CONTINUOUS_INTEGRATION) set means "no live screen, print the last frame on
      // exit": in a real terminal that would be a blank screen. The variables are hidden only while it loads, so
      // the commands the agent runs still see them.
      const { interactiveCommand } = await whileHidden(process.stdin.isTTY && process.stdout.isTTY ? ["CI", "CONTINUOUS_INTEGRATION"] : [], () => import("./interactive.js"));
      process.exitCode = await interactiveCommand(prompt, flags);
      return;
    }
    const { printCommand } = await import("./print.js");
    process.exitCode = await printCommand(prompt, flags);
  });

withSessionFlags(
  program
    .command("exec")
    .description(
      "Run tool calls from stdin: one JSON assistant message or tool_use block per line; prints one user message with the tool_results per line.",
    ),
)
  .option("--verbose", "print progress and diagnostics to stderr")
  .action(async (flags: SessionFlags & { verbose?: boolean }) => {
    const { execCommand } = await import("./commands.js");
    process.exitCode = await execCommand(flags);
  });

withSessionFlags(program.command("tools").description("List the tools and their JSON Schemas."))
  .option("--json", "print JSON (name, description, input_schema, flags)")
  .action(async (flags: SessionFlags & { json?: boolean }) => {
    const { toolsCommand } = await import("./commands.js");
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
  const { explainCommand } = await import("./commands.js");
  process.exitCode = await explainCommand(tool, input, flags);
});

withSessionFlags(
  permissions
    .command("list")
    .description("List every permission rule with its source and file, the mode and the working directories."),
)
  .option("--json", "print JSON")
  .action(async (flags: SessionFlags & { json?: boolean }) => {
    const { permissionsListCommand } = await import("./permissionsList.js");
    process.exitCode = await permissionsListCommand(flags);
  });

withSessionFlags(
  program
    .command("doctor")
    .description("Check the setup: settings files, rules and their sources, rule tool names, hooks, MCP servers. Exit 1 on an error."),
)
  .option("--connect", "also start each MCP server to check it (runs its command)")
  .option("--json", "print JSON")
  .action(async (flags: SessionFlags & { connect?: boolean; json?: boolean }) => {
    const { doctorCommand } = await import("./doctor.js");
    process.exitCode = await doctorCommand(flags);
  });

withSessionFlags(program.command("sessions").description("List this project's agent sessions, newest first: id, start, turns, size, last prompt."))
  .option("--json", "print JSON")
  .action(async (flags: SessionFlags & { json?: boolean }) => {
    const { sessionsCommand } = await import("./sessions.js");
    process.exitCode = await sessionsCommand(flags);
  });

program
  .command("diff")
  .description("Show what an agent session changed (default: the latest of this project): a stat summary and each file's diff, from the session's checkpoints.")
  .option("--cwd <dir>", "project directory (default: the current directory)")
  .option("--session <id>", "the session (its id or the start of it); toolgate sessions lists them")
  .option("--stat", "only the summary: files, lines added and removed")
  .option("--json", "print JSON")
  .argument("[session]", "the session (its id or the start of it), as --session")
  .action(async (session: string | undefined, flags: { cwd?: string; session?: string; stat?: boolean; json?: boolean }) => {
    if (session !== undefined && flags.session !== undefined && session !== flags.session) throw new UsageError(`diff got two sessions: ${session} and --session ${flags.session}; give one`);
    const { diffCommand } = await import("./diff.js");
    process.exitCode = await diffCommand({ ...flags, ...(session !== undefined ? { session } : {}) });
  });

const fleet = program.command("fleet").description("Many headless tasks on a Redis queue, run by `toolgate worker` processes (see docs/fleet.md).");
const withQueueFlags = (command: Command) =>
  command
    .option("--redis <url>", "the Redis server, e.g. redis://127.0.0.1:6379 (default: TOOLGATE_REDIS_URL)")
    .option("--queue <name>", "the queue", "toolgate")
    .option("--json", "print JSON");
withQueueFlags(fleet.command("submit").description("Queue every task of a JSONL file (each line checked first; a bad line queues nothing)."))
  .argument("<tasks.jsonl>", "one task per line: {cwd | repo+ref, prompt, allowedTools?, permissionMode?, model?, maxTurns?, settings?, trust?, id?}")
  .option("--attempts <n>", "runs of a task that fails before it is given up (a worker's death is retried apart from these)", "1")
  .action(async (file: string, flags) => {
    const { fleetSubmitCommand } = await import("./fleet.js");
    process.exitCode = await fleetSubmitCommand(file, flags);
  });
withQueueFlags(fleet.command("status").description("How many tasks are waiting, active, completed, failed.")).action(async (flags) => {
  const { fleetStatusCommand } = await import("./fleet.js");
  process.exitCode = await fleetStatusCommand(flags);
});
withQueueFlags(fleet.command("results").description("Each task's state and result (--json: one JSON object per line).")).action(async (flags) => {
  const { fleetResultsCommand } = await import("./fleet.js");
  process.exitCode = await fleetResultsCommand(flags);
});
withQueueFlags(fleet.command("cancel").description("Remove the tasks no worker has started; running ones finish.")).action(async (flags) => {
  const { fleetCancelCommand } = await import("./fleet.js");
  process.exitCode = await fleetCancelCommand(flags);
});
withQueueFlags(fleet.command("clean").description("Remove finished tasks and their results (both completed and failed unless one is named); waiting and running ones stay."))
  .option("--completed", "remove the completed tasks")
  .option("--failed", "remove the failed tasks")
  .option("--older-than <duration>", "only those that finished at least this long ago, e.g. 1h or 7d", "0s")
  .action(async (flags) => {
    const { fleetCleanCommand } = await import("./fleet.js");
    process.exitCode = await fleetCleanCommand(flags);
  });
withQueueFlags(program.command("worker").description("Run fleet tasks from the queue, each as a headless session (toolgate -p) in its own process."))
  .option("--concurrency <n>", "tasks this worker runs at once", "1")
  .option("--rate <count/duration>", "at most this many tasks start per duration across all workers of the queue, e.g. 10/1m")
  .option("--lock-duration <ms>", "how soon a dead worker's task goes to another worker", "30000")
  .option("--rate-limit-wait <ms>", "when a session ends on the provider's 429 (after its own retries), every worker of the queue pauses this long", "30000")
  .option("--work-dir <dir>", "where repo tasks are cloned (default: <tmp>/toolgate-fleet)")
  .action(async (flags) => {
    const { workerCommand } = await import("./fleet.js");
    process.exitCode = await workerCommand(flags);
  });

const trust = program.command("trust").description("The folders whose own settings, hooks, MCP servers and language servers toolgate uses.");
trust
  .command("list")
  .description("List the trusted folders (each trusts the folders under it).")
  .option("--json", "print JSON")
  .action(async (flags: { json?: boolean }) => {
    const { trustListCommand } = await import("./trust.js");
    process.exitCode = await trustListCommand(flags);
  });
trust
  .command("add")
  .description("Trust a folder (default: the current one) and the folders under it.")
  .argument("[folder]", "the folder")
  .action(async (folder: string | undefined, flags: { json?: boolean }) => {
    const { trustAddCommand } = await import("./trust.js");
    process.exitCode = await trustAddCommand(folder, flags);
  });
trust
  .command("remove")
  .description("Stop trusting a folder (default: the current one).")
  .argument("[folder]", "the folder")
  .action(async (folder: string | undefined, flags: { json?: boolean }) => {
    const { trustRemoveCommand } = await import("./trust.js");
    process.exitCode = await trustRemoveCommand(folder, flags);
  });

const plugin = program.command("plugin").description("Plugins in Claude Code's format: marketplaces, install, enable, disable (see docs/plugins.md).");
/** Each plugin subcommand passes its words to the one function the UI's /plugin uses too. */
function pluginAction(words: (...args: string[]) => string[]) {
  return async (...args: unknown[]) => {
    const flags = (args.find((a) => a !== null && typeof a === "object" && !Array.isArray(a) && !(a instanceof Command)) ?? {}) as { json?: boolean };
    const [{ runPluginCommand }, { getToolgateHome }] = await Promise.all([import("../plugins/command.js"), import("../util/home.js")]);
    const result = runPluginCommand(words(...(args.filter((a) => typeof a === "string") as string[])), { home: getToolgateHome(process.env), cwd: process.cwd(), env: process.env, json: flags.json });
    (result.code === 0 ? process.stdout : process.stderr).write(`${result.code === 0 ? "" : "toolgate: "}${result.text}\n`);
    process.exitCode = result.code;
  };
}
plugin.command("list").description("List installed plugins (enabled or not) and the plugins of each marketplace.").option("--json", "print JSON").action(pluginAction(() => ["list"]));
plugin.command("install").description("Install a plugin from a marketplace and enable it.").argument("<plugin>", "name@marketplace").action(pluginAction((id) => ["install", id]));
plugin.command("uninstall").description("Remove an installed plugin.").argument("<plugin>", "name@marketplace").action(pluginAction((id) => ["uninstall", id]));
plugin.command("enable").description("Turn an installed plugin on (user settings: enabledPlugins).").argument("<plugin>", "name@marketplace").action(pluginAction((id) => ["enable", id]));
plugin.command("disable").description("Turn an installed plugin off.").argument("<plugin>", "name@marketplace").action(pluginAction((id) => ["disable", id]));
plugin.command("validate").description("Check a plugin folder: its manifest and each part.").argument("<folder>").action(pluginAction((dir) => ["validate", dir]));
const marketplace = plugin.command("marketplace").description("The marketplaces plugins are installed from.");
marketplace.command("add").description("Add a marketplace: a folder or a git repository with .claude-plugin/marketplace.json.").argument("<source>", "a folder, a git URL (https://, file://, git@…) or owner/repo").action(pluginAction((source) => ["marketplace", "add", source]));
marketplace.command("list").description("List the marketplaces.").option("--json", "print JSON").action(pluginAction(() => ["marketplace", "list"]));
marketplace.command("update").description("Fetch a marketplace again (default: every one); install a plugin again to update it.").argument("[name]").action(pluginAction((name) => ["marketplace", "update", ...(name ? [name] : [])]));
marketplace.command("remove").description("Forget a marketplace (installed plugins stay).").argument("<name>").action(pluginAction((name) => ["marketplace", "remove", name]));

const mcp = program.command("mcp").description("MCP servers: list the configured ones, or serve toolgate's tools.");
withSessionFlags(mcp.command("list").description("Show each configured MCP server, its status, tool count and schema token estimate."))
  .option("--json", "print JSON")
  .action(async (flags: SessionFlags & { json?: boolean }) => {
    const { mcpListCommand } = await import("./commands.js");
    process.exitCode = await mcpListCommand(flags);
  });
withSessionFlags(mcp.command("serve").description("Serve the built-in tools over MCP (stdio, or streamable HTTP on 127.0.0.1)."))
  .option("--http <port>", "listen on 127.0.0.1:<port> instead of stdio")
  .option("--http-idle-timeout <seconds>", "with --http: close a session idle this long (default 1800)")
  .option("--http-max-sessions <n>", "with --http: most sessions at once; a new one evicts the least recently used idle one (default 64)")
  .action(async (flags: SessionFlags & { http?: string; httpIdleTimeout?: string; httpMaxSessions?: string }) => {
    const { mcpServeCommand } = await import("./commands.js");
    process.exitCode = await mcpServeCommand(flags);
  });

mcp
  .command("add")
  .description("Add an MCP server: toolgate mcp add [-s scope] [-t transport] [-e KEY=value] [-H 'Name: value'] <name> <command-or-url> [args...]")
  .argument("<name>", "the server's name (its tools become mcp__<name>__<tool>)")
  .argument("<command-or-url>", "the command to run (stdio), or the URL (http, sse)")
  .argument("[args...]", "the command's arguments (put -- before ones that start with -)")
  .option("-s, --scope <scope>", "local (you, this project; default), project (.mcp.json, shared), or user (you, every project)")
  .option("-t, --transport <transport>", "stdio (default), http or sse")
  .option("-e, --env <KEY=value>", "an environment variable for a stdio server (repeatable)", collect)
  .option("-H, --header <header>", "an HTTP header for an http or sse server, 'Name: value' (repeatable)", collect)
  .option("--cwd <dir>", "project directory (default: the current directory)")
  .action(async (name: string, target: string, args: string[], flags: { scope?: string; transport?: string; env?: string[]; header?: string[]; cwd?: string }) => {
    const [{ mcpAddCommand }, { getToolgateHome }] = await Promise.all([import("./mcpConfigCommands.js"), import("../util/home.js")]);
    process.exitCode = mcpAddCommand({ name, target, args, ...flags, projectDir: flags.cwd ?? process.cwd(), home: getToolgateHome(process.env) });
  });
mcp
  .command("remove")
  .description("Remove an MCP server from the file that configures it.")
  .argument("<name>")
  .option("-s, --scope <scope>", "local, project or user: needed when the name is in several")
  .option("--cwd <dir>", "project directory (default: the current directory)")
  .action(async (name: string, flags: { scope?: string; cwd?: string }) => {
    const [{ mcpRemoveCommand }, { getToolgateHome }] = await Promise.all([import("./mcpConfigCommands.js"), import("../util/home.js")]);
    process.exitCode = mcpRemoveCommand({ name, ...flags, projectDir: flags.cwd ?? process.cwd(), home: getToolgateHome(process.env) });
  });

/** `mcp get|login|logout`: a session for the flags, where its servers are configured, closed after `run`. */
async function withServerSession(flags: SessionFlags, run: (where: { projectDir: string; home: string; trusted: boolean; env: NodeJS.ProcessEnv; settings: Record<string, unknown> }) => number | Promise<number>): Promise<number> {
  const { openSession } = await import("./commands.js");
  const session = await openSession(flags);
  try {
    const { context } = session;
    return await run({ projectDir: context.getAppState().toolPermissionContext.cwd, home: context.paths.home, trusted: session.trust.trusted, env: context.env, settings: context.options.settings });
  } finally {
    await session.close();
  }
}

withSessionFlags(mcp.command("get").description("Show where an MCP server is configured, what it runs, and whether it connects.").argument("<name>"))
  .action(async (name: string, flags: SessionFlags) => {
    const { mcpGetCommand } = await import("./mcpConfigCommands.js");
    process.exitCode = await withServerSession(flags, (where) => mcpGetCommand({ name, ...where }));
  });

withSessionFlags(mcp.command("login").description("Log in to an http or sse MCP server that asks for one (OAuth in the browser; tokens kept 0600 in toolgate's home).").argument("<name>"))
  .option("--timeout <seconds>", "how long to wait for the browser (default 300)")
  .action(async (name: string, flags: SessionFlags & { timeout?: string }) => {
    const { mcpLoginCommand } = await import("./mcpConfigCommands.js");
    const seconds = flags.timeout === undefined ? undefined : Number(flags.timeout);
    if (seconds !== undefined && !(Number.isFinite(seconds) && seconds > 0)) throw new UsageError(`--timeout takes a number of seconds, got ${JSON.stringify(flags.timeout)}`);
    process.exitCode = await withServerSession(flags, (where) =>
      mcpLoginCommand({ name, ...where, timeoutMs: seconds === undefined ? undefined : seconds * 1000, openBrowser: process.stdout.isTTY === true && !process.env.CI }),
    );
  });

withSessionFlags(mcp.command("logout").description("Forget the login of an MCP server (its stored tokens are removed).").argument("<name>"))
  .action(async (name: string, flags: SessionFlags) => {
    const { mcpLogoutCommand } = await import("./mcpConfigCommands.js");
    process.exitCode = await withServerSession(flags, (where) => mcpLogoutCommand({ name, ...where }));
  });

// Errors raised outside the command's own promise (a stream's 'error' event, a stray rejection) end the
// process the same way: one line, the stack only on request.
const onStrayError = (err: unknown) => {
  process.exit(reportFailure(err, wantsStackTraces(process.argv, process.env), (text) => process.stderr.write(text)));
};
process.on("uncaughtException", onStrayError);
// A terminal closed under any command must not end it in Node's assertion (see termination.ts).
endBySignalIfTerminalGoes();
process.on("unhandledRejection", onStrayError);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Already printed by commander (help, version, or the one-line error above).
    process.exitCode = err.exitCode === 0 ? 0 : EXIT_USAGE;
  } else {
    process.exitCode = reportFailure(err, wantsStackTraces(process.argv, process.env), (text) => process.stderr.write(text));
  }
}
