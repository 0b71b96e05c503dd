/**
 * `toolgate mcp add|remove|get`, shaped like `claude mcp`: servers are written to one of three files. `project` is
 * the repository's `.mcp.json` (shared through git; a folder's trust gates it); `user` and `local` are the person's
 * own files in toolgate's home (personalMcpConfigFiles), written 0600 because headers and env often carry tokens.
 * Every other key of a file is kept; the write is atomic, so a crash never leaves half a file.
 */
import fs from "node:fs";
import path from "node:path";
import { PROJECT_MCP_CONFIG_FILE, loadMcpConfig, parseMcpServerEntry, personalMcpConfigFiles } from "../mcp/client/config.js";
import { writeFileAtomicSync } from "../util/atomicWrite.js";
import { ensurePrivateDirSync, openPrivateFileSync } from "../util/privateFiles.js";
import { UsageError } from "./errors.js";
import type { McpLoginPrompt } from "../mcp/client/oauth.js";
import { loginPromptText, loginToMcpServer, openInBrowser } from "../mcp/client/login.js";
import { openMcpOAuthStore, type StoredMcpLogin } from "../mcp/client/oauthStore.js";

export const MCP_SCOPES = ["local", "project", "user"] as const;
export type McpScope = (typeof MCP_SCOPES)[number];

export interface McpConfigPlaces {
  projectDir: string;
  home: string;
}

export function scopeFile(scope: McpScope, places: McpConfigPlaces): string {
  if (scope === "project") return path.join(path.resolve(places.projectDir), PROJECT_MCP_CONFIG_FILE);
  return personalMcpConfigFiles(places.home, places.projectDir)[scope];
}

type Json = Record<string, unknown>;

function readDocument(file: string): Json {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    // never overwrite a file we cannot read back: the person's other entries would be lost
    throw new UsageError(`${file} is not valid JSON (${(err as Error).message}); fix or move it first, nothing was changed`);
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) throw new UsageError(`${file} does not hold a JSON object; nothing was changed`);
  return document as Json;
}

function serversOf(document: Json, file: string): Json {
  const servers = document.mcpServers ?? {};
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) throw new UsageError(`${file}: "mcpServers" is not an object; nothing was changed`);
  return servers as Json;
}

function writeDocument(file: string, scope: McpScope, document: Json): void {
  if (scope !== "project") {
    // the person's own files are 0600 before anything is in them; the atomic write keeps the mode it finds
    ensurePrivateDirSync(path.dirname(file));
    fs.closeSync(openPrivateFileSync(file, "a"));
  }
  writeFileAtomicSync(file, `${JSON.stringify(document, null, 2)}\n`);
}

function pairs(values: readonly string[] | undefined, separator: RegExp, flag: string, example: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values ?? []) {
    const match = separator.exec(value);
    if (!match || match.index === 0) throw new UsageError(`${flag} takes ${example}, got ${JSON.stringify(value)}`);
    out[value.slice(0, match.index).trim()] = value.slice(match.index + match[0].length);
  }
  return out;
}

export interface McpAddOptions extends McpConfigPlaces {
  name: string;
  /** The command (stdio) or the URL (http, sse). */
  target: string;
  args: readonly string[];
  transport?: string;
  scope?: string;
  env?: readonly string[];
  header?: readonly string[];
  output?: NodeJS.WritableStream;
}

function parseScope(scope: string | undefined): McpScope {
  const value = scope ?? "local";
  if (!(MCP_SCOPES as readonly string[]).includes(value)) throw new UsageError(`--scope must be one of ${MCP_SCOPES.join(", ")}, got ${JSON.stringify(value)}`);
  return value as McpScope;
}

