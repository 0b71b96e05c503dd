/**
 * toolgate's OAuthClientProvider for remote MCP servers. The SDK's `auth()` does the protocol (discovery, dynamic
 * registration, PKCE S256, the code exchange, refresh); this file keeps what it hands over in the 0600 store
 * (oauthStore.ts) and owns the one interactive step: a loopback listener on 127.0.0.1, on a port the system picks,
 * that takes one callback, checks its `state`, and closes.
 *
 * Two kinds of provider: a login provider (`toolgate mcp login`, an interactive session) listens and waits for the
 * browser; a stored-login provider (every other session, `-p` included) only sends and refreshes stored tokens, and
 * when a new login would be needed it stops with McpNeedsLoginError instead of waiting for a person who is not there.
 */
import http from "node:http";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { McpOAuthStore } from "./oauthStore.js";

export const DEFAULT_MCP_LOGIN_TIMEOUT_MS = 5 * 60_000;
const CALLBACK_PATH = "/callback";
/** The redirect URL a stored-login provider names: it never listens, and the SDK only needs one to exist. */
const IDLE_REDIRECT_URL = `http://127.0.0.1${CALLBACK_PATH}`;
/** Refresh a little before the server would refuse the token. */
const EXPIRY_MARGIN_MS = 30_000;

/** The server wants a login and nobody is there to do it: the session reports the server as needing one. */
export class McpNeedsLoginError extends Error {
  constructor(serverName: string) {
    super(needsLoginMessage(serverName));
    this.name = "McpNeedsLoginError";
  }
}

export function needsLoginMessage(serverName: string): string {
  return `needs login: run toolgate mcp login ${serverName}, or /mcp login ${serverName} in the interactive UI`;
}

/** What a login shows the person: the address to open. */
export interface McpLoginPrompt {
  serverName: string;
  authorizationUrl: URL;
}

export interface ToolgateOAuthProvider extends OAuthClientProvider {
  /** Whether an access token is stored (expired or not). */
  hasTokens(): boolean;
  /** A stored access token is past its expiry and a refresh token is there to renew it. */
  needsRefresh(): boolean;
  /** Set once the SDK asked for a new login (a stored-login provider then refuses it). */
  readonly loginRequested: boolean;
  /** The code the browser brought back to the loopback listener (login providers only). */
  authorizationCode(): Promise<string>;
  close(): Promise<void>;
}

interface ProviderBase {
  store: McpOAuthStore;
  serverName: string;
  serverUrl: string;
}

function clientMetadataFor(redirectUrl: string): OAuthClientMetadata {
  return {
    client_name: "toolgate",
    redirect_uris: [redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    // a CLI cannot keep a secret: a public client, PKCE is what protects the code
    token_endpoint_auth_method: "none",
  };
}

function registeredRedirects(client: OAuthClientInformationMixed | undefined): string[] {
  const uris = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  return Array.isArray(uris) ? uris.map(String) : [];
}

/** The parts both providers share: everything the store holds, read and written per server URL. */
function storedParts({ store, serverUrl }: ProviderBase) {
  const entry = () => store.get(serverUrl) ?? {};
  return {
    entry,
    tokens(): OAuthTokens | undefined {
      const { tokens, expiresAt } = entry();
      if (!tokens?.access_token) return undefined;
      if (expiresAt === undefined) return tokens;
      return { ...tokens, expires_in: Math.max(0, Math.floor((expiresAt - Date.now()) / 1000)) };
    },
    saveTokens(tokens: OAuthTokens) {
      store.update(serverUrl, (e) => ({
        ...e,
        // a refresh that returns no new refresh token keeps the old one working
        tokens: { ...tokens, refresh_token: tokens.refresh_token ?? e.tokens?.refresh_token },
        expiresAt: typeof tokens.expires_in === "number" ? Date.now() + tokens.expires_in * 1000 : undefined,
        codeVerifier: undefined,
      }));
    },
    invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
      if (scope === "all") return void store.remove(serverUrl);
      store.update(serverUrl, (e) => {
        if (scope === "client") return { ...e, client: undefined };
        if (scope === "tokens") return { ...e, tokens: undefined, expiresAt: undefined };
        if (scope === "verifier") return { ...e, codeVerifier: undefined };
        return e;
      });
    },
    hasTokens: () => !!entry().tokens?.access_token,
    needsRefresh() {
      const { tokens, expiresAt } = entry();
      return !!tokens?.refresh_token && expiresAt !== undefined && expiresAt - EXPIRY_MARGIN_MS <= Date.now();
    },
  };
}

