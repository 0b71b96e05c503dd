/**
 * The quick support check answers without loading @anthropic-ai/sandbox-runtime: it must say what the
 * runtime's own dependency check says, here and with bwrap or socat missing from PATH.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SandboxManager } from "@anthropic-ai/sandbox-runtime";
import { rgPath } from "@vscode/ripgrep";
import { checkSandboxSupport } from "../../src/sandbox/index.js";
import { tempDir } from "../helpers.js";

function runtimeAnswer() {
  if (!SandboxManager.isSupportedPlatform()) return { available: false, reason: `the sandbox does not support ${process.platform}` };
  const { errors } = SandboxManager.checkDependencies({ command: rgPath });
  return errors.length ? { available: false, reason: errors.join(", ") } : { available: true };
}

/** A PATH with only these programs (and `which`, which the runtime runs to look them up). */
function pathWith(programs: string[]): string {
  const dir = tempDir("tg-path-");
  for (const name of [...programs, "which"]) {
    const found = (process.env.PATH ?? "").split(path.delimiter).map((d) => path.join(d, name)).find((p) => fs.existsSync(p));
    if (found) fs.symlinkSync(found, path.join(dir, name));
  }
  return dir;
}

const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
});

describe.skipIf(process.platform !== "linux")("checkSandboxSupport", () => {
  it("agrees with the runtime's check on this machine", () => {
    expect(checkSandboxSupport()).toEqual(runtimeAnswer());
  });

  it.each([
    ["bwrap missing", ["socat"]],
    ["socat missing", ["bwrap"]],
    ["both missing", []],
    ["both present", ["bwrap", "socat"]],
  ])("agrees with the runtime's check with %s", (_name, programs) => {
    process.env.PATH = pathWith(programs);
    const ours = checkSandboxSupport();
    expect(ours).toEqual(runtimeAnswer());
    if (programs.length < 2) expect(ours.available).toBe(false);
  });
});
