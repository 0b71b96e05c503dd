import { Component, type ReactNode } from "react";
import type { AnyToolRenderer, GroupedUse, RenderOptions, RenderedResult } from "./toolRenderer.js";
import { genericRenderer } from "./genericRenderer.js";

/** Catches a renderer that throws while Ink draws it, and draws the fallback instead of taking the UI down. */
class RenderBoundary extends Component<{ fallback: () => ReactNode; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override render() {
    return this.state.failed ? this.props.fallback() : this.props.children;
  }
}

/** A model can send any JSON as a tool's input (a string, null, an array): renderers only ever see an object. */
function asInput(input: unknown): Record<string, unknown> {
  return input !== null && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}

/** Draws `primary`, or `fallback` when it throws now or while Ink renders what it returned. */
function guarded(primary: () => ReactNode, fallback: () => ReactNode): ReactNode {
  let node: ReactNode;
  try {
    node = primary();
  } catch {
    return fallback();
  }
  return <RenderBoundary fallback={fallback}>{node}</RenderBoundary>;
}

/**
 * A renderer that never throws and never sees a non-object input: each method falls back to the generic
 * renderer's drawing when the tool's own one fails (a malformed output, an input shape nobody expected).
 */
export function safeRenderer(renderer: AnyToolRenderer, toolName: string): AnyToolRenderer {
  if (renderer === genericRenderer) return renderer;
  const generic = genericRenderer;
  return {
    userFacingName(input) {
      try {
        const name = renderer.userFacingName?.(asInput(input));
        return typeof name === "string" && name !== "" ? name : toolName;
      } catch {
        return toolName;
      }
    },
    renderToolUseMessage: (input, options) =>
      guarded(
        () => renderer.renderToolUseMessage(asInput(input), options),
        () => generic.renderToolUseMessage(asInput(input), options),
      ),
    renderPermissionPreview: (input, options) =>
      guarded(
        () => (renderer.renderPermissionPreview ?? renderer.renderToolUseMessage)(asInput(input), options),
        () => generic.renderPermissionPreview!(asInput(input), options),
      ),
    renderToolUseProgressMessage: renderer.renderToolUseProgressMessage
      ? (progress, input, options) =>
          guarded(
            () => renderer.renderToolUseProgressMessage!(Array.isArray(progress) ? progress : [], asInput(input), options),
            () => null,
          )
      : undefined,
    renderToolResultMessage: (result: RenderedResult, input: unknown, options: RenderOptions) =>
      guarded(
        () => (renderer.renderToolResultMessage ?? generic.renderToolResultMessage!)(result, asInput(input), options),
        () => generic.renderToolResultMessage!(result, asInput(input), options),
      ),
    renderToolUseRejectedMessage: (input, options) =>
      guarded(
        () => (renderer.renderToolUseRejectedMessage ?? generic.renderToolUseRejectedMessage!)(asInput(input), options),
        () => generic.renderToolUseRejectedMessage!(asInput(input), options),
      ),
    renderToolUseErrorMessage: (message, input, options) =>
      guarded(
        () => (renderer.renderToolUseErrorMessage ?? generic.renderToolUseErrorMessage!)(String(message ?? ""), asInput(input), options),
        () => generic.renderToolUseErrorMessage!(String(message ?? ""), asInput(input), options),
      ),
    renderGroupedToolUse: renderer.renderGroupedToolUse
      ? (uses: readonly GroupedUse[], options: RenderOptions) => {
          try {
            const node = renderer.renderGroupedToolUse!(uses.map((u) => ({ ...u, input: asInput(u.input), progress: Array.isArray(u.progress) ? u.progress : [] })), options);
            // null means "draw them one by one", which is also the way out when the group cannot be drawn
            return node === null ? null : <RenderBoundary fallback={() => null}>{node}</RenderBoundary>;
          } catch {
            return null;
          }
        }
      : undefined,
    isResultTruncated(result, input) {
      try {
        return (renderer.isResultTruncated ?? generic.isResultTruncated!)(result, asInput(input)) === true;
      } catch {
        return false;
      }
    },
  };
}
