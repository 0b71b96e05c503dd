/**
 * Undo that covers Bash: the real CLI (`toolgate exec`, `toolgate -p` against the scripted model) runs real
 * commands (through the OS sandbox where it runs), the working directories are snapshotted before each
 * command that may write, and rewind and `toolgate diff` cover what the command did.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { describe, expect, it, vi } from "vitest";
import { agentEnv, cliArgs, project, repoRoot, runCli, serveModel } from "./agentRun.js";

vi.setConfig({ testTimeout: 120_000 });

const BIG = 2 * 1024 * 1024;

/** A project with a .gitignore'd file, a node_modules file, and a large binary file. */
function undoProject(): string {
  const dir = project({
    ".gitignore": ".home/\nsecret.log\n",
    "existing.txt": "one\ntwo\nthree\n",
    "other.txt": "delete me\n",
    "src/keep.ts": "export const k = 1;\n",
    "secret.log": "ignored before\n",
    "node_modules/dep/index.js": "module.exports = 1;\n",
  });
  fs.writeFileSync(path.join(dir, "big.bin"), Buffer.alloc(BIG, 1).fill(0, 0, 10));
  return dir;
}

const WRITES = "echo x > new.txt; sed -i s/two/TWO/ existing.txt; rm other.txt; echo ignored after > secret.log; echo dep2 > node_modules/dep/index.js; printf '\\0changed' | dd of=big.bin conv=notrunc status=none";

/** `toolgate exec` in `dir`, one request at a time: each `send` waits for the answer line. */
function execSession(dir: string) {
  const child = spawn(process.execPath, [...cliArgs, "exec", "--cwd", dir, "--allowedTools", "Bash"], { cwd: repoRoot, env: agentEnv(undefined, dir), stdio: ["pipe", "pipe", "pipe"] });
  const answers = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d));
  return {
    async send(request: unknown): Promise<Record<string, any>> {
      child.stdin!.write(`${JSON.stringify(request)}\n`);
      const next = await answers.next();
      if (next.done) throw new Error(`toolgate exec ended: ${stderr}`);
      return JSON.parse(next.value);
    },
    async close(): Promise<number | null> {
      child.stdin!.end();
      return new Promise((resolve) => child.on("close", resolve));
    },
  };
}

const bash = (messageId: string, command: string) => ({ role: "assistant", id: messageId, content: [{ type: "tool_use", id: `${messageId}-t`, name: "Bash", input: { command } }] });
const resultText = (answer: Record<string, any>): string => {
  const content = answer.content[0].content;
  return typeof content === "string" ? content : content.map((b: { text: string }) => b.text).join("\n");
};

function objectsDir(dir: string): string {
  const projects = path.join(dir, ".home", "projects");
  const [projectDir] = fs.readdirSync(projects);
  const [session] = fs.readdirSync(path.join(projects, projectDir));
  return path.join(projects, projectDir, session, "file-history", "workspace", "objects");
}

const blobName = (content: string) => createHash("sha1").update(content).digest("hex");

