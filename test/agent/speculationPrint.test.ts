/**
 * Speculative calls as `toolgate -p` shows them (the built CLI, the scripted model server): --verbose lines in
 * text mode and `tool_speculation` events in stream-json. The model holds the block open until the CLI has said
 * the run started.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelScript, type FakeModelServer } from "../../scripts/fake-model.mjs";
import { cliArgs, repoRoot } from "../cliCommand.js";

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function setup() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-spec-print-")));
  fs.writeFileSync(path.join(dir, "notes.txt"), "ship it\n");
  fs.mkdirSync(path.join(dir, ".home"));
  const release = path.join(dir, "release");
  const script: FakeModelScript = {
    turns: [
      { content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "notes.txt" }, inputParts: ['{"file_path":"notes.txt"', "}"], hold: { beforePart: 1, waitForFile: release, timeoutMs: 10_000 } } as never] },
      { content: [{ type: "text", text: "It says ship it." }] },
    ],
  };
  return { dir, release, script };
}

/** Runs the CLI; `release` is created as soon as stdout or stderr shows `marker`. */
async function runCli(server: FakeModelServer, dir: string, args: string[], marker: string, release: string) {
  const env = { ...process.env, TOOLGATE_HOME: path.join(dir, ".home"), ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url, OPENAI_API_KEY: "", OPENAI_BASE_URL: "" };
  const child = spawn(process.execPath, [...cliArgs, "-p", "what does notes.txt say?", "--cwd", dir, "--no-sandbox", ...args], { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const watch = () => {
    if ((stdout + stderr).includes(marker) && !fs.existsSync(release)) fs.writeFileSync(release, "");
  };
  child.stdout.on("data", (d: Buffer) => {
    stdout += d;
    watch();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d;
    watch();
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, stdout, stderr };
}

describe("toolgate -p and speculative calls", () => {
  it("--verbose says when a call started early and that its result was used", async () => {
    const { dir, release, script } = setup();
    const server = await startFakeModelServer({ script });
    servers.push(server);
    const run = await runCli(server, dir, ["--verbose"], "speculative Read started", release);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("It says ship it.");
    expect(run.stderr).toContain("speculative Read started while its input was still streaming");
    expect(run.stderr).toMatch(/speculative Read hit \(started \d+ ms before its block ended/);
  });

  it("stream-json with --toolgate-events emits tool_speculation events; the call has one tool_result", async () => {
    const { dir, release, script } = setup();
    const server = await startFakeModelServer({ script });
    servers.push(server);
    const run = await runCli(server, dir, ["--output-format", "stream-json", "--verbose", "--toolgate-events"], '"tool_speculation"', release);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    const speculation = lines.filter((l) => l.subtype === "tool_speculation");
    expect(speculation).toMatchObject([
      { phase: "started", tool_use_id: "toolu_1", tool_name: "Read" },
      { phase: "settled", tool_use_id: "toolu_1", tool_name: "Read", outcome: "hit", wasted_ms: 0 },
    ]);
    const results = lines.flatMap((l) => (l.type === "user" ? ((l.message as { content: Array<{ type: string; tool_use_id?: string }> }).content ?? []).filter((b) => b.type === "tool_result") : []));
    expect(results.map((b) => b.tool_use_id)).toEqual(["toolu_1"]);
  });

  it('"speculativeToolCalls": false in the settings: nothing starts early', async () => {
    const { dir, release, script } = setup();
    fs.writeFileSync(release, "");
    fs.writeFileSync(path.join(dir, "off.json"), JSON.stringify({ speculativeToolCalls: false }));
    const server = await startFakeModelServer({ script });
    servers.push(server);
    const run = await runCli(server, dir, ["--verbose", "--settings", path.join(dir, "off.json")], "never", release);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("It says ship it.");
    expect(run.stderr).not.toContain("speculative");
  });
});
