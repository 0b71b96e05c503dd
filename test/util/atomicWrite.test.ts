import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { resolveWriteTarget, staleTempFiles, writeFileAtomicSync } from "../../src/util/atomicWrite.js";
import { tempDir } from "../helpers.js";

const CHILD = fileURLToPath(new URL("./atomicWriteChild.ts", import.meta.url));
const NEW_SIZE = 200 * 1024 * 1024;
const OLD_SIZE = 4 * 1024 * 1024;

const tempFilesIn = (dir: string) => fs.readdirSync(dir).filter((n) => n.includes(".toolgate-"));

/** Every byte of the file is `fill`, and it has `size` bytes. */
function isUniform(file: string, size: number, fill: string): boolean {
  const data = fs.readFileSync(file);
  if (data.length !== size) return false;
  const other = Buffer.alloc(1, fill)[0] === 0x41 ? 0x42 : 0x41;
  return data.indexOf(other) === -1;
}

/** Run the child; when `killWhenTempReaches` is set, SIGKILL it once its temp file has that many bytes. */
function runChild(target: string, killWhenTempReaches?: number): Promise<{ killed: boolean; tempSizeAtKill?: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, target, String(NEW_SIZE), "B"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    let tempSizeAtKill: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on("data", (d: Buffer) => {
      if (!d.toString().includes("ready") || killWhenTempReaches === undefined) return;
      const dir = path.dirname(target);
      timer = setInterval(() => {
        for (const name of tempFilesIn(dir)) {
          let size = 0;
          try {
            size = fs.statSync(path.join(dir, name)).size;
          } catch {
            continue;
          }
          if (size >= killWhenTempReaches && size < NEW_SIZE) {
            tempSizeAtKill = size;
            child.kill("SIGKILL");
            clearInterval(timer);
          }
        }
      }, 1);
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearInterval(timer);
      if (signal === "SIGKILL") resolve({ killed: true, tempSizeAtKill });
      else if (code === 0) resolve({ killed: false });
      else reject(new Error(`child failed (${code}): ${stderr}`));
    });
  });
}

describe("writeFileAtomicSync", () => {
  it("leaves the old or the new file, never a torn one, when the writer is killed with SIGKILL mid-write (200 MB)", async () => {
    const dir = tempDir("toolgate-atomic-");
    const target = path.join(dir, "data.bin");
    fs.writeFileSync(target, Buffer.alloc(OLD_SIZE, "A"));

    let caught: { killed: boolean; tempSizeAtKill?: number } = { killed: false };
    for (let attempt = 0; attempt < 3 && !caught.killed; attempt++) {
      caught = await runChild(target, 16 * 1024 * 1024);
      if (!caught.killed) fs.writeFileSync(target, Buffer.alloc(OLD_SIZE, "A"));
    }
    expect(caught.killed).toBe(true);
    expect(caught.tempSizeAtKill).toBeGreaterThan(0);
    expect(caught.tempSizeAtKill).toBeLessThan(NEW_SIZE);
    // Killed before the rename: the target is entirely the old content; the partial temp file is separate.
    expect(isUniform(target, OLD_SIZE, "A")).toBe(true);
    const leftovers = tempFilesIn(dir);
    expect(leftovers).toHaveLength(1);
    expect(leftovers[0]).not.toBe("data.bin");
    expect(staleTempFiles(target)).toEqual([path.join(dir, leftovers[0])]);

    // The next write removes the dead writer's temp file.
    writeFileAtomicSync(target, "fresh");
    expect(tempFilesIn(dir)).toEqual([]);
    expect(fs.readFileSync(target, "utf8")).toBe("fresh");

    // Uninterrupted, the child leaves exactly the new content and no temp file.
    expect((await runChild(target)).killed).toBe(false);
    expect(isUniform(target, NEW_SIZE, "B")).toBe(true);
    expect(tempFilesIn(dir)).toEqual([]);
  }, 30_000);

  it("keeps the permission bits of an existing file and uses 0666 minus umask for new files", () => {
    const dir = tempDir();
    const exe = path.join(dir, "run.sh");
    fs.writeFileSync(exe, "old");
    fs.chmodSync(exe, 0o750);
    writeFileAtomicSync(exe, "new");
    expect(fs.statSync(exe).mode & 0o7777).toBe(0o750);
    const fresh = path.join(dir, "fresh.txt");
    writeFileAtomicSync(fresh, "x");
    expect(fs.statSync(fresh).mode & 0o777).toBe(0o666 & ~process.umask());
  });

  it("writes through symlinks, chains of them and dangling ones, keeping the links", () => {
    const dir = tempDir();
    const real = path.join(dir, "real.txt");
    fs.writeFileSync(real, "old");
    fs.symlinkSync("real.txt", path.join(dir, "hop1"));
    fs.symlinkSync(path.join(dir, "hop1"), path.join(dir, "hop2"));
    const { target } = writeFileAtomicSync(path.join(dir, "hop2"), "new");
    expect(target).toBe(real);
    expect(fs.readFileSync(real, "utf8")).toBe("new");
    expect(fs.lstatSync(path.join(dir, "hop2")).isSymbolicLink()).toBe(true);

    fs.symlinkSync("not-yet.txt", path.join(dir, "dangling"));
    writeFileAtomicSync(path.join(dir, "dangling"), "created");
    expect(fs.readFileSync(path.join(dir, "not-yet.txt"), "utf8")).toBe("created");
    expect(fs.lstatSync(path.join(dir, "dangling")).isSymbolicLink()).toBe(true);
  });

  it("resolves a target inside a symlinked directory to the real directory", () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, "realdir"));
    fs.symlinkSync(path.join(dir, "realdir"), path.join(dir, "linkdir"));
    expect(resolveWriteTarget(path.join(dir, "linkdir", "f.txt"))).toBe(path.join(dir, "realdir", "f.txt"));
  });

  it("refuses to replace a directory and leaves no temp file when writing fails", () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, "sub"));
    expect(() => writeFileAtomicSync(path.join(dir, "sub"), "x")).toThrow(/not a regular file/);
    expect(() => writeFileAtomicSync(path.join(dir, "missing-dir", "f.txt"), "x")).toThrow();
    expect(tempFilesIn(dir)).toEqual([]);
  });
});