describe("undo that covers Bash", () => {
  it("rewind restores what a command created, modified and deleted; ignored files are left alone; a large binary is reported", async () => {
    const dir = undoProject();
    const real = fs.realpathSync(dir);
    const session = execSession(dir);
    const ran = await session.send(bash("m1", WRITES));
    expect(ran.content[0].is_error).toBeUndefined();
    expect(resultText(ran)).toContain("Changed but not covered by checkpoints, so rewind cannot restore them: big.bin (a binary file larger than 1.0 MB (2.0 MB))");
    expect(fs.readFileSync(path.join(dir, "existing.txt"), "utf8")).toBe("one\nTWO\nthree\n");

    const rewind = await session.send({ type: "rewind", message_id: "m1" });
    expect(rewind.restored.sort()).toEqual([path.join(real, "existing.txt"), path.join(real, "other.txt")]);
    expect(rewind.deleted).toEqual([path.join(real, "new.txt")]);
    expect(rewind.errors).toEqual([{ filePath: path.join(real, "big.bin"), message: "not restored: its content before the change was not kept (a binary file larger than 1.0 MB (2.0 MB))" }]);
    expect(await session.close()).toBe(0);

    expect(fs.readFileSync(path.join(dir, "existing.txt"), "utf8")).toBe("one\ntwo\nthree\n");
    expect(fs.readFileSync(path.join(dir, "other.txt"), "utf8")).toBe("delete me\n");
    expect(fs.existsSync(path.join(dir, "new.txt"))).toBe(false);
    // Ignored files were neither snapshotted nor restored.
    expect(fs.readFileSync(path.join(dir, "secret.log"), "utf8")).toBe("ignored after\n");
    expect(fs.readFileSync(path.join(dir, "node_modules/dep/index.js"), "utf8")).toBe("dep2\n");
    const blobs = fs.readdirSync(objectsDir(dir));
    expect(blobs).toContain(blobName("export const k = 1;\n"));
    expect(blobs).not.toContain(blobName("ignored before\n"));
    expect(blobs).not.toContain(blobName("module.exports = 1;\n"));
    // The large binary was left as the command made it.
    expect(fs.readFileSync(path.join(dir, "big.bin")).subarray(0, 8).toString("latin1")).toBe("\0changed");
  });

  it("a read-only command takes no snapshot; a writing one does, and keeps the user's edit made in between", async () => {
    const dir = undoProject();
    const session = execSession(dir);
    await session.send(bash("m1", "touch started.txt"));
    // The user edits a file between the calls.
    fs.writeFileSync(path.join(dir, "existing.txt"), "edited by the user\n");
    const readOnly = await session.send(bash("m2", "cat existing.txt; ls src"));
    expect(resultText(readOnly)).toContain("edited by the user");
    expect(fs.readdirSync(objectsDir(dir))).not.toContain(blobName("edited by the user\n"));
    expect(await session.send({ type: "rewind", message_id: "m2" })).toMatchObject({ type: "error" });

    await session.send(bash("m3", "echo overwritten > existing.txt"));
    expect(fs.readdirSync(objectsDir(dir))).toContain(blobName("edited by the user\n"));
    const rewind = await session.send({ type: "rewind", message_id: "m3" });
    expect(rewind.restored).toEqual([path.join(fs.realpathSync(dir), "existing.txt")]);
    expect(await session.close()).toBe(0);
    expect(fs.readFileSync(path.join(dir, "existing.txt"), "utf8")).toBe("edited by the user\n");
  });

  it("toolgate diff lists what a Bash call did, and the large binary it could not cover", async () => {
    const dir = undoProject();
    const server = await serveModel({
      turns: [{ content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: WRITES } }] }, { content: [{ type: "text", text: "Done." }] }],
    });
    const run = await runCli(["-p", "change things", "--cwd", dir, "--output-format", "stream-json", "--toolgate-events", "--allowedTools", "Bash"], agentEnv(server, dir));
    expect(run.code).toBe(0);
    const summary = run.lines.find((l) => l.type === "change_summary");
    expect(summary?.files).toEqual([
      { path: "existing.txt", status: "modified", added: 1, removed: 1 },
      { path: "new.txt", status: "created", added: 1, removed: 0 },
      { path: "other.txt", status: "deleted", added: 0, removed: 1 },
    ]);

    const diff = await runCli(["diff", "--cwd", dir, "--json"], agentEnv(undefined, dir));
    expect(diff.code).toBe(0);
    const json = JSON.parse(diff.stdout);
    expect(json.files.map((f: { path: string; status: string }) => [f.path, f.status])).toEqual([
      ["existing.txt", "modified"],
      ["new.txt", "created"],
      ["other.txt", "deleted"],
    ]);
    expect(json.files[0].diff).toContain("-two\n+TWO");
    expect(json.not_covered).toEqual([{ path: "big.bin", reason: "a binary file larger than 1.0 MB (2.0 MB)" }]);

    const text = await runCli(["diff", "--cwd", dir, "--stat"], agentEnv(undefined, dir));
    expect(text.stdout).toContain(" 3 files changed, 2 insertions(+), 2 deletions(-)");
    expect(text.stdout).toContain("Not covered by checkpoints (changed, but their earlier content was not kept):\n  big.bin: a binary file larger than 1.0 MB (2.0 MB)\n");
  });
});
