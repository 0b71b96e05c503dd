import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findProjectInstructions, formatProjectInstructions, MAX_INSTRUCTION_FILE_CHARS } from "../../src/agent/instructions.js";
import { formatEnvironment, readEnvironment } from "../../src/agent/environment.js";
import { buildSystemPrompt } from "../../src/agent/systemPrompt.js";
import { createRepeatGuard, REPEAT_LIMIT } from "../../src/agent/repeatGuard.js";
import { getBuiltinTools } from "../../src/tools/index.js";
import { createSession } from "../../src/session/index.js";
import { readDenial } from "../../src/tools/files/toolPaths.js";

function tempTree(): { root: string; home: string; project: string; sub: string } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-instr-")));
  const home = path.join(root, "home");
  const project = path.join(root, "work", "project");
  const sub = path.join(project, "packages", "app");
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(sub, { recursive: true });
  return { root, home, project, sub };
}

describe("project instructions", () => {
  it("reads the user's own, then every directory from the outermost down to cwd, each name once", () => {
    const t = tempTree();
    fs.writeFileSync(path.join(t.home, "TOOLGATE.md"), "user: be terse");
    fs.writeFileSync(path.join(t.root, "work", "AGENTS.md"), "workspace rules");
    fs.writeFileSync(path.join(t.project, "CLAUDE.md"), "project: use pnpm");
    fs.symlinkSync("CLAUDE.md", path.join(t.project, "AGENTS.md"));
    fs.writeFileSync(path.join(t.sub, "TOOLGATE.md"), "app: tests with vitest");
    fs.writeFileSync(path.join(t.sub, "CLAUDE.md"), "   \n");
    const found = findProjectInstructions({ cwd: t.sub, home: t.home });
    expect(found.files.map((f) => [path.relative(t.root, f.path), f.scope])).toEqual([
      ["home/TOOLGATE.md", "user"],
      ["work/AGENTS.md", "project"],
      ["work/project/CLAUDE.md", "project"],
      ["work/project/packages/app/TOOLGATE.md", "project"],
    ]);
    const text = formatProjectInstructions(found)!;
    expect(text.indexOf("user: be terse")).toBeLessThan(text.indexOf("app: tests with vitest"));
    expect(text).toContain(`Contents of ${path.join(t.project, "CLAUDE.md")} (instructions for this project)`);
    expect(text.match(/project: use pnpm/g)).toHaveLength(1);
  });

  it("cuts a file longer than its share and says so; none at all gives no section", () => {
    const t = tempTree();
    fs.writeFileSync(path.join(t.project, "CLAUDE.md"), "x".repeat(MAX_INSTRUCTION_FILE_CHARS + 10));
    const found = findProjectInstructions({ cwd: t.project, home: t.home });
    expect(found.files[0]).toMatchObject({ truncated: true });
    expect(found.files[0].content.length).toBe(MAX_INSTRUCTION_FILE_CHARS);
    expect(formatProjectInstructions(found)).toMatch(/was cut at 40000 characters; read it with the Read tool/);
    const empty = tempTree();
    expect(formatProjectInstructions(findProjectInstructions({ cwd: empty.sub, home: empty.home }))).toBeUndefined();
  });

  it("skips a directory named like an instruction file without failing", () => {
    const t = tempTree();
    fs.mkdirSync(path.join(t.project, "CLAUDE.md"));
    fs.writeFileSync(path.join(t.project, "AGENTS.md"), "secret");
    fs.chmodSync(path.join(t.project, "AGENTS.md"), 0o000);
    const found = findProjectInstructions({ cwd: t.project, home: t.home });
    // root reads anything: only assert that the directory was skipped and nothing threw
    expect(found.files.every((f) => !f.path.endsWith("CLAUDE.md"))).toBe(true);
  });
});

