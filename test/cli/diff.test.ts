/**
 * Change summaries end to end: a real `toolgate -p` run in a real git repo edits files; each turn that wrote
 * files gets a change_summary (stream-json line, transcript entry, --verbose text), and `toolgate diff` prints
 * the session's changes the way `git diff --stat --summary` does.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { agentEnv, project, runCli, serveModel } from "./agentRun.js";

vi.setConfig({ testTimeout: 120_000 });

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: cwd } });

function gitRepo(files: Record<string, string>): string {
  const dir = project({ ".gitignore": ".home/\n", ...files });
  git(dir, "init", "-q");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "start");
  return dir;
}

function gitStat(dir: string): string {
  const untracked = git(dir, "ls-files", "--others", "--exclude-standard", "-z").split("\0").filter(Boolean);
  if (untracked.length) git(dir, "add", "-N", "--", ...untracked);
  return git(dir, "diff", "--stat", "--summary");
}

const tool = (id: string, name: string, input: Record<string, unknown>) => ({ type: "tool_use" as const, id, name, input });

describe("change summaries and toolgate diff", () => {
  it("a -p session: change_summary per writing turn (stream-json, transcript, --verbose), and toolgate diff matches git", async () => {
    const dir = gitRepo({ "a.txt": "one\ntwo\nthree\n", "src/b.ts": "export const b = 1;\n" });
    const server = await serveModel({
      turns: [
        { content: [tool("t1", "Read", { file_path: "a.txt" }), tool("t2", "Read", { file_path: "src/b.ts" })] },
        { content: [tool("t3", "Edit", { file_path: "a.txt", old_string: "two", new_string: "TWO" }), tool("t4", "Write", { file_path: "notes/new.md", content: "# New\n\nfile\n" })] },
        { content: [{ type: "text", text: "Reading only." }, tool("t5", "Read", { file_path: "a.txt" })] },
        { content: [tool("t6", "Edit", { file_path: "src/b.ts", old_string: "1", new_string: "2" })] },
        { content: [{ type: "text", text: "Done." }] },
      ],
    });
    const run = await runCli(["-p", "change things", "--cwd", dir, "--output-format", "stream-json", "--toolgate-events", "--permission-mode", "acceptEdits", "--no-sandbox"], agentEnv(server, dir));
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const summaries = run.lines.filter((l) => l.type === "change_summary");
    // Turns 2 and 4 wrote files; turn 3 only read, turn 1 only read.
    expect(summaries).toHaveLength(2);
    expect(summaries[0]).toMatchObject({
      turn: 2,
      files: [
        { path: "a.txt", status: "modified", added: 1, removed: 1 },
        { path: "notes/new.md", status: "created", added: 3, removed: 0 },
      ],
      totals: { files: 2, added: 4, removed: 1 },
    });
    expect(summaries[1]).toMatchObject({ turn: 4, files: [{ path: "src/b.ts", status: "modified", added: 1, removed: 1 }], totals: { files: 1, added: 1, removed: 1 } });
    expect(typeof summaries[0].message_id).toBe("string");
    expect(summaries[0].session_id).toBe(run.lines.at(-1)!.session_id);
    // The summary line comes after the tool results it describes.
    const index = run.lines.indexOf(summaries[0]);
    expect(run.lines.slice(0, index).some((l) => l.type === "user" && JSON.stringify(l).includes("t4"))).toBe(true);

    // The transcript keeps them, and resuming still loads the history (the entries are not messages).
    const sessionId = run.lines.at(-1)!.session_id as string;
    const transcriptDir = path.join(dir, ".home", "projects");
    const transcriptFile = execFileSync("find", [transcriptDir, "-name", `${sessionId}.jsonl`], { encoding: "utf8" }).trim();
    const entries = fs.readFileSync(transcriptFile, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(entries.filter((e) => e.type === "change_summary").map((e) => [e.turn, e.totals])).toEqual([
      [2, { files: 2, added: 4, removed: 1 }],
      [4, { files: 1, added: 1, removed: 1 }],
    ]);

    // toolgate diff --stat: the same as git's own stat for the working tree.
    const stat = await runCli(["diff", "--stat", "--cwd", dir], agentEnv(undefined, dir));
    expect(stat.stderr).toBe("");
    expect(stat.code).toBe(0);
    expect(stat.stdout).toBe(gitStat(dir));

    // The full diff: the stat, then a patch git accepts for the same change.
    const full = await runCli(["diff", "--cwd", dir], agentEnv(undefined, dir));
    expect(full.code).toBe(0);
    const patch = full.stdout.slice(full.stdout.indexOf("diff --git"));
    expect(patch).toContain("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n");
    expect(patch).toContain("new file mode 100644\n--- /dev/null\n+++ b/notes/new.md\n");
    const expected = gitStat(dir);
    fs.writeFileSync(path.join(dir, ".home", "session.patch"), patch);
    git(dir, "reset", "-q", "--hard");
    git(dir, "clean", "-qfd", "-e", ".home");
    git(dir, "apply", path.join(dir, ".home", "session.patch"));
    expect(gitStat(dir)).toBe(expected);

    // --json: per file with its diff, and totals.
    const json = await runCli(["diff", "--json", "--cwd", dir, "--session", sessionId.slice(0, 8)], agentEnv(undefined, dir));
    const parsed = JSON.parse(json.stdout);
    expect(parsed).toMatchObject({ session_id: sessionId, totals: { files: 3, added: 5, removed: 2 } });
    expect(parsed.files.map((f: { path: string }) => f.path)).toEqual(["a.txt", "notes/new.md", "src/b.ts"]);
    expect(parsed.files[2].diff).toContain("-export const b = 1;\n+export const b = 2;\n");
    // the session as a positional argument, as `toolgate diff <id>` reads
    const positional = await runCli(["diff", sessionId.slice(0, 8), "--json", "--cwd", dir], agentEnv(undefined, dir));
    expect(positional.stderr).toBe("");
    expect(JSON.parse(positional.stdout)).toEqual(parsed);

    // A second session (text output, --verbose) prints its summary on stderr; toolgate diff now shows that one,
    // and --session still finds the first.
    const server2 = await serveModel({
      turns: [{ content: [tool("u1", "Write", { file_path: "later.txt", content: "x\ny\n" })] }, { content: [{ type: "text", text: "Wrote it." }] }],
    });
    const text = await runCli(["-p", "write later.txt", "--cwd", dir, "--verbose", "--permission-mode", "acceptEdits", "--no-sandbox"], agentEnv(server2, dir));
    expect(text.code).toBe(0);
    expect(text.stdout).toBe("Wrote it.\n");
    expect(text.stderr).toContain("[toolgate] changes in turn 1:\n later.txt | 2 ++\n 1 file changed, 2 insertions(+)\n create mode 100644 later.txt\n");
    const latest = await runCli(["diff", "--stat", "--cwd", dir], agentEnv(undefined, dir));
    expect(latest.stdout).toBe(" later.txt | 2 ++\n 1 file changed, 2 insertions(+)\n create mode 100644 later.txt\n");
    const first = await runCli(["diff", "--stat", "--json", "--cwd", dir, "--session", sessionId], agentEnv(undefined, dir));
    expect(JSON.parse(first.stdout).totals).toEqual({ files: 3, added: 5, removed: 2 });
  });

  it("without sessions, or with an unknown id, toolgate diff says so and exits 1", async () => {
    const dir = project();
    const none = await runCli(["diff", "--cwd", dir], agentEnv(undefined, dir));
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^toolgate diff: no sessions for this project yet/);
    fs.mkdirSync(path.join(dir, ".home", "projects"), { recursive: true });
    const unknown = await runCli(["diff", "--cwd", dir, "--session", "zzz"], agentEnv(undefined, dir));
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe("");
  });
});
