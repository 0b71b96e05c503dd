/**
 * The interactive session's slash commands. Each works on a small host interface the App provides, so the
 * commands stay plain functions.
 */
import fs from "node:fs";
import path from "node:path";
import type { Session } from "../session/index.js";
import type { PermissionBehavior, PermissionRule, PermissionUpdateDestination } from "../core/permissionTypes.js";
import { applyPermissionUpdate, formatRulesTable, parsePermissionRule, ruleToString, sourceLabel, workingDirectoryLines } from "../permissions/index.js";
import { updateSettingsFile } from "../settings/write.js";
import { cacheHitRate, estimateCostUSD } from "../agent/cost.js";
import type { UsageTotals } from "../agent/query.js";
import { expandCommand, loadCustomCommands } from "../agent/commands.js";
import { expandMcpPrompt, mcpPromptCommands } from "../mcp/client/prompts.js";
import { INSTRUCTION_FILE_NAMES } from "../agent/instructions.js";
import { runPluginCommand } from "../plugins/command.js";
import { loginPromptText, loginToMcpServer, openInBrowser } from "../mcp/client/login.js";

export interface CommandHost {
  session: Session;
  cwd: string;
  home: string;
  model(): string;
  setModel(model: string): void;
  usage(): UsageTotals;
  print(text: string, level?: "info" | "warning" | "error"): void;
  clearConversation(): void;
  compact(focus?: string): Promise<void>;
  openRewind(): void;
  openResume(): void;
  /** The output style's name, and a change of it (saved to local project settings). */
  outputStyle(): string;
  setOutputStyle(name: string): void;
  openOutputStyles(): void;
  /** The list of memory files to open in the editor. */
  openMemory(): void;
  exit(): void;
  /** Sends a prompt to the model as if typed (custom commands). */
  send(prompt: string): void;
  /**
   * Runs `task` without holding the prompt (the person keeps typing); Esc aborts its signal. `label` is the hint
   * shown while it runs.
   */
  runInBackground(label: string, task: (signal: AbortSignal) => Promise<void>): void;
}

interface CommandSpec {
  name: string;
  args?: string;
  help: string;
  run(host: CommandHost, args: string): void | Promise<void>;
}

const SCOPES: Record<string, PermissionUpdateDestination> = { session: "session", local: "localSettings", project: "projectSettings", user: "userSettings" };

