import { Text } from "ink";
import type { ReactNode } from "react";
import type { RenderOptions } from "../toolRenderer.js";
import { tint } from "./color.js";
import { CollapsedText } from "./CollapsedText.js";
import { terminalSafe } from "./format.js";
import { ResultGutter } from "./ToolUseLine.js";

/** Lines of an error shown until Ctrl+O. */
const ERROR_LINES = 6;

/** The runtime wraps validation errors in tags meant for the model; the user reads the message. */
export function errorText(message: string): string {
  return message.replace(/<\/?tool_use_error>/g, "").trim();
}

/** A failed call: the message the model was told, in red, collapsed. */
export function ToolError({ message, options }: { message: string; options: Pick<RenderOptions, "expanded"> }) {
  return (
    <ResultGutter>
      <CollapsedText text={errorText(message) || "Error"} color="red" maxLines={ERROR_LINES} expanded={options.expanded} />
    </ResultGutter>
  );
}

/** A call the user, a rule or a hook refused: what it would have done, and why when known. */
export function ToolRejected({ what, reason, children }: { what?: string; reason?: string; children?: ReactNode }) {
  return (
    <ResultGutter>
      <Text color={tint("red")}>{what ? `Rejected: ${terminalSafe(what, "input")}` : "Rejected"}</Text>
      {reason ? <Text dimColor>{terminalSafe(errorText(reason), "output")}</Text> : null}
      {children}
    </ResultGutter>
  );
}

/** The default error rendering, for renderers with nothing to add. */
export function renderError(message: string, _input: unknown, options: Pick<RenderOptions, "expanded">): ReactNode {
  return <ToolError message={message} options={options} />;
}

/** A result's text collapsed under the gutter (what most tools without structure show). */
export function ResultText({ text, options, maxLines, empty = "(no output)" }: { text: string; options: Pick<RenderOptions, "expanded">; maxLines?: number; empty?: string }) {
  return (
    <ResultGutter>
      {text.trim() === "" ? <Text dimColor>{empty}</Text> : <CollapsedText text={text} expanded={options.expanded} maxLines={maxLines} />}
    </ResultGutter>
  );
}

export type GroupStatus = "running" | "success" | "error" | "rejected";

/** Where one call of a group stands, from its result. */
export function statusOf(result: { isError: boolean; outcome: string } | undefined): GroupStatus {
  if (!result) return "running";
  if (result.outcome === "denied") return "rejected";
  return result.isError ? "error" : "success";
}

/** The group's dot: running while any runs, red when any failed. */
export function groupStatus(statuses: readonly GroupStatus[]): GroupStatus {
  if (statuses.includes("running")) return "running";
  if (statuses.some((s) => s === "error" || s === "rejected")) return "error";
  return "success";
}
