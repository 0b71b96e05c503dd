import type { z } from "zod";

type Issue = z.core.$ZodIssue;
type PathKey = PropertyKey;

const MAX_COERCION_ROUNDS = 8;

export type ParseOutcome<T> = { success: true; data: T } | { success: false; issues: Issue[] };

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function coerceValue(expected: string, value: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof value !== "string") return { ok: false };
  const text = value.trim();
  switch (expected) {
    case "number":
    case "int":
      if (/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text)) return { ok: true, value: Number(text) };
      return { ok: false };
    case "boolean":
      if (text === "true") return { ok: true, value: true };
      if (text === "false") return { ok: true, value: false };
      return { ok: false };
    case "array":
    case "object": {
      if (!/^[[{]/.test(text)) return { ok: false };
      try {
        const parsed: unknown = JSON.parse(text);
        if (typeName(parsed) === expected) return { ok: true, value: parsed };
      } catch {
        // not JSON: leave the original error in place
      }
      return { ok: false };
    }
    default:
      return { ok: false };
  }
}

function setAtPath(root: unknown, path: readonly PathKey[], value: unknown): boolean {
  if (path.length === 0) return false;
  let node = root as Record<PropertyKey, unknown> | undefined;
  for (const key of path.slice(0, -1)) {
    if (node === null || typeof node !== "object") return false;
    node = node[key] as Record<PropertyKey, unknown> | undefined;
  }
  if (node === null || typeof node !== "object") return false;
  node[path[path.length - 1]] = value;
  return true;
}

function cloneInput(input: unknown): unknown {
  try {
    return structuredClone(input);
  } catch {
    return input;
  }
}

/**
 * Parse tool input with its schema. Models often send numbers, booleans, arrays and objects as strings
 * ("10", "true", "[…]"); those are coerced where the schema expects the other type, then parsed again.
 */
export function parseToolInput<T>(schema: z.ZodType<T, unknown>, input: unknown): ParseOutcome<T> {
  const fast = schema.safeParse(input);
  if (fast.success) return { success: true, data: fast.data };
  let candidate = input;
  let cloned = false;
  for (let round = 0; ; round++) {
    const result = schema.safeParse(candidate, { reportInput: true });
    if (result.success) return { success: true, data: result.data };
    const issues = result.error.issues;
    if (round >= MAX_COERCION_ROUNDS) return { success: false, issues };
    let changed = false;
    for (const issue of issues) {
      if (issue.code !== "invalid_type") continue;
      const coerced = coerceValue(issue.expected, issue.input);
      if (!coerced.ok) continue;
      if (!cloned) {
        candidate = cloneInput(candidate);
        cloned = true;
      }
      if (setAtPath(candidate, issue.path, coerced.value)) changed = true;
    }
    if (!changed) {
      // Report against the model's own input, not a half-coerced copy.
      if (cloned) {
        const original = schema.safeParse(input, { reportInput: true });
        if (!original.success) return { success: false, issues: original.error.issues };
      }
      return { success: false, issues };
    }
  }
}

function formatPath(path: readonly PathKey[]): string {
  if (path.length === 0) return "(input)";
  return path
    .map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`))
    .join("");
}

function join(path: readonly PathKey[], key: PathKey): string {
  return formatPath([...path, key]);
}

function describeIssue(issue: Issue): string[] {
  const where = formatPath(issue.path);
  switch (issue.code) {
    case "invalid_type": {
      if (!("input" in issue) || issue.input === undefined) {
        return [`${where}: required parameter is missing (expected ${issue.expected})`];
      }
      return [`${where}: wrong type, expected ${issue.expected} but got ${typeName(issue.input)}`];
    }
    case "unrecognized_keys":
      return issue.keys.map((key) => `${join(issue.path, key)}: unexpected parameter, remove it`);
    case "invalid_value":
      return [
        `${where}: invalid value ${JSON.stringify(issue.input)}, expected one of ${issue.values
          .map((v) => JSON.stringify(v))
          .join(", ")}`,
      ];
    case "invalid_union": {
      const alternatives = issue.errors
        .map((branch) => branch.flatMap(describeIssue).join("; "))
        .filter(Boolean);
      const got = "input" in issue && issue.input !== undefined ? ` (got ${typeName(issue.input)})` : "";
      return [
        alternatives.length
          ? `${where}: does not match any allowed form${got}: ${alternatives.join(" | ")}`
          : `${where}: does not match any allowed form${got}`,
      ];
    }
    default:
      return [`${where}: ${issue.message}`];
  }
}

/** One line per problem, each naming the parameter path. */
export function formatZodIssues(toolName: string, issues: readonly Issue[]): string {
  const lines = issues.flatMap(describeIssue);
  const noun = lines.length === 1 ? "problem" : "problems";
  return `InputValidationError: ${toolName} was called with invalid input (${lines.length} ${noun}):\n${lines
    .map((l) => `- ${l}`)
    .join("\n")}`;
}
