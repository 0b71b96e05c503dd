import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { tempDir } from "../helpers.js";
import { withoutSandboxNotice } from "../cliCommand.js";
import { EVERYTHING_SERVER } from "../mcp/helpers.js";
import { connectToServe } from "./mcpServe.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const cliEntry = path.join(repoRoot, "src/cli/main.ts");

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The real CLI, from source, in its own process, with a private data home and managed-settings path. */
function toolgate(args: string[], options: { input?: string; cwd?: string; home?: string; managed?: string; env?: NodeJS.ProcessEnv } = {}): Run {
  const home = options.home ?? tempDir("tg-edges-home-");
  const result = spawnSync(process.execPath, ["--import", "tsx", cliEntry, ...args], {
    cwd: options.cwd ?? repoRoot,
    input: options.input ?? "",
    encoding: "utf8",
    env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: options.managed ?? path.join(home, "no-managed.json"), ...options.env },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: withoutSandboxNotice(result.stderr) };
}

const use = (id: string, name: string, input: unknown) => JSON.stringify({ type: "tool_use", id, name, input });
const results = (stdout: string) =>
  stdout
    .split("\n")
    .filter(Boolean)
    .flatMap((line) => (JSON.parse(line) as { content: Array<{ tool_use_id: string; content: string; is_error?: boolean }> }).content);
const writeJson = (file: string, value: unknown) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2));
};
/** A user error: exactly one line `toolgate: …`, no stack trace. */
function expectOneLine(run: Run, text: string | RegExp) {
  expect(run.stderr.endsWith("\n")).toBe(true);
  expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  if (typeof text === "string") expect(run.stderr).toBe(`${text}\n`);
  else expect(run.stderr.trimEnd()).toMatch(text);
}

describe("a settings file that exists but does not parse fails closed", () => {
  // The trailing comma of the issue: the deny rule must not silently disappear.
  const BROKEN = '{"permissions":{"deny":["Bash(rm:*)"],}}';
  const sources = ["user", "project", "local", "--settings", "managed"] as const;

  it.each(sources)("%s settings: exec refuses to run (exit 2, one line naming the file and line:column), nothing runs", (source) => {
    const cwd = tempDir("tg-edges-cwd-");
    const home = tempDir("tg-edges-home-");
    fs.writeFileSync(path.join(cwd, "victim"), "keep me\n");
    const files = {
      user: path.join(home, "settings.json"),
      project: path.join(cwd, ".toolgate/settings.json"),
      local: path.join(cwd, ".toolgate/settings.local.json"),
      "--settings": path.join(cwd, "ci-settings.json"),
      managed: path.join(home, "managed-settings.json"),
    };
    writeJson(files[source], BROKEN);
    const args = ["exec", "--cwd", cwd, "--permission-mode", "bypassPermissions", ...(source === "--settings" ? ["--settings", "ci-settings.json"] : [])];

    const run = toolgate(args, { input: use("b1", "Bash", { command: "rm -f victim" }), home, managed: files.managed });

    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expectOneLine(run, `toolgate: refusing to run tools: ${files[source]}: invalid JSON at line 1, column 39: unexpected "}" (Expected double-quoted property name)`);
    expect(fs.readFileSync(path.join(cwd, "victim"), "utf8")).toBe("keep me\n");
  });

  it("mcp serve refuses too; permissions explain and list still run and report the file", () => {
    const cwd = tempDir("tg-edges-cwd-");
    const file = path.join(cwd, ".toolgate/settings.json");
    writeJson(file, BROKEN);

    const serve = toolgate(["mcp", "serve", "--cwd", cwd]);
    expect(serve.status).toBe(2);
    expectOneLine(serve, /^toolgate: refusing to run tools: .*settings\.json: invalid JSON at line 1, column 39/);

    const explain = toolgate(["permissions", "explain", "--cwd", cwd, "Bash", "rm -f victim"]);
    expect(explain.status).toBe(0);
    expect(explain.stdout).toContain("decision: ask");
    expect(explain.stderr).toContain(`[toolgate] error: ${file}: invalid JSON at line 1, column 39`);
    expect(explain.stderr).toContain("toolgate exec and mcp serve refuse to run until this is fixed");

    const list = toolgate(["permissions", "list", "--cwd", cwd]);
    expect(list.status).toBe(0);
    expect(list.stderr).toContain(`${file}: invalid JSON`);
  });

  it("mcp serve: a settings file broken after the server started fails that connection's calls", async () => {
    const cwd = tempDir("tg-edges-cwd-");
    const home = tempDir("tg-edges-home-");
    const file = path.join(cwd, ".toolgate/settings.json");
    writeJson(file, { permissions: { deny: ["Read(.env)"] } });
    fs.writeFileSync(path.join(cwd, "a.txt"), "alpha\n");
    const client = await connectToServe(cwd, home);
    try {
      writeJson(file, BROKEN);
      const read = (await client.callTool({ name: "Read", arguments: { file_path: path.join(cwd, "a.txt") } })) as CallToolResult;
      expect(read.isError).toBe(true);
      const text = read.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      expect(text).toContain(`refusing to run tools: ${file}: invalid JSON at line 1, column 39`);
      expect(text).not.toContain("alpha");
    } finally {
      await client.close();
    }
  });

  it("a missing --settings file is one coherent line (no 'ignored' followed by 'refusing')", () => {
    const cwd = tempDir("tg-edges-cwd-");
    const run = toolgate(["exec", "--cwd", cwd, "--settings", "nope.json"], { input: use("r", "Read", { file_path: "x" }) });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expectOneLine(run, `toolgate: refusing to run tools: ${path.join(cwd, "nope.json")}: the settings file does not exist`);
  });
});

