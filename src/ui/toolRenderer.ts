/**
 * How a tool draws itself in the terminal UI. Each tool's renderer lives beside it in `src/tools/<Name>/ui.tsx`
 * and is loaded on demand through `src/ui/renderers.ts`, so nothing outside the UI ever loads React.
 */
import type { ReactNode } from "react";
import type { ToolResultBlockParam } from "../core/messages.js";
import type { ToolUseOutcome } from "../core/pipeline/status.js";

export interface RenderOptions {
  /** Terminal width in columns. */
  columns: number;
  /** Ctrl+O: show long results whole instead of collapsed. */
  expanded: boolean;
  verbose: boolean;
  /** The session's working directory, for showing paths relative to it. */
  cwd: string;
}

export interface PreviewOptions extends RenderOptions {
  /** Rows the preview may take while collapsed. */
  maxLines: number;
}

/** A finished call as the UI knows it (from the executor's result update). */
export interface RenderedResult<Output = unknown> {
  /** The tool's structured output on success (`ToolResultUpdate.output`). */
  output?: Output;
  /** What the model was sent. */
  content: ToolResultBlockParam["content"];
  isError: boolean;
  outcome: ToolUseOutcome;
  durationMs?: number;
}

/** One call in a group of parallel uses of the same tool. */
export interface GroupedUse<Input = Record<string, unknown>, Output = unknown> {
  toolUseID: string;
  input: Partial<Input>;
  progress: readonly unknown[];
  result?: RenderedResult<Output>;
}

export interface ToolRenderer<Input = Record<string, unknown>, Output = unknown> {
  /** The name shown in the UI; default the tool's name. */
  userFacingName?(input: Partial<Input>): string;
  /**
   * The call's one-line summary. `input` may be partial while the model is still streaming it (any member may
   * be missing or cut short): draw what is there, never throw.
   */
  renderToolUseMessage(input: Partial<Input>, options: RenderOptions): ReactNode;
  /**
   * What the permission dialog shows of the call it asks about, as a person reads it: a command, a path and the
   * change, a URL, arguments as `key: value`. Without it the dialog shows `renderToolUseMessage`. At most about
   * `maxLines` rows unless `expanded`, so the dialog and its choices fit on the screen.
   */
  renderPermissionPreview?(input: Partial<Input>, options: PreviewOptions): ReactNode;
  /** While it runs: the progress events the tool emitted so far (oldest first). */
  renderToolUseProgressMessage?(progress: readonly unknown[], input: Partial<Input>, options: RenderOptions): ReactNode;
  renderToolResultMessage?(result: RenderedResult<Output>, input: Input, options: RenderOptions): ReactNode;
  /** The user (or a rule, or a hook) said no. */
  renderToolUseRejectedMessage?(input: Partial<Input>, options: RenderOptions & { reason?: string }): ReactNode;
  /** The call failed (tool error, invalid input, runtime error): `message` is what the model was told. */
  renderToolUseErrorMessage?(message: string, input: Partial<Input>, options: RenderOptions): ReactNode;
  /** Several uses of this tool in one message, drawn as one block; null to draw them one by one. */
  renderGroupedToolUse?(uses: readonly GroupedUse<Input, Output>[], options: RenderOptions): ReactNode | null;
  /** Whether the collapsed result hides part of it (the UI then offers Ctrl+O). */
  isResultTruncated?(result: RenderedResult<Output>, input: Input): boolean;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolRenderer = ToolRenderer<any, any>;