function permissionsCommand(host: CommandHost, args: string): void {
  const ctx = () => host.session.context.getAppState().toolPermissionContext;
  const [verb, ...rest] = args.trim().split(/\s+/).filter(Boolean);
  if (!verb || verb === "list") {
    const rules = formatRulesTable(ctx().rules);
    host.print(
      [
        `mode: ${ctx().mode}`,
        "working directories:",
        ...workingDirectoryLines(ctx()).map((l) => `  ${l}`),
        rules.length ? "rules:" : "rules: none",
        ...rules.map((l) => `  ${l}`),
        "",
        "/permissions allow|deny|ask RULE [session|local|project|user]   add a rule (default: local)",
        "/permissions remove RULE                                          remove it from the session and every settings file that has it",
      ].join("\n"),
    );
    return;
  }
  if (verb === "allow" || verb === "deny" || verb === "ask") {
    const last = rest.at(-1);
    const scopeWord = last && last in SCOPES ? last : undefined;
    const ruleText = (scopeWord ? rest.slice(0, -1) : rest).join(" ");
    const destination = SCOPES[scopeWord ?? "local"]!;
    let rule;
    try {
      rule = parsePermissionRule(ruleText);
    } catch (err) {
      host.print(`/permissions ${verb}: ${(err as Error).message}`, "error");
      return;
    }
    try {
      const outcome = applyPermissionUpdate(
        { type: "addRules", behavior: verb as PermissionBehavior, rules: [rule], destination },
        { cwd: host.cwd, home: host.home, getAppState: host.session.context.getAppState, setAppState: host.session.context.setAppState },
      );
      host.print(`${verb} ${ruleToString(rule)} — ${outcome.file ?? "this session"}`);
    } catch (err) {
      host.print(`/permissions ${verb}: ${(err as Error).message}`, "error");
    }
    return;
  }
  if (verb === "remove") {
    const ruleText = rest.join(" ");
    let wanted: string;
    try {
      wanted = ruleToString(parsePermissionRule(ruleText));
    } catch (err) {
      host.print(`/permissions remove: ${(err as Error).message}`, "error");
      return;
    }
    const matching = ctx().rules.filter((r) => ruleToString(r) === wanted);
    if (matching.length === 0) {
      host.print(`/permissions remove: no rule ${wanted} (see /permissions)`, "warning");
      return;
    }
    const removed: string[] = [];
    const kept: PermissionRule[] = [];
    for (const rule of ctx().rules) {
      if (ruleToString(rule) !== wanted) {
        kept.push(rule);
        continue;
      }
      // Only files the user owns are rewritten; command-line and managed rules stay (they are not ours to edit).
      if (rule.source === "cliArg" || rule.source === "policySettings" || rule.source === "flagSettings") {
        kept.push(rule);
        host.print(`cannot remove ${wanted} from ${sourceLabel(rule.source)}${rule.file ? ` (${rule.file})` : ""}: change it there`, "warning");
        continue;
      }
      if (rule.file) {
        try {
          updateSettingsFile(rule.file, (raw) => {
            const permissions = raw.permissions as Record<string, unknown> | undefined;
            const list = permissions?.[rule.ruleBehavior];
            if (Array.isArray(list)) permissions![rule.ruleBehavior] = list.filter((entry) => typeof entry !== "string" || safeRuleString(entry) !== wanted);
          });
        } catch (err) {
          kept.push(rule);
          host.print(`could not edit ${rule.file}: ${(err as Error).message}`, "error");
          continue;
        }
      }
      removed.push(`${rule.ruleBehavior} ${wanted} (${sourceLabel(rule.source)}${rule.file ? ` — ${rule.file}` : ""})`);
    }
    host.session.context.setAppState((prev) => ({ ...prev, toolPermissionContext: { ...prev.toolPermissionContext, rules: kept } }));
    if (removed.length) host.print(`removed ${removed.join("; ")}`);
    return;
  }
  host.print(`/permissions: unknown action ${JSON.stringify(verb)}; use list, allow, deny, ask or remove`, "error");
}

function safeRuleString(text: string): string | undefined {
  try {
    return ruleToString(parsePermissionRule(text));
  } catch {
    return undefined;
  }
}

/** `/plugin …`: the same code as `toolgate plugin …`; the listing starts with what this session runs. */
function pluginCommand(host: CommandHost, args: string): void {
  const words = args.trim().split(/\s+/).filter(Boolean);
  let result;
  try {
    result = runPluginCommand(words, { home: host.home, cwd: host.cwd, env: host.session.context.env, trusted: host.session.trust.trusted });
  } catch (err) {
    host.print(`/plugin: ${(err as Error).message}`, "error");
    return;
  }
  const active = host.session.plugins.map((p) => `  ${p.id}  ${p.root}`);
  const head = words.length === 0 || words[0] === "list" ? [active.length ? "In this session:" : "No plugins in this session.", ...active, ""] : [];
  host.print([...head, result.text].join("\n"), result.code === 0 ? "info" : "error");
}

function mcpCommand(host: CommandHost, args: string): void {
  const [verb, name] = args.trim().split(/\s+/).filter(Boolean);
  if (verb === "login") return mcpLogin(host, name);
  if (verb) return host.print(`/mcp: unknown action ${JSON.stringify(verb)}; use /mcp or /mcp login <server>`, "error");
  const clients = host.session.mcp?.clients ?? [];
  if (clients.length === 0) {
    host.print("No MCP servers are configured (add them to .mcp.json or pass --mcp-config).");
    return;
  }
  const lines = clients.flatMap((c) => [
    `${c.name}: ${c.status}${c.status === "needs-auth" ? ` — /mcp login ${c.name}` : c.error ? ` — ${c.error}` : ""}${c.status === "connected" ? `, ${c.tools.length} tool(s)` : ""}`,
    ...(c.status === "connected" ? c.tools.map((t) => `  ${t.name}`) : []),
  ]);
  host.print(lines.join("\n"));
}

