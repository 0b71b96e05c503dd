/** Change summaries from checkpoints, compared with what git itself prints for the same change in a real repo. */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createFileHistory } from "../../src/core/fileHistory.js";
import { diffSession, formatFileDiff, formatStat, summarizeMessageChanges } from "../../src/agent/changes.js";
import { tempDir } from "../helpers.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: cwd, COLUMNS: "80" } });

function repo(files: Record<string, string | Buffer>) {
  const dir = tempDir("toolgate-changes-");
  git(dir, "init", "-q");
  git(dir, "config", "user.email", "t@example.com");
  git(dir, "config", "user.name", "t");
  git(dir, "config", "core.autocrlf", "false");
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "start");
  const history = createFileHistory(path.join(tempDir("toolgate-history-"), "file-history"));
  /** Checkpoint as a writer tool does, then change the file (content null: delete it). */
  const change = (messageId: string, name: string, content: string | Buffer | null) => {
    const file = path.join(dir, name);
    history.checkpoint(file, messageId);
    if (content === null) fs.rmSync(file);
    else {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
    }
  };
  /** git's view of the working tree against HEAD, new files included. */
  const gitStat = () => {
    const untracked = git(dir, "ls-files", "--others", "--exclude-standard", "-z").split("\0").filter(Boolean);
    if (untracked.length) git(dir, "add", "-N", "--", ...untracked);
    return git(dir, "diff", "--stat", "--summary");
  };
  return { dir, history, change, gitStat };
}

