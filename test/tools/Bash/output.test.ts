/** The bounded output collector and the process-tree walk. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OutputCollector, MAX_INLINE_OUTPUT_CHARS } from "../../../src/tools/Bash/output.js";
import { treeMembers, type ProcessInfo } from "../../../src/util/processTree.js";
import { tempDir } from "../../helpers.js";

const collector = (eager = false) => new OutputCollector({ filePath: path.join(tempDir("toolgate-out-"), "out.log"), eager });

describe("OutputCollector", () => {
  it("keeps short output whole and writes no file unless asked", async () => {
    const out = collector();
    out.write(Buffer.from("hello\n"));
    out.write(Buffer.from("world\n"));
    expect(out.snapshot()).toMatchObject({ text: "hello\nworld\n", truncated: false, totalBytes: 12, totalLines: 2 });
    expect(out.snapshot().outputFile).toBeUndefined();
    await out.finish(false);
    expect(fs.existsSync(out.filePath)).toBe(false);
  });

  it("over the inline limit, previews the first and last lines (cut at line ends) and names the file with everything", async () => {
    const out = collector();
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i}`);
    out.write(Buffer.from(lines.join("\n") + "\n"));
    const snap = out.snapshot();
    expect(snap.truncated).toBe(true);
    expect(snap.text.length).toBeLessThan(3_500);
    expect(snap.text).toMatch(new RegExp(`^<persisted-output>\\nThe output is too long to show here \\([\\d.]+ KB, 5000 lines\\); all of it is saved in ${out.filePath.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: `));
    expect(snap.text).toContain("First lines:\nline 0\nline 1\n");
    expect(snap.text).toMatch(/\nline \d+\n\.\.\.\n\nLast lines:\nline \d+\n/);
    expect(snap.text.endsWith("line 4999\n</persisted-output>")).toBe(true);
    await out.finish(true);
    expect(fs.readFileSync(out.filePath, "utf8")).toBe(lines.join("\n") + "\n");
  });

  it("past the in-memory head it streams to the file; multi-byte characters survive the preview's edges", async () => {
    const out = collector();
    const chunk = Buffer.from("é€😀\n".repeat(10_000));
    for (let i = 0; i < 20; i++) out.write(chunk);
    const snap = out.snapshot();
    expect(snap.truncated).toBe(true);
    expect(snap.totalBytes).toBe(chunk.length * 20);
    expect(snap.text).not.toContain("\uFFFD");
    expect(snap.text).toMatch(/too long to show here \([\d.]+ MB, 200000 lines\); all of it is saved in /);
    await out.finish(true);
    expect(fs.statSync(out.filePath).size).toBe(chunk.length * 20);
  });

  it("writes a background task's file from the first byte", async () => {
    const out = collector(true);
    expect(fs.existsSync(out.filePath)).toBe(true);
    out.write(Buffer.from("a\n"));
    expect(out.snapshot().outputFile).toBe(out.filePath);
    await out.finish(true);
    expect(fs.readFileSync(out.filePath, "utf8")).toBe("a\n");
  });

  it("gives the last few lines for progress", () => {
    const out = collector();
    out.write(Buffer.from(Array.from({ length: 20 }, (_, i) => `l${i}`).join("\n") + "\n"));
    expect(out.recentLines()).toBe("l15\nl16\nl17\nl18\nl19");
  });
});

describe("treeMembers", () => {
  const p = (pid: number, ppid: number, pgid: number, state = "S"): ProcessInfo => ({ pid, ppid, pgid, state });
  it("finds the group and descendants that left it, not zombies or strangers", () => {
    const all = [p(100, 1, 100), p(101, 100, 100), p(102, 101, 102), p(103, 102, 102), p(104, 1, 100), p(105, 100, 100, "Z"), p(200, 1, 200)];
    expect(treeMembers(all, 100).map((x) => x.pid).sort()).toEqual([100, 101, 102, 103, 104]);
  });
});

describe("OutputCollector when the output file cannot be written", () => {
  /** A data home that is a file, so no folder can be made under it. */
  const unusable = () => {
    const blocker = path.join(tempDir("toolgate-out-"), "home-is-a-file");
    fs.writeFileSync(blocker, "");
    return path.join(blocker, "bash", "out.log");
  };

  it("keeps head and tail in memory, says the full output could not be saved, and never throws from write or finish", async () => {
    const out = new OutputCollector({ filePath: unusable(), eager: false });
    const big = Buffer.from(Array.from({ length: 400_000 }, (_, i) => `row ${i}`).join("\n") + "\n");
    for (let i = 0; i < big.length; i += 65_536) expect(() => out.write(big.subarray(i, i + 65_536))).not.toThrow();
    const snap = out.snapshot();
    expect(snap.truncated).toBe(true);
    expect(snap.outputFile).toBeUndefined();
    expect(snap.text).toMatch(/the full output could not be saved \(ENOTDIR/);
    expect(snap.text).toContain("First lines:\nrow 0\n");
    expect(snap.text.endsWith("row 399999\n</persisted-output>")).toBe(true);
    await expect(out.finish(true)).resolves.toBeUndefined();
  });

  it("an eager (background) collector with an unusable path still collects", () => {
    const out = new OutputCollector({ filePath: unusable(), eager: true });
    out.write(Buffer.from("still here\n"));
    expect(out.snapshot().text).toBe("still here\n");
  });
});
