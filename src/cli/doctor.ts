import fs from "node:fs";
import path from "node:path";
import { getToolgateHome, readSettingsSection } from "../core/context.js";
import { normalizeNameForMcp, parseMcpToolName } from "../core/registry.js";
import { validateHooksSettings } from "../hooks/index.js";
import { connectMcpServers, formatMcpConfigError, loadMcpConfig, type LoadedMcpConfig } from "../mcp/index.js";
import {
  findRuleToolNameProblems,
  formatRuleToolNameProblem,
  isRuleToolNameTypo,
  formatRulesTable,
  sourceLabel,
  workingDirectoryLines,
} from "../permissions/index.js";
import { createSession, type Session, type SessionOptions } from "../session/index.js";
import { parseSettingsText, readSettingsFile, settingsFileLocations } from "../settings/index.js";
import { settingsSections } from "../session/settings.js";
import { HOOK_EVENTS } from "../settings/types.js";
import { builtinToolNames } from "../tools/index.js";
import { WEB_SEARCH_SETTINGS, WEB_SEARCH_SETUP_HINT } from "../tools/WebSearch/index.js";
import { networkPolicy, sandboxUnavailableMessage } from "../sandbox/index.js";
import { sandboxSelfTest } from "../sandbox/selfTest.js";
import { readLspSettings, resolveServerCommand, skippedProgramsNote } from "../lsp/index.js";
import { listPermissions } from "./permissionsList.js";
import { sessionOptionsFromFlags, type SessionFlags } from "./flags.js";

export type DoctorStatus = "ok" | "warn" | "error";

export interface DoctorResult {
  status: DoctorStatus;
  /** What was found, one fact per line, for a person to read. */
  lines: string[];
}

/** What every check may look at; built once per run. */
export interface DoctorInput {
  options: SessionOptions;
  /** The session the flags describe, without MCP servers (those are the mcp check's business). */
  session: Session;
  mcpConfig: LoadedMcpConfig;
  /** `--connect`: start the MCP servers to check them (runs their commands). */
  connect: boolean;
  env: NodeJS.ProcessEnv;
}

/**
 * One named section of `toolgate doctor`. New sections (the sandbox's availability, …) are one more entry
 * in DOCTOR_CHECKS: a check never throws to report a problem, it returns status "error".
 */
export interface DoctorCheck {
  name: string;
  run(input: DoctorInput): DoctorResult | Promise<DoctorResult>;
}

const worst = (statuses: readonly DoctorStatus[]): DoctorStatus =>
  statuses.includes("error") ? "error" : statuses.includes("warn") ? "warn" : "ok";

/** Every settings source: where it is looked for, whether it is there, and whether it parses. */
export const settingsCheck: DoctorCheck = {
  name: "settings files",
  run({ options, env }) {
    const cwd = options.cwd ?? process.cwd();
    const locations = settingsFileLocations({ cwd, home: options.home ?? getToolgateHome(env), settingsFile: options.settingsFile, env });
    const statuses: DoctorStatus[] = [];
    const lines: string[] = [];
    const sections = settingsSections();
    for (const location of locations) {
      const read = location.text !== undefined ? parseSettingsText(location.text, sections) : readSettingsFile(location.path, sections);
      const label = `${sourceLabel(location.source)}: ${location.path}`;
      if (read.status === "missing") {
        statuses.push(location.required ? "error" : "ok");
        lines.push(`${label} — ${location.required ? "does not exist (exec and mcp serve refuse to run)" : "not present"}`);
      } else if (read.status === "error") {
        statuses.push("error");
        lines.push(`${label} — ${read.message} (exec and mcp serve refuse to run until it is fixed)`);
      } else {
        statuses.push(read.problems.length ? "warn" : "ok");
        lines.push(`${label} — ok${read.problems.length ? `, ${read.problems.length} entr${read.problems.length === 1 ? "y" : "ies"} dropped:` : ""}`);
        lines.push(...read.problems.map((problem) => `    ${problem}`));
      }
    }
    return { status: worst(statuses), lines };
  },
};

