/**
 * A real run inside the sandbox for `toolgate doctor`: a command with no rule must be able to run and to
 * write its temp dir, and must not be able to write the project or reach a host that is not allowed.
 */
import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import type { ToolPermissionContext } from "../core/permissionTypes.js";
import type { Sandbox } from "./index.js";

export interface SandboxSelfTest {
  ok: boolean;
  lines: string[];
}

function runScript(script: string, cwd: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn("/bin/bash", ["-c", script], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d));
    child.stderr.on("data", (d: Buffer) => (output += d));
    child.on("error", (err) => resolve(`${output}${err.message}`));
    child.on("close", () => resolve(output));
  });
}

export async function sandboxSelfTest(sandbox: Sandbox, permissionContext: ToolPermissionContext): Promise<SandboxSelfTest> {
  const probe = path.join(permissionContext.cwd, `.toolgate-doctor-probe-${process.pid}`);
  const outside = path.join(os.tmpdir(), `toolgate-doctor-probe-${process.pid}`);
  const quote = (p: string) => `'${p.replace(/'/g, `'\\''`)}'`;
  const script = [
    `echo ran`,
    `(echo x > "$TMPDIR/probe" && echo tmp-writable) 2>/dev/null`,
    `(echo x > ${quote(probe)} && echo project-writable) 2>/dev/null`,
    `(echo x > ${quote(outside)} && echo outside-writable) 2>/dev/null`,
  ].join("; ");
  let output: string;
  try {
    const wrapped = await sandbox.wrap(script, { permissionContext, scope: "none", commandId: `doctor-${process.pid}` });
    output = await runScript(wrapped.command, permissionContext.cwd);
    wrapped.finish();
  } catch (err) {
    return { ok: false, lines: [`could not run a command in the sandbox: ${err instanceof Error ? err.message : String(err)}`] };
  }
  const has = (marker: string) => output.split("\n").includes(marker);
  const checks: Array<[boolean, string]> = [
    [has("ran"), "a command runs inside it"],
    [has("tmp-writable"), "its private temp dir is writable"],
    [!has("project-writable"), "a command no rule covers cannot write the project"],
    [!has("outside-writable"), `nor ${os.tmpdir()}`],
  ];
  return { ok: checks.every(([passed]) => passed), lines: checks.map(([passed, what]) => `${passed ? "✓" : "✗"} ${what}`) };
}