/**
 * `/mcp login <server>`: the login `toolgate mcp login` runs, in the background (Esc cancels it), then the
 * session's connection to the server is made again on the stored tokens, so its tools are there from the next turn.
 */
function mcpLogin(host: CommandHost, name: string | undefined): void {
  const connection = name ? host.session.mcp?.client(name) : undefined;
  if (!name || !connection) {
    const remote = (host.session.mcp?.clients ?? []).filter((c) => c.config.type === "http" || c.config.type === "sse").map((c) => c.name);
    host.print(`/mcp login ${name ? `${name}: no MCP server of that name in this session` : "needs a server name"}${remote.length ? ` (remote servers: ${remote.join(", ")})` : ""}`, "error");
    return;
  }
  if (connection.config.type !== "http" && connection.config.type !== "sse") {
    host.print(`/mcp login ${name}: it is a ${connection.config.type} server; logins are for http and sse servers`, "error");
    return;
  }
  const env = host.session.context.env;
  const server = { name, config: connection.config, source: connection.source };
  host.runInBackground(`logging in to ${name} (esc cancels)`, async (signal) => {
    const outcome = await loginToMcpServer(server, {
      home: host.home,
      settings: host.session.context.options.settings,
      env,
      signal,
      onAuthorizationUrl: (prompt) => {
        host.print(`${loginPromptText(prompt)} (esc cancels)`);
        // as `toolgate mcp login` at a terminal; a CI run has no browser to open
        if (!env.CI) openInBrowser(prompt.authorizationUrl);
      },
    });
    if (signal.aborted) return host.print(`/mcp login ${name}: cancelled; nothing was stored`, "warning");
    if (outcome.result === "failed") return host.print(`Login to ${name} failed: ${outcome.error}`, "error");
    await connection.connect();
    if (connection.status === "connected") host.print(`Logged in to ${name}${outcome.result === "no-login-needed" ? " (it asked for no login)" : ""}: connected, ${connection.tools.length} tool(s).`);
    else host.print(`Logged in to ${name}, but it is ${connection.status}${connection.error ? `: ${connection.error}` : ""}`, "error");
  });
}

function sandboxCommand(host: CommandHost): void {
  const sandbox = host.session.sandbox;
  host.print(`sandbox: ${sandbox.status}${sandbox.reason ? ` — ${sandbox.reason}` : ""}`);
}

function costCommand(host: CommandHost): void {
  const u = host.usage();
  const cost = estimateCostUSD(host.model(), u);
  const hitRate = cacheHitRate(u);
  host.print(
    [
      `model: ${host.model()}`,
      `tokens: ${u.inputTokens} in, ${u.outputTokens} out, ${u.cacheReadInputTokens} cache read, ${u.cacheCreationInputTokens} cache write${u.source === "estimate" ? " (partly estimated)" : ""}`,
      `cache hit rate: ${hitRate === undefined ? "no requests yet" : `${(hitRate * 100).toFixed(1)} % of input tokens read from the prompt cache`}`,
      `cost: ${cost === undefined ? "unknown (no price for this model)" : `$${cost.toFixed(4)}`}`,
    ].join("\n"),
  );
}

/** What `/init` asks the model to do: write (or improve) the project's instruction file. */
export const INIT_PROMPT = [
  "Study this repository and write instructions for the coding agents that will work in it.",
  `If one of ${INSTRUCTION_FILE_NAMES.join(", ")} already exists here, improve that file instead of creating another; otherwise create AGENTS.md in the project root.`,
  "Cover what an agent new to the project needs and cannot guess quickly: how to build, test (the whole suite and a single test) and lint; the layout and the architecture in a few lines; conventions the code follows; pitfalls. Read the README, the package or build files, CI configuration and existing agent or editor rule files first.",
  "Keep it short and specific to this project; leave out generic advice and anything obvious from a file listing.",
].join("\n");

