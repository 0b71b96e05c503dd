import { Box } from "ink";
import { render } from "ink-testing-library";
import type { ReactNode } from "react";
import { expect } from "vitest";
import type { ToolResultUpdate } from "../../../src/core/pipeline/index.js";
import type { AnyToolRenderer, RenderOptions, RenderedResult } from "../../../src/ui/toolRenderer.js";

export const CWD = "/work/project";

export function renderOptions(overrides: Partial<RenderOptions> = {}): RenderOptions {
  return { columns: 100, expanded: false, verbose: false, cwd: CWD, ...overrides };
}

/** The text Ink draws for a node (inside a box as wide as `columns`). */
export function draw(node: ReactNode, columns = 100): string {
  const instance = render(<Box width={columns} flexDirection="column">{node}</Box>);
  const frame = instance.lastFrame() ?? "";
  instance.unmount();
  return frame;
}

/** What the UI gets from the executor's result update. */
export function rendered<Output>(update: ToolResultUpdate): RenderedResult<Output> {
  return { output: update.output as Output, content: update.block.content, isError: update.block.is_error === true, outcome: update.outcome, durationMs: update.durationMs };
}

/** A successful result with this text; `Output` is inferred from an `output` override, else fits any renderer. */
export function textResult<Output = never>(text: string, overrides: Partial<RenderedResult<Output>> = {}): RenderedResult<Output> {
  return { content: text, isError: false, outcome: "success", ...overrides };
}

/**
 * The inputs a renderer sees while the model streams `full`: nothing, the first members, the last of them cut
 * mid-string, an array whose last element is half there.
 */
export function partialsOf(full: Record<string, unknown>): Record<string, unknown>[] {
  const entries = Object.entries(full);
  const out: Record<string, unknown>[] = [{}];
  for (let k = 1; k <= entries.length; k++) {
    const head = Object.fromEntries(entries.slice(0, k - 1));
    const [key, value] = entries[k - 1];
    out.push({ ...head, [key]: cut(value) });
    out.push({ ...head, [key]: value });
  }
  return out;
}

function cut(value: unknown): unknown {
  if (typeof value === "string") return value.slice(0, Math.ceil(value.length / 2));
  if (Array.isArray(value)) {
    if (value.length === 0) return value;
    const last = value[value.length - 1];
    const partialLast = last && typeof last === "object" ? Object.fromEntries(Object.entries(last).slice(0, 1).map(([k, v]) => [k, cut(v)])) : cut(last);
    return [...value.slice(0, -1), partialLast];
  }
  return value;
}

/** Every partial input draws a summary without throwing; returns the frames. */
export function expectPartialsDraw(renderer: AnyToolRenderer, full: Record<string, unknown>, options = renderOptions()): string[] {
  return partialsOf(full).map((input) => {
    let frame = "";
    expect(() => {
      frame = draw(<>{renderer.renderToolUseMessage(input, options)}</>);
      if (renderer.userFacingName) renderer.userFacingName(input);
      if (renderer.renderToolUseRejectedMessage) draw(<>{renderer.renderToolUseRejectedMessage(input, { ...options, reason: "no" })}</>);
      if (renderer.renderToolUseProgressMessage) draw(<>{renderer.renderToolUseProgressMessage([], input, options)}</>);
    }, JSON.stringify(input)).not.toThrow();
    return frame;
  });
}

/** A text of `n` numbered lines. */
export function numberedLines(n: number, prefix = "line"): string {
  return Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`).join("\n");
}
