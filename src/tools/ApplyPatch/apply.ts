/**
 * Writing a planned patch, all or nothing, synchronously (no other tool code runs in between): each file is
 * checkpointed and written atomically in patch order; if any write fails, every file already changed is put
 * back from the bytes the plan was made from (files the patch created are removed, with the directories made
 * for them), so the patch leaves either every file changed or none.
 */
import fs from "node:fs";
import path from "node:path";
import type { ToolUseContext } from "../../core/Tool.js";
import type { AssistantMessage } from "../../core/messages.js";
import type { FileState } from "../../core/fileStateCache.js";
import { checkpointMessageId, commitFileWrite } from "../files/commit.js";
import { FileToolError } from "../files/errors.js";
import { resolveWriteTarget, writeFileAtomicSync } from "../../util/atomicWrite.js";
import type { PlannedOperation } from "./plan.js";

/** What puts one path back as it was. */
interface Restore {
  target: string;
  /** The bytes before the patch; null: the path did not exist. */
  before: Buffer | null;
  mode?: number;
  /** Directories created for the file, outermost first. */
  createdDirs: string[];
  /** readFileState entries before the patch, by key. */
  states: Array<[string, FileState | undefined]>;
}

/** The directories `mkdir -p dir` would create, outermost first. */
function missingDirectories(dir: string): string[] {
  const missing: string[] = [];
  for (let d = dir; !fs.existsSync(d); d = path.dirname(d)) {
    missing.unshift(d);
    if (path.dirname(d) === d) break;
  }
  return missing;
}

function modeOf(target: string): number | undefined {
  try {
    return fs.statSync(target).mode & 0o7777;
  } catch {
    return undefined;
  }
}

function restoreOne(r: Restore, context: ToolUseContext): void {
  if (r.before === null) {
    try {
      fs.rmSync(r.target, { force: true });
    } catch (err) {
      // A path under a file (the reason the write failed) holds nothing to remove.
      if ((err as NodeJS.ErrnoException).code !== "ENOTDIR") throw err;
    }
    for (const dir of [...r.createdDirs].reverse()) {
      try {
        fs.rmdirSync(dir);
      } catch {
        break; // not empty (someone else's file) or already gone: leave it
      }
    }
  } else {
    writeFileAtomicSync(r.target, r.before);
    if (r.mode !== undefined) fs.chmodSync(r.target, r.mode);
  }
  for (const [key, state] of r.states) {
    if (state) context.readFileState.set(key, state);
    else context.readFileState.delete(key);
  }
}

export function applyPlannedPatch(operations: readonly PlannedOperation[], context: ToolUseContext, parentMessage: AssistantMessage): void {
  const restores: Restore[] = [];
  const messageId = checkpointMessageId(parentMessage, context);
  const remember = (absPath: string, before: Buffer | null, createdDirs: string[] = []): string => {
    const target = resolveWriteTarget(absPath);
    const states: Restore["states"] = [absPath, target].map((key) => [key, context.readFileState.get(key)]);
    restores.push({ target, before, mode: before ? modeOf(target) : undefined, createdDirs, states });
    return target;
  };
  const remove = (absPath: string, before: Buffer) => {
    const target = remember(absPath, before);
    context.fileHistory.checkpoint(target, messageId);
    fs.rmSync(target);
    context.readFileState.delete(absPath);
    context.readFileState.delete(target);
  };
  const write = (absPath: string, bytes: Buffer, text: string | undefined, before: Buffer | null, coversWholeFile: boolean) => {
    const createdDirs = before === null ? missingDirectories(path.dirname(resolveWriteTarget(absPath))) : [];
    remember(absPath, before, createdDirs);
    commitFileWrite({ context, parentMessage, absPath, bytes, text, createParents: before === null, coversWholeFile });
  };

  let current: PlannedOperation | undefined;
  try {
    for (const op of operations) {
      current = op;
      if (op.kind === "delete") {
        remove(op.absPath, op.raw);
      } else if (op.kind === "add") {
        write(op.edit.absPath, op.edit.newBytes, op.edit.newText, op.edit.creates ? null : (op.edit.raw ?? Buffer.alloc(0)), true);
      } else if (op.moveTo) {
        write(op.moveTo.absPath, op.edit.newBytes, op.edit.newText, null, op.edit.state?.coversWholeFile ?? false);
        remove(op.edit.absPath, op.edit.raw!);
      } else {
        write(op.edit.absPath, op.edit.newBytes, op.edit.newText, op.edit.raw!, op.edit.state?.coversWholeFile ?? false);
      }
    }
  } catch (err) {
    const failures: string[] = [];
    for (const r of restores.reverse()) {
      try {
        restoreOne(r, context);
      } catch (restoreErr) {
        failures.push(`${r.target}: ${(restoreErr as Error).message}`);
      }
    }
    const what = current ? `${current.kind} ${current.kind === "update" && current.moveTo ? `${current.path} → ${current.moveTo.path}` : current.path}` : "the patch";
    const outcome = failures.length
      ? ` Restoring the files already changed failed for: ${failures.join("; ")}. Their earlier content is checkpointed and can be restored by rewinding.`
      : " Every file the patch had already changed was restored, so no file is changed.";
    throw new FileToolError(`Writing failed at ${what}: ${(err as Error).message}.${outcome} Fix the cause and send the whole patch again.`, "apply_patch:write_failed");
  }
}
