/**
 * One "abort" listener per signal, shared by every call that watches it: adding and removing an EventTarget
 * listener per tool call costs more than the rest of a trivial call's bookkeeping.
 */
const watchers = new WeakMap<AbortSignal, Set<() => void>>();

/** Run `onAbort` when the signal aborts (at once if it already has); returns the function that stops watching. */
export function watchAbort(signal: AbortSignal, onAbort: () => void): () => void {
  if (signal.aborted) {
    onAbort();
    return () => {};
  }
  let set = watchers.get(signal);
  if (!set) {
    const callbacks = new Set<() => void>();
    set = callbacks;
    watchers.set(signal, callbacks);
    signal.addEventListener(
      "abort",
      () => {
        watchers.delete(signal);
        for (const callback of [...callbacks]) callback();
      },
      { once: true },
    );
  }
  const callbacks = set;
  callbacks.add(onAbort);
  return () => callbacks.delete(onAbort);
}
