/**
 * OAuth for remote MCP servers through the real CLI, against a real authorization server and a protected
 * streamable-HTTP MCP server on 127.0.0.1 (fixtures/oauthServer.ts). The "browser" is fetch: it opens the address
 * `toolgate mcp login` prints and follows the redirect to toolgate's loopback callback.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cliArgs, cliEnv } from "../cliCommand.js";
import { serveModel } from "../cli/agentRun.js";
import { MCP_OAUTH_FILE } from "../../src/mcp/client/oauthStore.js";
import { startProtectedMcpServer, type ProtectedMcpServer } from "./fixtures/oauthServer.js";

const servers: ProtectedMcpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function protectedServer(options?: { accessTokenSeconds?: number }) {
  const server = await startProtectedMcpServer(options);
  servers.push(server);
  return server;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function setup() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-oauth-")));
  const home = path.join(dir, ".home");
  fs.mkdirSync(home);
  fs.mkdirSync(path.join(dir, ".toolgate"));
  // the protected server's tools may run without asking (exec has nobody to ask)
  fs.writeFileSync(path.join(dir, ".toolgate/settings.json"), JSON.stringify({ permissions: { allow: ["mcp__remote"] } }));
  const env: NodeJS.ProcessEnv = { ...process.env, ...cliEnv, TOOLGATE_HOME: home, HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json"), CI: "1" };
  const tokenFile = path.join(home, MCP_OAUTH_FILE);

  const start = (args: string[], stdin?: string, extraEnv: NodeJS.ProcessEnv = {}) => {
    const child = spawn(process.execPath, [...cliArgs, ...args], { cwd: dir, env: { ...env, ...extraEnv }, stdio: [stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    if (stdin !== undefined) child.stdin!.end(stdin);
    let stdout = "";
    let stderr = "";
    const watchers: Array<() => void> = [];
    child.stdout!.on("data", (d: Buffer) => {
      stdout += d;
      for (const w of watchers) w();
    });
    child.stderr!.on("data", (d: Buffer) => (stderr += d));
    const done = new Promise<Run>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
    /** Resolves with the first match of `pattern` on stdout (an event, not a sleep); rejects if the CLI ends first. */
    const waitFor = (pattern: RegExp) =>
      new Promise<RegExpMatchArray>((resolve, reject) => {
        const check = () => {
          const match = stdout.match(pattern);
          if (match) resolve(match);
        };
        watchers.push(check);
        check();
        void done.then((run) => reject(new Error(`the CLI ended (${run.code}) before printing ${pattern}:\n${run.stdout}\n${run.stderr}`)));
      });
    return { child, done, waitFor };
  };
  const cli = (...args: string[]) => start(args).done;
  return { dir, home, env, tokenFile, start, cli };
}

/** What a browser does: open the authorization address, follow its redirect to the loopback callback. */
async function browse(authorizationUrl: string): Promise<{ callback: string; status: number; text: string }> {
  const authorize = await fetch(authorizationUrl, { redirect: "manual" });
  expect(authorize.status).toBe(302);
  const callback = authorize.headers.get("location")!;
  const answer = await fetch(callback);
  return { callback, status: answer.status, text: await answer.text() };
}