/** Whether this folder is trusted, and when not, each thing its own files would turn on. */
export const trustCheck: DoctorCheck = {
  name: "folder trust",
  run({ session }) {
    const { trust, untrusted } = session;
    if (trust.trusted) {
      const how = trust.source === "flag" ? "--trust, for this run" : trust.source === "store" ? `trusted folder ${trust.by}` : `trustedFolders: ${trust.by}`;
      return { status: "ok", lines: [`${trust.folder} is trusted (${how}): its settings, hooks, MCP servers and language servers apply`] };
    }
    const lines = [`${trust.folder} is not trusted: its own settings only narrow (deny and ask rules, stricter modes apply)`];
    if (untrusted.length === 0) lines.push("it turns nothing on that would need trust");
    else lines.push("set aside until it is trusted:");
    for (const item of untrusted) lines.push(`  ${item.what} (${item.file}):`, ...item.details.map((d) => `    ${d}`));
    lines.push(`trust it: toolgate trust add ${JSON.stringify(trust.folder)} (or --trust for one run)`);
    return { status: untrusted.length ? "warn" : "ok", lines };
  },
};

/** The rules in force, each with its source and file, the mode and the working directories. */
export const permissionsCheck: DoctorCheck = {
  name: "permissions",
  run({ session, options }) {
    const ctx = session.context.getAppState().toolPermissionContext;
    const listing = listPermissions(session, options.permissionMode !== undefined);
    const missingDirs = ctx.additionalWorkingDirectories.filter((d) => !isDirectory(d.path));
    const lines = [
      `mode: ${listing.mode} (${listing.modeSource})${listing.strict ? "; strict" : ""}`,
      "working directories:",
      ...workingDirectoryLines(ctx).map((line) => `  ${line}`),
      ...missingDirs.map((d) => `  ! ${d.path} is not an existing directory`),
      ctx.rules.length ? "rules:" : "rules: none",
      ...formatRulesTable(ctx.rules).map((line) => `  ${line}`),
    ];
    return { status: missingDirs.length ? "warn" : "ok", lines };
  },
};

/** Rules whose tool name matches nothing, with a did-you-mean; in strict mode a deny or ask among them is an error. */
export const ruleToolNamesCheck: DoctorCheck = {
  name: "rule tool names",
  run({ session, mcpConfig }) {
    const ctx = session.context.getAppState().toolPermissionContext;
    const problems = findRuleToolNameProblems(ctx.rules, {
      toolNames: builtinToolNames(),
      // Without connecting, the servers' tools are unknown: only their names are judged.
      mcpServers: new Map(mcpConfig.servers.map((s) => [normalizeNameForMcp(s.name), undefined])),
    });
    if (problems.length === 0) return { status: "ok", lines: ["every rule names a known tool"] };
    const statuses: DoctorStatus[] = [];
    const lines = problems.map((problem) => {
      const fatal = session.strict && problem.kind === "unknownTool" && problem.rule.ruleBehavior !== "allow";
      statuses.push(fatal ? "error" : isRuleToolNameTypo(problem) ? "warn" : "ok");
      return `${fatal ? "strict mode: " : ""}${formatRuleToolNameProblem(problem)}`;
    });
    return { status: worst(statuses), lines };
  },
};

/** Hooks by event, with matcher, command and file; malformed entries are warnings. */
export const hooksCheck: DoctorCheck = {
  name: "hooks",
  run({ session }) {
    const lines: string[] = [];
    let problems = 0;
    const pluginFiles = session.plugins.flatMap((p) => p.hooks.map((h) => ({ path: `${h.file} (plugin ${p.id})`, settings: { hooks: h.hooks } })));
    for (const file of [...session.settings.files, ...pluginFiles]) {
      const { hooks, problems: found } = validateHooksSettings(file.settings.hooks);
      problems += found.length;
      lines.push(...found.map((p) => `! ${file.path}: ${p.path}: ${p.message}`));
      for (const event of HOOK_EVENTS) {
        for (const group of hooks[event] ?? []) {
          for (const hook of group.hooks) lines.push(`${event} [${group.matcher || "*"}] ${hook.type === "prompt" ? `(prompt) ${hook.prompt.split("\n")[0].slice(0, 60)}` : hook.command} — ${file.path}`);
        }
      }
    }
    return { status: problems ? "warn" : "ok", lines: lines.length ? lines : ["no hooks configured"] };
  },
};

