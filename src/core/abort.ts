/**
 * One "abort" listener per signal, shared by every call that watches it: adding and removing an EventTarget
 * listener per tool call costs more than the rest of a trivial call's bookkeeping. The watchers are an array,
 * not a Set: V8 reallocates a Set's table each time it empties, which here is once per call.
 */
const watchers = new WeakMap<AbortSignal, Array<() => void>>();

const stopNothing = () => {};

/** Run `onAbort` when the signal aborts (at once if it already has); returns the function that stops watching. */
export function watchAbort(signal: AbortSignal, onAbort: () => void): () => void {
  if (signal.aborted) {
    onAbort();
    return stopNothing;
  }
  let callbacks = watchers.get(signal);
  if (!callbacks) {
    const created: Array<() => void> = [];
    callbacks = created;
    watchers.set(signal, created);
    signal.addEventListener(
      "abort",
      () => {
        watchers.delete(signal);
        for (const callback of [...created]) callback();
      },
      { once: true },
    );
  }
  const list = callbacks;
  if (!list.includes(onAbort)) list.push(onAbort);
  return () => unwatch(list, onAbort);
}

function unwatch(list: Array<() => void>, onAbort: () => void): void {
  const index = list.indexOf(onAbort);
  if (index < 0) return;
  // Shift the rest down (in place, keeping the order the callbacks run in) rather than splice, which allocates.
  for (let i = index; i < list.length - 1; i++) list[i] = list[i + 1];
  list.pop();
}