/** `toolgate mcp add [--scope s] [--transport t] [-e K=V] [-H "K: V"] <name> <command-or-url> [args...]` */
export function mcpAddCommand(options: McpAddOptions): number {
  const scope = parseScope(options.scope);
  const transport = options.transport ?? "stdio";
  if (!["stdio", "http", "sse"].includes(transport)) throw new UsageError(`--transport must be stdio, http or sse, got ${JSON.stringify(transport)}`);
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(options.name)) throw new UsageError(`a server name uses letters, digits, '_', '-' and '.', got ${JSON.stringify(options.name)}`);
  const env = pairs(options.env, /=/, "-e/--env", "KEY=value");
  const headers = pairs(options.header, /:\s*/, "-H/--header", '"Name: value"');
  let entry: Json;
  if (transport === "stdio") {
    if (options.header?.length) throw new UsageError("-H/--header is for http and sse servers");
    entry = { type: "stdio", command: options.target, args: [...options.args], ...(Object.keys(env).length ? { env } : {}) };
  } else {
    if (options.args.length) throw new UsageError(`an ${transport} server takes a URL and no arguments, got ${JSON.stringify(options.args.join(" "))}`);
    if (options.env?.length) throw new UsageError("-e/--env is for stdio servers");
    if (!URL.canParse(options.target)) throw new UsageError(`an ${transport} server needs a URL such as https://mcp.example.com/mcp, got ${JSON.stringify(options.target)}`);
    entry = { type: transport, url: options.target, ...(Object.keys(headers).length ? { headers } : {}) };
  }
  const file = scopeFile(scope, options);
  // the same check a session makes when it reads the file, so what is written is what will run (${VAR} kept as written)
  try {
    parseMcpServerEntry(entry, { ...process.env, ...Object.fromEntries([...JSON.stringify(entry).matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => [m[1], "x"])) }, path.dirname(file));
  } catch (err) {
    throw new UsageError(`the server entry is not valid: ${(err as Error).message}`);
  }
  const document = readDocument(file);
  const servers = serversOf(document, file);
  const replaced = options.name in servers;
  document.mcpServers = { ...servers, [options.name]: entry };
  writeDocument(file, scope, document);
  const out = options.output ?? process.stdout;
  out.write(`${replaced ? "Replaced" : "Added"} ${transport} MCP server ${options.name} (${scope} scope) in ${file}\n`);
  if (scope === "project") out.write("Project servers start only in folders you trust (toolgate trust add).\n");
  return 0;
}

function scopesHolding(name: string, places: McpConfigPlaces): Array<{ scope: McpScope; file: string; entry: Json }> {
  return MCP_SCOPES.flatMap((scope) => {
    const file = scopeFile(scope, places);
    if (!fs.existsSync(file)) return [];
    const servers = serversOf(readDocument(file), file);
    const entry = servers[name];
    return entry && typeof entry === "object" ? [{ scope, file, entry: entry as Json }] : [];
  });
}

/** `toolgate mcp remove <name> [--scope s]`: with the name in several files, --scope says which. */
export function mcpRemoveCommand(options: McpConfigPlaces & { name: string; scope?: string; output?: NodeJS.WritableStream }): number {
  const holding = scopesHolding(options.name, options).filter((h) => options.scope === undefined || h.scope === parseScope(options.scope));
  if (holding.length === 0) {
    throw new UsageError(`no MCP server named ${options.name}${options.scope ? ` in the ${options.scope} scope` : ""} (toolgate mcp list shows the configured ones)`);
  }
  if (holding.length > 1) {
    throw new UsageError(`${options.name} is configured in several scopes (${holding.map((h) => `${h.scope}: ${h.file}`).join("; ")}); say which with --scope`);
  }
  const [{ scope, file }] = holding;
  const document = readDocument(file);
  const servers = { ...serversOf(document, file) };
  delete servers[options.name];
  document.mcpServers = servers;
  writeDocument(file, scope, document);
  (options.output ?? process.stdout).write(`Removed MCP server ${options.name} (${scope} scope) from ${file}\n`);
  return 0;
}

/** Values of env and headers are shown as their first characters only: they are often tokens. */
function masked(record: unknown): string {
  if (!record || typeof record !== "object") return "";
  return Object.entries(record as Record<string, unknown>)
    .map(([k, v]) => {
      const text = String(v);
      return `${k}=${text.startsWith("${") || text.length <= 4 ? text : `${text.slice(0, 4)}…`}`;
    })
    .join(", ");
}

/**
 * `toolgate mcp get <name>`: where it is configured, what it runs, and whether it connects now (the server as a
 * session would load it: the winning entry, and nothing from `.mcp.json` in a folder that is not trusted).
 */
export async function mcpGetCommand(options: McpConfigPlaces & { name: string; trusted: boolean; env?: NodeJS.ProcessEnv; settings?: Record<string, unknown>; output?: NodeJS.WritableStream }): Promise<number> {
  const out = options.output ?? process.stdout;
  const holding = scopesHolding(options.name, options);
  if (holding.length === 0) throw new UsageError(`no MCP server named ${options.name} (toolgate mcp list shows the configured ones)`);
  const lines = [`${options.name}:`];
  for (const h of holding) {
    const e = h.entry;
    const what = typeof e.url === "string" ? `${String(e.type ?? "http")} ${e.url}` : `stdio ${[e.command, ...((e.args as unknown[]) ?? [])].map(String).join(" ")}`;
    lines.push(`  ${h.scope} scope (${h.file}): ${what}`);
    if (e.env) lines.push(`    env: ${masked(e.env)}`);
    if (e.headers) lines.push(`    headers: ${masked(e.headers)}`);
  }
  const loaded = loadMcpConfig({ projectDir: options.projectDir, home: options.home, env: options.env, skipProjectConfig: !options.trusted });
  const server = loaded.servers.find((s) => s.name === options.name);
  const problem = loaded.errors.find((e) => e.server === options.name);
  let code = 0;
  if (!server) {
    code = 1;
    lines.push(`  status: not started: ${problem ? problem.message : "it is only in this folder's .mcp.json, and the folder is not trusted (toolgate trust add)"}`);
  } else {
    lines.push(`  in effect: ${server.source}`);
    if (server.config.type === "http" || server.config.type === "sse") lines.push(`  login: ${describeLogin(options.home, server.config.url)}`);
    const { connectMcpServers } = await import("../mcp/client/manager.js");
    const manager = await connectMcpServers([server], { settings: options.settings, env: options.env, oauth: { home: options.home } });
    try {
      const [client] = manager.clients;
      if (client.status === "connected") {
        lines.push(`  status: connected (${client.toolCount} tools, ${client.resources.length} resources, ${client.prompts.length} prompts)`);
      } else {
        code = 1;
        lines.push(`  status: ${client.status}${client.error ? `: ${client.error}` : ""}`);
      }
    } finally {
      await manager.close();
    }
  }
  out.write(`${lines.join("\n")}\n`);
  return code;
}