/** The session's plugins: where each is, and the hooks and servers it brings. */
export const pluginsCheck: DoctorCheck = {
  name: "plugins",
  run({ session }) {
    if (session.plugins.length === 0) return { status: "ok", lines: ["no plugins (toolgate plugin list shows the installed ones)"] };
    const lines = session.plugins.flatMap((p) => [
      `${p.id}${p.manifest.version ? ` ${p.manifest.version}` : ""} — ${p.root}`,
      ...p.hooks.map((h) => `  hooks: ${h.file}`),
      ...p.mcpServers.map((s) => `  MCP server ${s.name}: ${s.config.type === "stdio" ? [s.config.command, ...s.config.args].join(" ") : "url" in s.config ? s.config.url : s.config.type}`),
      ...p.problems.map((problem) => `  ! ${problem}`),
    ]);
    return { status: session.plugins.some((p) => p.problems.length) ? "warn" : "ok", lines };
  },
};

/** Configured MCP servers; with --connect, each one started, listed and closed again. */
export const mcpCheck: DoctorCheck = {
  name: "MCP servers",
  async run({ mcpConfig, connect, session, env }) {
    const lines = mcpConfig.errors.map((e) => `! ${formatMcpConfigError(e)}`);
    const statuses: DoctorStatus[] = mcpConfig.errors.length ? ["warn"] : [];
    if (mcpConfig.servers.length === 0) return { status: worst(statuses), lines: [...lines, "no MCP servers configured"] };
    const describe = (s: (typeof mcpConfig.servers)[number]) =>
      `${s.name} (${s.config.type}: ${s.config.type === "stdio" ? [s.config.command, ...s.config.args].join(" ") : "url" in s.config ? s.config.url : "in the controlling program"}) — ${s.source}`;
    if (!connect) {
      lines.push(...mcpConfig.servers.map((s) => `${describe(s)}; not started (--connect starts them)`));
      return { status: worst(statuses), lines };
    }
    const manager = await connectMcpServers(mcpConfig.servers, { settings: session.context.options.settings, env, oauth: { home: session.context.paths.home } });
    try {
      for (const server of mcpConfig.servers) {
        const client = manager.client(server.name);
        const connected = client?.status === "connected";
        statuses.push(connected ? "ok" : "error");
        lines.push(`${describe(server)}; ${connected ? `connected, ${client.toolCount} tools` : `${client?.status ?? "failed"}: ${client?.error ?? "unknown error"}`}`);
      }
    } finally {
      await manager.close();
    }
    return { status: worst(statuses), lines };
  },
};

/** Whether Bash runs in the OS sandbox here, and a real run proving it confines a command. */
export const sandboxCheck: DoctorCheck = {
  name: "sandbox",
  async run({ session }) {
    const sandbox = session.sandbox;
    if (sandbox.status === "disabled") return { status: "warn", lines: [`off (${sandbox.reason}): Bash commands are judged by the permission rules alone`] };
    const ctx = session.context.getAppState().toolPermissionContext;
    const test = sandbox.status === "active" ? await sandboxSelfTest(sandbox, ctx) : undefined;
    if (!test || sandbox.status !== "active") return { status: sandbox.explicit ? "error" : "warn", lines: [sandboxUnavailableMessage(sandbox)] };
    const network = networkPolicy(ctx, sandbox.settings);
    return {
      status: test.ok ? "ok" : "error",
      lines: [
        `on (${process.platform === "darwin" ? "sandbox-exec" : "bubblewrap"}); temp dir ${sandbox.tempDir}`,
        ...test.lines,
        `network: ${network.allowed.length ? `only ${network.allowed.join(", ")}` : "no hosts allowed"}${network.denied.length ? `; denied ${network.denied.join(", ")}` : ""}`,
        `auto-allow of commands no rule covers: ${sandbox.settings.autoAllowBashIfSandboxed === false ? "off" : "on"}`,
      ],
    };
  },
};

