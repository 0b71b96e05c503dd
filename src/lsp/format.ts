/** Diagnostics as the model reads them, and which of them an edit introduced. Pure functions. */
import type { Diagnostic } from "vscode-languageserver-protocol";

export const MAX_LISTED_DIAGNOSTICS = 10;
export const MAX_DIAGNOSTIC_MESSAGE_CHARS = 300;

// DiagnosticSeverity: 1 error, 2 warning, 3 information, 4 hint; a server that leaves it out means an error.
const SEVERITY_NAMES = ["", "error", "warning", "info", "hint"] as const;

export function severityOf(d: Diagnostic): number {
  return d.severity ?? 1;
}

export function severityName(d: Diagnostic): string {
  return SEVERITY_NAMES[severityOf(d)] ?? "error";
}

/** Errors and warnings: what an edit is judged by. */
export function isProblem(d: Diagnostic): boolean {
  return severityOf(d) <= 2;
}

/** The message as text (LSP 3.18 allows markup). */
export function messageOf(d: Diagnostic): string {
  return typeof d.message === "string" ? d.message : d.message.value;
}

/** Same problem, wherever it sits: positions move when lines are added above it. */
function identity(d: Diagnostic): string {
  return `${severityOf(d)}\u0000${d.code ?? ""}\u0000${messageOf(d)}`;
}

/**
 * The errors and warnings in `after` that `baseline` did not have, compared by severity, code and message (not
 * position) and counted, so a second copy of an existing error is new.
 */
export function newProblems(baseline: readonly Diagnostic[], after: readonly Diagnostic[]): Diagnostic[] {
  const remaining = new Map<string, number>();
  for (const d of baseline) remaining.set(identity(d), (remaining.get(identity(d)) ?? 0) + 1);
  const fresh: Diagnostic[] = [];
  for (const d of after) {
    if (!isProblem(d)) continue;
    const left = remaining.get(identity(d)) ?? 0;
    if (left > 0) remaining.set(identity(d), left - 1);
    else fresh.push(d);
  }
  return fresh;
}

function oneLine(message: string): string {
  const flat = message.replace(/\s*\n\s*/g, " ").trim();
  return flat.length > MAX_DIAGNOSTIC_MESSAGE_CHARS ? `${flat.slice(0, MAX_DIAGNOSTIC_MESSAGE_CHARS - 1)}…` : flat;
}

/** `path:line:col severity message [code]`, 1-based like an editor shows it. */
export function formatDiagnostic(shownPath: string, d: Diagnostic): string {
  const code = d.code === undefined || d.code === "" ? "" : ` [${d.code}]`;
  return `${shownPath}:${d.range.start.line + 1}:${d.range.start.character + 1} ${severityName(d)} ${oneLine(messageOf(d))}${code}`;
}

/** Sorted by severity then position, at most `max` lines, then `+N more`. */
export function formatDiagnosticList(shownPath: string, diagnostics: readonly Diagnostic[], max = MAX_LISTED_DIAGNOSTICS): string[] {
  const sorted = [...diagnostics].sort(
    (a, b) => severityOf(a) - severityOf(b) || a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character,
  );
  const lines = sorted.slice(0, max).map((d) => formatDiagnostic(shownPath, d));
  if (sorted.length > max) lines.push(`+${sorted.length - max} more`);
  return lines;
}

export function countBySeverity(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => severityOf(d) === 1).length;
  const warnings = diagnostics.filter((d) => severityOf(d) === 2).length;
  const parts = [];
  if (errors) parts.push(`${errors} error${errors === 1 ? "" : "s"}`);
  if (warnings) parts.push(`${warnings} warning${warnings === 1 ? "" : "s"}`);
  const rest = diagnostics.length - errors - warnings;
  if (rest) parts.push(`${rest} other`);
  return parts.join(", ") || "none";
}
