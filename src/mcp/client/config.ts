import fs from "node:fs";
import path from "node:path";
import { normalizeNameForMcp } from "../../core/registry.js";
import { expandEnvVars } from "./envExpansion.js";

/**
 * MCP server configuration in the `.mcp.json` shape: `{mcpServers: {name: {command, args, env, cwd?} |
 * {type: "http"|"sse", url, headers}}}`. A bad entry is reported and skipped; it never stops the others.
 */

export interface McpStdioServerConfig {
  type: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Absolute; relative paths in the file are resolved against the file's directory. */
  cwd?: string;
  /** Send this server's tool schemas up front instead of deferring them to ToolSearch. */
  alwaysLoad?: boolean;
  /** Run the server inside the session's OS sandbox; it does not start when the sandbox cannot run. */
  sandbox?: boolean;
}

export interface McpRemoteServerConfig {
  type: "http" | "sse";
  url: string;
  headers: Record<string, string>;
  alwaysLoad?: boolean;
}

/**
 * A server that lives in the program driving toolgate (the Agent SDK's `createSdkMcpServer`): its JSON-RPC
 * travels over that program's control channel. Never read from a file; only the controlling client adds one.
 */
export interface McpSdkServerConfig {
  type: "sdk";
  /** A fresh transport to the server for each connect. */
  transport: () => import("@modelcontextprotocol/sdk/shared/transport.js").Transport;
  alwaysLoad?: boolean;
}

export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig | McpSdkServerConfig;

export interface ScopedMcpServerConfig {
  name: string;
  config: McpServerConfig;
  /** The file (or `--mcp-config` JSON text) it came from. */
  source: string;
}

export interface McpConfigError {
  source: string;
  /** Absent when the whole file is unusable. */
  server?: string;
  message: string;
}

export interface LoadedMcpConfig {
  /** In load order; a later source replaces an earlier server of the same name. */
  servers: ScopedMcpServerConfig[];
  errors: McpConfigError[];
}

export const PROJECT_MCP_CONFIG_FILE = ".mcp.json";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

class EntryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EntryError";
  }
}

/** Expands variables in one string field; an unset variable without a default rejects the entry. */
function expander(env: NodeJS.ProcessEnv) {
  return (text: string, field: string): string => {
    const { value, missing } = expandEnvVars(text, env);
    if (missing.length > 0) {
      const names = missing.map((m) => `\${${m}}`).join(", ");
      throw new EntryError(`${field} uses ${names}, which ${missing.length === 1 ? "is" : "are"} not set (set it, or write \${NAME:-default})`);
    }
    return value;
  };
}

function stringRecord(value: unknown, field: string, expand: (text: string, field: string) => string): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) throw new EntryError(`${field} must be an object of strings`);
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== "string") throw new EntryError(`${field}.${key} must be a string, got ${typeName(item)}`);
    out[key] = expand(item, `${field}.${key}`);
  }
  return out;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  return Array.isArray(value) ? "array" : typeof value;
}

function optionalBoolean(entry: Json, key: string): boolean | undefined {
  const value = entry[key];
  if (value === undefined) return undefined;
  if (typeof value !== "boolean") throw new EntryError(`${key} must be true or false`);
  return value;
}

/** One server entry, validated and expanded. Throws EntryError with a message for the user. */
export function parseMcpServerEntry(raw: unknown, env: NodeJS.ProcessEnv, baseDir: string): McpServerConfig {
  if (!isObject(raw)) throw new EntryError(`the entry must be an object, got ${typeName(raw)}`);
  const expand = expander(env);
  const type = raw.type ?? (raw.url !== undefined && raw.command === undefined ? undefined : "stdio");
  const alwaysLoad = optionalBoolean(raw, "alwaysLoad");

  if (type === "stdio") {
    if (typeof raw.command !== "string" || !raw.command.trim()) throw new EntryError('"command" must be a non-empty string');
    if (raw.args !== undefined && (!Array.isArray(raw.args) || raw.args.some((a) => typeof a !== "string"))) {
      throw new EntryError('"args" must be an array of strings');
    }
    if (raw.cwd !== undefined && typeof raw.cwd !== "string") throw new EntryError('"cwd" must be a string');
    const args = ((raw.args as string[] | undefined) ?? []).map((arg, i) => expand(arg, `args[${i}]`));
    const cwd = raw.cwd === undefined ? undefined : path.resolve(baseDir, expand(raw.cwd, "cwd"));
    const sandbox = optionalBoolean(raw, "sandbox");
    return {
      type: "stdio",
      command: expand(raw.command, "command"),
      args,
      env: stringRecord(raw.env, "env", expand),
      ...(cwd !== undefined && { cwd }),
      ...(alwaysLoad !== undefined && { alwaysLoad }),
      ...(sandbox !== undefined && { sandbox }),
    };
  }
  if (type === "http" || type === "sse") {
    if (typeof raw.url !== "string" || !raw.url.trim()) throw new EntryError('"url" must be a non-empty string');
    const url = expand(raw.url, "url");
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new EntryError(`"url" is not a valid URL: ${url}`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new EntryError(`"url" must be http or https, got ${parsed.protocol}`);
    return {
      type,
      url,
      headers: stringRecord(raw.headers, "headers", expand),
      ...(alwaysLoad !== undefined && { alwaysLoad }),
    };
  }
  if (type === undefined) throw new EntryError('the entry needs "command" (stdio) or "type": "http"|"sse" with "url"');
  throw new EntryError(`unsupported "type" ${JSON.stringify(type)} (expected "stdio", "http" or "sse")`);
}

function checkServerName(name: string): string | undefined {
  if (!name.trim()) return "the server name is empty";
  if (name.includes("__")) return 'server names may not contain "__" (it separates server and tool in mcp__server__tool)';
  return undefined;
}

/** The servers of one parsed config document (`{mcpServers: {...}}`). */
export function parseMcpConfig(document: unknown, source: string, env: NodeJS.ProcessEnv, baseDir: string): LoadedMcpConfig {
  const servers: ScopedMcpServerConfig[] = [];
  const errors: McpConfigError[] = [];
  if (!isObject(document)) {
    errors.push({ source, message: `expected a JSON object with "mcpServers", got ${typeName(document)}` });
    return { servers, errors };
  }
  const entries = document.mcpServers;
  if (entries === undefined) return { servers, errors };
  if (!isObject(entries)) {
    errors.push({ source, message: `"mcpServers" must be an object mapping names to servers, got ${typeName(entries)}` });
    return { servers, errors };
  }
  for (const [name, raw] of Object.entries(entries)) {
    const nameProblem = checkServerName(name);
    if (nameProblem) {
      errors.push({ source, server: name, message: nameProblem });
      continue;
    }
    try {
      servers.push({ name, config: parseMcpServerEntry(raw, env, baseDir), source });
    } catch (err) {
      if (!(err instanceof EntryError)) throw err;
      errors.push({ source, server: name, message: err.message });
    }
  }
  return { servers, errors };
}

function readConfigSource(spec: string, cwd: string): { document: unknown; source: string; baseDir: string } | McpConfigError {
  // `--mcp-config '{"mcpServers": …}'` is accepted as inline JSON, like Claude Code.
  if (spec.trimStart().startsWith("{")) {
    try {
      return { document: JSON.parse(spec), source: "--mcp-config (inline JSON)", baseDir: cwd };
    } catch (err) {
      return { source: "--mcp-config (inline JSON)", message: `invalid JSON: ${(err as Error).message}` };
    }
  }
  const file = path.resolve(cwd, spec);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { source: file, message: code === "ENOENT" ? "file not found" : `cannot read the file: ${(err as Error).message}` };
  }
  try {
    return { document: JSON.parse(text), source: file, baseDir: path.dirname(file) };
  } catch (err) {
    return { source: file, message: `invalid JSON: ${(err as Error).message}` };
  }
}

