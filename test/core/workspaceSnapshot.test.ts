/** The workspace snapshots on real files: what counts as changed, what is ignored, what is not kept. */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createWorkspaceSnapshots as create, DEFAULT_SNAPSHOT_LIMITS, WorkspaceTooLargeError, type WorkspaceSnapshotLimits } from "../../src/core/workspaceSnapshot.js";
import { tempDir } from "../helpers.js";

function tree(files: Record<string, string | Buffer>): string {
  const dir = fs.realpathSync(tempDir("toolgate-snapshot-"));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

const changedNames = (dir: string, changes: { changed: Array<{ filePath: string }> }) => changes.changed.map((c) => path.relative(dir, c.filePath)).sort();

describe.each([
  ["walking the tree every pass", false],
  ["with change notices", true],
])("workspace snapshots, %s", (_mode, watch) => {
  const open: Array<{ close(): void }> = [];
  afterEach(() => {
    for (const snapshots of open.splice(0)) snapshots.close();
  });
  const createWorkspaceSnapshots = (store: string, excluded: string[] = [], limits: WorkspaceSnapshotLimits = DEFAULT_SNAPSHOT_LIMITS) => {
    const snapshots = create(store, excluded, limits, { watch });
    open.push(snapshots);
    return snapshots;
  };

  it("sees a same-size rewrite made right after the snapshot (timestamps that close are not trusted)", async () => {
    const dir = tree({ "a.txt": "aaaa" });
    const snapshots = createWorkspaceSnapshots(path.join(tempDir(), "store"));
    await snapshots.snapshot([dir]);
    const before = fs.statSync(path.join(dir, "a.txt"));
    fs.writeFileSync(path.join(dir, "a.txt"), "bbbb");
    fs.utimesSync(path.join(dir, "a.txt"), before.atime, before.mtime);
    const changes = (await snapshots.changesSince([dir]));
    expect(changedNames(dir, changes)).toEqual(["a.txt"]);
    expect(fs.readFileSync(changes.changed[0].before!.blobPath, "utf8")).toBe("aaaa");
    expect((await snapshots.changesSince([dir])).changed).toEqual([]);
  });

  it("honours nested .gitignore files and their negations, .git/info/exclude, and never enters node_modules or excluded folders", async () => {
    const dir = tree({
      ".gitignore": "*.log\nbuild/\n",
      "sub/.gitignore": "!keep.log\n",
      ".git/info/exclude": "local.txt\n",
      "x.txt": "x",
    });
    const home = path.join(dir, ".home");
    const snapshots = createWorkspaceSnapshots(path.join(home, "store"), [home]);
    await snapshots.snapshot([dir]);
    for (const name of ["a.log", "sub/keep.log", "sub/other.log", "build/out.js", "local.txt", "node_modules/m/i.js", ".home/h.txt", ".git/HEAD", "new.txt"]) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), "n");
    }
    expect(changedNames(dir, (await snapshots.changesSince([dir])))).toEqual(["new.txt", "sub/keep.log"]);
  });

  it("keeps files up to the limits; larger ones and large binaries are reported as not covered", async () => {
    const dir = tree({ "big.txt": "t".repeat(300), "bin.dat": Buffer.alloc(200), "small.dat": Buffer.alloc(50) });
    const snapshots = createWorkspaceSnapshots(path.join(tempDir(), "store"), [], { ...DEFAULT_SNAPSHOT_LIMITS, maxFileBytes: 250, maxBinaryBytes: 100 });
    await snapshots.snapshot([dir]);
    for (const name of ["big.txt", "bin.dat", "small.dat"]) fs.appendFileSync(path.join(dir, name), "more");
    const changes = (await snapshots.changesSince([dir]));
    expect(changedNames(dir, changes)).toEqual(["small.dat"]);
    expect(changes.uncovered.map((u) => [path.relative(dir, u.filePath), u.reason])).toEqual([
      ["big.txt", "larger than 250 bytes (300 bytes)"],
      ["bin.dat", "a binary file larger than 100 bytes (200 bytes)"],
    ]);
  });

  it("a working directory with more files than the limit is not tracked, and every later call says so without walking", async () => {
    const dir = tree({ "a.txt": "a", "b.txt": "b", "c.txt": "c", "ignored/x.txt": "x", ".gitignore": "ignored/\n" });
    const store = path.join(tempDir(), "store");
    const snapshots = createWorkspaceSnapshots(store, [], { ...DEFAULT_SNAPSHOT_LIMITS, maxFiles: 3 });
    await expect(snapshots.snapshot([dir])).rejects.toThrow(WorkspaceTooLargeError);
    await expect(snapshots.snapshot([dir])).rejects.toThrow(/not tracked in this session: the working directories hold more than 3 files/);
    fs.rmSync(path.join(dir, "c.txt"));
    // the verdict holds for the session, even once the tree shrank
    await expect(snapshots.changesSince([dir])).rejects.toThrow(WorkspaceTooLargeError);
    // ignored files do not count: four files, one ignored, and .gitignore itself
    const fits = createWorkspaceSnapshots(path.join(tempDir(), "store"), [], { ...DEFAULT_SNAPSHOT_LIMITS, maxFiles: 3 });
    await expect(fits.snapshot([dir])).resolves.toBeUndefined();
  });

  it("stops keeping copies once they would pass the byte budget", async () => {
    const dir = tree({ "a.txt": "a".repeat(60), "b.txt": "b".repeat(60) });
    const snapshots = createWorkspaceSnapshots(path.join(tempDir(), "store"), [], { ...DEFAULT_SNAPSHOT_LIMITS, maxStoredBytes: 100 });
    await expect(snapshots.snapshot([dir])).rejects.toThrow(/copies kept would pass 100 bytes/);
  });
});
