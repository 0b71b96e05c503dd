/**
 * `npx toolgate` in a clone, as README says to run it. npm installs the clone into npx's cache for a package's
 * own bin and runs its `prepare` there; that must not rebuild dist/ (it did: 10 s idle, minutes under load).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../cliCommand.js";

const builtCli = path.join(repoRoot, "dist/cli/main.js");
const version = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")).version as string;

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(!fs.existsSync(builtCli))("npx toolgate in a clone", () => {
  it("the first run with an empty npm cache runs the built CLI without building it again", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "tg-npx-home-"));
    const before = fs.statSync(builtCli).mtimeMs;
    // offline: nothing here may need the registry; a fresh cache is what a new user's first run meets
    const env = { ...process.env, HOME: home, npm_config_cache: path.join(home, ".npm"), npm_config_offline: "true", npm_config_update_notifier: "false" };
    const first = await run("npx", ["toolgate", "--version"], env);
    expect(first.stderr).toBe("");
    expect(first.stdout.trim()).toBe(version);
    expect(first.code).toBe(0);
    expect(fs.statSync(builtCli).mtimeMs).toBe(before);
  });
});
