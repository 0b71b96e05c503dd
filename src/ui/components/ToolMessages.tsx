import { Text } from "ink";
import type { ReactNode } from "react";
import type { RenderOptions } from "../toolRenderer.js";
import { tint } from "./color.js";
import { CollapsedText } from "./CollapsedText.js";
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
      <Text color={tint("red")}>{what ? `Rejected: ${what}` : "Rejected"}</Text>
      {reason ? <Text dimColor>{errorText(reason)}</Text> : null}
      {children}
    </ResultGutter>
  );
}
