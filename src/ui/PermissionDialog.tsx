/** Asks the user about one call: what will run and why it asks, then yes / yes and remember / no with feedback. */
import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";
import { describeDecisionReason, subcommandLines } from "../permissions/explain.js";
import type { PermissionChoice, PermissionRequest } from "./permissionAnswer.js";

/** Lines of an edit's text shown in the dialog before it is cut. */
const PREVIEW_LINES = 8;

function preview(lines: string[], sign: string, color: string) {
  const shown = lines.slice(0, PREVIEW_LINES);
  return [
    ...shown.map((line, i) => (
      <Text key={`${sign}${i}`} color={color} wrap="truncate-end">
        {sign} {line}
      </Text>
    )),
    ...(lines.length > shown.length ? [<Text key={`${sign}more`} dimColor>{`  … +${lines.length - shown.length} lines`}</Text>] : []),
  ];
}

/** The change an edit or write would make, as removed and added lines. */
function ChangePreview({ input }: { input: Record<string, unknown> }) {
  const rows = [];
  if (typeof input.old_string === "string") rows.push(...preview(input.old_string.split("\n"), "-", "red"));
  if (typeof input.new_string === "string") rows.push(...preview(input.new_string.split("\n"), "+", "green"));
  if (typeof input.content === "string") rows.push(...preview(input.content.split("\n"), "+", "green"));
  if (Array.isArray(input.edits)) {
    for (const edit of input.edits.slice(0, 3) as Array<Record<string, unknown>>) {
      if (typeof edit?.old_string === "string") rows.push(...preview(edit.old_string.split("\n"), "-", "red"));
      if (typeof edit?.new_string === "string") rows.push(...preview(edit.new_string.split("\n"), "+", "green"));
    }
  }
  if (rows.length === 0) return null;
  return <Box flexDirection="column" marginLeft={2}>{rows}</Box>;
}

function summaryOf(request: PermissionRequest): string {
  try {
    const described = request.tool.describeInput?.(request.input);
    if (described) return described;
  } catch {
    // fall through to the raw input
  }
  const json = JSON.stringify(request.input);
  return json.length > 300 ? `${json.slice(0, 299)}…` : json;
}

export interface PermissionDialogProps {
  request: PermissionRequest;
  choices: readonly PermissionChoice[];
  onAnswer(choice: PermissionChoice, feedback?: string): void;
  /** The mode the session is in (shown, since it decides what asks). */
  mode: string;
}

export function PermissionDialog({ request, choices, onAnswer, mode }: PermissionDialogProps) {
  const [selected, setSelectedState] = useState(0);
  const [feedback, setFeedbackState] = useState("");
  // Keys may come faster than re-renders: each reads and updates the latest values, not a render's copy.
  const latest = useRef({ selected: 0, feedback: "" });
  const setSelected = (value: number) => {
    latest.current.selected = value;
    setSelectedState(value);
  };
  const setFeedback = (value: string) => {
    latest.current.feedback = value;
    setFeedbackState(value);
  };
  const denyIndex = choices.findIndex((c) => c.kind === "deny");
  const typing = selected === denyIndex;

  useInput((input, key) => {
    const current = latest.current;
    const isTyping = current.selected === denyIndex;
    if (key.escape) return onAnswer(choices[denyIndex]!);
    if (key.ctrl) return;
    if (key.upArrow) return setSelected((current.selected + choices.length - 1) % choices.length);
    if (key.downArrow || (key.tab && !key.shift)) return setSelected((current.selected + 1) % choices.length);
    if (key.return) return onAnswer(choices[current.selected]!, isTyping ? current.feedback : undefined);
    if (isTyping) {
      if (key.backspace || key.delete) return setFeedback(current.feedback.slice(0, -1));
      if (input) setFeedback(current.feedback + input.replace(/\r\n?/g, " "));
      return;
    }
    const digit = Number(input);
    if (Number.isInteger(digit) && digit >= 1 && digit <= choices.length) {
      const choice = choices[digit - 1]!;
      if (choice.kind === "deny") setSelected(digit - 1);
      else onAnswer(choice);
    }
  });

  const reason = request.decision.decisionReason;
  // Per-part lines only when the command has several parts: for one part they repeat the message.
  const parts = reason?.type === "subcommands" && reason.parts.length > 1 ? subcommandLines(reason, "  ") : [];
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text bold color="yellow">
        Allow {request.tool.name}?
      </Text>
      <Text wrap="wrap">{summaryOf(request)}</Text>
      <ChangePreview input={request.input} />
      <Text dimColor wrap="wrap">
        {request.decision.message}
        {reason ? ` (${describeDecisionReason(reason)})` : ""}
      </Text>
      {parts.slice(0, 6).map((line, i) => (
        <Text key={i} dimColor wrap="truncate-end">
          {line}
        </Text>
      ))}
      {request.classifierNote && <Text color="magenta">{request.classifierNote}</Text>}
      <Box flexDirection="column" marginTop={1}>
        {choices.map((choice, i) => (
          <Text key={i} color={i === selected ? "cyan" : undefined} wrap="wrap">
            {i === selected ? "❯" : " "} {i + 1}. {choice.label}
          </Text>
        ))}
      </Box>
      {typing && (
        <Text>
          {"  "}tell the model (optional): {feedback}
          <Text inverse> </Text>
        </Text>
      )}
      <Text dimColor>
        ↑/↓ or 1-{choices.length}, Enter to choose, Esc to deny · mode: {mode}
      </Text>
    </Box>
  );
}
