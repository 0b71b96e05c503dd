/** Custom slash commands loaded from real folders: a project (git repository), a toolgate home and a user home. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expandCommand, expandSlashPrompt, loadCustomCommands, parseSlashCommand } from "../../src/agent/commands.js";
import { expandArguments, splitArguments } from "../../src/util/promptArguments.js";
import { tempDir } from "../helpers.js";

function write(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

function layout() {
  const root = tempDir("toolgate-commands-");
  const repo = path.join(root, "repo");
  fs.mkdirSync(path.join(repo, ".git"), { recursive: true });
  const cwd = path.join(repo, "app");
  fs.mkdirSync(cwd);
  return { root, repo, cwd, home: path.join(root, "home"), userHome: path.join(root, "user") };
}

const load = (l: ReturnType<typeof layout>) => loadCustomCommands({ cwd: l.cwd, home: l.home, userHome: l.userHome });

describe("prompt arguments", () => {
  it("splits words, keeping quoted groups", () => {
    expect(splitArguments(`a "b c"  'd e' f`)).toEqual(["a", "b c", "d e", "f"]);
    expect(splitArguments(`"unclosed quote`)).toEqual(["unclosed quote"]);
    expect(splitArguments("   ")).toEqual([]);
  });

  it("puts in $ARGUMENTS and $1..$9, appends arguments to a template without placeholders, and expands once", () => {
    expect(expandArguments("Fix issue #$ARGUMENTS now", " 123 ")).toBe("Fix issue #123 now");
    expect(expandArguments("Review PR #$1 with priority $2; missing: [$3]", "456 high")).toBe("Review PR #456 with priority high; missing: []");
    expect(expandArguments("$10 stays", "a")).toBe("$10 stays\n\nARGUMENTS: a");
    expect(expandArguments("No placeholders.\n", "look at x")).toBe("No placeholders.\n\nARGUMENTS: look at x");
    expect(expandArguments("No placeholders.", "")).toBe("No placeholders.");
    expect(expandArguments("awk '{print $1}' on $ARGUMENTS", "f.txt", { positional: false })).toBe("awk '{print $1}' on f.txt");
    expect(expandArguments("awk '{print $1}'", "f.txt", { positional: false })).toBe("awk '{print $1}'\n\nARGUMENTS: f.txt");
    // An argument that looks like a placeholder is text, not a second expansion.
    expect(expandArguments("A: $1, B: $2, all: $ARGUMENTS", "$2 $ARGUMENTS")).toBe("A: $2, B: $ARGUMENTS, all: $2 $ARGUMENTS");
  });
});

describe("custom slash commands", () => {
  it("loads project and user commands with their front matter, names from the file, folders as namespaces", () => {
    const l = layout();
    write(path.join(l.cwd, ".claude/commands/review.md"), "---\ndescription: Review the diff\nargument-hint: [focus]\nallowed-tools: Bash(git diff:*), Read\nmodel: claude-haiku-4-5\n---\nReview the current diff, focusing on $ARGUMENTS.\n");
    write(path.join(l.repo, ".toolgate/commands/frontend/test.md"), "Run the frontend tests for $1.\n");
    write(path.join(l.home, "commands/standup.md"), "# Write my standup\n\nSummarise yesterday's commits.\n");
    write(path.join(l.userHome, ".claude/commands/tidy.md"), "---\ndescription: Tidy\n---\nTidy up.\n");
    const commands = load(l);
    expect(commands.problems).toEqual([]);
    expect(commands.commands.map((c) => c.qualifiedName)).toEqual(["review", "frontend:test", "standup", "tidy"]);
    expect(commands.find("review")).toMatchObject({
      name: "review",
      scope: "project",
      description: "Review the diff",
      argumentHint: "[focus]",
      allowedTools: ["Bash(git diff:*)", "Read"],
      model: "claude-haiku-4-5",
      file: path.join(l.cwd, ".claude/commands/review.md"),
    });
    expect(commands.find("/test")).toMatchObject({ name: "test", namespace: "frontend", qualifiedName: "frontend:test", scope: "project", description: "Run the frontend tests for $1." });
    expect(commands.find("frontend:test")).toBe(commands.find("test"));
    expect(commands.find("standup")).toMatchObject({ scope: "user", description: "Write my standup" });
    expect(commands.find("tidy")!.scope).toBe("user");
    // Claude Code's docs write hints that are not YAML; they are read as the text they were meant to be.
    write(path.join(l.cwd, ".claude/commands/assign.md"), "---\nargument-hint: [pr-number] [priority] [assignee]\ndescription: Assign a PR\n---\nAssign PR #$1.\n");
    expect(load(l).find("assign")).toMatchObject({ argumentHint: "[pr-number] [priority] [assignee]", description: "Assign a PR" });
    expect(commands.find("nope")).toBeUndefined();
  });

  it("expands a command by name with its arguments", () => {
    const l = layout();
    write(path.join(l.cwd, ".claude/commands/fix.md"), "---\ndescription: Fix an issue\n---\nFix issue #$1 (priority $2). Context: $ARGUMENTS\n");
    const commands = load(l);
    expect(commands.expand("fix", '42 "very high"')).toBe('Fix issue #42 (priority very high). Context: 42 "very high"');
    expect(commands.expand("/fix", "")).toBe("Fix issue # (priority ). Context:");
    expect(commands.expand("missing", "x")).toBeUndefined();
    expect(expandCommand(commands.find("fix")!, "7 low")).toBe("Fix issue #7 (priority low). Context: 7 low");
  });

  it("the project wins a name over the user, and two commands of one name stay reachable by their folders", () => {
    const l = layout();
    write(path.join(l.cwd, ".claude/commands/deploy.md"), "Project deploy.\n");
    write(path.join(l.home, "commands/deploy.md"), "User deploy.\n");
    write(path.join(l.cwd, ".claude/commands/frontend/test.md"), "Frontend tests.\n");
    write(path.join(l.cwd, ".claude/commands/backend/test.md"), "Backend tests.\n");
    const commands = load(l);
    expect(commands.expand("deploy", "")).toBe("Project deploy.");
    expect(commands.problems).toContainEqual(`/deploy in ${path.join(l.home, "commands/deploy.md")} is ignored: ${path.join(l.cwd, ".claude/commands/deploy.md")} has the same name and wins`);
    // backend/ sorts first, so it owns /test; /frontend:test still reaches the other one.
    expect(commands.expand("test", "")).toBe("Backend tests.");
    expect(commands.expand("frontend:test", "")).toBe("Frontend tests.");
    expect(commands.problems).toContainEqual(`/test runs ${path.join(l.cwd, ".claude/commands/backend/test.md")}; use /frontend:test for ${path.join(l.cwd, ".claude/commands/frontend/test.md")}`);
    // A user command's bare name never beats a project one, even from a sub-folder.
    write(path.join(l.home, "commands/lint.md"), "User lint.\n");
    write(path.join(l.cwd, ".toolgate/commands/tools/lint.md"), "Project lint.\n");
    expect(load(l).expand("lint", "")).toBe("Project lint.");
  });

  it("reports and skips bad files without stopping", () => {
    const l = layout();
    const dir = path.join(l.cwd, ".claude/commands");
    write(path.join(dir, "good.md"), "Good.\n");
    write(path.join(dir, "unclosed.md"), "---\ndescription: x\n");
    write(path.join(dir, "list.md"), "---\n- a\n---\nbody\n");
    write(path.join(dir, "yaml.md"), "---\ndescription: [unbalanced\n---\nbody\n");
    write(path.join(dir, "desc.md"), "---\ndescription: {a: 1}\n---\nbody\n");
    write(path.join(dir, "tools.md"), "---\nallowed-tools: 3\n---\nbody\n");
    write(path.join(dir, "empty.md"), "---\ndescription: nothing after\n---\n  \n");
    write(path.join(dir, "bad name.md"), "body\n");
    write(path.join(dir, "notes.txt"), "not markdown\n");
    fs.symlinkSync("/dev/zero", path.join(dir, "zero.md"));
    fs.symlinkSync(path.join(l.root, "missing.md"), path.join(dir, "dangling.md"));
    write(path.join(l.root, "secret.txt"), "AKIA-SECRET\n");
    fs.symlinkSync(path.join(l.root, "secret.txt"), path.join(dir, "leak.md"));
    write(path.join(l.cwd, "docs/inside.md"), "Inside.\n");
    fs.symlinkSync(path.join(l.cwd, "docs/inside.md"), path.join(dir, "inside.md"));
    const commands = load(l);
    expect(commands.commands.map((c) => c.name)).toEqual(["good", "inside"]);
    const problem = (file: string) => commands.problems.find((p) => p.startsWith(path.join(dir, file)));
    expect(problem("unclosed.md")).toContain("no closing ---");
    expect(problem("list.md")).toContain("not a set of");
    expect(problem("yaml.md")).toMatch(/the command was skipped$/);
    expect(problem("desc.md")).toContain("description must be text");
    expect(problem("tools.md")).toContain("allowed-tools");
    expect(problem("empty.md")).toContain("no prompt");
    expect(problem("bad name.md")).toContain("cannot be part of a command name");
    expect(problem("zero.md")).toContain("not a regular file");
    expect(problem("dangling.md")).toContain("cannot be read");
    expect(problem("leak.md")).toContain(`it links to ${path.join(l.root, "secret.txt")}, outside`);
    expect(commands.problems).toHaveLength(10);
    for (const p of commands.problems) expect(p).not.toContain("\n");
  });

  it("a prompt starting with a known /name runs the command; anything else is sent as written", () => {
    const l = layout();
    write(path.join(l.cwd, ".claude/commands/explain.md"), "Explain $ARGUMENTS simply.\n");
    const commands = load(l);
    expect(expandSlashPrompt("/explain the build", commands)).toMatchObject({ prompt: "Explain the build simply.", command: { name: "explain" } });
    expect(expandSlashPrompt("  /explain\nmultiple\nlines ", commands).prompt).toBe("Explain multiple\nlines simply.");
    expect(expandSlashPrompt("/unknown thing", commands)).toEqual({ prompt: "/unknown thing" });
    expect(expandSlashPrompt("/etc/hosts is broken", commands)).toEqual({ prompt: "/etc/hosts is broken" });
    expect(expandSlashPrompt("please /explain x", commands)).toEqual({ prompt: "please /explain x" });
    write(path.join(l.cwd, ".claude/commands/compact.md"), "Custom compact.\n");
    const withCompact = load(l);
    expect(expandSlashPrompt("/compact focus", withCompact).prompt).toBe("Custom compact.\n\nARGUMENTS: focus".trim());
    expect(expandSlashPrompt("/compact focus", withCompact, { builtin: ["compact"] })).toEqual({ prompt: "/compact focus" });
    expect(parseSlashCommand("/frontend:test a b")).toEqual({ name: "frontend:test", args: "a b" });
    expect(parseSlashCommand("/")).toBeUndefined();
  });
});
