/** A list to pick one entry from (rewind, resume): ↑/↓ and Enter, Esc to cancel. */
import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";

export interface PickerProps<T> {
  title: string;
  entries: ReadonlyArray<{ label: string; value: T }>;
  onPick(value: T): void;
  onCancel(): void;
  /** Entries shown at once (the list scrolls). */
  visible?: number;
  initial?: number;
}

export function Picker<T>({ title, entries, onPick, onCancel, visible = 8, initial = 0 }: PickerProps<T>) {
  const [selected, setSelectedState] = useState(Math.min(initial, Math.max(0, entries.length - 1)));
  // Keys may come faster than re-renders: Enter picks the entry the last arrow moved to.
  const latest = useRef(selected);
  const setSelected = (value: number) => {
    latest.current = value;
    setSelectedState(value);
  };
  useInput((_input, key) => {
    if (key.escape) return onCancel();
    if (entries.length === 0) return;
    if (key.upArrow) setSelected(Math.max(0, latest.current - 1));
    else if (key.downArrow) setSelected(Math.min(entries.length - 1, latest.current + 1));
    else if (key.return) onPick(entries[latest.current]!.value);
  });
  const first = Math.max(0, Math.min(selected - Math.floor(visible / 2), entries.length - visible));
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>{title}</Text>
      {entries.length === 0 && <Text dimColor>(nothing to pick)</Text>}
      {entries.slice(first, first + visible).map((entry, i) => (
        <Text key={first + i} color={first + i === selected ? "cyan" : undefined} wrap="truncate-end">
          {first + i === selected ? "❯ " : "  "}
          {entry.label}
        </Text>
      ))}
      <Text dimColor>↑/↓ Enter to choose · Esc to cancel</Text>
    </Box>
  );
}