function configCommand(host: CommandHost): void {
  const { settings, trust, sandbox } = host.session;
  const ctx = host.session.context.getAppState().toolPermissionContext;
  const candidates = [
    { label: "user", file: path.join(host.home, "settings.json") },
    { label: "project", file: path.join(host.cwd, ".toolgate", "settings.json") },
    { label: "local", file: path.join(host.cwd, ".toolgate", "settings.local.json") },
  ];
  const loaded = new Set(settings.files.map((f) => f.path));
  host.print(
    [
      `model: ${host.model()}`,
      `permission mode: ${ctx.mode} (Shift+Tab cycles)`,
      `output style: ${host.outputStyle()} (/output-style changes it)`,
      `sandbox: ${sandbox.status}${sandbox.reason ? ` — ${sandbox.reason}` : ""}`,
      `folder trust: ${trust.trusted ? `trusted (${trust.source}${trust.by ? `: ${trust.by}` : ""})` : "not trusted: its hooks, MCP servers and allow rules are off"}`,
      "settings files in effect (lowest precedence first):",
      ...(settings.files.length ? settings.files.map((f) => `  ${sourceLabel(f.source)}: ${f.path}`) : ["  none"]),
      ...candidates.filter((c) => !loaded.has(c.file) && !fs.existsSync(c.file)).map((c) => `  ${c.label}: ${c.file} (not there)`),
      ...settings.errors.map((e) => `  problem: ${e.path}: ${e.message}`),
      "",
      "Change them by editing those files (JSON; see docs/core.md), or here: /model NAME, /permissions allow|deny|ask RULE.",
    ].join("\n"),
  );
}

export const BUILTIN_COMMANDS: readonly CommandSpec[] = [
  { name: "help", help: "show the commands and key bindings", run: (host) => host.print(helpText(host)) },
  { name: "clear", help: "start a new conversation (the scrollback stays)", run: (host) => host.clearConversation() },
  { name: "compact", args: "[focus]", help: "summarise the conversation now to free context", run: (host, args) => host.compact(args.trim() || undefined) },
  { name: "resume", help: "pick an earlier session of this project to continue", run: (host) => host.openResume() },
  {
    name: "model",
    args: "[name]",
    help: "show or change the model",
    run: (host, args) => {
      const name = args.trim();
      if (!name) return host.print(`model: ${host.model()}`);
      host.setModel(name);
    },
  },
  { name: "permissions", args: "[list|allow|deny|ask|remove …]", help: "list, add or remove permission rules", run: permissionsCommand },
  { name: "mcp", args: "[login <server>]", help: "MCP servers, their status and tools; log in to one that needs it", run: mcpCommand },
  { name: "plugin", args: "[list|install|enable|disable|uninstall|marketplace add …]", help: "plugins: list them, install name@marketplace, turn them on or off", run: pluginCommand },
  { name: "sandbox", help: "whether Bash runs in the OS sandbox", run: sandboxCommand },
  { name: "rewind", help: "go back to an earlier prompt (files restored)", run: (host) => host.openRewind() },
  { name: "cost", help: "tokens and cost of this session", run: costCommand },
  { name: "config", help: "the settings in effect, their files, trust and sandbox", run: configCommand },
  {
    name: "output-style",
    args: "[name]",
    help: "pick how the model answers (default, explanatory, learning, or your own style)",
    run: (host, args) => (args.trim() ? host.setOutputStyle(args.trim()) : host.openOutputStyles()),
  },
  { name: "memory", help: "open a memory file (the project's AGENTS.md or CLAUDE.md, or yours) in $VISUAL / $EDITOR", run: (host) => host.openMemory() },
  { name: "init", help: "have the model write the project's AGENTS.md (or improve the instruction file there is)", run: (host) => host.send(INIT_PROMPT) },
  { name: "exit", help: "quit", run: (host) => host.exit() },
];

