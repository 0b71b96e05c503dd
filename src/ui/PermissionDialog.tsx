/**
 * Asks the user about one call: the call as a person reads it (drawn by its tool's renderer), why it asks (once),
 * then yes / yes and remember / no with feedback, each label saying what choosing it does.
 */
import { Box, Text, measureElement, useInput, type DOMElement } from "ink";
import { useEffect, useRef, useState, type ReactNode, type Ref } from "react";
import type { PermissionChoice, PermissionRequest } from "./permissionAnswer.js";
import { whyItAsks } from "./permissionWording.js";
import { rendererFor } from "./ToolCall.js";
import { genericRenderer } from "./genericRenderer.js";
import type { PreviewOptions, RenderOptions } from "./toolRenderer.js";
import { terminalSafe, wrapLine } from "./components/index.js";

/** Rows of a preview (a diff, a file's lines, arguments) while collapsed, at most and at least. */
const PREVIEW_LINES = 12;
const MIN_PREVIEW_LINES = 2;
/** Rows besides the preview, the reasons and the choices: border, title, margins, help, the feedback line, and the status line under the dialog. */
const FRAME_ROWS = 8;
/** Until the preview is measured: it may take a heading and a "+N lines" note besides its rows. */
const PREVIEW_EXTRA_ROWS = 2;
/** Columns of the border and padding on each side, and of a choice's `❯ 1. `. */
const DIALOG_MARGIN = 2;
const CHOICE_NUMBER = 5;

/** Text cut into rows of `width` at its spaces: the dialog wraps its own text, so it knows how many rows it takes. */
function rowsOf(text: string, width: number): string[] {
  return text.split("\n").flatMap((line) => wrapLine(line, width));
}

interface DialogLayout {
  /** Rows the call's preview may take while collapsed. */
  previewLines: number;
  /** The screen is too short for every label whole: the others are cut to their rule and scope, on one row each. */
  compactChoices: boolean;
}

/**
 * How the dialog fits in `rows`, given the rows its reasons and each choice's label take: the preview gets what
 * they leave, and when the screen is too short even so, the choices but the selected one are cut to one row (the
 * dialog must fit: for a frame taller than the screen Ink clears it and prints everything again).
 * `previewHeight` is the preview's measured height; until it is known, `previewLines` rows, a heading and a note.
 */
function dialogLayout(rows: number, reasonRows: number, labelRows: readonly number[], previewHeight?: number): DialogLayout {
  const fixed = FRAME_ROWS + reasonRows;
  const whole = labelRows.reduce((a, b) => a + b, 0);
  const previewLines = Math.max(MIN_PREVIEW_LINES, Math.min(PREVIEW_LINES, rows - fixed - whole - PREVIEW_EXTRA_ROWS));
  const preview = previewHeight ?? previewLines + PREVIEW_EXTRA_ROWS;
  return { previewLines, compactChoices: fixed + preview + whole > rows };
}

function toolTitle(request: PermissionRequest): string {
  if (!request.tool.name.startsWith("mcp__")) return request.tool.name;
  try {
    return request.tool.userFacingName(request.input) || request.tool.name;
  } catch {
    return request.tool.name;
  }
}

/** The tool's own preview, its summary line where it has none, the arguments as `key: value` if both fail. */
function CallPreview({ request, options, boxRef }: { request: PermissionRequest; options: PreviewOptions; boxRef: Ref<DOMElement> }) {
  const renderer = rendererFor(request.tool.name);
  let node: ReactNode;
  try {
    node = (renderer.renderPermissionPreview ?? renderer.renderToolUseMessage)(request.input, options);
  } catch {
    node = genericRenderer.renderPermissionPreview!(request.input, options);
  }
  return (
    <Box ref={boxRef} flexDirection="column" marginLeft={2}>
      {node}
    </Box>
  );
}