/** Which model provider, model and base URL a loop would use, whether a key is set (never the key), and the limits. */
export const modelProviderCheck: DoctorCheck = {
  name: "model provider",
  async run({ session, env }) {
    const { resolveProviderConfig, lookupModel, readModelOverrides, platformFromEnv } = await import("../providers/index.js");
    const settings = session.context.options.settings;
    const config = resolveProviderConfig({}, env, settings);
    const info = lookupModel(config.model, readModelOverrides(settings));
    const limits = info.source === "table" ? `table, "${info.matched}"` : info.source === "settings" ? "settings models section" : "default for unknown models";
    const limitsLine = `context window ${info.contextWindow.toLocaleString("en-US")} tokens, max output ${info.maxOutputTokens.toLocaleString("en-US")} (${limits})`;
    if (config.platform) {
      // A switch variable names itself; TOOLGATE_PROVIDER, --provider and settings say where they are.
      const selectedBy = config.sources.provider === "env" ? (platformFromEnv(env)?.variable ?? "TOOLGATE_PROVIDER") : config.sources.provider;
      const platform = await platformLines(config, env);
      return {
        status: platform.status,
        lines: [
          `provider: ${config.provider} (${selectedBy})`,
          `model: ${config.model} (${config.sources.model})`,
          `small model (side questions such as WebFetch's): ${config.smallModel}`,
          ...platform.lines,
          limitsLine,
        ],
      };
    }
    const keyVar = config.provider.startsWith("openai") ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
    // A local OpenAI-compatible server usually needs no key; Anthropic always does. Only `-p` and the UI need
    // a model (exec and mcp serve do not), but those are what a newcomer runs first: a missing key is a warning.
    const keyMissing = !config.apiKey && (config.provider === "anthropic" || !config.baseURL);
    return {
      status: keyMissing ? "warn" : "ok",
      lines: [
        `provider: ${config.provider} (${config.sources.provider}${config.sources.api ? `; the Responses API by ${config.sources.api === "model" ? "the model" : "settings provider.api"}` : ""})`,
        `model: ${config.model} (${config.sources.model})`,
        `small model (side questions such as WebFetch's): ${config.smallModel}`,
        `base URL: ${config.baseURL ? `${config.baseURL} (${config.sources.baseURL})` : "the API's default"}`,
        `API key: ${config.apiKey ? `set (${config.sources.apiKey})` : `not set${keyMissing ? ` — set ${keyVar} for -p and the interactive UI` : ""}`}`,
        limitsLine,
      ],
    };
  },
};

/** Bedrock's region, endpoint and credential source; Vertex AI's location, project, endpoint and credentials. Never a secret. */
async function platformLines(config: import("../providers/index.js").ResolvedProviderConfig, env: NodeJS.ProcessEnv): Promise<DoctorResult> {
  const { bedrockEndpoint, describeBedrockCredentials, describeVertexCredentials, vertexEndpoint } = await import("../providers/index.js");
  const platform = config.platform!;
  const from = (source: string, variable: string) => (source === "default" ? `default; ${variable} changes it` : source);
  const urlVar = platform.kind === "bedrock" ? "ANTHROPIC_BEDROCK_BASE_URL" : "ANTHROPIC_VERTEX_BASE_URL";
  const endpoint = (fallback: string) => `endpoint: ${config.baseURL ? `${config.baseURL} (${config.sources.baseURL === "env" ? urlVar : config.sources.baseURL})` : fallback}`;
  if (platform.kind === "bedrock") {
    const credentials = describeBedrockCredentials(env, platform);
    return {
      status: credentials.found ? "ok" : "warn",
      lines: [
        `region: ${platform.region.value} (${from(platform.region.source, "AWS_REGION")})`,
        endpoint(`${bedrockEndpoint(platform.region.value)} (${urlVar} changes it)`),
        `credentials: ${credentials.found ? "" : "! "}${credentials.description}`,
      ],
    };
  }
  const credentials = describeVertexCredentials(env, platform);
  const project = credentials.project;
  return {
    status: credentials.found && project ? "ok" : "warn",
    lines: [
      `location: ${platform.region.value} (${from(platform.region.source, "CLOUD_ML_REGION")})`,
      `project: ${project ? `${project.value} (${project.source})` : "! none — set ANTHROPIC_VERTEX_PROJECT_ID"}`,
      endpoint(`${vertexEndpoint(platform.region.value)} (${urlVar} changes it)`),
      `credentials: ${credentials.found ? "" : "! "}${credentials.description}`,
    ],
  };
}

/** The configured language servers and whether their programs are found (they are started on the first edit, not here). */
export const lspCheck: DoctorCheck = {
  name: "language servers",
  run({ session }) {
    const servers = Object.entries(readLspSettings(session.context.options.settings));
    if (!servers.length) return { status: "ok", lines: ["none configured (settings: lsp); edits are not checked by a language server"] };
    const cwd = session.context.getCwd();
    const lines = servers.map(([name, s]) => {
      const { program, skipped } = resolveServerCommand(s.command[0], { dirs: [cwd], env: session.context.env, trusted: session.trust.trusted });
      const where = session.trust.trusted ? "in node_modules/.bin or on PATH" : "on PATH";
      const note = skipped.length ? `; ${skippedProgramsNote(skipped)}` : "";
      return `${name} (${s.extensions.join(", ")}): ${s.command.join(" ")} — ${program ? `found at ${program}` : `! program not found ${where}`}${note}`;
    });
    return { status: lines.some((l) => l.includes("! program")) ? "warn" : "ok", lines };
  },
};

