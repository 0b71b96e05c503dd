import type { PermissionDecision } from "../permissionTypes.js";

/**
 * Where one call stands. `queued` is set by the executor when the block arrives; a bare `runToolUse` starts at
 * `validating`. Every call ends in exactly one `done`.
 */
export type ToolCallStatus = "queued" | "validating" | "awaiting_permission" | "running" | "done";

export type ToolUseOutcome = "success" | "tool_error" | "invalid_input" | "denied" | "cancelled" | "unknown_tool" | "runtime_error";

export interface ToolStatusUpdate {
  type: "status";
  toolUseID: string;
  /** The name the model used (the tool may not exist). */
  toolName: string;
  status: ToolCallStatus;
  /** Milliseconds since the epoch, when the call entered this status. */
  at: number;
  /** awaiting_permission: the verdict that asks, with its reason and suggested rules. */
  decision?: PermissionDecision;
  /** awaiting_permission: the sentence to show the user. */
  explanation?: string;
  /** done: how the call ended. */
  outcome?: ToolUseOutcome;
  /** done: from the start of validation to the result. */
  durationMs?: number;
}

export type ToolStatusListener = (update: ToolStatusUpdate) => void;

/**
 * The session's view of every call's status: listeners (the UI, stream-json output, library users) see each
 * change as it happens, and the in-progress set is derived from the same events, so the two cannot disagree.
 */
export interface ToolStatusBoard {
  emit(update: ToolStatusUpdate): void;
  /** Returns an unsubscribe function. A listener that throws is dropped from that event, never from the call. */
  subscribe(listener: ToolStatusListener): () => void;
  /** Calls that were queued or started and are not done yet. */
  inProgress(): ReadonlySet<string>;
  /** The latest status of a call this board has seen. */
  get(toolUseID: string): ToolStatusUpdate | undefined;
}

/** How many finished calls the board remembers for `get`; in-progress calls are always kept. */
const FINISHED_CALLS_KEPT = 1_000;

export function createToolStatusBoard(): ToolStatusBoard {
  const listeners = new Set<ToolStatusListener>();
  const latest = new Map<string, ToolStatusUpdate>();
  const running = new Set<string>();
  let finished: string[] = [];

  const forget = () => {
    if (finished.length <= FINISHED_CALLS_KEPT * 2) return;
    const drop = finished.slice(0, finished.length - FINISHED_CALLS_KEPT);
    finished = finished.slice(-FINISHED_CALLS_KEPT);
    for (const id of drop) if (!running.has(id)) latest.delete(id);
  };

  return {
    emit(update) {
      latest.set(update.toolUseID, update);
      if (update.status === "done") {
        running.delete(update.toolUseID);
        finished.push(update.toolUseID);
        forget();
      } else {
        running.add(update.toolUseID);
      }
      if (listeners.size === 0) return;
      for (const listener of [...listeners]) {
        try {
          listener(update);
        } catch {
          // A faulty observer must not change what happens to the call.
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    inProgress: () => new Set(running),
    get: (toolUseID) => latest.get(toolUseID),
  };
}