export const KEY_BINDINGS: ReadonlyArray<[string, string]> = [
  ["Enter", "send the prompt"],
  ["\\ then Enter, Alt+Enter, Ctrl+J", "new line"],
  ["↑ / ↓", "prompt history (at the first / last line)"],
  ["Tab", "complete an @path mention"],
  ["!command", "run a shell command yourself; its output goes to the model with your next prompt"],
  ["# note", "save a note to a memory file you pick (not sent to the model)"],
  ["@server:uri", "attach an MCP server's resource (Tab completes it with the files)"],
  ["Esc", "interrupt the model and running tools"],
  ["Esc Esc", "on an empty prompt: rewind to an earlier prompt"],
  ["Shift+Tab", "cycle permission modes"],
  ["Ctrl+O", "show collapsed tool results whole"],
  ["Ctrl+C", "clear the prompt; on an empty prompt quit; in a dialog deny and interrupt"],
];

/** `.toolgate/commands` and `.claude/commands` of the project and the user, read when used (they may change). */
function customCommands(host: CommandHost) {
  return loadCustomCommands({ cwd: host.cwd, home: host.home, userHome: host.session.context.env.HOME, plugins: host.session.plugins });
}

function helpText(host: CommandHost): string {
  const custom = customCommands(host).commands.map((c) => ({
    usage: `/${c.qualifiedName}${c.argumentHint ? ` ${c.argumentHint}` : ""}`,
    help: `${c.description} (${c.scope}${c.namespace ? `:${c.namespace}` : ""})`,
  }));
  const width = Math.max(...BUILTIN_COMMANDS.map((c) => `/${c.name}${c.args ? ` ${c.args}` : ""}`.length), ...custom.map((c) => c.usage.length));
  return [
    "Commands:",
    ...BUILTIN_COMMANDS.map((c) => `  ${`/${c.name}${c.args ? ` ${c.args}` : ""}`.padEnd(width)}  ${c.help}`),
    ...custom.map((c) => `  ${c.usage.padEnd(width)}  ${c.help}`),
    "Keys:",
    ...KEY_BINDINGS.map(([k, what]) => `  ${k.padEnd(32)} ${what}`),
  ].join("\n");
}

/** The commands the `/` menu offers: the built-in ones, then the user's and the project's own. */
export function commandMenu(host: CommandHost): Array<{ name: string; help: string }> {
  let custom: Array<{ name: string; help: string }> = [];
  try {
    custom = customCommands(host).commands.map((c) => ({ name: c.qualifiedName, help: c.description }));
  } catch {
    // an unreadable commands folder leaves the built-in ones
  }
  const prompts = mcpPromptCommands(host.session.context.options.mcpClients).map((c) => ({ name: c.name, help: `${c.description} (MCP)` }));
  return [...BUILTIN_COMMANDS.map((c) => ({ name: c.name, help: c.help })), ...custom, ...prompts];
}

/** Runs `/name args`; false when no command has that name. */
export async function runSlashCommand(host: CommandHost, line: string): Promise<boolean> {
  const match = /^\/(\S+)\s*([\s\S]*)$/.exec(line.trim());
  if (!match) return false;
  const [, name, args] = match;
  const builtin = BUILTIN_COMMANDS.find((c) => c.name === name);
  if (builtin) {
    await builtin.run(host, args ?? "");
    return true;
  }
  const custom = customCommands(host).find(name);
  if (custom) {
    host.send(expandCommand(custom, args ?? ""));
    return true;
  }
  if (name.startsWith("mcp__")) {
    const expanded = await expandMcpPrompt(line, host.session.context.options.mcpClients, AbortSignal.timeout(10 * 60_000));
    if (expanded.kind === "none") return false;
    if (expanded.kind === "error") host.print(expanded.message, "error");
    else host.send(expanded.text);
    return true;
  }
  return false;
}

