/**
 * Opt-in telemetry (`TOOLGATE_ENABLE_TELEMETRY=1`). The OpenTelemetry SDK is imported only when it is enabled,
 * so a start without telemetry loads none of it.
 */
import type { TelemetrySink } from "../core/Tool.js";
import { telemetryEnabled } from "./events.js";

export { decisionSource, telemetryEnabled, telemetryOptions, type DecisionSource, type TelemetryOptions } from "./events.js";

export interface SessionStartInfo {
  sessionId: string;
  version: string;
  /** `agent` (-p, the UI), `exec`, or `mcp serve` (one telemetry per connection). */
  command: "agent" | "exec" | "mcp serve";
  /** The agent's model and provider (exec has none). */
  model?: string;
  provider?: string;
  permissionMode: string;
  /** The session continues an earlier one (--continue, --resume). */
  resumed: boolean;
}

export interface Telemetry {
  /** Set as `context.telemetry`. */
  sink: TelemetrySink;
  /** Flushes what is buffered and stops; settles within a bounded wait even when the collector is gone. */
  shutdown(): Promise<void>;
}

/** Starts telemetry (and records the session start) when the environment enables it; undefined otherwise. */
export async function startTelemetry(env: NodeJS.ProcessEnv, info: SessionStartInfo): Promise<Telemetry | undefined> {
  if (!telemetryEnabled(env)) return undefined;
  const { createOtelTelemetry } = await import("./otel.js");
  return createOtelTelemetry(env, info);
}
