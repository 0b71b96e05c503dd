/**
 * Session files are the user's alone: after real `toolgate -p` runs under umask 022, every file toolgate wrote
 * in its data home is 0600 and every directory 0700 (transcripts, subagent transcripts, file backups and their
 * manifest, persisted tool results, Bash output logs, the auto-mode log), and folders an older version left
 * 0755 are tightened. Prompt history (the UI's) is checked through its own class in a child with umask 022.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { projectKey } from "../../src/core/context.js";
import { agentEnv, cliArgs, project, repoRoot, serveModel, type CliRun } from "../cli/agentRun.js";
import { cliEnv } from "../cliCommand.js";

vi.setConfig({ testTimeout: 120_000 });

/** The CLI started by a shell that first sets umask 022 (the usual default, which leaves files 0644). */
function runUnderUmask(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  const child = spawn("/bin/sh", ["-c", 'umask 022 && exec "$@"', "sh", process.execPath, ...cliArgs, ...args], { cwd: repoRoot, env: { ...env, ...cliEnv }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  return new Promise((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr, lines: stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>) })),
  );
}

/** Every path under `root` (root included) with its permission bits, as "0600 relative/path". */
function modes(root: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const stat = fs.lstatSync(p);
    out.push(`${(stat.mode & 0o777).toString(8).padStart(4, "0")} ${stat.isDirectory() ? "dir " : "file"} ${path.relative(root, p) || "."}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(p).sort()) walk(path.join(p, name));
  };
  walk(root);
  return out;
}

/** The user's home for a run: not the data home (toolgate leaves a data home that is ~ as it is). */
function userHome(dir: string): string {
  const home = path.join(dir, "user-home");
  fs.mkdirSync(home, { recursive: true });
  return home;
}

const privateOnly = (entries: string[]) => entries.filter((e) => !(e.startsWith("0700 dir ") || e.startsWith("0600 file ")));

describe("session files are 0600 in 0700 directories, whatever the umask", () => {
  it("a run that backs up a file, persists a large result, logs Bash output and runs a subagent", async () => {
    const big = Array.from({ length: 3000 }, (_, i) => `match line ${i} with some padding text`).join("\n");
    const dir = project({ "notes.txt": "ship on Monday\n", "big.txt": `${big}\n` });
    const home = path.join(dir, ".home");
    // What an older version left: a data home and a project folder readable by everyone.
    fs.chmodSync(home, 0o755);
    fs.mkdirSync(path.join(home, "projects", projectKey(dir)), { recursive: true, mode: 0o755 });
    fs.chmodSync(path.join(home, "projects"), 0o755);
    fs.chmodSync(path.join(home, "projects", projectKey(dir)), 0o755);
    const use = (id: string, name: string, input: Record<string, unknown>) => ({ content: [{ type: "tool_use" as const, id, name, input }] });
    const server = await serveModel({
      turns: [
        use("toolu_read", "Read", { file_path: path.join(dir, "notes.txt") }),
        use("toolu_edit", "Edit", { file_path: path.join(dir, "notes.txt"), old_string: "Monday", new_string: "Tuesday" }),
        use("toolu_bash", "Bash", { command: "seq 1 200000" }),
        use("toolu_grep", "Grep", { pattern: "match", path: path.join(dir, "big.txt"), output_mode: "content", head_limit: 0 }),
        use("toolu_agent", "Agent", { description: "Say hi", prompt: "Say hi.", subagent_type: "general-purpose" }),
        { content: [{ type: "text", text: "hi from the subagent" }] },
        { content: [{ type: "text", text: "done" }] },
      ],
    });
    const run = await runUnderUmask(["-p", "go", "--cwd", dir, "--output-format", "stream-json", "--no-sandbox", "--permission-mode", "acceptEdits"], agentEnv(server, dir, { HOME: userHome(dir) }));
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "done" });
    expect(fs.readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("ship on Tuesday\n");
    // A project file toolgate edited keeps the user's mode: only toolgate's own files are private.
    expect(fs.statSync(path.join(dir, "notes.txt")).mode & 0o777).toBe(0o644);

    const entries = modes(home);
    const sessionDir = path.join("projects", projectKey(dir), run.lines.at(-1)!.session_id);
    const has = (pattern: RegExp) => expect(entries.some((e) => pattern.test(e)), `${pattern} in\n${entries.join("\n")}`).toBe(true);
    has(new RegExp(`^0600 file ${sessionDir}\\.jsonl$`));
    has(new RegExp(`^0600 file ${sessionDir}/file-history/manifest\\.json$`));
    has(new RegExp(`^0600 file ${sessionDir}/file-history/\\d+-[0-9a-f]+\\.bak$`));
    has(new RegExp(`^0600 file ${sessionDir}/tool-results/toolu_grep\\.txt$`));
    has(new RegExp(`^0600 file ${sessionDir}/bash/[^/]+\\.log$`));
    has(new RegExp(`^0600 file ${sessionDir}/subagents/agent-[0-9a-f]+\\.jsonl$`));
    expect(privateOnly(entries)).toEqual([]);
  });

  it("the auto-mode decision log", async () => {
    const dir = project();
    const home = path.join(dir, ".home");
    const server = await serveModel({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_touch", name: "Bash", input: { command: `touch ${path.join(dir, "marker")}` } }] },
        { content: [{ type: "text", text: '{"decision": "allow", "reason": "harmless"}' }] },
        { content: [{ type: "text", text: "done" }] },
      ],
    });
    const run = await runUnderUmask(["-p", "touch it", "--cwd", dir, "--output-format", "stream-json", "--no-sandbox", "--permission-mode", "auto"], agentEnv(server, dir, { HOME: userHome(dir) }));
    expect(run.code, run.stderr).toBe(0);
    expect(fs.existsSync(path.join(dir, "marker"))).toBe(true);
    const entries = modes(home);
    expect(entries.some((e) => /^0600 file projects\/[^/]+\/[^/]+\/auto-mode\.jsonl$/.test(e)), entries.join("\n")).toBe(true);
    expect(privateOnly(entries)).toEqual([]);
  });

  it("prompt history, written under umask 022, including one an older version left 0644", async () => {
    const dir = project();
    const home = path.join(dir, ".home");
    const older = path.join(home, "projects", projectKey(path.join(dir, "old")), "prompt-history.txt");
    fs.mkdirSync(path.dirname(older), { recursive: true, mode: 0o755 });
    fs.writeFileSync(older, '"from before"\n', { mode: 0o644 });
    const script = [
      `const { PromptHistory, historyFile } = await import(${JSON.stringify(path.join(repoRoot, "src/ui/promptHistory.ts"))});`,
      `new PromptHistory(historyFile(${JSON.stringify(home)}, ${JSON.stringify(path.join(dir, "new"))})).add("first prompt");`,
      `new PromptHistory(historyFile(${JSON.stringify(home)}, ${JSON.stringify(path.join(dir, "old"))})).add("second prompt");`,
    ].join("\n");
    const child = spawn("/bin/sh", ["-c", 'umask 022 && exec "$@"', "sh", process.execPath, "--import", "tsx", "--input-type=module", "-e", script], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code, stderr).toBe(0);
    expect(fs.readFileSync(older, "utf8")).toBe('"from before"\n"second prompt"\n');
    // Each project folder and its history; the old folder is tightened when its history is written. (The
    // data home and projects/ are tightened when a session starts, which this test does not do.)
    const entries = [path.join(dir, "new"), path.join(dir, "old")].flatMap((cwd) => modes(path.join(home, "projects", projectKey(cwd))));
    expect(entries.filter((e) => e.endsWith("prompt-history.txt"))).toHaveLength(2);
    expect(privateOnly(entries)).toEqual([]);
  });
});
