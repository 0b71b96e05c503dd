/**
 * What the model is told when the sandbox refused a write and the runtime's record of it has not come (it can
 * come after the command's end on a busy machine): the paths the command's own errors name stand in for it.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { describeSandboxRefusals, type SandboxReportInput } from "../../src/sandbox/messages.js";
import { tempDir } from "../helpers.js";

function report(output: string, extra: Partial<SandboxReportInput> = {}): string {
  const cwd = extra.cwd ?? tempDir("tg-refusal-cwd-");
  const scratch = tempDir("tg-refusal-tmp-");
  return describeSandboxRefusals({ violations: [], output, scope: "none", filesystem: { denyRead: [], allowWrite: [scratch], denyWrite: [] }, cwd, suggestedRules: ["echo:*"], workingDirectories: [cwd], ...extra }).join("\n");
}

describe("sandbox refusals named by the command's own output", () => {
  it("bash's redirect error outside the working directories: names the folder to add", () => {
    const outside = tempDir("tg-refusal-out-");
    const text = report(`/bin/bash: line 1: ${outside}/f.txt: Read-only file system\n`);
    expect(text).toContain(`--add-dir ${outside}`);
    expect(text).toContain(`${outside}/f.txt`);
  });

  it("coreutils' quoted paths, and a relative one resolved in the command's folder", () => {
    const cwd = tempDir("tg-refusal-cwd-");
    fs.mkdirSync(path.join(cwd, "with space"));
    const text = report(`touch: cannot touch 'with space/a b': Read-only file system\nsort: open failed: out.txt: Read-only file system\n`, { cwd });
    expect(text).toContain("The sandbox blocked writing with space/a b, out.txt: no rule allows this command");
    expect(text).toContain("Bash(echo:*)");
  });

  it("a path whose folder does not exist is not taken for the refused one (only the generic note)", () => {
    const cwd = tempDir("tg-refusal-cwd-");
    const text = report("cp: cannot create regular file '/no/such/dir/x': Read-only file system\n", { cwd });
    expect(text).toContain("The sandbox blocked a write: no rule allows this command");
    expect(text).not.toContain("/no/such/dir");
  });

  it("a writable path the output names is not reported", () => {
    const cwd = tempDir("tg-refusal-cwd-");
    const text = report(`bash: ${cwd}/ok.txt: Read-only file system\n`, { cwd, filesystem: { denyRead: [], allowWrite: [cwd], denyWrite: [] } });
    expect(text).not.toContain("ok.txt");
  });
});