const lines = (n: number, tag = "line") => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}\n`).join("");

describe("change summary", () => {
  it("matches git diff --stat --summary: edits, a creation, a deletion, a binary file, a nested path", () => {
    const r = repo({ "a.txt": "a\nb\nc\n", "gone.txt": "x\ny\n", "img.bin": Buffer.from([1, 0, 2, 3]), "src/deep/mod.ts": lines(30) });
    r.change("m1", "a.txt", "a\nB\nc\nd\n");
    r.change("m1", "gone.txt", null);
    r.change("m1", "new.txt", "new\nfile\n");
    r.change("m1", "img.bin", Buffer.from([1, 0, 2, 3, 4]));
    r.change("m1", "src/deep/mod.ts", lines(30).replace("line 7\n", "seven\n").replace("line 20\n", ""));

    const summary = summarizeMessageChanges(r.history, "m1", r.dir);
    expect(summary.files.map((f) => [f.path, f.status, f.added, f.removed, f.binary])).toEqual([
      ["a.txt", "modified", 2, 1, false],
      ["gone.txt", "deleted", 0, 2, false],
      ["img.bin", "modified", 0, 0, true],
      ["new.txt", "created", 2, 0, false],
      ["src/deep/mod.ts", "modified", 1, 2, false],
    ]);
    expect(summary.added).toBe(5);
    expect(summary.removed).toBe(5);
    expect(formatStat(summary)).toBe(r.gitStat());
  });

  it("scales the graph and shortens long names the way git does", () => {
    const long = "a/very/long/directory/name/that/does/not/fit/in/the/name/column/at/all/file.txt";
    const r = repo({ "big.txt": lines(200), [long]: "one\n", "small.txt": "s\n" });
    r.change("m1", "big.txt", lines(200, "changed"));
    r.change("m1", long, "one\ntwo\nthree\n");
    r.change("m1", "small.txt", "s\nt\n");
    expect(formatStat(summarizeMessageChanges(r.history, "m1", r.dir))).toBe(r.gitStat());
  });

  it("a change to the last line's newline counts like git; a file written back unchanged is left out", () => {
    const r = repo({ "eol.txt": "a\nb", "same.txt": "same\n" });
    r.change("m1", "eol.txt", "a\nb\n");
    r.change("m1", "same.txt", "same\n");
    const summary = summarizeMessageChanges(r.history, "m1", r.dir);
    expect(summary.files.map((f) => f.path)).toEqual(["eol.txt"]);
    expect(formatStat(summary)).toBe(r.gitStat());
  });

  it("an executable new file gets mode 100755 in the summary, as in git", () => {
    const r = repo({ "keep.txt": "k\n" });
    r.change("m1", "run.sh", "#!/bin/sh\necho hi\n");
    fs.chmodSync(path.join(r.dir, "run.sh"), 0o755);
    expect(formatStat(summarizeMessageChanges(r.history, "m1", r.dir))).toBe(r.gitStat());
  });

  it("the session diff runs from each file's first checkpoint to now, and its patch applies with git apply", () => {
    const r = repo({ "a.txt": lines(12), "b.txt": "b\n" });
    r.change("m1", "a.txt", lines(12).replace("line 2\n", "two\n"));
    r.change("m2", "a.txt", lines(12).replace("line 2\n", "two\n").replace("line 11\n", "eleven\n"));
    r.change("m2", "c.txt", "c\n");
    r.change("m3", "b.txt", null);

    const { summary, diffs } = diffSession(r.history, r.dir);
    expect(formatStat(summary)).toBe(r.gitStat());
    const patch = diffs.map(formatFileDiff).join("");
    expect(patch).toContain("--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+c\n");
    expect(patch).toContain("deleted file mode 100644\n--- a/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-b\n");

    // The patch is a real one: undo everything in git, apply ours, and git sees the same change again.
    const expected = r.gitStat();
    fs.writeFileSync(path.join(r.dir, "..", "session.patch"), patch);
    git(r.dir, "reset", "-q", "--hard");
    git(r.dir, "clean", "-qfd");
    git(r.dir, "apply", path.join(r.dir, "..", "session.patch"));
    expect(r.gitStat()).toBe(expected);
  });

  it("hunks deep in a long file, and at an end without a newline, are the ones git prints", () => {
    const long = lines(300);
    const r = repo({ "long.txt": long, "tail.txt": `${lines(40)}last` });
    r.change("m1", "long.txt", long.replace("line 150\n", "one fifty\n").replace("line 153\n", "").replace("line 290\n", "line 290\nextra\n"));
    r.change("m1", "tail.txt", `${lines(40)}last changed`);
    const { diffs } = diffSession(r.history, r.dir);
    r.gitStat();
    for (const diff of diffs) {
      const ours = formatFileDiff(diff);
      // git adds a function-name heading after a hunk's @@ line; the hunks themselves must be the same.
      const theirs = git(r.dir, "diff", "--", diff.change.path).replace(/^index .*\n/m, "").replace(/^(@@ [^@]+ @@).*$/gm, "$1");
      expect(ours).toBe(theirs);
    }
  });

  it("a file created and then deleted again in the session is no change; a missing message is an empty summary", () => {
    const r = repo({ "keep.txt": "k\n" });
    r.change("m1", "tmp.txt", "t\n");
    r.change("m2", "tmp.txt", null);
    expect(diffSession(r.history, r.dir).summary.files).toEqual([]);
    expect(formatStat(diffSession(r.history, r.dir).summary)).toBe(" 0 files changed\n");
    expect(summarizeMessageChanges(r.history, "nope", r.dir).files).toEqual([]);
  });

  it("paths outside the project are shown absolute; a project reached through a symlink still gets relative paths", () => {
    const r = repo({ "keep.txt": "k\n" });
    const outside = path.join(tempDir("toolgate-outside-"), "o.txt");
    r.history.checkpoint(outside, "m1");
    fs.writeFileSync(outside, "o\n");
    expect(summarizeMessageChanges(r.history, "m1", r.dir).files.map((f) => f.path)).toEqual([outside]);
    r.change("m2", "keep.txt", "k2\n");
    const link = path.join(tempDir("toolgate-link-"), "project");
    fs.symlinkSync(r.dir, link);
    expect(summarizeMessageChanges(r.history, "m2", link).files.map((f) => f.path)).toEqual(["keep.txt"]);
  });
});