export interface PermissionDialogProps {
  request: PermissionRequest;
  choices: readonly PermissionChoice[];
  onAnswer(choice: PermissionChoice, feedback?: string): void;
  /** The mode the session is in (shown, since it decides what asks). */
  mode: string;
  /** How the call is drawn: the width, the working directory for paths, Ctrl+O's expanded. */
  options: RenderOptions;
  /** Rows the dialog should fit in (the screen's): the call's preview gets what the rest leaves. */
  rows?: number;
}

export function PermissionDialog({ request, choices, onAnswer, mode, options, rows }: PermissionDialogProps) {
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

  const inner = Math.max(20, options.columns - 2 * DIALOG_MARGIN);
  const why = whyItAsks(request.decision);
  const summary = rowsOf(terminalSafe(why.summary, "input"), inner);
  const parts = why.parts.map((part) => rowsOf(terminalSafe(part, "input"), inner - 2));
  const note = request.classifierNote ? rowsOf(terminalSafe(request.classifierNote, "input"), inner) : [];
  const labels = choices.map((choice) => rowsOf(terminalSafe(choice.label, "input"), inner - CHOICE_NUMBER));
  const oneRow = (text: string) => {
    const chars = Array.from(text);
    return chars.length > inner - CHOICE_NUMBER ? `${chars.slice(0, inner - CHOICE_NUMBER - 1).join("")}…` : text;
  };
  // the preview's height is known once it is drawn; the first frame assumes the most it may take
  const previewBox = useRef<DOMElement>(null);
  const [previewHeight, setPreviewHeight] = useState<number | undefined>();
  useEffect(() => {
    const height = previewBox.current ? measureElement(previewBox.current).height : undefined;
    if (height !== undefined && height !== previewHeight) setPreviewHeight(height);
  });
  const reasonRows = summary.length + parts.reduce((n, p) => n + p.length, 0) + note.length;
  const layout: DialogLayout =
    rows === undefined
      ? { previewLines: PREVIEW_LINES, compactChoices: false }
      : dialogLayout(rows, reasonRows, labels.map((l) => l.length), previewHeight);
  // each row is drawn as wrapped here; truncate-end only guards against a character wider than it counts
  const lines = (texts: readonly string[], props: { dimColor?: boolean; color?: string } = {}) =>
    texts.map((row, i) => (
      <Text key={i} wrap="truncate-end" {...props}>
        {row}
      </Text>
    ));
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text bold color="yellow" wrap="truncate-end">
        Allow {terminalSafe(toolTitle(request), "input")}?
      </Text>
      <CallPreview request={request} options={{ ...options, maxLines: layout.previewLines }} boxRef={previewBox} />
      <Box flexDirection="column" marginTop={1}>
        {lines(summary, { dimColor: true })}
        {parts.map((part, i) => (
          <Box key={i} flexDirection="row">
            <Box flexShrink={0}>
              <Text dimColor>{"• "}</Text>
            </Box>
            <Box flexDirection="column">{lines(part, { dimColor: true })}</Box>
          </Box>
        ))}
        {lines(note, { color: "magenta" })}
      </Box>
      <Box flexDirection="column" marginTop={1}>
        {choices.map((_, i) => {
          const color = i === selected ? "cyan" : undefined;
          const label = labels[i]!;
          const choice = choices[i]!;
          const shown = !layout.compactChoices || i === selected ? label : [oneRow(terminalSafe("short" in choice ? choice.short : choice.label, "input"))];
          return (
            // the number keeps its column; a long label continues under its own text
            <Box key={i} flexDirection="row">
              <Box flexShrink={0}>
                <Text color={color}>{`${i === selected ? "❯" : " "} ${i + 1}. `}</Text>
              </Box>
              <Box flexDirection="column">{lines(shown, color ? { color } : {})}</Box>
            </Box>
          );
        })}
      </Box>
      {typing && (
        <Text>
          {"  "}tell the model (optional): {feedback}
          <Text inverse> </Text>
        </Text>
      )}
      <Text dimColor wrap="truncate-end">
        ↑/↓ or 1-{choices.length}, Enter to choose, Esc to deny · mode: {mode}
      </Text>
    </Box>
  );
}
