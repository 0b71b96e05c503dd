/**
 * Where MCP logins are kept: one file in toolgate's home (never in a project), 0600 in a 0700 directory, one
 * entry per server URL holding the client registration, the tokens and a PKCE verifier while a login is under way.
 * Every write goes through writeFileAtomicSync, so a crash never leaves half a file; a file someone made readable
 * by others beforehand is tightened to 0600 before it is read or written, and one owned by another user is refused.
 */
import fs from "node:fs";
import path from "node:path";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { writeFileAtomicSync } from "../../util/atomicWrite.js";
import { PRIVATE_FILE_MODE, ensurePrivateDirSync, openPrivateFileSync } from "../../util/privateFiles.js";

export const MCP_OAUTH_FILE = "mcp-oauth.json";

export interface StoredMcpLogin {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** When the access token stops working (ms since the epoch), from `expires_in` at the time it was saved. */
  expiresAt?: number;
  codeVerifier?: string;
  savedAt?: number;
}

interface StoreDocument {
  version: 1;
  servers: Record<string, StoredMcpLogin>;
}

export interface McpOAuthStore {
  readonly file: string;
  get(serverUrl: string): StoredMcpLogin | undefined;
  /** Read-modify-write of one server's entry; `undefined` from `change` removes it. */
  update(serverUrl: string, change: (entry: StoredMcpLogin) => StoredMcpLogin | undefined): void;
  remove(serverUrl: string): boolean;
}

export class McpOAuthStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpOAuthStoreError";
  }
}

const isOurs = (stat: fs.Stats) => process.getuid === undefined || stat.uid === process.getuid();

/** Opens the store for reading: a file readable by others is tightened first, a file of another user refused. */
function readDocument(file: string): StoreDocument {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { version: 1, servers: {} };
    if (code === "ELOOP") throw new McpOAuthStoreError(`${file} is a symbolic link; toolgate keeps MCP logins only in a regular file of its own`);
    throw new McpOAuthStoreError(`cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new McpOAuthStoreError(`${file} is not a regular file`);
    if (!isOurs(stat)) throw new McpOAuthStoreError(`${file} belongs to another user; toolgate does not use logins from it`);
    if ((stat.mode & 0o777) !== PRIVATE_FILE_MODE) fs.fchmodSync(fd, PRIVATE_FILE_MODE);
    const text = fs.readFileSync(fd, "utf8");
    if (!text.trim()) return { version: 1, servers: {} };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new McpOAuthStoreError(`${file} is not valid JSON (${(err as Error).message}); move it away and log in again`);
    }
    const servers = (parsed as { servers?: unknown } | null)?.servers;
    if (!servers || typeof servers !== "object" || Array.isArray(servers)) return { version: 1, servers: {} };
    return { version: 1, servers: servers as Record<string, StoredMcpLogin> };
  } finally {
    fs.closeSync(fd);
  }
}

function writeDocument(file: string, document: StoreDocument): void {
  ensurePrivateDirSync(path.dirname(file));
  // 0600 before anything is in it (and an existing file tightened); the atomic write keeps the mode it finds
  fs.closeSync(openPrivateFileSync(file, "a"));
  writeFileAtomicSync(file, `${JSON.stringify(document, null, 2)}\n`);
}

/** The store of the toolgate home `home` (TOOLGATE_HOME, default ~/.toolgate). */
export function openMcpOAuthStore(home: string): McpOAuthStore {
  const file = path.join(home, MCP_OAUTH_FILE);
  return {
    file,
    get: (serverUrl) => readDocument(file).servers[serverUrl],
    update(serverUrl, change) {
      const document = readDocument(file);
      const next = change({ ...document.servers[serverUrl] });
      if (next === undefined) delete document.servers[serverUrl];
      else document.servers[serverUrl] = { ...next, savedAt: Date.now() };
      writeDocument(file, document);
    },
    remove(serverUrl) {
      const document = readDocument(file);
      if (!(serverUrl in document.servers)) return false;
      delete document.servers[serverUrl];
      writeDocument(file, document);
      return true;
    },
  };
}
