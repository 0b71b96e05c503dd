/**
 * Asked once per folder, before anything of the folder runs: what its own files would turn on (hooks, MCP
 * servers, language servers, allow rules, a looser mode, the sandbox off, extra folders, a provider URL),
 * and whether to trust it. Esc or "not now" starts the session with all of that ignored.
 */
import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";
import type { IgnoredSetting } from "../trust/index.js";

export type TrustAnswer = "trust" | "untrusted" | "quit";

export interface TrustDialogProps {
  folder: string;
  items: readonly IgnoredSetting[];
  onAnswer(answer: TrustAnswer): void;
  /** Detail lines shown at most (the rest are counted). */
  maxLines?: number;
}

const CHOICES: ReadonlyArray<{ label: string; value: TrustAnswer }> = [
  { label: "Yes, trust this folder (remembered; toolgate trust remove undoes it)", value: "trust" },
  { label: "No, start with these ignored", value: "untrusted" },
  { label: "Quit", value: "quit" },
];

export function TrustDialog({ folder, items, onAnswer, maxLines = 12 }: TrustDialogProps) {
  const [selected, setSelectedState] = useState(1);
  const latest = useRef(selected);
  const answered = useRef(false);
  const answer = (value: TrustAnswer) => {
    if (answered.current) return;
    answered.current = true;
    onAnswer(value);
  };
  const setSelected = (value: number) => {
    latest.current = value;
    setSelectedState(value);
  };
  useInput((input, key) => {
    if (key.escape) return answer("untrusted");
    if (key.upArrow) setSelected(Math.max(0, latest.current - 1));
    else if (key.downArrow) setSelected(Math.min(CHOICES.length - 1, latest.current + 1));
    else if (key.return) answer(CHOICES[latest.current]!.value);
    else if (input === "y") answer("trust");
    else if (input === "n") answer("untrusted");
  });
  const lines = items.flatMap((item) => [{ head: true, text: `${item.what}` }, ...item.details.map((d) => ({ head: false, text: d }))]);
  const shown = lines.slice(0, maxLines);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text bold>Do you trust the files in this folder?</Text>
      <Text wrap="truncate-middle">{folder}</Text>
      <Text>Its own settings would turn on:</Text>
      {shown.map((line, i) => (
        <Text key={i} wrap="truncate-end" dimColor={!line.head}>
          {line.head ? `• ${line.text}` : `    ${line.text}`}
        </Text>
      ))}
      {lines.length > shown.length && <Text dimColor>    … and {lines.length - shown.length} more (toolgate doctor lists them all)</Text>}
      <Text>Trust it only if you know where these files came from. Until then they are ignored; deny rules still apply.</Text>
      {CHOICES.map((choice, i) => (
        <Text key={choice.value} color={i === selected ? "cyan" : undefined}>
          {i === selected ? "❯ " : "  "}
          {choice.label}
        </Text>
      ))}
      <Text dimColor>↑/↓ Enter to choose · y / n · Esc: no</Text>
    </Box>
  );
}
