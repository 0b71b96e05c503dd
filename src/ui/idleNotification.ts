/**
 * Claude Code's `idle_prompt` notification: when the agent's turn is over and the prompt has sat untouched for a
 * while, Notification hooks hear that the session waits for the person. Once per idle period: a turn's end starts
 * one, a typed key starts its countdown again, a running turn or an open dialog (which has its own notification)
 * holds it.
 */

export const IDLE_PROMPT_MESSAGE = "toolgate is waiting for your input";
export const DEFAULT_IDLE_NOTIFY_MS = 60_000;

/** `TOOLGATE_IDLE_NOTIFY_MS`: how long the prompt waits before the notification (default a minute). */
export function idleNotifyMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env.TOOLGATE_IDLE_NOTIFY_MS);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_IDLE_NOTIFY_MS;
}

export interface IdleWatch {
  /** A turn ended: an idle period starts (its countdown runs once nothing is busy). */
  turnEnded(): void;
  /** A key was typed: the countdown starts again. */
  keyTyped(): void;
  /** A turn runs or a dialog is open: nobody is idle at the prompt. */
  setBusy(busy: boolean): void;
  /** The UI ends: no notification after it. */
  dispose(): void;
}

export function createIdleWatch(ms: number, onIdle: () => void): IdleWatch {
  let pending = false;
  let busy = false;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  const restart = () => {
    stop();
    if (!pending || busy) return;
    timer = setTimeout(() => {
      timer = undefined;
      pending = false;
      onIdle();
    }, ms);
    // a waiting prompt is no reason to keep the process alive
    timer.unref();
  };
  return {
    turnEnded() {
      pending = true;
      restart();
    },
    keyTyped() {
      if (timer) restart();
    },
    setBusy(next) {
      if (next === busy) return;
      busy = next;
      restart();
    },
    dispose() {
      pending = false;
      stop();
    },
  };
}
