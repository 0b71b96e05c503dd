/**
 * What undo_edit restores: for each file, the bytes before each write this tool made (null: the file did not
 * exist), newest last, with a hash of what that write left behind so an undo never discards a change made
 * since by anyone else. Kept per session (keyed by its file history, which subagents share).
 */
import type { FileHistory } from "../../core/fileHistory.js";

/** Steps kept per file; older ones are dropped. */
const MAX_STEPS_PER_FILE = 20;
/** Files larger than this are not kept for undo (the memory would outweigh the convenience). */
export const MAX_UNDO_FILE_BYTES = 16 * 1024 * 1024;

export interface UndoStep {
  before: Buffer | null;
  afterHash: string;
}

const logs = new WeakMap<FileHistory, Map<string, UndoStep[]>>();

function logOf(history: FileHistory): Map<string, UndoStep[]> {
  let log = logs.get(history);
  if (!log) {
    log = new Map();
    logs.set(history, log);
  }
  return log;
}

/** Remember a write to `target` (a real path). A file too large to keep clears its steps: older ones no longer chain. */
export function recordUndoStep(history: FileHistory, target: string, step: UndoStep): void {
  const log = logOf(history);
  if (step.before && step.before.length > MAX_UNDO_FILE_BYTES) {
    log.delete(target);
    return;
  }
  const steps = log.get(target) ?? [];
  steps.push(step);
  if (steps.length > MAX_STEPS_PER_FILE) steps.shift();
  log.set(target, steps);
}

export function lastUndoStep(history: FileHistory, target: string): UndoStep | undefined {
  return logOf(history).get(target)?.at(-1);
}

export function dropLastUndoStep(history: FileHistory, target: string): void {
  const steps = logOf(history).get(target);
  steps?.pop();
  if (steps && steps.length === 0) logOf(history).delete(target);
}
