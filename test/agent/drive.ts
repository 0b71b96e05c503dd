/** Runs an agent loop to its end: every event, in order, and the one result (which must come last). */
import { expect } from "vitest";
import type { AgentEvent, AgentResult } from "../../src/agent/query.js";

export async function drive(events: AsyncGenerator<AgentEvent, AgentResult>, onEvent?: (e: AgentEvent) => void) {
  const seen: AgentEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    onEvent?.(event);
  }
  const results = seen.filter((e) => e.type === "result");
  expect(results).toHaveLength(1);
  expect(seen.at(-1)?.type).toBe("result");
  return { events: seen, result: (results[0] as Extract<AgentEvent, { type: "result" }>).result };
}
