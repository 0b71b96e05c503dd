/**
 * What toolgate's telemetry says, as plain attribute maps: built only from fields that cannot carry a path,
 * a command, a URL, file content or prompt text. The opt-ins add those where the user asked for them.
 * Pure functions, so what is exported is decided (and tested) without the OpenTelemetry SDK.
 */
import { createHash } from "node:crypto";
import type { ModelRequestReport, SpeculationReport, ToolDecisionReport, ToolResultReport } from "../core/Tool.js";
import type { PermissionDecision, PermissionDecisionReason, PermissionRule } from "../core/permissionTypes.js";

export type Attributes = Record<string, string | number | boolean>;

/** The user's opt-ins, from the environment. */
export interface TelemetryOptions {
  /** `TOOLGATE_TELEMETRY_INCLUDE_INPUTS=1`: tool events carry what the call acts on (a command, a path, a URL). */
  includeInputs: boolean;
  /** `OTEL_LOG_USER_PROMPTS=1`: the user_prompt event carries the prompt text. */
  logUserPrompts: boolean;
}

const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());

export function telemetryEnabled(env: NodeJS.ProcessEnv): boolean {
  return truthy(env.TOOLGATE_ENABLE_TELEMETRY);
}

export function telemetryOptions(env: NodeJS.ProcessEnv): TelemetryOptions {
  return { includeInputs: truthy(env.TOOLGATE_TELEMETRY_INCLUDE_INPUTS), logUserPrompts: truthy(env.OTEL_LOG_USER_PROMPTS) };
}

export type DecisionSource = "config" | "user_temporary" | "user_permanent" | "user_reject";

/**
 * Who made a permission decision: a rule remembered for this session → user_temporary, one in the user's or the
 * local settings → user_permanent, every other rule, mode, hook or check → config; an answer to a question →
 * user_temporary when allowed and user_reject when refused, except a non-interactive session's automatic deny
 * and the auto-mode classifier, which are configuration too.
 */
export function decisionSource(verdict: PermissionDecision, asked: boolean): DecisionSource {
  const reason = verdict.decisionReason;
  const rule = decidingRule(reason);
  if (rule && !asked) {
    if (rule.source === "session") return "user_temporary";
    if (rule.source === "localSettings" || rule.source === "userSettings") return "user_permanent";
    return "config";
  }
  if (!asked) return "config";
  if (reason?.type === "nonInteractive" || (reason?.type === "other" && reason.reason.startsWith("auto mode:"))) return "config";
  return verdict.behavior === "allow" ? "user_temporary" : "user_reject";
}

/**
 * The rule behind a verdict: its own, or for a command judged per part, the deciding part's (else the first part
 * a rule decided, so `git status && touch x` allowed by a settings rule for `touch` counts as that rule).
 */
function decidingRule(reason: PermissionDecisionReason | undefined): PermissionRule | undefined {
  if (reason?.type === "rule") return reason.rule;
  if (reason?.type !== "subcommands") return undefined;
  const deciding = reason.parts.find((p) => p.command === reason.decidingPart);
  if (deciding) return decidingRule(deciding.result.decisionReason);
  for (const part of reason.parts) {
    const rule = decidingRule(part.result.decisionReason);
    if (rule) return rule;
  }
  return undefined;
}

const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * tool_use ids come from the model's server: an OpenAI-compatible one may send any text. An id shaped like an
 * id is exported as it is; anything else only as a hash (events of one call still correlate).
 */
function safeToolUseId(id: string): string {
  return SAFE_ID.test(id) ? id : `sha256:${createHash("sha256").update(id).digest("hex").slice(0, 16)}`;
}

/** A name the model chose for a tool that does not exist could be any text: only real tools are named. */
function safeToolName(name: string, known: boolean): string {
  return known ? name : "unknown";
}

const INPUT_MAX_CHARS = 500;

function describedInput(report: { tool?: ToolDecisionReport["tool"]; input: unknown }): string | undefined {
  if (!report.tool || !report.input || typeof report.input !== "object") return undefined;
  try {
    const text = report.tool.describeInput?.(report.input as Record<string, unknown>) ?? JSON.stringify(report.input);
    return text.length > INPUT_MAX_CHARS ? `${text.slice(0, INPUT_MAX_CHARS)}…` : text;
  } catch {
    return undefined;
  }
}

export function toolDecisionAttributes(report: ToolDecisionReport, options: TelemetryOptions): Attributes {
  const attributes: Attributes = {
    tool_name: report.toolName,
    tool_use_id: safeToolUseId(report.toolUseID),
    decision: report.verdict.behavior === "allow" ? "accept" : "reject",
    source: decisionSource(report.verdict, report.asked),
  };
  const input = options.includeInputs ? describedInput(report) : undefined;
  if (input !== undefined) attributes.tool_input = input;
  return attributes;
}

export function toolResultAttributes(report: ToolResultReport, options: TelemetryOptions): Attributes {
  const attributes: Attributes = {
    tool_name: safeToolName(report.toolName, report.tool !== undefined),
    tool_use_id: safeToolUseId(report.toolUseID),
    outcome: report.outcome,
    success: report.outcome === "success",
    duration_ms: report.durationMs,
  };
  if (report.errorLabel) attributes.error = report.errorLabel;
  const input = options.includeInputs ? describedInput(report) : undefined;
  if (input !== undefined) attributes.tool_input = input;
  return attributes;
}

/** The prompt's length always; its text only with OTEL_LOG_USER_PROMPTS=1. */
export function userPromptAttributes(text: string, options: TelemetryOptions): Attributes {
  return { prompt_length: text.length, ...(options.logUserPrompts ? { prompt: text } : {}) };
}

export function modelRequestAttributes(report: ModelRequestReport): Attributes {
  return {
    model: report.model,
    input_tokens: report.inputTokens,
    output_tokens: report.outputTokens,
    cache_read_tokens: report.cacheReadTokens,
    cache_creation_tokens: report.cacheCreationTokens,
    ...(report.costUSD === undefined ? {} : { cost_usd: report.costUSD }),
    duration_ms: report.durationMs,
    stop_reason: report.stopReason,
    ...(report.errorKind ? { error_kind: report.errorKind } : {}),
  };
}

export function speculationAttributes(report: SpeculationReport): Attributes {
  return {
    tool_name: report.toolName,
    tool_use_id: safeToolUseId(report.toolUseID),
    outcome: report.outcome,
    ready_at_block_end: report.readyAtBlockEnd,
    head_start_ms: Math.round(report.headStartMs),
    wasted_ms: Math.round(report.wastedMs),
  };
}
