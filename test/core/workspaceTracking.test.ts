/** The session's first walk for undo can start early (the UI starts it with the first prompt). */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createEmptyPermissionContext, createToolUseContext } from "../../src/core/context.js";
import { prewarmWorkspaceSnapshots } from "../../src/core/pipeline/workspaceTracking.js";
import { BashTool } from "../../src/tools/Bash/index.js";
import { ReadTool } from "../../src/tools/Read/index.js";
import { tempDir } from "../helpers.js";

function session(tools: typeof BashTool[]) {
  const cwd = fs.realpathSync(tempDir("toolgate-prewarm-"));
  fs.writeFileSync(path.join(cwd, "a.txt"), "a");
  const context = createToolUseContext({ tools, home: tempDir("toolgate-prewarm-home-"), cwd, permissionContext: createEmptyPermissionContext(cwd) });
  return { cwd, context, snapshots: context.workspaceSnapshots! };
}

describe.skipIf(process.platform !== "linux")("prewarming the workspace snapshots", () => {
  it("walks once in the background when a tool may write anywhere; the first call's pass then reads the notices", async () => {
    const { cwd, context, snapshots } = session([BashTool]);
    prewarmWorkspaceSnapshots(context);
    prewarmWorkspaceSnapshots(context);
    await snapshots.snapshot([cwd]);
    expect(snapshots.lastPass).toEqual({ kind: "notices" });
    snapshots.close();
  });

  it("does nothing when no offered tool may write anywhere", async () => {
    const { cwd, context, snapshots } = session([ReadTool as unknown as typeof BashTool]);
    prewarmWorkspaceSnapshots(context);
    await snapshots.snapshot([cwd]);
    expect(snapshots.lastPass).toEqual({ kind: "walk", why: "the first pass" });
    snapshots.close();
  });
});
