/** The writer tools' side of FileWriteObserver: every observer is asked, none can fail or stall a write. */
import type { ToolUseContext } from "../../core/Tool.js";

function settle<T>(run: () => Promise<T> | undefined): Promise<T | undefined> {
  return Promise.resolve()
    .then(run)
    .catch(() => undefined);
}

/** Before a write: let observers take their baseline. An observer's failure never blocks an edit. */
export async function notifyBeforeWrite(context: ToolUseContext, absPath: string): Promise<void> {
  const observers = context.fileWriteObservers;
  if (!observers?.length) return;
  await Promise.all(observers.map((o) => settle(() => o.beforeWrite?.(absPath, context))));
}

/** After a write: what observers want the model to see (e.g. new diagnostics), in observer order. */
export async function notifyAfterWrite(context: ToolUseContext, absPath: string): Promise<string[]> {
  const observers = context.fileWriteObservers;
  if (!observers?.length) return [];
  const notes = await Promise.all(observers.map((o) => settle(() => o.afterWrite?.(absPath, context))));
  return notes.filter((n): n is string => typeof n === "string" && n.length > 0);
}

/** A writer's result text followed by what the observers said after the write. */
export function withWriteNotes(text: string, notes: readonly string[] | undefined): string {
  return notes?.length ? `${text}\n\n${notes.join("\n\n")}` : text;
}
