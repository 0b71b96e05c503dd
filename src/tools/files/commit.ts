import fs from "node:fs";
import path from "node:path";
import type { ToolUseContext } from "../../core/Tool.js";
import type { AssistantMessage } from "../../core/messages.js";
import { hashContent, type FileState } from "../../core/fileStateCache.js";
import { writeFileAtomicInto } from "../../util/atomicWrite.js";
import { makeVerifiedDirectory, openVerifiedDirectory } from "../../util/verifiedPath.js";
import { failClosed, openWriteTarget, type WriteTarget } from "./checkedFile.js";
import { recordFileState } from "./fileState.js";

/** Checkpoints are keyed by the assistant message that asked for the change; a message without an id falls back to the tool_use id. */
export function checkpointMessageId(parentMessage: AssistantMessage, context: ToolUseContext): string {
  return parentMessage.id ?? context.toolUseID ?? "unknown-message";
}

export interface CommitOptions {
  context: ToolUseContext;
  parentMessage: AssistantMessage;
  /** The path the model named, resolved to absolute (symlinks are followed here). */
  absPath: string;
  /** The target the critical section opened and verified (openWriteTarget); without one it is opened here. */
  target?: WriteTarget;
  bytes: Buffer;
  /** The decoded new content, remembered in readFileState (absent for byte-mode edits of huge files). */
  text?: string;
  createParents?: boolean;
  /** Whether the model now knows every line: true after Write or a creation, else what its last read covered. */
  coversWholeFile: boolean;
}

/**
 * The end of every writer's critical section, all synchronous: create parent directories, checkpoint the
 * file's current state for rewind, write atomically, record the new state as read. Everything happens in
 * the verified target: the directories are made through their verified parents, the checkpoint reads the
 * verified file, and the temp file and rename go through the verified directory.
 */
export function commitFileWrite(options: CommitOptions): { target: string; state: FileState } {
  const { context, absPath } = options;
  const target = options.target ?? openWriteTarget(absPath, context);
  try {
    return commitInto(target, options);
  } finally {
    if (!options.target) target.close();
  }
}

function commitInto(target: WriteTarget, { context, parentMessage, absPath, bytes, text, createParents, coversWholeFile }: CommitOptions): { target: string; state: FileState } {
  const { realPath } = target;
  const dir =
    target.dir ?? failClosed(absPath, "written", () => (createParents ? makeVerifiedDirectory : openVerifiedDirectory)(path.dirname(realPath)));
  try {
    const existing = target.file.stat();
    context.fileHistory.checkpoint(realPath, checkpointMessageId(parentMessage, context), existing ? target.file.path : null);
    const { stat } = writeFileAtomicInto(dir, path.basename(realPath), bytes, existing);
    const state: FileState = {
      contentHash: hashContent(bytes),
      content: text,
      mtimeMs: stat.mtimeMs,
      size: stat.size,
      timestamp: Date.now(),
      coversWholeFile,
    };
    recordFileState(context, absPath, state, realPath);
    return { target: realPath, state };
  } finally {
    if (!target.dir) dir.close();
  }
}

/**
 * Why an existing file must not be replaced, or undefined. Judged on its permission bits too: root may
 * write anything, but a file marked read-only was marked so for a reason.
 */
export function readOnlyReason(target: string, stat: fs.Stats): string | undefined {
  const mode = (stat.mode & 0o7777).toString(8).padStart(4, "0");
  if ((stat.mode & 0o222) === 0) {
    return `it is read-only (mode ${mode}); if it really should change, make it writable first (chmod u+w) and retry`;
  }
  try {
    fs.accessSync(target, fs.constants.W_OK);
  } catch {
    return `this process may not write it (mode ${mode}, owner uid ${stat.uid})`;
  }
  return undefined;
}
