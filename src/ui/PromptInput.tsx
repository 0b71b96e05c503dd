/**
 * The multi-line prompt: Enter sends; `\` before Enter, Alt+Enter, Shift+Enter (where the terminal reports it)
 * or Ctrl+J start a new line; ↑/↓ browse the history at the first/last line; a big paste becomes a placeholder;
 * Tab completes an `@path` mention.
 */
import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";
import {
  completeMention,
  cursorToLineEnd,
  cursorToLineStart,
  deleteBackward,
  EMPTY_INPUT,
  expandPastes,
  inputOf,
  insertPaste,
  insertText,
  mentionAtCursor,
  moveCursor,
  onFirstLine,
  onLastLine,
  type InputState,
} from "./inputBuffer.js";
import { commonPrefix, matchFiles } from "./fileMentions.js";
import type { PromptHistory } from "./promptHistory.js";

export interface PromptInputProps {
  onSubmit(text: string): void;
  history: PromptHistory;
  /** The project's files for `@` completion; called on the first Tab after an `@`. */
  listFiles?: () => Promise<readonly string[]>;
  /** The MCP servers' resources as `server:uri`, offered with the files; asked on every Tab (servers change them). */
  listResources?: () => readonly string[];
  isActive?: boolean;
  /** Reported on every change, so Esc-Esc can tell an empty prompt. */
  onChange?(text: string): void;
  /** Text to start with (a rewound prompt, the first prompt is not put here). */
  initial?: string;
  placeholder?: string;
  /** The slash commands, offered under the input while it is a `/` and the start of a name; Tab completes. */
  commands?: ReadonlyArray<{ name: string; help: string }>;
}

/** How many `/` menu entries show at once. */
const MENU_ROWS = 8;

/** The commands a partly typed `/name` may be (all of them for a bare `/`); none once there is a space. */
export function commandMatches(text: string, commands: ReadonlyArray<{ name: string; help: string }>): Array<{ name: string; help: string }> {
  const typed = /^\/(\S*)$/.exec(text);
  if (!typed) return [];
  const query = typed[1]!.toLowerCase();
  return commands.filter((c) => c.name.toLowerCase().startsWith(query));
}

