/**
 * One OAuth login to a remote MCP server, as `toolgate mcp login` and the UI's `/mcp login` run it: stored tokens
 * of the URL are dropped (the client registration is kept), a one-server connection with a login provider does
 * the flow (PKCE, the loopback callback), and is closed again. The tokens it leaves in the 0600 store are what
 * sessions then connect with.
 */
import { spawn } from "node:child_process";
import type { Settings } from "../../settings/types.js";
import type { ScopedMcpServerConfig } from "./config.js";
import type { McpLoginPrompt } from "./oauth.js";
import { openMcpOAuthStore } from "./oauthStore.js";

export interface McpLoginOptions {
  /** toolgate's home, where mcp-oauth.json is. */
  home: string;
  settings?: Settings;
  env?: NodeJS.ProcessEnv;
  /** Shows the address to open (see loginPromptText, openInBrowser). */
  onAuthorizationUrl(prompt: McpLoginPrompt): void;
  timeoutMs?: number;
  /** Aborting stops waiting for the browser and closes the loopback listener. */
  signal?: AbortSignal;
}

export interface McpLoginOutcome {
  /** `logged-in`: tokens are stored; `no-login-needed`: it connected without asking; `failed`: see error. */
  result: "logged-in" | "no-login-needed" | "failed";
  error?: string;
  toolCount: number;
  /** The token store. */
  file: string;
}

/** The lines a login shows: the address to open, and that toolgate waits. */
export function loginPromptText({ serverName, authorizationUrl }: McpLoginPrompt): string {
  return `To log in to the MCP server ${serverName}, open this address in a browser:\n  ${authorizationUrl.href}\nWaiting for the browser to come back to toolgate...`;
}

/** Opens the address in the desktop's browser, if there is one; the address goes as one argument, never through a shell. */
export function openInBrowser(url: URL): void {
  const opener = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer.exe" : "xdg-open";
  try {
    spawn(opener, [url.href], { stdio: "ignore", detached: true }).on("error", () => undefined).unref();
  } catch {
    // no browser here: the address shown is enough
  }
}

export async function loginToMcpServer(server: ScopedMcpServerConfig, options: McpLoginOptions): Promise<McpLoginOutcome> {
  if (server.config.type !== "http" && server.config.type !== "sse") throw new Error(`${server.name} is a ${server.config.type} server; logins are for http and sse servers`);
  const url = server.config.url;
  const store = openMcpOAuthStore(options.home);
  // a login starts afresh: old tokens would let the server skip asking (the client registration is kept)
  store.update(url, (e) => (e.client ? { client: e.client } : undefined));
  const { connectMcpServers } = await import("./manager.js");
  const manager = await connectMcpServers([server], {
    settings: options.settings,
    env: options.env,
    oauth: { home: options.home, login: { onAuthorizationUrl: options.onAuthorizationUrl, timeoutMs: options.timeoutMs, signal: options.signal } },
  });
  try {
    const [client] = manager.clients;
    if (client.status !== "connected") return { result: "failed", error: client.error ?? client.status, toolCount: 0, file: store.file };
    return { result: store.get(url)?.tokens ? "logged-in" : "no-login-needed", toolCount: client.toolCount, file: store.file };
  } finally {
    await manager.close();
  }
}
