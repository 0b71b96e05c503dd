/**
 * The repeated-call guard: a model that calls the same tool with the same input three times in a row is
 * usually stuck. The loop then asks the user (interactive) or tells the model (headless) instead of spinning.
 */
import type { AnyTool, Tools } from "../core/Tool.js";
import { findToolByName } from "../core/registry.js";

export const REPEAT_LIMIT = 3;

interface Seen {
  name: string;
  input: unknown;
}

function sameInput(tool: AnyTool | undefined, a: unknown, b: unknown): boolean {
  if (tool?.inputsEquivalent) {
    try {
      return tool.inputsEquivalent(a, b);
    } catch {
      return false;
    }
  }
  return stableJson(a) === stableJson(b);
}

function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : v,
  );
}

export interface RepeatGuard {
  /** Records a call; returns how many times in a row this same call has now been made. */
  record(name: string, input: unknown): number;
  reset(): void;
}

export function createRepeatGuard(tools: () => Tools): RepeatGuard {
  let last: Seen | undefined;
  let count = 0;
  return {
    record(name, input) {
      const tool = findToolByName(tools(), name);
      const canonical = tool?.name ?? name;
      if (last && last.name === canonical && sameInput(tool, last.input, input)) count++;
      else count = 1;
      last = { name: canonical, input };
      return count;
    },
    reset() {
      last = undefined;
      count = 0;
    },
  };
}

/** What the model is told, headless, when it repeats a call: the call still runs; the nudge goes beside its result. */
export function repeatedCallNotice(name: string, count: number): string {
  return `You have now made this exact ${name} call ${count} times in a row with the same input, and the result will not change. Stop repeating it: use the result you already have, try a different approach, or end your turn and explain what is blocking you.`;
}
