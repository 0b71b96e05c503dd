/**
 * Bash inside the real OS sandbox (bubblewrap via @anthropic-ai/sandbox-runtime): what a command may write,
 * read and reach depending on the permission decision, and what the result says when the sandbox refused.
 * Skipped, with the reason, where the sandbox cannot run.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { explainPermission } from "../../src/permissions/explainPermission.js";
import { BashTool } from "../../src/tools/Bash/index.js";
import { approveAll, tempDir } from "../helpers.js";
import { bash, openSession, sandboxSkipReason, type SessionSetup } from "./sessionSandbox.js";

if (sandboxSkipReason) console.warn(`skipping sandbox tests: ${sandboxSkipReason}`);

/** A project with a repository and an `in.txt` to sort. */
const open = (setup: SessionSetup = {}) =>
  openSession({ prefix: "tg-sbx-", ...setup, files: { ".git/config": "[core]\n", "in.txt": "b\na\n", ...setup.files } });

const exists = (cwd: string, name: string) => fs.existsSync(path.join(cwd, name));

describe.skipIf(!!sandboxSkipReason)("Bash in the OS sandbox", () => {
  describe("a command no rule covers (default mode): nothing writable but a private temp dir", () => {
    it("sort -o, touch and a redirection all fail, and the result names the fix", async () => {
      const { session, cwd } = await open();
      for (const command of ["sort -o out.txt in.txt", "touch x", "echo hi > f"]) {
        const { text } = await bash(session, { command });
        expect(text).toMatch(/Read-only file system/);
        expect(text).toContain("The sandbox blocked");
        expect(text).toMatch(/add an allow rule such as Bash\(/);
        expect(text).toContain("acceptEdits");
      }
      expect(exists(cwd, "out.txt") || exists(cwd, "x") || exists(cwd, "f")).toBe(false);
      const sort = await bash(session, { command: "sort -o out.txt in.txt" });
      expect(sort.text).toContain("Bash(sort:*)");
    });

    it("a write outside the working directories names --add-dir, not a rule alone", async () => {
      const { session } = await open({ allowedTools: ["Bash(echo:*)"] });
      const outside = tempDir("tg-sbx-outside-");
      const { text } = await bash(session, { command: `echo hi > ${outside}/f.txt` });
      expect(text).toContain(`--add-dir ${outside}`);
      expect(fs.existsSync(path.join(outside, "f.txt"))).toBe(false);
    });

    it("$TMPDIR is the session's private temp dir and is writable; /tmp itself is not", async () => {
      const { session } = await open();
      const { text } = await bash(session, { command: 'echo data > "$TMPDIR/t" && cat "$TMPDIR/t" && echo "$TMPDIR"; touch /tmp/tg-sbx-escape-$$ && echo ESCAPED' });
      expect(text).toContain("data");
      expect(text).toContain(session.sandbox.tempDir!);
      expect(text).not.toContain("ESCAPED");
    });

    it("commands the matcher judges read-only still cannot write (the sandbox catches what the matcher misses)", async () => {
      const { session, cwd } = await open();
      // find -fprint writes a file; whatever the verdict, the file system is read-only
      await bash(session, { command: "find . -maxdepth 0 -fprint found.txt" });
      await bash(session, { command: "git -c core.pager=cat log > log.txt" });
      expect(exists(cwd, "found.txt")).toBe(false);
      expect(exists(cwd, "log.txt")).toBe(false);
    });

    it("the verdict and permissions explain say it is allowed because it is sandboxed and read-only", async () => {
      const { session } = await open();
      const { text, decision } = await explainPermission(BashTool, { command: "python3 -c 'print(1)'" }, session.context);
      expect(decision.behavior).toBe("allow");
      expect(text).toContain("sandboxed, read-only");
    });

    it("autoAllowBashIfSandboxed false: the command asks (and a non-interactive session denies it)", async () => {
      const { session, cwd } = await open({ settings: { sandbox: { autoAllowBashIfSandboxed: false } } });
      const { text, isError } = await bash(session, { command: "touch x" });
      expect(isError).toBe(true);
      expect(text).not.toContain("Read-only file system");
      expect(exists(cwd, "x")).toBe(false);
    });
  });

  describe("a command an allow rule covers, or acceptEdits: writes inside the working directories", () => {
    it("Bash(sort:*) lets sort write; the same line without the rule cannot", async () => {
      const { session, cwd } = await open({ allowedTools: ["Bash(sort:*)"] });
      const { text } = await bash(session, { command: "sort -o out.txt in.txt" });
      expect(text).not.toContain("sandbox blocked");
      expect(fs.readFileSync(path.join(cwd, "out.txt"), "utf8")).toBe("a\nb\n");
    });

    it("acceptEdits lets a command no rule covers write inside the working directories, not outside", async () => {
      const { session, cwd } = await open({ mode: "acceptEdits" });
      const outside = tempDir("tg-sbx-outside-");
      const { text } = await bash(session, { command: `touch x && echo ok; touch ${outside}/y` });
      expect(text).toContain("ok");
      expect(exists(cwd, "x")).toBe(true);
      expect(fs.existsSync(path.join(outside, "y"))).toBe(false);
      expect(text).toContain("outside the working directories nothing is writable");
      expect(text).toContain(`--add-dir ${outside}`);
    });

    it("safety paths stay read-only even in bypassPermissions", async () => {
      const { session, cwd } = await open({ mode: "bypassPermissions", files: { "sub/.git/config": "[core]\n" } });
      const attempts = [
        "echo evil > .git/hooks/pre-commit",
        "echo evil >> .git/config",
        "mkdir -p .toolgate && echo '{}' > .toolgate/settings.json",
        "echo '{}' > .mcp.json",
        "echo evil > .bashrc",
        "echo evil >> sub/.git/config",
        "mv .git .git-old && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit",
        "ln -s .git/hooks h && echo evil > h/pre-commit",
        "echo evil > /proc/self/cwd/.git/hooks/pre-commit",
        "cd .git/hooks && echo evil > pre-commit",
        "rm -rf .git/hooks && mkdir .git/hooks && echo evil > .git/hooks/pre-commit",
        `python3 -c "import os; os.rename('.git/config', 'c2')"`,
      ];
      for (const command of attempts) await bash(session, { command });
      expect(exists(cwd, ".git/hooks/pre-commit")).toBe(false);
      expect(fs.readFileSync(path.join(cwd, ".git/config"), "utf8")).toBe("[core]\n");
      expect(fs.readFileSync(path.join(cwd, "sub/.git/config"), "utf8")).toBe("[core]\n");
      expect(exists(cwd, ".toolgate/settings.json")).toBe(false);
      expect(exists(cwd, ".mcp.json")).toBe(false);
      expect(exists(cwd, ".bashrc")).toBe(false);
      expect(exists(cwd, ".git-old")).toBe(false);
      expect(exists(cwd, "h/pre-commit")).toBe(false);
      expect(exists(cwd, "c2")).toBe(false);
      // a writer the matcher cannot see through: only the sandbox stops it
      const { text } = await bash(session, { command: `python3 -c "open('.mcp.json', 'w').write('{}')"` });
      expect(exists(cwd, ".mcp.json")).toBe(false);
      expect(text).toContain("safety paths");
    });
  });

  describe("deny rules inside the sandbox", () => {
    it("grep -r does not print a Read-denied .env, whatever the command", async () => {
      const { session } = await open({ settings: { permissions: { deny: ["Read(./.env)", "Read(secrets/**)"] } }, files: { ".env": "TOKEN=hunter2\n", "secrets/key": "hunter2\n", "notes.txt": "nothing\n" } });
      for (const command of ["grep -r hunter2 .", "cat .env", "cat secrets/key", "python3 -c 'print(open(\".env\").read())'", "cp .env $TMPDIR/e; cat $TMPDIR/e", "tar cf - . | strings"]) {
        const { text } = await bash(session, { command });
        expect(text, command).not.toContain("hunter2");
      }
    });

    it("an unanchored Read deny rule (any depth) is unreadable at every depth", async () => {
      const { session } = await open({ settings: { permissions: { deny: ["Read(.env)", "Read(*.pem)"] } }, files: { ".env": "hunter2\n", "a/b/.env": "hunter2\n", "keys/server.pem": "hunter2\n" } });
      const { text } = await bash(session, { command: "grep -r hunter2 . ; cat a/b/.env keys/server.pem" });
      expect(text).not.toContain("hunter2");
    });

    it("an Edit-denied file cannot be written even by a command a rule allows", async () => {
      const { session, cwd } = await open({ allowedTools: ["Bash(cp:*)", "Bash(tee:*)"], settings: { permissions: { deny: ["Edit(locked.txt)", "Edit(config/**)"] } }, files: { "locked.txt": "original\n", "config/app.json": "{}\n" } });
      await bash(session, { command: "cp in.txt locked.txt" });
      await bash(session, { command: "echo x | tee config/app.json" });
      expect(fs.readFileSync(path.join(cwd, "locked.txt"), "utf8")).toBe("original\n");
      expect(fs.readFileSync(path.join(cwd, "config/app.json"), "utf8")).toBe("{}\n");
    });
  });

  describe("network", () => {
    let server: http.Server;
    let port = 0;
    beforeAll(async () => {
      server = http.createServer((_req, res) => res.end("HELLO-FROM-HOST\n"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("localhost inside the sandbox is the sandbox's own: a server on the host's loopback is not reachable directly", async () => {
      const { session } = await open({ allowedTools: ["Bash(curl:*)"], settings: { sandbox: { network: { allowedDomains: ["localhost"] } } } });
      const { text } = await bash(session, { command: `curl -sS -m 5 http://127.0.0.1:${port}/` });
      expect(text).not.toContain("HELLO-FROM-HOST");
      // the result says why, and how a server on the host is reached after all
      expect(text).toContain("reaches the sandbox's own loopback");
      expect(text).toContain("--noproxy");
    });

    it("a host not on the list is blocked, and the result names the setting and rule that would allow it", async () => {
      const { session } = await open({ allowedTools: ["Bash(curl:*)"] });
      const { text } = await bash(session, { command: `curl -sS -m 5 --noproxy '' http://localhost:${port}/` });
      expect(text).not.toContain("HELLO-FROM-HOST");
      expect(text).toContain("The sandbox blocked a network connection to localhost");
      expect(text).toContain("sandbox.network.allowedDomains");
      expect(text).toContain("WebFetch(domain:localhost)");
    });

    it("sandbox.network.allowedDomains and WebFetch(domain:…) allow rules open a host through the proxy", async () => {
      for (const settings of [{ sandbox: { network: { allowedDomains: ["localhost"] } } }, { permissions: { allow: ["WebFetch(domain:localhost)"] } }]) {
        const { session } = await open({ allowedTools: ["Bash(curl:*)"], settings });
        const { text } = await bash(session, { command: `curl -sS -m 5 --noproxy '' http://localhost:${port}/` });
        expect(text).toContain("HELLO-FROM-HOST");
      }
    });

    it("a WebFetch(domain:…) deny rule wins over allowedDomains", async () => {
      const { session } = await open({ allowedTools: ["Bash(curl:*)"], settings: { sandbox: { network: { allowedDomains: ["localhost"] } }, permissions: { deny: ["WebFetch(domain:localhost)"] } } });
      const { text } = await bash(session, { command: `curl -sS -m 5 --noproxy '' http://localhost:${port}/` });
      expect(text).not.toContain("HELLO-FROM-HOST");
    });

    it("--no-sandbox: the same command is judged by the rules alone and reaches the host", async () => {
      const { session } = await open({ allowedTools: ["Bash(curl:*)"], sandbox: false });
      const { text } = await bash(session, { command: `curl -sS -m 5 http://127.0.0.1:${port}/` });
      expect(text).toContain("HELLO-FROM-HOST");
    });
  });

  describe("leaving the sandbox", () => {
    it("dangerouslyDisableSandbox is ignored (with a note) unless allowUnsandboxedCommands is true", async () => {
      const { session, cwd } = await open({ mode: "acceptEdits" });
      const outside = tempDir("tg-sbx-outside-");
      const { text } = await bash(session, { command: `touch ${outside}/y`, dangerouslyDisableSandbox: true });
      expect(text).toContain("dangerouslyDisableSandbox was ignored");
      expect(fs.existsSync(path.join(outside, "y"))).toBe(false);
      expect(exists(cwd, "y")).toBe(false);
    });

    it("with allowUnsandboxedCommands it always asks, even in bypassPermissions, and runs outside when approved", async () => {
      const { session } = await open({ mode: "bypassPermissions", settings: { sandbox: { allowUnsandboxedCommands: true } } });
      const outside = tempDir("tg-sbx-outside-");
      const denied = await bash(session, { command: `touch ${outside}/y`, dangerouslyDisableSandbox: true });
      expect(denied.isError).toBe(true);
      expect(denied.text).toContain("outside the sandbox");
      expect(fs.existsSync(path.join(outside, "y"))).toBe(false);
      await bash(session, { command: `touch ${outside}/y`, dangerouslyDisableSandbox: true }, approveAll);
      expect(fs.existsSync(path.join(outside, "y"))).toBe(true);
    });

    it("excludedCommands run outside the sandbox under the normal rules", async () => {
      const { session, cwd } = await open({ settings: { sandbox: { excludedCommands: ["touch:*"] } } });
      const asked = await bash(session, { command: "touch x" });
      expect(asked.isError).toBe(true); // no rule: it asks, and the non-interactive session denies
      expect(asked.text).not.toContain("Read-only file system");
      const outside = tempDir("tg-sbx-outside-");
      await bash(session, { command: `touch ${outside}/y` }, approveAll);
      expect(fs.existsSync(path.join(outside, "y"))).toBe(true);
      expect(exists(cwd, "x")).toBe(false);
    });
  });

  it("a daemon that double-forks is killed with the tree (the long-lived sandbox: with its task)", async () => {
    const { session } = await open();
    const tag = `tg-sbx-daemon-${process.pid}-${Date.now()}`;
    const { text } = await bash(session, { command: `(setsid bash -c 'exec -a ${tag} sleep 300' &) ; echo started` });
    // the long-lived sandbox keeps what a call left running as a task, until TaskStop
    const task = /background task (b[0-9a-f]{8})/.exec(text)?.[1];
    if (process.env.TOOLGATE_SANDBOX_PERSISTENT !== "0") await session.context.tasks.get(task!)!.stop();
    else expect(task).toBeUndefined();
    const ps = spawnSync("pgrep", ["-f", tag], { encoding: "utf8" });
    expect(ps.stdout.trim()).toBe("");
  });
});

/** A PATH with node and nothing else: no bwrap, no socat, no which. */
function pathWithoutBwrap(): string {
  const dir = tempDir("tg-sbx-path-");
  fs.symlinkSync(process.execPath, path.join(dir, "node"));
  return dir;
}

describe("an unavailable sandbox", () => {
  it("falls back to the rules alone, said once at start with the install command", async () => {
    const cwd = tempDir("tg-sbx-nobwrap-");
    const home = tempDir("tg-sbx-home-");
    const run = spawnSync(process.execPath, [path.resolve("dist/cli/main.js"), "exec", "--cwd", cwd, "--permission-mode", "acceptEdits"], {
      input: `${JSON.stringify({ type: "tool_use", id: "t1", name: "Bash", input: { command: "echo hi > f; echo done" } })}\n`,
      env: { PATH: pathWithoutBwrap(), TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json"), HOME: home },
      encoding: "utf8",
    });
    expect(run.stderr.match(/The sandbox is unavailable/g)).toHaveLength(1);
    expect(run.stderr).toContain("apt-get install bubblewrap socat");
    expect(run.stderr).toContain("judged by the permission rules alone");
    expect(run.stdout).toContain("done");
    expect(fs.readFileSync(path.join(cwd, "f"), "utf8")).toBe("hi\n");
  });

  it("sandbox.enabled true (or --sandbox) and unavailable: Bash calls fail with that message", async () => {
    const cwd = tempDir("tg-sbx-nobwrap-");
    const home = tempDir("tg-sbx-home-");
    fs.mkdirSync(path.join(cwd, ".toolgate"));
    fs.writeFileSync(path.join(cwd, ".toolgate/settings.json"), JSON.stringify({ sandbox: { enabled: true } }));
    for (const extra of [[], ["--sandbox"]]) {
      const run = spawnSync(process.execPath, [path.resolve("dist/cli/main.js"), "exec", "--cwd", cwd, "--permission-mode", "bypassPermissions", ...extra], {
        input: `${JSON.stringify({ type: "tool_use", id: "t1", name: "Bash", input: { command: "echo hi > f" } })}\n`,
        env: { PATH: pathWithoutBwrap(), TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json"), HOME: home },
        encoding: "utf8",
      });
      const line = JSON.parse(run.stdout.trim()) as { content: Array<{ content: string; is_error?: boolean }> };
      expect(line.content[0].is_error).toBe(true);
      expect(line.content[0].content).toContain("The sandbox is unavailable");
      expect(line.content[0].content).toContain("apt-get install bubblewrap socat");
      expect(fs.existsSync(path.join(cwd, "f"))).toBe(false);
    }
  });
});