const URL_LINE = /^\s+(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m;

async function addAndLogin(t: ReturnType<typeof setup>, server: ProtectedMcpServer) {
  const added = await t.cli("mcp", "add", "-t", "http", "remote", server.url);
  expect(added.code).toBe(0);
  const login = t.start(["mcp", "login", "remote", "--timeout", "60"]);
  const [, address] = await login.waitFor(URL_LINE);
  const browsed = await browse(address);
  const run = await login.done;
  return { address, browsed, run };
}

function storedTokens(tokenFile: string) {
  return Object.values(JSON.parse(fs.readFileSync(tokenFile, "utf8")).servers as Record<string, { tokens?: { access_token: string; refresh_token?: string }; expiresAt?: number }>)[0];
}

const toolCall = JSON.stringify({ type: "tool_use", id: "call", name: "mcp__remote__whoami", input: { greeting: "hi" } });

describe("MCP OAuth: toolgate mcp login, then sessions on the stored login", () => {
  it("login: discovery, dynamic registration, PKCE S256, state, callback, code exchange; tokens 0600 and never printed; exec calls the tool with the token", async () => {
    const server = await protectedServer();
    const t = setup();
    const { address, browsed, run } = await addAndLogin(t, server);
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Logged in to remote; its tokens are in ${t.tokenFile} (0600). 1 tools.`);
    expect(browsed.status).toBe(200);
    expect(browsed.text).toContain("logged in");

    // what toolgate asked the authorization server for
    expect(server.registrations).toHaveLength(1);
    expect(server.registrations[0]).toMatchObject({ client_name: "toolgate", token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"] });
    const query = new URL(address).searchParams;
    expect(query.get("code_challenge_method")).toBe("S256");
    expect(query.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(query.get("state")!.length).toBeGreaterThanOrEqual(32);
    expect(query.get("client_id")).toBe(server.registrations[0].client_id);
    const redirect = new URL(query.get("redirect_uri")!);
    expect(redirect.hostname).toBe("127.0.0.1");
    expect(Number(redirect.port)).toBeGreaterThan(0);
    expect(server.registrations[0].redirect_uris).toEqual([redirect.href]);
    expect(server.codeExchanges).toBe(1);

    // the store: 0600 in a 0700 directory in toolgate's home, nothing in the project
    expect(fs.statSync(t.tokenFile).mode & 0o777).toBe(0o600);
    expect(fs.statSync(t.home).mode & 0o777).toBe(0o700);
    const stored = storedTokens(t.tokenFile);
    expect(stored.tokens!.access_token).toMatch(/^access-/);
    expect(stored.tokens!.refresh_token).toMatch(/^refresh-/);
    expect(JSON.parse(fs.readFileSync(t.tokenFile, "utf8")).servers[server.url].codeVerifier).toBeUndefined();
    expect(fs.readdirSync(t.dir).sort()).toEqual([".home", ".toolgate"]);
    for (const text of [run.stdout, run.stderr, browsed.text]) {
      expect(text).not.toContain(stored.tokens!.access_token);
      expect(text).not.toContain(stored.tokens!.refresh_token);
    }

    // the listener took its one callback and closed: the same callback again finds nobody
    await expect(fetch(browsed.callback)).rejects.toThrow();

    // a session on the stored login: the tool runs, with the stored token
    const exec = await t.start(["exec", "--trust"], toolCall).done;
    expect(exec.code).toBe(0);
    const result = JSON.parse(exec.stdout.trim()).content[0];
    expect(result.is_error).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain(`hi, client ${server.registrations[0].client_id}`);
    expect(server.acceptedTokens.at(-1)).toBe(stored.tokens!.access_token);
    expect(exec.stdout + exec.stderr).not.toContain(stored.tokens!.access_token);

    // get says logged in, never the token
    const got = await t.cli("mcp", "get", "remote");
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(/login: logged in \(access token valid for about \d+ min; renewed when needed\)/);
    expect(got.stdout).toMatch(/status: connected \(1 tools/);
    expect(got.stdout).not.toContain(stored.tokens!.access_token);
  }, 90_000);

  it("an access token the server stopped accepting is refreshed (on its 401, and before connecting once it is past its expiry)", async () => {
    const server = await protectedServer();
    const t = setup();
    expect((await addAndLogin(t, server)).run.code).toBe(0);
    const first = storedTokens(t.tokenFile).tokens!;

    // the server refuses the stored token: the SDK refreshes on the 401 and the call goes through
    server.expireAccessTokens();
    const exec = await t.start(["exec", "--trust"], toolCall).done;
    expect(JSON.parse(exec.stdout.trim()).content[0].is_error).toBeFalsy();
    expect(server.refreshes).toBe(1);
    const second = storedTokens(t.tokenFile).tokens!;
    expect(second.access_token).not.toBe(first.access_token);
    expect(server.acceptedTokens.at(-1)).toBe(second.access_token);
    expect(fs.statSync(t.tokenFile).mode & 0o777).toBe(0o600);

    // stored as expired: renewed before the first request, so the server never has to refuse it
    const document = JSON.parse(fs.readFileSync(t.tokenFile, "utf8"));
    document.servers[server.url].expiresAt = Date.now() - 1000;
    fs.writeFileSync(t.tokenFile, JSON.stringify(document));
    const refusedBefore = server.refused;
    const again = await t.start(["exec", "--trust"], toolCall).done;
    expect(JSON.parse(again.stdout.trim()).content[0].is_error).toBeFalsy();
    expect(server.refreshes).toBe(2);
    expect(server.refused).toBe(refusedBefore);
    expect(server.acceptedTokens.at(-1)).toBe(storedTokens(t.tokenFile).tokens!.access_token);
  }, 90_000);

  it("a refresh the server refuses falls back to needs login, and the stale tokens are dropped", async () => {
    const server = await protectedServer();
    const t = setup();
    expect((await addAndLogin(t, server)).run.code).toBe(0);
    server.expireAccessTokens();
    server.revokeRefreshTokens();
    const got = await t.cli("mcp", "get", "remote");
    expect(got.code).toBe(1);
    expect(got.stdout).toContain("status: needs-auth: needs login: run toolgate mcp login remote");
    expect(storedTokens(t.tokenFile)?.tokens).toBeUndefined();
    // no second login was started behind the person's back
    expect(server.authorizeRequests).toHaveLength(1);
  }, 90_000);

  it("-p without a stored login: the init message says needs-auth, nothing is registered, and the run does not wait", async () => {
    const server = await protectedServer();
    const model = await serveModel({ turns: [{ content: [{ type: "text", text: "done" }] }] });
    const t = setup();
    expect((await t.cli("mcp", "add", "-t", "http", "remote", server.url)).code).toBe(0);
    const run = t.start(["-p", "hello", "--trust", "--output-format", "stream-json", "--verbose", "--no-sandbox"], undefined, {
      ANTHROPIC_API_KEY: "test",
      ANTHROPIC_BASE_URL: model.url,
      OPENAI_API_KEY: "",
      OPENAI_BASE_URL: "",
    });
    const result = await run.done;
    expect(result.code).toBe(0);
    const init = result.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.type === "system" && l.subtype === "init");
    expect(init.mcp_servers).toEqual([{ name: "remote", status: "needs-auth" }]);
    expect(result.stderr).toContain("MCP server remote is needs-auth: needs login: run toolgate mcp login remote");
    expect(server.registrations).toHaveLength(0);
    expect(server.authorizeRequests).toHaveLength(0);
    expect(fs.existsSync(t.tokenFile)).toBe(false);

    // exec: the tool call explains instead of hanging
    const exec = await t.start(["exec", "--trust"], toolCall).done;
    const call = JSON.parse(exec.stdout.trim()).content[0];
    expect(call.is_error).toBe(true);
    expect(call.content).toContain("needs login: run toolgate mcp login remote, or /mcp login remote in the interactive UI");
  }, 90_000);

  it("a callback with the wrong state is refused, nothing is stored, and the listener is closed for a second try", async () => {
    const server = await protectedServer();
    const t = setup();
    expect((await t.cli("mcp", "add", "-t", "http", "remote", server.url)).code).toBe(0);
    const login = t.start(["mcp", "login", "remote", "--timeout", "60"]);
    const [, address] = await login.waitFor(URL_LINE);
    const authorize = await fetch(address, { redirect: "manual" });
    const callback = new URL(authorize.headers.get("location")!);
    const forged = new URL(callback);
    forged.searchParams.set("state", "not-the-state-toolgate-sent");
    const refused = await fetch(forged);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("state mismatch");
    const run = await login.done;
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("Login to remote failed");
    expect(run.stdout).toContain("state did not match");
    // the genuine callback now comes too late: nobody listens
    await expect(fetch(callback)).rejects.toThrow();
    expect(server.codeExchanges).toBe(0);
    const stored = fs.existsSync(t.tokenFile) ? storedTokens(t.tokenFile) : undefined;
    expect(stored?.tokens).toBeUndefined();
  }, 90_000);

  it("a token file made readable by others beforehand is tightened to 0600; a symlink in its place is refused", async () => {
    const server = await protectedServer();
    const t = setup();
    fs.writeFileSync(t.tokenFile, JSON.stringify({ version: 1, servers: {} }));
    fs.chmodSync(t.tokenFile, 0o644);
    const { run } = await addAndLogin(t, server);
    expect(run.code).toBe(0);
    expect(fs.statSync(t.tokenFile).mode & 0o777).toBe(0o600);

    // readable again by someone's mistake: the next session tightens it before using it
    fs.chmodSync(t.tokenFile, 0o644);
    const exec = await t.start(["exec", "--trust"], toolCall).done;
    expect(JSON.parse(exec.stdout.trim()).content[0].is_error).toBeFalsy();
    expect(fs.statSync(t.tokenFile).mode & 0o777).toBe(0o600);

    // a symlink to a file elsewhere: never read, never written through
    const elsewhere = path.join(t.dir, "elsewhere.json");
    fs.renameSync(t.tokenFile, elsewhere);
    fs.symlinkSync(elsewhere, t.tokenFile);
    const before = fs.readFileSync(elsewhere, "utf8");
    const login = await t.cli("mcp", "login", "remote", "--timeout", "5");
    expect(login.code).not.toBe(0);
    expect(login.stderr + login.stdout).toContain("is a symbolic link");
    expect(fs.readFileSync(elsewhere, "utf8")).toBe(before);
  }, 90_000);

  it("logout removes the tokens; get then says not logged in and the server needs a login", async () => {
    const server = await protectedServer();
    const t = setup();
    expect((await addAndLogin(t, server)).run.code).toBe(0);
    const out = await t.cli("mcp", "logout", "remote");
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(`Logged out of remote: its tokens were removed from ${t.tokenFile}\n`);
    expect(JSON.parse(fs.readFileSync(t.tokenFile, "utf8")).servers).toEqual({});
    expect(fs.statSync(t.tokenFile).mode & 0o777).toBe(0o600);
    const got = await t.cli("mcp", "get", "remote");
    expect(got.stdout).toContain("login: not logged in");
    expect(got.stdout).toContain("status: needs-auth: needs login: run toolgate mcp login remote");
    expect((await t.cli("mcp", "logout", "remote")).stdout).toBe("remote had no stored login.\n");
  }, 90_000);
});