describe("rules naming tools that do not exist", () => {
  function project(permissions: Record<string, unknown>): string {
    const cwd = tempDir("tg-edges-cwd-");
    writeJson(path.join(cwd, ".toolgate/settings.json"), { permissions });
    return cwd;
  }
  const TYPOS = { deny: ["bash(rm:*)", "Reed(./.env)", "mcp__nowhere__x", "WebFetch(domain:example.com)"], allow: ["Bash(ls)"] };

  it("warn with a did-you-mean at start; servers not configured and Claude Code's own tools are not typos", () => {
    const cwd = project(TYPOS);
    const file = path.join(cwd, ".toolgate/settings.json");
    const run = toolgate(["exec", "--trust", "--cwd", cwd], { input: use("b", "Bash", { command: "echo hi" }) });
    expect(run.status).toBe(0);
    expect(results(run.stdout)[0].content).toBe("hi");
    expect(run.stderr.trimEnd().split("\n")).toEqual([
      `[toolgate] warning: deny rule "bash(rm:*)" from project settings (${file}) names no tool "bash"; did you mean Bash? The rule never matches.`,
      `[toolgate] warning: deny rule "Reed(./.env)" from project settings (${file}) names no tool "Reed"; did you mean Read? The rule never matches.`,
    ]);
  });

  it("in strict mode (--strict or permissions.strict) a deny rule naming no tool stops the run", () => {
    const flag = toolgate(["exec", "--trust", "--cwd", project(TYPOS), "--strict"], { input: use("b", "Bash", { command: "echo hi" }) });
    expect(flag.status).toBe(2);
    expect(flag.stdout).toBe("");
    expect(flag.stderr.trimEnd().split("\n")).toEqual([
      expect.stringMatching(/^toolgate: refusing to run tools: strict mode: deny rule "bash\(rm:\*\)" .*did you mean Bash\?/),
      expect.stringMatching(/^toolgate: refusing to run tools: strict mode: deny rule "Reed\(\.\/\.env\)" .*did you mean Read\?/),
    ]);

    const setting = toolgate(["exec", "--trust", "--cwd", project({ ...TYPOS, strict: true })], { input: use("b", "Bash", { command: "echo hi" }) });
    expect(setting.status).toBe(2);
    expect(setting.stdout).toBe("");

    const cli = toolgate(["exec", "--cwd", tempDir("tg-edges-cwd-"), "--strict", "--disallowedTools", "Wirte"], { input: "" });
    expect(cli.status).toBe(2);
    expectOneLine(cli, /strict mode: deny rule "Wirte" from command line names no tool "Wirte"; did you mean Write\?/);
  });

  it("in strict mode an allow rule naming no tool is only a warning (it can only fail to allow)", () => {
    const run = toolgate(["exec", "--trust", "--cwd", project({ allow: ["bash(ls)"] }), "--strict"], { input: use("b", "Bash", { command: "echo hi" }) });
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('allow rule "bash(ls)"');
    expect(run.stderr).toContain("did you mean Bash?");
  });

  it("a tool a connected MCP server does not have gets a did-you-mean among that server's tools", () => {
    const cwd = project({ deny: ["mcp__everything__ech"] });
    writeJson(path.join(cwd, ".mcp.json"), { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] } } });
    const run = toolgate(["exec", "--trust", "--cwd", cwd], { input: "" });
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('the MCP server everything has no tool "mcp__everything__ech"; did you mean mcp__everything__echo?');
  });
});

