/**
 * MCP clients may send several tools/call requests at once on one connection. Calls that are
 * concurrency-safe (Read, Grep…) run side by side; any other call runs alone, after those before it,
 * as runTools would order them inside one assistant message.
 */
export interface CallLock {
  run<T>(shared: boolean, task: () => Promise<T>): Promise<T>;
}

export function createCallLock(): CallLock {
  let active = 0;
  let exclusive = false;
  const waiting: Array<{ shared: boolean; start: () => void }> = [];

  const pump = () => {
    while (waiting.length > 0) {
      const next = waiting[0];
      if (exclusive || (!next.shared && active > 0)) return;
      waiting.shift();
      active++;
      if (!next.shared) exclusive = true;
      next.start();
      if (!next.shared) return;
    }
  };

  return {
    run(shared, task) {
      return new Promise((resolve, reject) => {
        waiting.push({
          shared,
          start: () => {
            task()
              .then(resolve, reject)
              .finally(() => {
                active--;
                if (!shared) exclusive = false;
                pump();
              });
          },
        });
        pump();
      });
    },
  };
}