describe("project instructions that are links", () => {
  const outsideSecret = (t: ReturnType<typeof tempTree>) => {
    const secret = path.join(t.root, "elsewhere", "id_rsa");
    fs.mkdirSync(path.dirname(secret), { recursive: true });
    fs.writeFileSync(secret, "SECRET-KEY-MATERIAL");
    return secret;
  };
  const texts = (found: ReturnType<typeof findProjectInstructions>) => found.files.map((f) => f.content).join("\n");

  it("a link out of its directory is refused, with the reason; a link within it is read", () => {
    const t = tempTree();
    const secret = outsideSecret(t);
    fs.symlinkSync(secret, path.join(t.project, "CLAUDE.md"));
    fs.mkdirSync(path.join(t.project, "docs"));
    fs.writeFileSync(path.join(t.project, "docs", "agents.md"), "docs: run the linter");
    fs.symlinkSync("docs/agents.md", path.join(t.project, "AGENTS.md"));
    const found = findProjectInstructions({ cwd: t.project, home: t.home });
    expect(texts(found)).toBe("docs: run the linter");
    expect(found.refused).toEqual([{ path: path.join(t.project, "CLAUDE.md"), reason: `it leads to ${secret}, outside ${t.project}` }]);
  });

  it("every spelling of the way out is refused: relative, through a symlinked directory, a chain of links, a nested directory's file", () => {
    const t = tempTree();
    const secret = outsideSecret(t);
    fs.symlinkSync("../../elsewhere/id_rsa", path.join(t.project, "CLAUDE.md"));
    fs.symlinkSync(path.dirname(secret), path.join(t.project, "keys"));
    fs.symlinkSync("keys/id_rsa", path.join(t.project, "AGENTS.md"));
    fs.symlinkSync("AGENTS.md", path.join(t.project, "TOOLGATE.md"));
    fs.symlinkSync("../../keys/./id_rsa", path.join(t.sub, "CLAUDE.md"));
    // a nested file linked to its parent's file is outside its own directory too (the parent's is read as itself)
    fs.writeFileSync(path.join(t.root, "work", "AGENTS.md"), "workspace rules");
    fs.symlinkSync("../../../AGENTS.md", path.join(t.sub, "AGENTS.md"));
    const found = findProjectInstructions({ cwd: t.sub, home: t.home });
    expect(texts(found)).toBe("workspace rules");
    expect(texts(found)).not.toContain("SECRET");
    expect(found.refused.map((r) => path.relative(t.root, r.path)).sort()).toEqual(
      ["work/project/AGENTS.md", "work/project/CLAUDE.md", "work/project/TOOLGATE.md", "work/project/packages/app/AGENTS.md", "work/project/packages/app/CLAUDE.md"].sort(),
    );
  });

  it("a working directory reached through a symlink reads its own files; dangling links and loops are skipped quietly", () => {
    const t = tempTree();
    const alias = path.join(t.root, "alias");
    fs.symlinkSync(t.project, alias);
    fs.writeFileSync(path.join(t.project, "CLAUDE.md"), "project: use pnpm");
    fs.symlinkSync("missing.md", path.join(t.project, "AGENTS.md"));
    fs.symlinkSync("TOOLGATE.md", path.join(t.project, "TOOLGATE.md"));
    const found = findProjectInstructions({ cwd: alias, home: t.home });
    expect(texts(found)).toBe("project: use pnpm");
    expect(found.refused).toEqual([]);
  });

  it("the user's own instruction file may link outside its directory, unless a Read rule denies the target", () => {
    const t = tempTree();
    const dotfile = path.join(t.root, "dotfiles", "TOOLGATE.md");
    fs.mkdirSync(path.dirname(dotfile));
    fs.writeFileSync(dotfile, "user: be terse");
    fs.symlinkSync(dotfile, path.join(t.home, "TOOLGATE.md"));
    const secret = outsideSecret(t);
    fs.symlinkSync(secret, path.join(t.home, "CLAUDE.md"));
    const readDenial = (file: string, real: string) => (real === secret ? `denied: ${file}` : undefined);
    const found = findProjectInstructions({ cwd: t.project, home: t.home, readDenial });
    expect(texts(found)).toBe("user: be terse");
    expect(found.refused).toEqual([{ path: path.join(t.home, "CLAUDE.md"), reason: `denied: ${path.join(t.home, "CLAUDE.md")}` }]);
  });

  it("the session's Read deny rules apply to plain instruction files too", async () => {
    const t = tempTree();
    fs.writeFileSync(path.join(t.project, "CLAUDE.md"), "PRIVATE NOTES");
    fs.writeFileSync(path.join(t.project, "AGENTS.md"), "agents: ok");
    const settingsFile = path.join(t.root, "flag-settings.json");
    fs.writeFileSync(settingsFile, JSON.stringify({ permissions: { deny: ["Read(**/CLAUDE.md)"] } }));
    const session = await createSession({ cwd: t.project, home: t.home, settingsFile, sandbox: false, env: { ...process.env, TOOLGATE_MANAGED_SETTINGS: path.join(t.root, "none.json") } });
    try {
      const found = findProjectInstructions({ cwd: t.project, home: t.home, readDenial: (file, real) => readDenial(file, session.context, real) });
      expect(texts(found)).toBe("agents: ok");
      expect(found.refused).toEqual([{ path: path.join(t.project, "CLAUDE.md"), reason: expect.stringContaining('denied by rule "Read(**/CLAUDE.md)"') }]);
    } finally {
      await session.close();
    }
  });
});