describe("a hook's ask in a non-interactive run", () => {
  it("says the hook asked, prints its reason once and how to change the hook; no --allowedTools suggestion", () => {
    const cwd = tempDir("tg-edges-cwd-");
    const hook = path.join(cwd, "lockfile-guard.js");
    fs.writeFileSync(
      hook,
      `let raw = ""; process.stdin.on("data", (c) => (raw += c)).on("end", () => {
  if (/package-lock\\.json$/.test(JSON.parse(raw).tool_input.file_path)) console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "Lockfiles are generated; run npm install instead." } }));
});`,
    );
    const settings = path.join(cwd, ".toolgate/settings.json");
    writeJson(settings, { hooks: { PreToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: `node ${hook}` }] }] } });

    const run = toolgate(["exec", "--trust", "--cwd", cwd, "--allowedTools", "Write"], { input: use("w", "Write", { file_path: "package-lock.json", content: "{}" }) });

    const [result] = results(run.stdout);
    expect(result.is_error).toBe(true);
    expect(result.content).toBe(
      `A PreToolUse hook asked for approval of this Write call: Lockfiles are generated; run npm install instead. This session is non-interactive, so the Write call was denied instead of asking. A hook's ask cannot be overridden by allow rules or --allowedTools. To let such calls run unattended, change the PreToolUse hook \`node ${hook}\` (hooks.PreToolUse in ${settings}) so it does not ask for them; or run interactively to approve the call.`,
    );
    expect(fs.existsSync(path.join(cwd, "package-lock.json"))).toBe(false);
  });
});

describe("--cwd and --add-dir are checked at start", () => {
  it.each([
    ["--cwd", "missing", "no such directory"],
    ["--cwd", "file", "not a directory"],
    ["--add-dir", "missing", "no such directory"],
    ["--add-dir", "file", "not a directory"],
  ])("%s naming a %s path: one line, exit 2, nothing runs", (flag, kind, problem) => {
    const base = tempDir("tg-edges-base-");
    fs.writeFileSync(path.join(base, "file"), "x");
    const target = path.join(base, kind);
    const args = flag === "--cwd" ? ["exec", "--cwd", target] : ["exec", "--cwd", base, "--add-dir", target];
    const run = toolgate(args, { input: use("w", "Write", { file_path: path.join(target, "new.txt"), content: "x" }) });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expectOneLine(run, `toolgate: ${flag} ${target}: ${problem}`);
    expect(fs.existsSync(path.join(base, "missing"))).toBe(false);
  });

  it("a relative --add-dir resolves against --cwd and must exist there", () => {
    const base = tempDir("tg-edges-base-");
    fs.mkdirSync(path.join(base, "lib"));
    expect(toolgate(["permissions", "list", "--cwd", base, "--add-dir", "lib"]).stdout).toContain(`${path.join(base, "lib")} (command line)`);
    expectOneLine(toolgate(["permissions", "list", "--cwd", base, "--add-dir", "nope"]), `toolgate: --add-dir nope (${path.join(base, "nope")}): no such directory`);
  });
});

