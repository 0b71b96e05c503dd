/**
 * Issue 10 §2 end to end: the real CLI (`permissions explain` and `exec`) with no Bash rule, in a real git
 * repository. With `--no-sandbox` the rules alone judge: a sample of each bypass class must be asked (or
 * denied), and exec must run none of them: every one of these would create `pwned` if bash ran it. With the
 * sandbox on, they may run (sandboxed, read-only), but still nothing is written.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkSandboxSupport } from "../../../src/sandbox/index.js";
import { tempDir } from "../../helpers.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const cliEntry = path.join(repoRoot, "src/cli/main.ts");

function toolgate(args: string[], input = "") {
  const home = tempDir("tg-bypass-home-");
  return spawnSync(process.execPath, ["--import", "tsx", cliEntry, ...args], {
    cwd: repoRoot,
    input,
    encoding: "utf8",
    env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "no-managed.json") },
    timeout: 120_000,
  });
}

function project(): string {
  const cwd = tempDir("tg-bypass-project-");
  fs.writeFileSync(path.join(cwd, "README.md"), "hello x\n");
  fs.writeFileSync(path.join(cwd, ".env"), "SECRET=1\n");
  const git = (...args: string[]) => spawnSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "init");
  return cwd;
}

const SAMPLES: Record<string, string> = {
  xargs: "printf -- '-fprint\\npwned\\n' | xargs find .",
  prefix: "sort --outp=pwned README.md",
  attached: "git grep -O'touch pwned' hello",
  nul: "find . -name README.md $'-fprint\\x00' pwned",
  gitOutput: "git log --output=pwned",
  uploadPack: "git ls-remote --upload-pack='touch pwned' .",
  testSubscript: "test -v 'a[$(touch pwned)]'",
  printfSubscript: "printf -v'a[$(touch pwned)]' x",
  doubleBracket: "[[ 'a[$(touch pwned)]' -eq 1 ]]",
  syntax: "touch pwned ;; pwd",
};

const samplesInput = () =>
  Object.entries(SAMPLES)
    .map(([id, command]) => JSON.stringify({ type: "tool_use", id, name: "Bash", input: { command } }))
    .join("\n");

const support = checkSandboxSupport();
const sandboxRuns = support.available && spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"]).status === 0;

describe("bypass classes through the real CLI", () => {
  it("explain asks or denies for a sample of each class, and for REV:path and --opt=PATH reads", () => {
    const cwd = project();
    const explain = (command: string) =>
      toolgate(["permissions", "explain", "--cwd", cwd, "--no-sandbox", "--disallowedTools", "Read(./.env)", "--", "Bash", command]);
    for (const command of [SAMPLES.xargs, SAMPLES.prefix, SAMPLES.syntax]) {
      const { stdout } = explain(command);
      expect(stdout, command).toMatch(/^decision: ask$/m);
    }
    expect(explain("git show HEAD:.env").stdout).toMatch(/^decision: deny$/m);
    expect(explain("diff --from-file=.env README.md").stdout).toMatch(/^decision: deny$/m);
    expect(explain("git status && git log --oneline -5").stdout).toMatch(/^decision: allow$/m);
  }, 240_000);

  it("exec runs none of them without a rule, and nothing is written", () => {
    const cwd = project();
    const { stdout, status } = toolgate(["exec", "--cwd", cwd, "--no-sandbox"], samplesInput());
    expect(status).toBe(0);
    const results = stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line).content[0]);
    expect(results).toHaveLength(Object.keys(SAMPLES).length);
    for (const result of results) {
      expect(result.is_error, result.tool_use_id).toBe(true);
      expect(String(result.content), result.tool_use_id).toMatch(/needs approval|denied/);
    }
    expect(fs.existsSync(path.join(cwd, "pwned"))).toBe(false);
    expect(spawnSync("git", ["status", "--porcelain"], { cwd, encoding: "utf8" }).stdout).toBe("");
  }, 120_000);

  it.skipIf(!sandboxRuns)("with the sandbox on, whatever runs of them writes nothing, and the result says why", () => {
    const cwd = project();
    const { stdout, status } = toolgate(["exec", "--cwd", cwd, "--sandbox"], samplesInput());
    expect(status).toBe(0);
    const results = stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line).content[0]);
    expect(results).toHaveLength(Object.keys(SAMPLES).length);
    // Each was asked (and denied: no one can be asked), failed on its own, or ran read-only; a write the
    // sandbox refused is named with what would allow it.
    const blocked = results.filter((r) => /The sandbox blocked writing pwned: no rule allows this command/.test(String(r.content)));
    expect(blocked.map((r) => r.tool_use_id)).toContain("nul");
    expect(fs.existsSync(path.join(cwd, "pwned"))).toBe(false);
    expect(spawnSync("git", ["status", "--porcelain"], { cwd, encoding: "utf8" }).stdout).toBe("");
  }, 120_000);

  it("the same lines do write when a rule allows them (the samples are real)", () => {
    const cwd = project();
    const input = JSON.stringify({ type: "tool_use", id: "p", name: "Bash", input: { command: SAMPLES.testSubscript } });
    toolgate(["exec", "--cwd", cwd, "--allowedTools", `Bash(${SAMPLES.testSubscript})`], input);
    expect(fs.existsSync(path.join(cwd, "pwned"))).toBe(true);
  }, 120_000);
});