export function PromptInput({ onSubmit, history, listFiles, listResources, isActive = true, onChange, initial, placeholder, commands = [] }: PromptInputProps) {
  const [state, setStateRaw] = useState<InputState>(() => (initial ? inputOf(initial) : EMPTY_INPUT));
  const [matches, setMatches] = useState<string[]>([]);
  const files = useRef<readonly string[] | undefined>(undefined);
  // Keys can arrive faster than React re-renders (a paste split in chunks): edits chain on the latest state.
  const latest = useRef(state);
  const setState = (next: InputState) => {
    latest.current = next;
    setStateRaw(next);
    onChange?.(next.text);
  };

  const complete = async (current: InputState) => {
    const mention = mentionAtCursor(current);
    if (!mention) return;
    files.current ??= listFiles ? await listFiles() : [];
    const found = matchFiles([...(listResources?.() ?? []), ...files.current], mention.query);
    setMatches(found);
    if (found.length === 0) return;
    const prefix = found.length === 1 ? found[0]! : commonPrefix(found);
    // Only when the user has not typed on meanwhile.
    if (latest.current === current && prefix.length > mention.query.length) setState(completeMention(current, prefix));
  };

  useInput(
    (input, key) => {
      const s = latest.current;
      if (key.escape || (key.ctrl && (input === "c" || input === "o" || input === "d")) || (key.tab && key.shift)) return;
      if (key.tab) {
        const menu = commandMatches(s.text, commands);
        if (menu.length === 1) return setState(inputOf(`/${menu[0]!.name} `));
        if (menu.length > 1) {
          const prefix = commonPrefix(menu.map((c) => c.name));
          if (prefix.length + 1 > s.text.length) setState(inputOf(`/${prefix}`));
          return;
        }
        void complete(s);
        return;
      }
      setMatches([]);
      const submit = (current: InputState) => {
        if (current.text.slice(0, current.cursor).endsWith("\\")) return setState(insertText(deleteBackward(current), "\n"));
        const text = expandPastes(current);
        if (!text.trim()) return setState(current);
        history.add(text);
        setState(EMPTY_INPUT);
        onSubmit(text);
      };
      if (key.return) {
        const newline = key.meta || key.shift;
        if (newline) return setState(insertText(s, "\n"));
        return submit(s);
      }
      // Text and Enter in one read (typed fast, sent by a script or tmux): the text, then Enter. A paste of
      // several lines has line breaks inside it and stays a paste.
      if (/^[^\r\n]+\r$/.test(input)) return submit(insertText(s, input.slice(0, -1)));
      if (input === "\n") return setState(insertText(s, "\n"));
      if (key.backspace || key.delete) return setState(deleteBackward(s));
      if (key.leftArrow) return setState(moveCursor(s, -1));
      if (key.rightArrow) return setState(moveCursor(s, 1));
      if (key.ctrl && input === "a") return setState(cursorToLineStart(s));
      if (key.ctrl && input === "e") return setState(cursorToLineEnd(s));
      if (key.ctrl && input === "u") return setState(EMPTY_INPUT);
      if (key.upArrow) {
        if (!onFirstLine(s)) {
          const lineStart = s.text.lastIndexOf("\n", s.cursor - 1);
          return setState({ ...s, cursor: Math.max(0, s.text.lastIndexOf("\n", lineStart - 1) + 1) });
        }
        const previous = history.previous(s.text);
        if (previous !== undefined) setState(inputOf(previous));
        return;
      }
      if (key.downArrow) {
        if (!onLastLine(s)) return setState(cursorToLineEnd(moveCursor(cursorToLineEnd(s), 1)));
        const next = history.next();
        if (next !== undefined) setState(inputOf(next));
        return;
      }
      if (key.ctrl || key.pageUp || key.pageDown || key.home || key.end) return;
      if (!input) return;
      if (input.length > 1 || input.includes("\r")) return setState(insertPaste(s, input));
      setState(insertText(s, input));
    },
    { isActive },
  );

  const before = state.text.slice(0, state.cursor);
  const at = state.text[state.cursor];
  const after = state.text.slice(state.cursor + 1);
  const showCursor = isActive;
  const menu = commandMatches(state.text, commands);
  const menuWidth = Math.max(0, ...menu.slice(0, MENU_ROWS).map((c) => c.name.length));
  return (
    <Box flexDirection="column">
      <Box borderStyle="round" borderDimColor paddingX={1}>
        <Box flexShrink={0}>
          <Text>{"> "}</Text>
        </Box>
        <Box flexGrow={1} flexShrink={1}>
          {state.text === "" && placeholder ? (
            <Text>
              {showCursor ? <Text inverse> </Text> : null}
              <Text dimColor>{placeholder}</Text>
            </Text>
          ) : (
            <Text>
              {before}
              {showCursor ? <Text inverse>{at === undefined || at === "\n" ? " " : at}</Text> : at}
              {at === "\n" ? "\n" : ""}
              {after}
            </Text>
          )}
        </Box>
      </Box>
      {isActive && menu.length > 0 && (
        <Box flexDirection="column" marginLeft={2}>
          {menu.slice(0, MENU_ROWS).map((c) => (
            <Text key={c.name} wrap="truncate-end">
              <Text color="cyan">/{c.name.padEnd(menuWidth)}</Text>
              <Text dimColor>  {c.help}</Text>
            </Text>
          ))}
          {menu.length > MENU_ROWS ? <Text dimColor>… {menu.length - MENU_ROWS} more (type to narrow, Tab completes)</Text> : null}
        </Box>
      )}
      {matches.length > 0 && (
        <Box flexDirection="column" marginLeft={2}>
          {matches.map((m) => (
            <Text key={m} dimColor>
              @{m}
            </Text>
          ))}
        </Box>
      )}
    </Box>
  );
}