describe("user errors are one line and exit 2, never a stack trace", () => {
  const open: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((close) => close()));
  });

  it("a malformed rule on the command line", () => {
    const run = toolgate(["exec", "--allowedTools", "Bash(npm test"]);
    expect(run.status).toBe(2);
    expectOneLine(run, `toolgate: --allowedTools: invalid permission rule "Bash(npm test": missing ')' at the end (write \\( and \\) for literal parentheses)`);
  });

  it("mcp serve --http on a busy port", async () => {
    const busy = http.createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    open.push(() => new Promise<void>((resolve) => busy.close(() => resolve())));
    const port = (busy.address() as { port: number }).port;
    const run = toolgate(["mcp", "serve", "--cwd", tempDir("tg-edges-cwd-"), "--http", String(port)]);
    expect(run.status).toBe(2);
    expectOneLine(run, `toolgate: cannot listen on 127.0.0.1:${port}: the port is already in use (EADDRINUSE); choose another one, or --http 0 for any free port`);
  });

  it.each(["abc", "70000", "-1", "80.5", ""])("mcp serve --http %j", (value) => {
    const run = toolgate(["mcp", "serve", `--http=${value}`]);
    expect(run.status).toBe(2);
    expectOneLine(run, `toolgate: --http needs a port number between 0 and 65535, got ${JSON.stringify(value)}`);
  });

  it("commander's own errors: unknown option, bad choice, stray argument", () => {
    expectOneLine(toolgate(["exec", "--bogus"]), "toolgate: unknown option '--bogus'. See --help.");
    const mode = toolgate(["exec", "--permission-mode", "yolo"]);
    expect(mode.status).toBe(2);
    expectOneLine(mode, /^toolgate: option '--permission-mode <mode>' argument 'yolo' is invalid\. Allowed choices are default, .*\. See --help\.$/);
    const stray = toolgate(["exec", "--allowedTools", "Edit", "Write"]);
    expect(stray.status).toBe(2);
    expectOneLine(stray, /^toolgate: too many arguments for 'exec'\. .* repeat them \(--allowedTools A --allowedTools B\) or join rules with commas/);
  });

  it("a closed stdout ends the run quietly with 141, like a process killed by SIGPIPE", async () => {
    const { spawn } = await import("node:child_process");
    const child = spawn(process.execPath, ["--import", "tsx", cliEntry, "tools", "--json"], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(141);
    expect(withoutSandboxNotice(stderr)).toBe("");
  });
});

