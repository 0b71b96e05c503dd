/**
 * The OpenTelemetry implementation of the telemetry sink: log events and metrics, exported as OTLP over HTTP
 * (JSON) to where the standard `OTEL_EXPORTER_OTLP_*` variables say. Loaded only when telemetry is enabled.
 */
import { SeverityNumber } from "@opentelemetry/api-logs";
import { BatchLogRecordProcessor, LoggerProvider } from "@opentelemetry/sdk-logs";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-http";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import type { TelemetrySink } from "../core/Tool.js";
import { modelRequestAttributes, speculationAttributes, telemetryOptions, toolDecisionAttributes, toolResultAttributes, userPromptAttributes, type Attributes } from "./events.js";
import type { SessionStartInfo, Telemetry } from "./index.js";

const DEFAULT_METRIC_INTERVAL_MS = 60_000;
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 5_000;

function positiveInt(value: string | undefined, fallback: number): number {
  const n = value === undefined ? NaN : Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/**
 * `OTEL_RESOURCE_ATTRIBUTES` (`key=value,key2=value2`, values percent-encoded) and `OTEL_SERVICE_NAME`, as the
 * OpenTelemetry specification reads them. A malformed pair is skipped.
 */
export function resourceAttributesFromEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (env.OTEL_RESOURCE_ATTRIBUTES ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    try {
      const key = decodeURIComponent(pair.slice(0, at).trim());
      if (key) out[key] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      // a malformed percent-escape: skip the pair
    }
  }
  if (env.OTEL_SERVICE_NAME?.trim()) out["service.name"] = env.OTEL_SERVICE_NAME.trim();
  return out;
}

export function createOtelTelemetry(env: NodeJS.ProcessEnv, info: SessionStartInfo): Telemetry {
  const options = telemetryOptions(env);
  // Your attributes (team, environment, a service name of your own) join ours; the version and session id stay ours.
  const resource = resourceFromAttributes({ "service.name": "toolgate", ...resourceAttributesFromEnv(env), "service.version": info.version, "session.id": info.sessionId });

  const loggerProvider = new LoggerProvider({ resource, processors: [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter() })] });
  const logger = loggerProvider.getLogger("toolgate", info.version);
  const meterProvider = new MeterProvider({
    resource,
    readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(), exportIntervalMillis: positiveInt(env.OTEL_METRIC_EXPORT_INTERVAL, DEFAULT_METRIC_INTERVAL_MS) })],
  });
  const meter = meterProvider.getMeter("toolgate", info.version);
  const sessions = meter.createCounter("toolgate.session.count", { description: "Agent sessions started" });
  const linesOfCode = meter.createCounter("toolgate.lines_of_code.count", { description: "Lines changed by the tools (type: added or removed)" });
  const tokens = meter.createCounter("toolgate.token.usage", { description: "Tokens used (type: input, output, cacheRead, cacheCreation)", unit: "tokens" });
  const cost = meter.createCounter("toolgate.cost.usage", { description: "Cost at list price", unit: "USD" });
  const decisions = meter.createCounter("toolgate.tool.decision", { description: "Permission decisions (decision, source, tool_name)" });
  const speculations = meter.createCounter("toolgate.tool.speculation", { description: "Speculative tool calls (outcome: hit, miss, discarded; tool_name)" });
  const speculationWaste = meter.createCounter("toolgate.tool.speculation.wasted", { description: "Run time of speculative calls thrown away", unit: "ms" });

  const emit = (name: string, attributes: Attributes, severity = SeverityNumber.INFO) => {
    const now = new Date();
    logger.emit({ eventName: `toolgate.${name}`, body: `toolgate.${name}`, severityNumber: severity, timestamp: now, attributes: { "event.name": name, "event.timestamp": now.toISOString(), "session.id": info.sessionId, ...attributes } });
  };
  // A fault in the SDK must never reach a tool call or the agent loop.
  const guarded = <A extends unknown[]>(fn: (...args: A) => void) => (...args: A) => {
    try {
      fn(...args);
    } catch {
      // telemetry is best effort
    }
  };

  const sink: TelemetrySink = {
    toolDecision: guarded((report) => {
      const attributes = toolDecisionAttributes(report, options);
      emit("tool_decision", attributes);
      decisions.add(1, { tool_name: attributes.tool_name, decision: attributes.decision, source: attributes.source });
    }),
    toolResult: guarded((report) => emit("tool_result", toolResultAttributes(report, options), report.outcome === "success" ? SeverityNumber.INFO : SeverityNumber.WARN)),
    modelRequest: guarded((report) => {
      emit("api_request", modelRequestAttributes(report), report.errorKind ? SeverityNumber.WARN : SeverityNumber.INFO);
      const model = { model: report.model };
      tokens.add(report.inputTokens, { ...model, type: "input" });
      tokens.add(report.outputTokens, { ...model, type: "output" });
      tokens.add(report.cacheReadTokens, { ...model, type: "cacheRead" });
      tokens.add(report.cacheCreationTokens, { ...model, type: "cacheCreation" });
      if (report.costUSD !== undefined) cost.add(report.costUSD, model);
    }),
    userPrompt: guarded((report) => emit("user_prompt", userPromptAttributes(report.text, options))),
    speculation: guarded((report) => {
      const attributes = speculationAttributes(report);
      emit("tool_speculation", attributes);
      speculations.add(1, { tool_name: report.toolName, outcome: report.outcome });
      if (report.wastedMs > 0) speculationWaste.add(report.wastedMs, { tool_name: report.toolName });
    }),
    linesChanged: guarded((report) => {
      linesOfCode.add(report.added, { type: "added" });
      linesOfCode.add(report.removed, { type: "removed" });
    }),
  };

  guarded(() => {
    sessions.add(1);
    emit("session_start", { command: info.command, ...(info.model ? { model: info.model } : {}), ...(info.provider ? { provider: info.provider } : {}), resumed: info.resumed, permission_mode: info.permissionMode });
  })();

  let closing: Promise<void> | undefined;
  return {
    sink,
    shutdown() {
      // Flush what is buffered and stop, but never hold the exit longer than the bound (a dead collector).
      closing ??= (async () => {
        const timeoutMs = positiveInt(env.TOOLGATE_TELEMETRY_SHUTDOWN_TIMEOUT_MS, DEFAULT_SHUTDOWN_TIMEOUT_MS);
        let timer: NodeJS.Timeout | undefined;
        const bound = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
          timer.unref();
        });
        const work = Promise.allSettled([loggerProvider.shutdown(), meterProvider.shutdown()]).then(() => undefined);
        await Promise.race([work, bound]);
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}
