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
  /** awaiting_permission: the verdict that asks, with its reason and suggested rules; running: the allow that let it run. */
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
  // One map for both questions: a call is in progress while its latest status is not `done`. A separate set
  // of running ids cost an allocation per call (V8 shrinks a Set's table each time it empties).
  const latest = new Map<string, ToolStatusUpdate>();
  // The last finished calls, oldest overwritten first, so remembering one costs no copying.
  const finished: string[] = [];
  let nextSlot = 0;

  const rememberFinished = (toolUseID: string) => {
    const evicted = finished[nextSlot];
    finished[nextSlot] = toolUseID;
    nextSlot = (nextSlot + 1) % FINISHED_CALLS_KEPT;
    if (evicted !== undefined && evicted !== toolUseID && latest.get(evicted)?.status === "done") latest.delete(evicted);
  };

  return {
    emit(update) {
      latest.set(update.toolUseID, update);
      if (update.status === "done") rememberFinished(update.toolUseID);
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
    inProgress: () => {
      const running = new Set<string>();
      for (const [toolUseID, update] of latest) if (update.status !== "done") running.add(toolUseID);
      return running;
    },
    get: (toolUseID) => latest.get(toolUseID),
  };
}
