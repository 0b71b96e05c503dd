/**
 * `exec` and `-p` never load the UI (React, Ink); `toolgate` without -p does, and without a terminal it says
 * to use -p. The modules a process loads are recorded by a loader hook (test/ui/fixtures/recordLoads.mjs).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startFakeModelServer, type FakeModelServer } from "../../scripts/fake-model.mjs";
import { cliArgs } from "./tmux.js";

vi.setConfig({ testTimeout: 120_000 });

const hook = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures/recordLoads.mjs");
const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/**
 * Runs the CLI with stdin and stdout as pipes; returns its output and every module URL it loaded. Async: the
 * scripted model server answers from this process.
 */
function run(args: string[], env: NodeJS.ProcessEnv, stdin = ""): Promise<{ status: number | null; stdout: string; stderr: string; urls: string[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-lazy-"));
  const log = path.join(dir, "loads.txt");
  fs.mkdirSync(path.join(dir, ".home"));
  const child = spawn(process.execPath, ["--import", hook, ...cliArgs, ...args], {
    cwd: dir,
    env: { ...process.env, TOOLGATE_HOME: path.join(dir, ".home"), TOOLGATE_LOAD_LOG: log, ANTHROPIC_API_KEY: "test", ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  child.stdin.end(stdin);
  return new Promise((resolve) => {
    child.on("close", (status) => {
      const urls = fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
      resolve({ status, stdout, stderr, urls });
    });
  });
}

/** Whether any loaded module is Ink or React: their own files (sources run) or a bundle chunk holding Ink's code. */
function loadsUi(urls: readonly string[]): boolean {
  return urls.some((url) => {
    if (/\/node_modules\/(ink|react|react-reconciler)\//.test(url)) return true;
    if (!url.startsWith("file:") || !url.includes(`${path.sep}dist${path.sep}cli${path.sep}chunk-`)) return false;
    // Ink's Static component is the one that marks its box internal_static.
    return fs.readFileSync(fileURLToPath(url), "utf8").includes("internal_static");
  });
}

describe("the UI is loaded only for the interactive command", () => {
  it("exec does not load React or Ink", async () => {
    const result = await run(["exec", "--no-sandbox"], {}, "");
    expect(result.status).toBe(0);
    expect(result.urls.length).toBeGreaterThan(0);
    expect(loadsUi(result.urls)).toBe(false);
  });

  it("-p does not load React or Ink", async () => {
    const server = await startFakeModelServer({ script: { turns: [{ content: [{ type: "text", text: "hello from the model" }] }] } });
    servers.push(server);
    const result = await run(["-p", "hi", "--no-sandbox"], { ANTHROPIC_BASE_URL: server.url });
    expect(result.stdout).toContain("hello from the model");
    expect(loadsUi(result.urls)).toBe(false);
  });

  it("toolgate without -p loads the UI, and without a terminal refuses with a message that names -p", async () => {
    const result = await run(["hello"], {}, "");
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("needs a terminal");
    expect(result.stderr).toContain('toolgate -p "your prompt"');
    // The control for the two tests above: the check does see the UI when it is loaded.
    expect(loadsUi(result.urls)).toBe(true);
  });
});