/**
 * The person's own server files, outside any repository (so a folder's trust never gates them): `user` is read in
 * every project, `local` only in this one. `toolgate mcp add --scope user|local` writes them.
 */
export function personalMcpConfigFiles(home: string, projectDir: string): { user: string; local: string } {
  return { user: path.join(home, "mcp.json"), local: path.join(home, "projects", path.resolve(projectDir).replace(/[^A-Za-z0-9]/g, "-"), "mcp.json") };
}

export interface LoadMcpConfigOptions {
  /** The project directory; its `.mcp.json` is read when present. */
  projectDir: string;
  /** toolgate's home: its user and local server files (personalMcpConfigFiles) are read when present. */
  home?: string;
  /** `--mcp-config` values: file paths (relative to projectDir) or inline JSON. Later ones win. */
  configFiles?: readonly string[];
  /** For `${VAR}` expansion. */
  env?: NodeJS.ProcessEnv;
  /** Skip the project's `.mcp.json` (only the given files). */
  skipProjectConfig?: boolean;
}

/**
 * The user's servers, the project's `.mcp.json`, this project's local servers, then every `--mcp-config`, later
 * servers replacing earlier ones of the same name (local beats project beats user, as in Claude Code).
 * `skipProjectConfig` (an untrusted folder, or --strict-mcp-config) drops `.mcp.json`; `skipPersonalConfig`
 * (--strict-mcp-config) drops the user and local files.
 */
export function loadMcpConfig(options: LoadMcpConfigOptions & { skipPersonalConfig?: boolean }): LoadedMcpConfig {
  const env = options.env ?? process.env;
  const cwd = path.resolve(options.projectDir);
  const specs: string[] = [];
  const personal = options.home !== undefined && !options.skipPersonalConfig ? personalMcpConfigFiles(options.home, cwd) : undefined;
  if (personal && fs.existsSync(personal.user)) specs.push(personal.user);
  const projectFile = path.join(cwd, PROJECT_MCP_CONFIG_FILE);
  if (!options.skipProjectConfig && fs.existsSync(projectFile)) specs.push(projectFile);
  if (personal && fs.existsSync(personal.local)) specs.push(personal.local);
  specs.push(...(options.configFiles ?? []));

  const byName = new Map<string, ScopedMcpServerConfig>();
  const errors: McpConfigError[] = [];
  for (const spec of specs) {
    const read = readConfigSource(spec, cwd);
    if ("message" in read) {
      errors.push(read);
      continue;
    }
    const parsed = parseMcpConfig(read.document, read.source, env, read.baseDir);
    errors.push(...parsed.errors);
    for (const server of parsed.servers) {
      byName.delete(server.name);
      byName.set(server.name, server);
    }
  }
  // Tool names use the normalized server name, so `a.b` and `a_b` would share `mcp__a_b__*`.
  const servers: ScopedMcpServerConfig[] = [];
  const normalized = new Map<string, string>();
  for (const server of byName.values()) {
    const key = normalizeNameForMcp(server.name);
    const other = normalized.get(key);
    if (other !== undefined) {
      errors.push({ source: server.source, server: server.name, message: `its tool names (mcp__${key}__…) would clash with server "${other}"` });
      continue;
    }
    normalized.set(key, server.name);
    servers.push(server);
  }
  return { servers, errors };
}

export function formatMcpConfigError(error: McpConfigError): string {
  return error.server ? `${error.source}: server "${error.server}": ${error.message}` : `${error.source}: ${error.message}`;
}
