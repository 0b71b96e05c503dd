/**
 * The prompt's text and cursor, as pure functions: typing, deleting, moving, pasting. Large pastes are kept
 * aside and shown as a placeholder, then put back whole when the prompt is sent.
 */

export interface InputState {
  text: string;
  /** Index into `text`, 0..text.length. */
  cursor: number;
  /** Placeholder → the pasted text it stands for. */
  pastes: ReadonlyMap<string, string>;
}

export const EMPTY_INPUT: InputState = { text: "", cursor: 0, pastes: new Map() };

/** A paste of this many lines (or characters) is shown as a placeholder instead of inline. */
export const PASTE_PLACEHOLDER_LINES = 3;
export const PASTE_PLACEHOLDER_CHARS = 800;

export function inputOf(text: string): InputState {
  return { text, cursor: text.length, pastes: new Map() };
}

export function insertText(state: InputState, value: string): InputState {
  const text = state.text.slice(0, state.cursor) + value + state.text.slice(state.cursor);
  return { ...state, text, cursor: state.cursor + value.length };
}

/** Terminals send a paste as one chunk; line ends may come as \r. */
export function insertPaste(state: InputState, raw: string): InputState {
  const value = raw.replace(/\r\n?/g, "\n");
  const lineCount = value.replace(/\n$/, "").split("\n").length;
  if (lineCount < PASTE_PLACEHOLDER_LINES && value.length < PASTE_PLACEHOLDER_CHARS) return insertText(state, value);
  const placeholder = `[Pasted text #${state.pastes.size + 1} +${lineCount} lines]`;
  const pastes = new Map(state.pastes);
  pastes.set(placeholder, value);
  return insertText({ ...state, pastes }, placeholder);
}

export function deleteBackward(state: InputState): InputState {
  if (state.cursor === 0) return state;
  // A placeholder goes as a whole (with its paste), never a character of it.
  for (const placeholder of state.pastes.keys()) {
    const start = state.cursor - placeholder.length;
    if (start >= 0 && state.text.slice(start, state.cursor) === placeholder) {
      const pastes = new Map(state.pastes);
      pastes.delete(placeholder);
      return { text: state.text.slice(0, start) + state.text.slice(state.cursor), cursor: start, pastes };
    }
  }
  return { ...state, text: state.text.slice(0, state.cursor - 1) + state.text.slice(state.cursor), cursor: state.cursor - 1 };
}

export function moveCursor(state: InputState, delta: number): InputState {
  return { ...state, cursor: Math.max(0, Math.min(state.text.length, state.cursor + delta)) };
}

export function cursorToLineStart(state: InputState): InputState {
  return { ...state, cursor: state.text.lastIndexOf("\n", state.cursor - 1) + 1 };
}

export function cursorToLineEnd(state: InputState): InputState {
  const end = state.text.indexOf("\n", state.cursor);
  return { ...state, cursor: end === -1 ? state.text.length : end };
}

export function onFirstLine(state: InputState): boolean {
  return !state.text.slice(0, state.cursor).includes("\n");
}

export function onLastLine(state: InputState): boolean {
  return !state.text.slice(state.cursor).includes("\n");
}

/** The prompt as sent: every placeholder replaced by its paste. */
export function expandPastes(state: InputState): string {
  let text = state.text;
  for (const [placeholder, value] of state.pastes) text = text.split(placeholder).join(value);
  return text;
}

/** The `@path` word the cursor is at the end of, if any. */
export function mentionAtCursor(state: InputState): { start: number; query: string } | undefined {
  const before = state.text.slice(0, state.cursor);
  const match = /(^|\s)@([^\s@]*)$/.exec(before);
  if (!match) return undefined;
  return { start: before.length - match[2]!.length - 1, query: match[2]! };
}

/** Replaces the mention at the cursor with `@completion`. */
export function completeMention(state: InputState, completion: string): InputState {
  const mention = mentionAtCursor(state);
  if (!mention) return state;
  const text = state.text.slice(0, mention.start) + `@${completion}` + state.text.slice(state.cursor);
  return { ...state, text, cursor: mention.start + completion.length + 1 };
}
