import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expandEnvVars } from "../../src/mcp/client/envExpansion.js";
import { formatMcpConfigError, loadMcpConfig, parseMcpConfig } from "../../src/mcp/client/config.js";
import { tempDir } from "../helpers.js";

describe("expandEnvVars", () => {
  const env = { HOME_DIR: "/home/u", EMPTY: "", TOKEN: "s3cr3t" };

  it("replaces ${VAR} and ${VAR:-default}", () => {
    expect(expandEnvVars("${HOME_DIR}/x", env)).toEqual({ value: "/home/u/x", missing: [] });
    expect(expandEnvVars("${UNSET:-fallback}", env)).toEqual({ value: "fallback", missing: [] });
    expect(expandEnvVars("${TOKEN:-fallback}", env)).toEqual({ value: "s3cr3t", missing: [] });
    expect(expandEnvVars("Bearer ${TOKEN} and ${HOME_DIR}", env).value).toBe("Bearer s3cr3t and /home/u");
  });

  it("uses the default for an empty variable, as the shell does, but keeps an empty ${VAR}", () => {
    expect(expandEnvVars("${EMPTY:-d}", env).value).toBe("d");
    expect(expandEnvVars("[${EMPTY}]", env).value).toBe("[]");
    expect(expandEnvVars("${UNSET:-}", env)).toEqual({ value: "", missing: [] });
  });

  it("reports unset variables without a default", () => {
    expect(expandEnvVars("${A}-${B:-b}-${C}", {})).toEqual({ value: "${A}-b-${C}", missing: ["A", "C"] });
  });

  it("leaves text without references alone", () => {
    expect(expandEnvVars("$HOME ${ not a ref", env)).toEqual({ value: "$HOME ${ not a ref", missing: [] });
  });
});

describe("parseMcpConfig", () => {
  const env = { API_KEY: "k-123", PORT: "8080", BIN: "/usr/bin/node" };
  const base = "/projects/app";

  it("reads stdio, http and sse entries with expansion in command, args, env, cwd, url and headers", () => {
    const { servers, errors } = parseMcpConfig(
      {
        mcpServers: {
          local: { command: "${BIN}", args: ["server.js", "--key=${API_KEY}"], env: { KEY: "${API_KEY}", MODE: "${MODE:-dev}" }, cwd: "tools" },
          remote: { type: "http", url: "http://localhost:${PORT}/mcp", headers: { Authorization: "Bearer ${API_KEY}" } },
          legacy: { type: "sse", url: "https://example.com/sse", alwaysLoad: true },
          explicit: { type: "stdio", command: "uvx", args: [] },
        },
      },
      "/projects/app/.mcp.json",
      env,
      base,
    );
    expect(errors).toEqual([]);
    expect(servers.map((s) => s.name)).toEqual(["local", "remote", "legacy", "explicit"]);
    expect(servers[0].config).toEqual({
      type: "stdio",
      command: "/usr/bin/node",
      args: ["server.js", "--key=k-123"],
      env: { KEY: "k-123", MODE: "dev" },
      cwd: path.join(base, "tools"),
    });
    expect(servers[1].config).toEqual({ type: "http", url: "http://localhost:8080/mcp", headers: { Authorization: "Bearer k-123" } });
    expect(servers[2].config).toEqual({ type: "sse", url: "https://example.com/sse", headers: {}, alwaysLoad: true });
    expect(servers[3].config).toEqual({ type: "stdio", command: "uvx", args: [], env: {} });
    expect(servers[0].source).toBe("/projects/app/.mcp.json");
  });

  it("skips a bad entry with a clear message and keeps the others", () => {
    const { servers, errors } = parseMcpConfig(
      {
        mcpServers: {
          good: { command: "node" },
          noCommand: { args: ["x"] },
          badArgs: { command: "node", args: "server.js" },
          badEnv: { command: "node", env: { PORT: 8080 } },
          unset: { command: "node", args: ["${NOT_SET_ANYWHERE}"] },
          badType: { type: "websocket", url: "ws://x" },
          badUrl: { type: "http", url: "not a url" },
          ftp: { type: "http", url: "ftp://example.com" },
          notObject: "node server.js",
          "a__b": { command: "node" },
          remoteOnly: { url: "http://example.com/mcp" },
          badFlag: { command: "node", alwaysLoad: "yes" },
        },
      },
      "cfg.json",
      {},
      base,
    );
    expect(servers.map((s) => s.name)).toEqual(["good"]);
    const byServer = Object.fromEntries(errors.map((e) => [e.server, e.message]));
    expect(byServer).toEqual({
      noCommand: '"command" must be a non-empty string',
      badArgs: '"args" must be an array of strings',
      badEnv: "env.PORT must be a string, got number",
      unset: "args[0] uses ${NOT_SET_ANYWHERE}, which is not set (set it, or write ${NAME:-default})",
      badType: 'unsupported "type" "websocket" (expected "stdio", "http" or "sse")',
      badUrl: '"url" is not a valid URL: not a url',
      ftp: '"url" must be http or https, got ftp:',
      notObject: "the entry must be an object, got string",
      a__b: 'server names may not contain "__" (it separates server and tool in mcp__server__tool)',
      remoteOnly: 'the entry needs "command" (stdio) or "type": "http"|"sse" with "url"',
      badFlag: "alwaysLoad must be true or false",
    });
    expect(formatMcpConfigError(errors[0])).toBe('cfg.json: server "noCommand": "command" must be a non-empty string');
  });

  it("rejects a document whose mcpServers is not an object, and accepts one without servers", () => {
    expect(parseMcpConfig({ mcpServers: [] }, "f", {}, base).errors[0].message).toBe('"mcpServers" must be an object mapping names to servers, got array');
    expect(parseMcpConfig([1], "f", {}, base).errors[0].message).toBe('expected a JSON object with "mcpServers", got array');
    expect(parseMcpConfig({}, "f", {}, base)).toEqual({ servers: [], errors: [] });
  });
});

