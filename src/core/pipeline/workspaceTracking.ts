/**
 * The snapshot around a call whose tool declares it may write anywhere in the working directories
 * (`writesAnywhere`): the files are snapshotted before the call, and what it changed is checkpointed under
 * the assistant message that asked for it, the way the file tools checkpoint their writes, so rewind and
 * `toolgate diff` cover it. What could not be covered is told to the model with the result.
 */
import fs from "node:fs";
import path from "node:path";
import type { ToolUseContext } from "../Tool.js";
import type { ResolvedCall } from "./state.js";

function workingDirectories(context: ToolUseContext): string[] {
  const permissions = context.getAppState().toolPermissionContext;
  return [permissions.cwd, ...permissions.additionalWorkingDirectories.map((dir) => dir.path)];
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export interface WorkspaceTracking {
  /** Settles once the files were snapshotted (or could not be, which the result then says); never rejects. */
  ready: Promise<void>;
  /** Run once the call settled: checkpoints what it changed. Never rejects. */
  finish(): Promise<void>;
}

/** Snapshot before the call; `finish`, run once the call settled, checkpoints what it changed. */
export function trackWorkspaceWrites(call: ResolvedCall): WorkspaceTracking | undefined {
  const snapshots = call.context.workspaceSnapshots;
  if (!snapshots || !call.tool.writesAnywhere?.(call.input)) return undefined;
  const roots = workingDirectories(call.context);
  let snapshotted = false;
  const ready = snapshots.snapshot(roots).then(
    () => {
      snapshotted = true;
    },
    (err: unknown) => {
      call.additionalContext.push(`The working directories could not be snapshotted before this call (${reason(err)}), so rewind cannot undo what it changed.`);
    },
  );
  const finish = async () => {
    await ready;
    if (!snapshotted) return;
    const history = call.context.fileHistory;
    const messageId = call.assistantMessage.id ?? call.toolUseID;
    try {
      const { changed, uncovered } = await snapshots.changesSince(roots);
      for (const { filePath, before } of changed) history.checkpointSaved(filePath, messageId, before);
      for (const { filePath, reason: why } of uncovered) history.markUncovered(filePath, messageId, why);
      if (uncovered.length) {
        // Snapshot paths are real paths.
        const cwd = fs.realpathSync(call.context.getAppState().toolPermissionContext.cwd);
        const shown = (file: string) => (file.startsWith(`${cwd}/`) ? path.relative(cwd, file) : file);
        const list = uncovered.map((u) => `${shown(u.filePath)} (${u.reason})`).join("; ");
        call.additionalContext.push(`Changed but not covered by checkpoints, so rewind cannot restore them: ${list}.`);
      }
    } catch (err) {
      call.additionalContext.push(`What this call changed could not be checkpointed (${reason(err)}), so rewind may not undo all of it.`);
    }
  };
  return { ready, finish };
}

const prewarmed = new WeakSet<object>();

/**
 * Start the session's first walk now, in the background, so its first writing call does not wait for every
 * file to be read (the interactive UI calls this when the first prompt is sent, while the model thinks). Only
 * when a tool that may write anywhere is offered; a failure is left for that call to report. Never rejects.
 */
export function prewarmWorkspaceSnapshots(context: ToolUseContext): void {
  const snapshots = context.workspaceSnapshots;
  if (!snapshots || snapshots.lastPass || prewarmed.has(snapshots) || !context.options.tools.some((tool) => tool.writesAnywhere)) return;
  prewarmed.add(snapshots);
  snapshots.snapshot(workingDirectories(context)).catch(() => undefined);
}
