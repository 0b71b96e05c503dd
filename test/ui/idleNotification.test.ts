/** When the idle_prompt notification fires: once per idle period, after a turn, held by keys, turns and dialogs. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createIdleWatch, DEFAULT_IDLE_NOTIFY_MS, idleNotifyMs } from "../../src/ui/idleNotification.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("createIdleWatch", () => {
  it("fires once, the idle time after a turn ends, and not again until another turn ends", () => {
    const onIdle = vi.fn();
    const watch = createIdleWatch(300, onIdle);
    vi.advanceTimersByTime(1_000);
    expect(onIdle).not.toHaveBeenCalled();
    watch.turnEnded();
    vi.advanceTimersByTime(299);
    expect(onIdle).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onIdle).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    watch.keyTyped();
    vi.advanceTimersByTime(10_000);
    expect(onIdle).toHaveBeenCalledTimes(1);
    watch.turnEnded();
    vi.advanceTimersByTime(300);
    expect(onIdle).toHaveBeenCalledTimes(2);
  });

  it("a typed key starts the countdown again", () => {
    const onIdle = vi.fn();
    const watch = createIdleWatch(300, onIdle);
    watch.turnEnded();
    vi.advanceTimersByTime(200);
    watch.keyTyped();
    vi.advanceTimersByTime(200);
    watch.keyTyped();
    vi.advanceTimersByTime(299);
    expect(onIdle).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });

  it("never fires while a turn runs or a dialog is open; the countdown starts when that ends", () => {
    const onIdle = vi.fn();
    const watch = createIdleWatch(300, onIdle);
    // the turn ends while still marked busy (the UI clears its running state after)
    watch.setBusy(true);
    watch.turnEnded();
    vi.advanceTimersByTime(1_000);
    watch.keyTyped();
    vi.advanceTimersByTime(1_000);
    expect(onIdle).not.toHaveBeenCalled();
    watch.setBusy(false);
    vi.advanceTimersByTime(200);
    // a dialog opens (a permission question, a list) before the time is up
    watch.setBusy(true);
    vi.advanceTimersByTime(1_000);
    expect(onIdle).not.toHaveBeenCalled();
    watch.setBusy(false);
    watch.setBusy(false);
    vi.advanceTimersByTime(300);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });

  it("its timer keeps nothing alive, and dispose cancels it", () => {
    const onIdle = vi.fn();
    const watch = createIdleWatch(300, onIdle);
    const setTimer = vi.spyOn(globalThis, "setTimeout");
    watch.turnEnded();
    const timer = setTimer.mock.results.at(-1)!.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    watch.dispose();
    vi.advanceTimersByTime(1_000);
    expect(onIdle).not.toHaveBeenCalled();
  });
});

describe("idleNotifyMs", () => {
  it("reads TOOLGATE_IDLE_NOTIFY_MS, a minute unless it is a positive number", () => {
    expect(idleNotifyMs({})).toBe(DEFAULT_IDLE_NOTIFY_MS);
    expect(DEFAULT_IDLE_NOTIFY_MS).toBe(60_000);
    expect(idleNotifyMs({ TOOLGATE_IDLE_NOTIFY_MS: "300" })).toBe(300);
    for (const bad of ["", "0", "-5", "soon"]) expect(idleNotifyMs({ TOOLGATE_IDLE_NOTIFY_MS: bad })).toBe(DEFAULT_IDLE_NOTIFY_MS);
  });
});
