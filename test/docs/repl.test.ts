/** docs/repl.md's example runs as written (through this checkout's CLI) and prints what the page shows. */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkSandboxSupport } from "../../src/sandbox/index.js";
import { findPython3 } from "../../src/tools/REPL/index.js";
import { tempDir } from "../helpers.js";
import { cliArgs, cliEnv, repoRoot } from "../cliCommand.js";

const page = fs.readFileSync(path.join(repoRoot, "docs/repl.md"), "utf8");
const fences = [...page.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], body: m[2] }));
const support = checkSandboxSupport();
// the example's last call is refused by the sandbox: without one it would write /etc
const runnable = !!findPython3(process.env) && support.available && spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"]).status === 0;

describe.skipIf(!runnable)("docs/repl.md", () => {
  it("the example prints what the page shows", async () => {
    const [commands, output] = fences;
    expect(commands.lang).toBe("sh");
    const dir = tempDir("tg-repl-doc-");
    const home = tempDir("tg-repl-doc-home-");
    const npx = `npx() { shift; ${[process.execPath, ...cliArgs].map((a) => `'${a}'`).join(" ")} "$@"; }`;
    const child = spawn("bash", ["-c", `${npx}\n${commands.body.replaceAll("/tmp/demo-repl", dir)}`], {
      cwd: repoRoot,
      env: { ...process.env, ...cliEnv, TOOLGATE_HOME: home, HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") },
    });
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(stdout).toBe(output.body);
    expect(fs.existsSync("/etc/demo.txt")).toBe(false);
  });
});