/** What a login shows: the address, on the given stream; a browser is opened only for a person at a terminal. */
export function showLoginPrompt(out: NodeJS.WritableStream, openBrowser: boolean): (prompt: McpLoginPrompt) => void {
  return (prompt) => {
    out.write(`${loginPromptText(prompt)}\n`);
    if (openBrowser) openInBrowser(prompt.authorizationUrl);
  };
}

interface McpLoginPlaces extends McpConfigPlaces {
  name: string;
  trusted: boolean;
  env?: NodeJS.ProcessEnv;
  settings?: Record<string, unknown>;
  output?: NodeJS.WritableStream;
}

/** The server a session would load under this name, when it is one that can log in (http or sse). */
function remoteServer(options: McpLoginPlaces) {
  const loaded = loadMcpConfig({ projectDir: options.projectDir, home: options.home, env: options.env, skipProjectConfig: !options.trusted });
  const server = loaded.servers.find((s) => s.name === options.name);
  if (!server) {
    const problem = loaded.errors.find((e) => e.server === options.name);
    throw new UsageError(problem ? `${options.name}: ${problem.message}` : `no MCP server named ${options.name} here (toolgate mcp list shows the configured ones)`);
  }
  if (server.config.type !== "http" && server.config.type !== "sse") throw new UsageError(`${options.name} is a ${server.config.type} server; logins are for http and sse servers`);
  return { server, url: server.config.url };
}

/**
 * `toolgate mcp login <name>`: the authorization code flow with PKCE through the SDK's auth(); the browser comes
 * back to a one-shot listener on 127.0.0.1. Tokens go to ~/.toolgate/mcp-oauth.json (0600), never to the screen.
 */
export async function mcpLoginCommand(options: McpLoginPlaces & { timeoutMs?: number; openBrowser?: boolean }): Promise<number> {
  const out = options.output ?? process.stdout;
  const { server } = remoteServer(options);
  const outcome = await loginToMcpServer(server, { home: options.home, settings: options.settings, env: options.env, onAuthorizationUrl: showLoginPrompt(out, options.openBrowser === true), timeoutMs: options.timeoutMs });
  if (outcome.result === "failed") {
    out.write(`Login to ${options.name} failed: ${outcome.error}\n`);
    return 1;
  }
  out.write(
    outcome.result === "logged-in"
      ? `Logged in to ${options.name}; its tokens are in ${outcome.file} (0600). ${outcome.toolCount} tools.\n`
      : `${options.name} connected without asking for a login; nothing was stored.\n`,
  );
  return 0;
}

/** `toolgate mcp logout <name>`: the stored tokens and client registration of the server's URL are removed. */
export function mcpLogoutCommand(options: McpLoginPlaces): number {
  const out = options.output ?? process.stdout;
  const { url } = remoteServer(options);
  const store = openMcpOAuthStore(options.home);
  out.write(store.remove(url) ? `Logged out of ${options.name}: its tokens were removed from ${store.file}\n` : `${options.name} had no stored login.\n`);
  return 0;
}

/** For `mcp get`: whether a login is stored, and how long its access token lasts (the token itself never). */
function describeLogin(home: string, url: string): string {
  let entry: StoredMcpLogin | undefined;
  try {
    entry = openMcpOAuthStore(home).get(url);
  } catch (err) {
    return `unreadable (${(err as Error).message})`;
  }
  if (!entry?.tokens?.access_token) return "not logged in";
  if (entry.expiresAt === undefined) return "logged in";
  const minutes = Math.round((entry.expiresAt - Date.now()) / 60_000);
  const refresh = entry.tokens.refresh_token ? "; renewed when needed" : "";
  return minutes > 0 ? `logged in (access token valid for about ${minutes} min${refresh})` : `logged in (access token expired${refresh || "; log in again"})`;
}