describe("environment", () => {
  it("describes a git repository: branch, status, recent commits", async () => {
    const t = tempTree();
    const git = (...args: string[]) => execFileSync("git", args, { cwd: t.project, env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
    git("init", "-q", "-b", "trunk");
    fs.writeFileSync(path.join(t.project, "a.txt"), "a");
    git("add", "a.txt");
    git("commit", "-qm", "first commit");
    fs.writeFileSync(path.join(t.project, "b.txt"), "b");
    const env = await readEnvironment(t.project, new Date(2026, 11, 3));
    expect(env.git).toMatchObject({ branch: "trunk", status: "?? b.txt" });
    expect(env.git!.recentCommits).toMatch(/first commit/);
    const text = formatEnvironment(env);
    expect(text).toContain(`Working directory: ${t.project}`);
    expect(text).toContain("Today's date: 2026-12-03");
    expect(text).toContain("Current branch: trunk");
  });

  it("outside a repository says so", async () => {
    const t = tempTree();
    const env = await readEnvironment(t.root);
    expect(env.git).toBeUndefined();
    expect(formatEnvironment(env)).toContain("Git repository: no");
  });
});

describe("system prompt", () => {
  it("has the base prompt, the environment and the instructions; --system-prompt replaces the base, --append adds at the end", async () => {
    const t = tempTree();
    fs.writeFileSync(path.join(t.project, "AGENTS.md"), "always run npm test");
    const parts = { environment: await readEnvironment(t.project), instructions: findProjectInstructions({ cwd: t.project, home: t.home }) };
    const sections = buildSystemPrompt(parts);
    expect(sections[0]).toMatch(/coding agent/);
    expect(sections[1]).toMatch(/^<environment>\nWorking directory:/);
    expect(sections[2]).toContain("always run npm test");
    const custom = buildSystemPrompt({ ...parts, systemPrompt: "You are a pirate.", appendSystemPrompt: "Answer in French." });
    expect(custom[0]).toBe("You are a pirate.");
    expect(custom.at(-1)).toBe("Answer in French.");
    expect(custom.join("\n")).toContain("always run npm test");
  });
});

describe("repeated-call guard", () => {
  it("counts the same call in a row, by the tool's own notion of equal input, through aliases", () => {
    const guard = createRepeatGuard(() => getBuiltinTools());
    expect(guard.record("Read", { file_path: "/a", offset: 1 })).toBe(1);
    expect(guard.record("Read", { offset: 1, file_path: "/a" })).toBe(2);
    expect(guard.record("Read", { file_path: "/a", offset: 1 })).toBe(REPEAT_LIMIT);
    expect(guard.record("Read", { file_path: "/b" })).toBe(1);
    expect(guard.record("Glob", { pattern: "*" })).toBe(1);
    expect(guard.record("Glob", { pattern: "*" })).toBe(2);
    guard.reset();
    expect(guard.record("Glob", { pattern: "*" })).toBe(1);
  });
});