/** Sends and refreshes stored tokens; never starts a login (headless sessions, `mcp get`, `mcp list`). */
export function createStoredLoginProvider(base: ProviderBase): ToolgateOAuthProvider {
  const parts = storedParts(base);
  let loginRequested = false;
  const redirectUrl = () => registeredRedirects(parts.entry().client)[0] ?? IDLE_REDIRECT_URL;
  return {
    get redirectUrl() {
      return redirectUrl();
    },
    get clientMetadata() {
      return clientMetadataFor(redirectUrl());
    },
    // no saveClientInformation: registering a client is part of a login, which this provider never does
    clientInformation: () => parts.entry().client,
    tokens: parts.tokens,
    saveTokens: parts.saveTokens,
    invalidateCredentials: parts.invalidateCredentials,
    saveCodeVerifier: () => undefined,
    codeVerifier: () => {
      throw new McpNeedsLoginError(base.serverName);
    },
    redirectToAuthorization() {
      loginRequested = true;
      throw new McpNeedsLoginError(base.serverName);
    },
    hasTokens: parts.hasTokens,
    needsRefresh: parts.needsRefresh,
    get loginRequested() {
      return loginRequested;
    },
    authorizationCode: () => Promise.reject(new McpNeedsLoginError(base.serverName)),
    close: async () => undefined,
  };
}

export interface LoginProviderOptions extends ProviderBase {
  /** Shows the person the address to open (and may open a browser). */
  onAuthorizationUrl: (prompt: McpLoginPrompt) => void;
  timeoutMs?: number;
  /** Aborting stops the wait and closes the loopback listener (the UI's Esc). */
  signal?: AbortSignal;
}

/**
 * Listens on 127.0.0.1 (a port the system picks) for the browser's one callback. Only a request to the callback
 * path counts; the first one decides: a code with the expected state succeeds, anything else fails the login.
 * Either way the listener closes, so a second callback finds nobody.
 */
function listenForCallback(expectedState: () => string | undefined, timeoutMs: number) {
  let settle!: { resolve(code: string): void; reject(err: Error): void };
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  code.catch(() => undefined);
  let answered = false;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "GET" || url.pathname !== CALLBACK_PATH || answered) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8", connection: "close" }).end("Not found\n");
      return;
    }
    answered = true;
    const finish = (status: number, text: string, outcome: () => void) => {
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", connection: "close" }).end(`${text}\n`, () => {
        close();
      });
      outcome();
    };
    const params = url.searchParams;
    const expected = expectedState();
    const state = params.get("state");
    if (!expected || state !== expected) {
      return finish(400, "toolgate: this login answer does not belong to the login toolgate started (state mismatch). Nothing was stored.", () =>
        settle.reject(new Error("the callback's state did not match the login toolgate started; nothing was stored")),
      );
    }
    const error = params.get("error");
    if (error) {
      const description = params.get("error_description");
      return finish(400, `toolgate: the authorization server refused the login: ${error}`, () =>
        settle.reject(new Error(`the authorization server refused the login: ${error}${description ? ` (${description})` : ""}`)),
      );
    }
    const value = params.get("code");
    if (!value) return finish(400, "toolgate: the callback carried no authorization code.", () => settle.reject(new Error("the callback carried no authorization code")));
    finish(200, "toolgate: logged in. You can close this tab.", () => settle.resolve(value));
  });
  let timer: NodeJS.Timeout | undefined;
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= new Promise<void>((resolve) => {
      clearTimeout(timer);
      server.close(() => resolve());
      server.closeIdleConnections();
      settle.reject(new Error("the login was stopped before the browser came back"));
    }));
  const listening = new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      timer = setTimeout(() => {
        settle.reject(new Error(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s`));
        void close();
      }, timeoutMs);
      timer.unref();
      resolve((server.address() as AddressInfo).port);
    });
  });
  return { listening, code, close };
}

/** A login provider, already listening: its redirect URL names the listener's port. */
export async function createLoginProvider(options: LoginProviderOptions): Promise<ToolgateOAuthProvider> {
  const parts = storedParts(options);
  let state: string | undefined;
  const callback = listenForCallback(() => state, options.timeoutMs ?? DEFAULT_MCP_LOGIN_TIMEOUT_MS);
  const port = await callback.listening;
  if (options.signal?.aborted) void callback.close();
  else options.signal?.addEventListener("abort", () => void callback.close(), { once: true });
  const redirectUrl = `http://127.0.0.1:${port}${CALLBACK_PATH}`;
  return {
    redirectUrl,
    clientMetadata: clientMetadataFor(redirectUrl),
    state() {
      state = randomBytes(32).toString("base64url");
      return state;
    },
    clientInformation() {
      const client = parts.entry().client;
      // registered for another port (an earlier login): register again, the authorization server checks it exactly
      if (client && registeredRedirects(client).length && !registeredRedirects(client).includes(redirectUrl)) return undefined;
      return client;
    },
    saveClientInformation(client) {
      options.store.update(options.serverUrl, (e) => ({ ...e, client }));
    },
    tokens: parts.tokens,
    saveTokens: parts.saveTokens,
    invalidateCredentials: parts.invalidateCredentials,
    saveCodeVerifier(codeVerifier) {
      options.store.update(options.serverUrl, (e) => ({ ...e, codeVerifier }));
    },
    codeVerifier() {
      const verifier = parts.entry().codeVerifier;
      if (!verifier) throw new Error("no PKCE verifier is stored for this login; start it again");
      return verifier;
    },
    redirectToAuthorization(authorizationUrl) {
      options.onAuthorizationUrl({ serverName: options.serverName, authorizationUrl });
    },
    hasTokens: parts.hasTokens,
    needsRefresh: parts.needsRefresh,
    loginRequested: false,
    authorizationCode: () => callback.code,
    close: callback.close,
  };
}