describe("list flags take one value each, so they never swallow positional arguments", () => {
  it("permissions explain --add-dir DIR Bash 'ls' (the example from the issue)", () => {
    const cwd = tempDir("tg-edges-cwd-");
    const extra = tempDir("tg-edges-extra-");
    const run = toolgate(["permissions", "explain", "--cwd", cwd, "--add-dir", extra, "Bash", "ls"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('input: {"command":"ls"}');
    expect(run.stdout).toContain("decision: allow");
    expect(run.stdout).toContain(`${extra} (command line)`);
  });

  it("repeated flags, --flag=value, and several rules in one value", () => {
    const cwd = tempDir("tg-edges-cwd-");
    const a = tempDir("tg-edges-a-");
    const b = tempDir("tg-edges-b-");
    const run = toolgate([
      "permissions",
      "list",
      "--json",
      "--cwd",
      cwd,
      "--add-dir",
      a,
      `--add-dir=${b}`,
      "--allowedTools=Bash(npm test)",
      "--allowedTools",
      "Read,Edit(./src/**)",
      "--disallowedTools",
      "Bash(git push:*) Bash(rm:*)",
    ]);
    expect(run.status).toBe(0);
    const listing = JSON.parse(run.stdout) as { workingDirectories: Array<{ path: string }>; rules: Array<{ behavior: string; rule: string; source: string }> };
    expect(listing.workingDirectories.map((d) => d.path)).toEqual([cwd, a, b]);
    expect(listing.rules.map((r) => `${r.behavior} ${r.rule} ${r.source}`)).toEqual([
      "deny Bash(git push:*) cliArg",
      "deny Bash(rm:*) cliArg",
      "allow Bash(npm test) cliArg",
      "allow Read cliArg",
      "allow Edit(./src/**) cliArg",
    ]);
  });
});

describe("every call reaches a hook, also the ones refused before PreToolUse", () => {
  it("an audit hook on every event logs 8 calls out of 8, each ending in exactly one final event", () => {
    const cwd = tempDir("tg-edges-cwd-");
    fs.writeFileSync(path.join(cwd, "a.txt"), "alpha\n");
    fs.writeFileSync(path.join(cwd, "b.txt"), "beta\n");
    fs.writeFileSync(path.join(cwd, ".env"), "SECRET=1\n");
    fs.writeFileSync(path.join(cwd, "victim"), "x\n");
    const audit = path.join(cwd, "audit.sh");
    fs.writeFileSync(audit, `#!/usr/bin/env bash\n{ cat; echo; } >> "$TOOLGATE_PROJECT_DIR/audit.jsonl"\n`, { mode: 0o755 });
    const everyEvent = ["PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "PermissionDenied"];
    writeJson(path.join(cwd, ".toolgate/settings.json"), {
      permissions: { deny: ["Read(.env)", "Bash(rm:*)"] },
      hooks: Object.fromEntries(everyEvent.map((event) => [event, [{ hooks: [{ type: "command", command: `bash ${audit}` }] }]])),
    });
    const calls = [
      use("ok_read", "Read", { file_path: "a.txt" }),
      use("ok_bash", "Bash", { command: "echo hi" }),
      use("unknown", "read", { file_path: "a.txt" }),
      use("bad_input", "Read", { file_path: 3 }),
      use("write_unread", "Write", { file_path: "b.txt", content: "gamma\n" }),
      use("read_denied", "Read", { file_path: ".env" }),
      use("bash_denied", "Bash", { command: "rm -f victim" }),
      use("edit_asks", "Edit", { file_path: "a.txt", old_string: "alpha", new_string: "omega" }),
    ];

    const run = toolgate(["exec", "--trust", "--cwd", cwd], { input: calls.join("\n") });

    expect(run.status).toBe(0);
    const out = results(run.stdout);
    expect(out.map((r) => [r.tool_use_id, r.is_error === true])).toEqual([
      ["ok_read", false],
      ["ok_bash", false],
      ["unknown", true],
      ["bad_input", true],
      ["write_unread", true],
      ["read_denied", true],
      ["bash_denied", true],
      ["edit_asks", true],
    ]);
    expect(out[2].content).toContain("No such tool available: read. Did you mean Read?");
    const log = fs
      .readFileSync(path.join(cwd, "audit.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { hook_event_name: string; tool_use_id: string });
    expect(new Set(log.map((e) => e.tool_use_id)).size).toBe(8);
    const final = log.filter((e) => ["PostToolUse", "PostToolUseFailure", "PermissionDenied"].includes(e.hook_event_name));
    expect(Object.fromEntries(final.map((e) => [e.tool_use_id, e.hook_event_name]))).toEqual({
      ok_read: "PostToolUse",
      ok_bash: "PostToolUse",
      unknown: "PostToolUseFailure",
      bad_input: "PostToolUseFailure",
      write_unread: "PostToolUseFailure",
      read_denied: expect.stringMatching(/^(PostToolUseFailure|PermissionDenied)$/),
      bash_denied: "PermissionDenied",
      edit_asks: "PermissionDenied",
    });
    expect(final).toHaveLength(8);
    expect(fs.readFileSync(path.join(cwd, "victim"), "utf8")).toBe("x\n");
  });
});

describe("permissions explain reads its input strictly", () => {
  it("Edit with a bare path shows the JSON form; bad JSON is an input error; a wrong-case tool name gets a hint", () => {
    const cwd = tempDir("tg-edges-cwd-");
    const edit = toolgate(["permissions", "explain", "--cwd", cwd, "Edit", "secrets/x"]);
    expect(edit.status).toBe(2);
    expectOneLine(edit, `toolgate: Edit has the required fields file_path, old_string, new_string, so a bare string does not say which one it is. Pass the input as a JSON object, e.g. '{"file_path":"secrets/x","old_string":"…","new_string":"…"}'`);
    const badJson = toolgate(["permissions", "explain", "--cwd", cwd, "Read", "{bad json"]);
    expect(badJson.status).toBe(2);
    expect(badJson.stdout).toBe("");
    expectOneLine(badJson, /^toolgate: the input starts with "\{" but is not valid JSON/);
    expectOneLine(toolgate(["permissions", "explain", "--cwd", cwd, "read", "a.txt"]), 'toolgate: no such tool: read (did you mean Read?). Run "toolgate tools" to list them.');
    const json = toolgate(["permissions", "explain", "--cwd", cwd, "Edit", '{"file_path":"secrets/x","old_string":"a","new_string":"b"}']);
    expect(json.status).toBe(0);
    expect(json.stdout).toContain(`input: {"file_path":"secrets/x","old_string":"a","new_string":"b"}`);
  });
});

describe("MCP elicitation names the tool the model called", () => {
  it("asks to run Edit, not its UI label", async () => {
    const cwd = tempDir("tg-edges-cwd-");
    const home = tempDir("tg-edges-home-");
    const file = path.join(cwd, "notes.md");
    fs.writeFileSync(file, "old\n");
    const elicitations: ElicitRequest["params"][] = [];
    const client = new Client({ name: "edges-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitations.push(request.params);
      return { action: "decline" };
    });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ["--import", "tsx", cliEntry, "mcp", "serve", "--cwd", cwd],
        cwd: repoRoot,
        env: { PATH: process.env.PATH ?? "", TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") },
        stderr: "ignore",
      }),
    );
    try {
      await client.callTool({ name: "Read", arguments: { file_path: file } });
      const edit = (await client.callTool({ name: "Edit", arguments: { file_path: file, old_string: "old", new_string: "new" } })) as CallToolResult;
      expect(edit.isError).toBe(true);
      expect(elicitations).toHaveLength(1);
      expect(elicitations[0].message.split("\n")[0]).toBe("toolgate asks permission to run Edit.");
      expect(elicitations[0].message).not.toContain("Update");
      expect(fs.readFileSync(file, "utf8")).toBe("old\n");
    } finally {
      await client.close();
    }
  });
});

describe("toolgate exec on a terminal", () => {
  it("says it reads JSON lines from stdin and how to end; piped input gets no such note", () => {
    const cwd = tempDir("tg-edges-cwd-");
    const home = tempDir("tg-edges-home-");
    const command = [process.execPath, "--import", "tsx", cliEntry, "exec", "--cwd", cwd].map((a) => `'${a}'`).join(" ");
    // `script` gives the CLI a pseudo-terminal as stdin; the end of our input reaches it as end-of-file.
    const tty = spawnSync("script", ["-qec", command, "/dev/null"], {
      cwd: repoRoot,
      input: "",
      encoding: "utf8",
      env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") },
      timeout: 60_000,
    });
    expect(tty.stdout).toContain("toolgate exec reads tool calls from stdin, one JSON value per line");
    expect(tty.stdout).toContain("end with Ctrl-D");
    expect(toolgate(["exec", "--cwd", cwd]).stderr).toBe("");
  });
});
