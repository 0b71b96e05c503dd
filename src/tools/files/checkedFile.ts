import fs from "node:fs";
import path from "node:path";
import type { ToolUseContext } from "../../core/Tool.js";
import type { CheckedPath } from "../../core/permissionTypes.js";
import { resolveRealPath } from "../../permissions/index.js";
import { resolvePhysicalPath } from "../../util/physicalPath.js";
import { descriptorPath, identityAt, openVerifiedDirectory, PathChangedError, verifyDescriptor, type VerifiedDirectory } from "../../util/verifiedPath.js";
import { FileToolError } from "./errors.js";
import { statIfExists } from "../../util/statIfExists.js";

/**
 * Check and use are the same file. The permission check judges a path's real path (checkPathOnDisk); the
 * call gets that judgment with its permission decision and opens exactly that file, failing closed when a
 * symlink or directory on the way was swapped in between.
 */

/** `absPath` resolved as the permission check judges it, with the identity of the file there now. */
export function checkPathOnDisk(absPath: string): CheckedPath {
  const realPath = resolveRealPath(absPath);
  const identity = identityAt(realPath);
  return identity === undefined ? { path: absPath, realPath } : { path: absPath, realPath, identity };
}

/**
 * The resolution this call's permission check judged. A call that had none (run without the pipeline, or
 * whose input the permission step replaced) resolves the path now: its use is then consistent with itself,
 * and the tool checks the deny rules on what it opened.
 */
export function checkedPathFor(context: ToolUseContext, absPath: string): { checked: CheckedPath; judged: boolean } {
  const checked = context.permissionDecision?.checkedPath;
  if (checked?.path === absPath) return { checked, judged: true };
  // The check judged another path (the cwd moved since): this one was never judged.
  if (checked) throw fileChangedError(absPath, "done");
  return { checked: checkPathOnDisk(absPath), judged: false };
}

/** The model's error when the file changed between the permission check and its use. */
export function fileChangedError(shownPath: string, nothing: "read" | "written" | "done"): FileToolError {
  return new FileToolError(
    `${shownPath} changed during the operation: it no longer leads to the file the permission check approved (a symlink or a directory on its path was replaced in the meantime), so nothing was ${nothing}. ` +
      `Check where the path leads now (e.g. ls -l), then retry if it is the file you meant.`,
    "file:changed_during_operation",
  );
}

/** Runs `open`, turning a PathChangedError into the model's "changed during the operation" error. */
export function failClosed<T>(shownPath: string, nothing: "read" | "written", open: () => T): T {
  try {
    return open();
  } catch (err) {
    if (err instanceof PathChangedError) throw fileChangedError(shownPath, nothing);
    throw err;
  }
}

/** A file as a writer's checks see it: by its path (validation), or through the descriptor its critical section verified. */
export interface FileOnDisk {
  /** A path that reaches this same file (for access(2) and copying it); also when it does not exist. */
  readonly path: string;
  /** The real path the permission check judged, for a verified target; undefined: the path is resolved when judged. */
  readonly realPath?: string;
  /** Its stat now, or undefined when nothing is there. */
  stat(): fs.Stats | undefined;
  /** Its whole content, with the stat it was read at. */
  read(): { raw: Buffer; stat: fs.Stats };
}

/** The file at `absPath`, looked up anew on each access (what validation, before the permission check, sees). */
export function fileAtPath(absPath: string): FileOnDisk {
  return {
    path: absPath,
    stat: () => statIfExists(absPath),
    read() {
      const fd = fs.openSync(absPath, "r");
      try {
        return { stat: fs.fstatSync(fd), raw: fs.readFileSync(fd) };
      } finally {
        fs.closeSync(fd);
      }
    },
  };
}

/** Every byte of `fd` from its start, with positioned reads into one buffer sized by its stat (the descriptor's own offset does not matter). */
function readFromStart(fd: number): Buffer {
  // One byte more than the size, so the end is seen without a second buffer; grown only if the file grew.
  let buffer = Buffer.allocUnsafe(fs.fstatSync(fd).size + 1);
  let filled = 0;
  for (;;) {
    if (filled === buffer.length) {
      const bigger = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(bigger, 0, 0, filled);
      buffer = bigger;
    }
    const n = fs.readSync(fd, buffer, filled, Math.min(buffer.length - filled, 1024 ** 3), filled);
    if (n === 0) break;
    filled += n;
  }
  return buffer.subarray(0, filled);
}

/** A writer's target, opened and verified at the start of its critical section. */
export interface WriteTarget {
  /** The real path that was checked, which the write replaces. */
  readonly realPath: string;
  /** The file there now, read through the verified descriptor (absent: stat() is undefined). */
  readonly file: FileOnDisk;
  /** Its directory, verified; undefined when it does not exist yet. */
  readonly dir: VerifiedDirectory | undefined;
  /** Whether the permission check of this call judged this very path (else it was resolved at use). */
  readonly judged: boolean;
  close(): void;
}

const absent = (entryPath: string, realPath: string): FileOnDisk => ({
  path: entryPath,
  realPath,
  stat: () => undefined,
  read: () => {
    throw Object.assign(new Error(`ENOENT: no such file or directory, open '${entryPath}'`), { code: "ENOENT" });
  },
});

function openEntry(dir: VerifiedDirectory, checked: CheckedPath): { fd?: number; file: FileOnDisk } {
  const entry = dir.entry(path.basename(checked.realPath));
  let fd: number;
  try {
    fd = fs.openSync(entry, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { file: absent(entry, checked.realPath) };
    // A symlink where the real path has none was put there after the check (unless the path is a loop).
    if (code === "ELOOP") throw resolvePhysicalPath(checked.realPath).loop ? err : new PathChangedError(checked.realPath);
    if (code !== "EACCES") throw err;
    // Not readable (a write-only file): judged by its identity, without a descriptor, and never followed.
    const identity = identityAt(entry);
    if (checked.identity !== undefined && identity !== checked.identity) throw new PathChangedError(checked.realPath);
    const stat = () => fs.lstatSync(entry, { throwIfNoEntry: false });
    return {
      file: {
        path: entry,
        realPath: checked.realPath,
        stat,
        read: () => {
          throw err;
        },
      },
    };
  }
  try {
    verifyDescriptor(fd, checked.realPath, checked.identity);
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
  return {
    fd,
    file: {
      path: descriptorPath(fd, checked.realPath),
      realPath: checked.realPath,
      stat: () => fs.fstatSync(fd),
      read: () => ({ stat: fs.fstatSync(fd), raw: readFromStart(fd) }),
    },
  };
}

/**
 * Open what a write to `absPath` replaces: the checked real path's directory, verified, and the file in it
 * (if any) through that directory, verified to be the checked file. A swap since the check fails closed
 * with the model's "changed during the operation" error; nothing has been written then.
 */
export function openWriteTarget(absPath: string, context: ToolUseContext): WriteTarget {
  const { checked, judged } = checkedPathFor(context, absPath);
  return failClosed(absPath, "written", () => {
    let dir: VerifiedDirectory | undefined;
    try {
      dir = openVerifiedDirectory(path.dirname(checked.realPath));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") throw err;
      return { realPath: checked.realPath, file: absent(checked.realPath, checked.realPath), dir: undefined, judged, close: () => undefined };
    }
    const opened = dir;
    try {
      const { fd, file } = openEntry(opened, checked);
      return {
        realPath: checked.realPath,
        file,
        dir: opened,
        judged,
        close() {
          if (fd !== undefined) fs.closeSync(fd);
          opened.close();
        },
      };
    } catch (err) {
      opened.close();
      throw err;
    }
  });
}
