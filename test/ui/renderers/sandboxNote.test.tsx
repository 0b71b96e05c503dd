/** The Bash renderer's sandbox note comes from a real run in the OS sandbox (skipped where it cannot run). */
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { runToolUse, type ToolResultUpdate } from "../../../src/core/pipeline/index.js";
import { createSession, type Session } from "../../../src/session/index.js";
import { checkSandboxSupport } from "../../../src/sandbox/index.js";
import type { BashOutput } from "../../../src/tools/Bash/index.js";
import { renderer as bashRenderer } from "../../../src/tools/Bash/ui.js";
import { approveAll, assistantMessage, tempDir } from "../../helpers.js";
import { draw, renderOptions, rendered } from "./support.js";

const support = checkSandboxSupport();
const bwrapRuns = support.available && spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"]).status === 0;
const skipReason = !support.available ? support.reason : !bwrapRuns ? "bwrap is installed but cannot create namespaces here" : "";
if (skipReason) console.warn(`skipping the sandbox note test: ${skipReason}`);

const sessions: Session[] = [];
afterAll(async () => {
  for (const s of sessions.splice(0)) await s.close();
});

async function run(sandbox: boolean, input: Record<string, unknown>): Promise<ToolResultUpdate> {
  const cwd = tempDir("tg-render-sbx-");
  const home = tempDir("tg-render-sbx-home-");
  const session = await createSession({ cwd, home, sandbox, env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") } });
  sessions.push(session);
  fs.writeFileSync(path.join(cwd, "in.txt"), "hello\n");
  let result: ToolResultUpdate | undefined;
  for await (const u of runToolUse({ type: "tool_use", id: `toolu_${sessions.length}`, name: "Bash", input }, assistantMessage(), approveAll, session.context)) {
    if (u.type === "result") result = u;
  }
  return result!;
}

describe.skipIf(!!skipReason)("Bash renderer: the sandbox note", () => {
  it("says a command ran sandboxed, and says nothing when it did not", async () => {
    const input = { command: "cat in.txt" };
    const inside = await run(true, input);
    expect((inside.output as BashOutput).sandboxed).toBe(true);
    const frame = draw(bashRenderer.renderToolResultMessage!(rendered<BashOutput>(inside), input, renderOptions()));
    expect(frame).toContain("hello");
    expect(frame).toContain("(sandboxed)");
    const outside = await run(false, input);
    expect((outside.output as BashOutput).sandboxed).toBeUndefined();
    expect(draw(bashRenderer.renderToolResultMessage!(rendered<BashOutput>(outside), input, renderOptions()))).not.toContain("sandboxed");
  });
});
