/** A push-based async iterable: producers push, one consumer iterates until it is closed and drained. */
export interface AsyncQueue<T> extends AsyncIterable<T> {
  push(item: T): void;
  close(): void;
  readonly closed: boolean;
}

export function createAsyncQueue<T>(): AsyncQueue<T> {
  const items: T[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  return {
    push(item) {
      if (closed) return;
      items.push(item);
      notify();
    },
    close() {
      closed = true;
      notify();
    },
    get closed() {
      return closed;
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (items.length > 0) {
          yield items.shift() as T;
        } else if (closed) {
          return;
        } else {
          await new Promise<void>((resolve) => (wake = resolve));
        }
      }
    },
  };
}
