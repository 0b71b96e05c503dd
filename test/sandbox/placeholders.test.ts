/**
 * The mount points bwrap makes for missing safety paths (an empty read-only .mcp.json, .bashrc, .toolgate/):
 * removing or replacing one from inside the sandbox fails, and removing or replacing one from the host (which
 * silently detaches the mount inside) never lets a later command write the protected path. In the long-lived
 * sandbox a lost mount ends the sandbox and what runs in it. Runs in both modes; skipped where the sandbox
 * cannot run.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { appears, bash, openSession, persistentMode, sandboxSkipReason, taskIdIn } from "./sessionSandbox.js";

if (sandboxSkipReason) console.warn(`skipping placeholder tests: ${sandboxSkipReason}`);

/** A protected path as the host sees it: absent, or bwrap's empty read-only mount point. */
function untouched(file: string): boolean {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!stat) return true;
  if (stat.isDirectory()) return fs.readdirSync(file).length === 0;
  return stat.isFile() && stat.size === 0;
}

const PROTECTED = [".mcp.json", ".bashrc", ".toolgate", ".gitmodules"];

describe.skipIf(!!sandboxSkipReason)("mount points of missing safety paths", () => {
  /** An acceptEdits session with a background task holding a write-scope sandbox open (its mount points in place). */
  async function holding() {
    const { session, cwd } = await openSession({ mode: "acceptEdits", files: { "evil.json": '{"mcpServers":{}}\n' } });
    const tmp = session.sandbox.tempDir!;
    const held = await bash(session, { command: 'touch "$TMPDIR/holding"; exec sleep 1000', run_in_background: true });
    const id = taskIdIn(held.text)!;
    expect(id, held.text).toBeDefined();
    await appears(tmp, "holding");
    return { session, cwd, id };
  }

  it("deleting or replacing one from inside fails, and the protected path is not written", async () => {
    const { session, cwd, id } = await holding();
    const attempts = [
      "rm -f .mcp.json; echo '{}' > .mcp.json",
      "mv -f evil.json .mcp.json",
      "cp evil.json .mcp.json",
      "ln -sf evil.json .mcp.json",
      "rm -rf .toolgate; mkdir -p .toolgate && echo '{}' > .toolgate/settings.json",
      "mv .toolgate t2 && mkdir .toolgate && echo '{}' > .toolgate/settings.json",
      "umount .mcp.json; echo '{}' > .mcp.json",
      `python3 -c "import os; os.unlink('.bashrc'); open('.bashrc', 'w').write('evil')"`,
      `python3 -c "import os; os.rename('evil.json', '.gitmodules')"`,
      "rm -f .bashrc; ln -s /dev/null .bashrc; echo evil >> .bashrc",
    ];
    for (const command of attempts) await bash(session, { command });
    for (const name of PROTECTED) expect(untouched(path.join(cwd, name)), name).toBe(true);
    expect(fs.existsSync(path.join(cwd, "t2"))).toBe(false);
    expect(fs.readFileSync(path.join(cwd, "evil.json"), "utf8")).toBe('{"mcpServers":{}}\n');
    // the runtime removes mount points once no sandbox of the process holds any
    await session.context.tasks.get(id)!.stop();
  });

  it("deleted or replaced from the host, it is covered again before the next command can write there", async () => {
    const { session, cwd, id } = await holding();
    const task = session.context.tasks.get(id)!;
    fs.rmSync(path.join(cwd, ".mcp.json"), { force: true });
    fs.writeFileSync(path.join(cwd, "replacement"), "");
    fs.renameSync(path.join(cwd, "replacement"), path.join(cwd, ".bashrc"));
    const wrote = await bash(session, { command: "echo '{\"evil\":1}' > .mcp.json; echo evil >> .bashrc; cat .mcp.json .bashrc" });
    expect(wrote.text).not.toContain("evil");
    expect(untouched(path.join(cwd, ".mcp.json"))).toBe(true);
    expect(fs.readFileSync(path.join(cwd, ".bashrc"), "utf8")).toBe("");
    if (persistentMode) {
      // the sandbox that lost its mounts ended itself, and the task in it with it
      expect(await task.waitForCompletion(30_000)).toBe(true);
      expect(task.status()).toBe("failed");
      expect(task.statusDetail?.()).toContain("lost its mount");
    } else await task.stop();
  });

  it("a write-scope sandbox leaves no mount points in the project once nothing runs in it", async () => {
    const { session, cwd, id } = await holding();
    if (persistentMode) expect(fs.existsSync(path.join(cwd, ".mcp.json"))).toBe(true);
    await session.context.tasks.get(id)!.stop();
    await bash(session, { command: "echo done > done.txt" });
    expect(fs.readFileSync(path.join(cwd, "done.txt"), "utf8")).toBe("done\n");
    for (const name of PROTECTED) expect(fs.existsSync(path.join(cwd, name)), name).toBe(false);
  });
});