/** Which search WebSearch would use, and how to turn it on when it has none. Informational: off is not a fault. */
export const webSearchCheck: DoctorCheck = {
  name: "web search",
  async run({ session, env, mcpConfig }) {
    const { resolveProviderConfig } = await import("../providers/index.js");
    const settings = session.context.options.settings;
    const search = readSettingsSection(session.context, WEB_SEARCH_SETTINGS) ?? {};
    const backend = search.backend ?? "auto";
    const provider = resolveProviderConfig({}, env, settings).provider;
    const lines: string[] = [];
    // Bedrock does not run Anthropic's server-side tools; Vertex AI does (web search there is in preview).
    if (backend !== "mcp" && (provider === "anthropic" || provider === "vertex")) lines.push(`${provider === "vertex" ? "Anthropic's web search on Vertex AI" : "Anthropic's server-side web search"}, in agent sessions (toolgate -p, the UI)`);
    if (backend !== "anthropic" && search.mcpTool) {
      const server = parseMcpToolName(search.mcpTool)?.serverName;
      const configured = mcpConfig.servers.some((s) => normalizeNameForMcp(s.name) === server);
      lines.push(`${lines.length ? "otherwise " : ""}the MCP tool ${search.mcpTool}${configured ? "" : ` — but no MCP server "${server}" is configured in .mcp.json`}`);
    }
    if (lines.length) return { status: "ok", lines: [`WebSearch uses: ${lines.join("; ")}`] };
    return { status: "ok", lines: [`WebSearch is off. ${WEB_SEARCH_SETUP_HINT}`] };
  },
};

export const DOCTOR_CHECKS: readonly DoctorCheck[] = [settingsCheck, trustCheck, permissionsCheck, ruleToolNamesCheck, hooksCheck, pluginsCheck, mcpCheck, sandboxCheck, modelProviderCheck, lspCheck, webSearchCheck];

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

export interface DoctorReport {
  status: DoctorStatus;
  checks: Array<{ name: string } & DoctorResult>;
}

/** Run the checks in order; a check that throws is reported as an error of its own section, not a crash. */
export async function runDoctorChecks(checks: readonly DoctorCheck[], input: DoctorInput): Promise<DoctorReport> {
  const results: DoctorReport["checks"] = [];
  for (const check of checks) {
    try {
      results.push({ name: check.name, ...(await check.run(input)) });
    } catch (err) {
      results.push({ name: check.name, status: "error", lines: [`the check itself failed: ${err instanceof Error ? err.message : String(err)}`] });
    }
  }
  return { status: worst(results.map((r) => r.status)), checks: results };
}

export function formatDoctorReport(report: DoctorReport, cwd: string): string {
  const out = [`toolgate doctor — ${cwd}`, ""];
  for (const check of report.checks) {
    out.push(`[${check.status}] ${check.name}`, ...check.lines.map((line) => `  ${line}`), "");
  }
  const count = (status: DoctorStatus, noun: string) => {
    const n = report.checks.filter((c) => c.status === status).length;
    return `${n} ${noun}${n === 1 ? "" : "s"}`;
  };
  out.push(report.status === "ok" ? "all checks passed" : `${count("error", "error")}, ${count("warn", "warning")}`);
  return `${out.join("\n")}\n`;
}

/** `toolgate doctor [--connect] [--json]`: exit 1 when any check is an error. */
export async function doctorCommand(flags: SessionFlags & { connect?: boolean; json?: boolean }): Promise<number> {
  const env = process.env;
  const options = sessionOptionsFromFlags(flags);
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const session = await createSession({ ...options, cwd });
  try {
    // An untrusted folder's .mcp.json is listed by the trust check, never started by --connect.
    const mcpConfig = loadMcpConfig({ projectDir: cwd, home: session.context.paths.home, configFiles: flags.mcpConfig, env, skipProjectConfig: !session.trust.trusted });
    const report = await runDoctorChecks(DOCTOR_CHECKS, { options: { ...options, cwd }, session, mcpConfig, connect: flags.connect === true, env });
    process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatDoctorReport(report, cwd));
    return report.status === "error" ? 1 : 0;
  } finally {
    await session.close();
  }
}