describe("loadMcpConfig", () => {
  it("reads the project's .mcp.json, then --mcp-config files; a later server of the same name wins", () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { a: { command: "from-project" }, b: { command: "b" } } }));
    fs.mkdirSync(path.join(dir, "conf"));
    fs.writeFileSync(path.join(dir, "conf", "extra.json"), JSON.stringify({ mcpServers: { a: { command: "from-extra", cwd: "." } } }));
    const { servers, errors } = loadMcpConfig({ projectDir: dir, configFiles: ["conf/extra.json", '{"mcpServers": {"c": {"type": "http", "url": "http://x/mcp"}}}'], env: {} });
    expect(errors).toEqual([]);
    expect(servers.map((s) => [s.name, s.config.type === "stdio" ? s.config.command : (s.config as { url: string }).url])).toEqual([
      ["b", "b"],
      ["a", "from-extra"],
      ["c", "http://x/mcp"],
    ]);
    const a = servers.find((s) => s.name === "a")!;
    expect(a.source).toBe(path.join(dir, "conf", "extra.json"));
    expect(a.config.type === "stdio" && a.config.cwd).toBe(path.join(dir, "conf"));
    expect(servers.find((s) => s.name === "c")!.source).toBe("--mcp-config (inline JSON)");
  });

  it("reports unreadable and malformed files and goes on", () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, ".mcp.json"), '{"mcpServers": {"a": {"command": "x",}}}');
    fs.writeFileSync(path.join(dir, "good.json"), JSON.stringify({ mcpServers: { g: { command: "g" } } }));
    const { servers, errors } = loadMcpConfig({ projectDir: dir, configFiles: ["missing.json", "good.json", "{not json"], env: {} });
    expect(servers.map((s) => s.name)).toEqual(["g"]);
    expect(errors.map((e) => [e.source, e.message.replace(/:.*/, "")])).toEqual([
      [path.join(dir, ".mcp.json"), "invalid JSON"],
      [path.join(dir, "missing.json"), "file not found"],
      ["--mcp-config (inline JSON)", "invalid JSON"],
    ]);
  });

  it("refuses two servers whose normalized names clash", () => {
    const dir = tempDir();
    const { servers, errors } = loadMcpConfig({ projectDir: dir, configFiles: ['{"mcpServers": {"my.server": {"command": "a"}, "my_server": {"command": "b"}}}'], env: {} });
    expect(servers.map((s) => s.name)).toEqual(["my.server"]);
    expect(errors[0]).toMatchObject({ server: "my_server", message: 'its tool names (mcp__my_server__…) would clash with server "my.server"' });
  });

  it("works without any configuration", () => {
    expect(loadMcpConfig({ projectDir: tempDir(), env: {} })).toEqual({ servers: [], errors: [] });
  });
});
