/**
 * Colours as a terminal sees them. chalk decides its colour level when it is first imported, so this file forces
 * colour before loading Ink (each test file runs in its own process) and loads everything dynamically.
 */
import { describe, expect, it } from "vitest";
import { structuredPatch } from "diff";

process.env.FORCE_COLOR = "1";
delete process.env.NO_COLOR;

const { render } = await import("ink-testing-library");
const { Diff, CollapsedText } = await import("../../../src/ui/components/index.js");

function frameOf(node: Parameters<typeof render>[0]): string {
  const instance = render(node);
  const frame = instance.lastFrame() ?? "";
  instance.unmount();
  return frame;
}

const RED = "\u001b[31m";
const GREEN = "\u001b[32m";

describe("colours", () => {
  it("colours added lines green and removed lines red", () => {
    const { hunks } = structuredPatch("f", "f", "keep\nold\n", "keep\nnew\n");
    const frame = frameOf(<Diff hunks={hunks} />);
    const removed = frame.split("\n").find((l) => l.includes("- old"));
    const added = frame.split("\n").find((l) => l.includes("+ new"));
    expect(removed).toContain(RED);
    expect(added).toContain(GREEN);
    expect(frame.split("\n").find((l) => l.includes("keep"))).not.toContain(GREEN);
  });

  it("draws the same diff without any colour under NO_COLOR", () => {
    process.env.NO_COLOR = "1";
    try {
      const { hunks } = structuredPatch("f", "f", "keep\nold\n", "keep\nnew\n");
      const frame = frameOf(<Diff hunks={hunks} />);
      expect(frame).not.toContain(RED);
      expect(frame).not.toContain(GREEN);
      expect(frameOf(<CollapsedText text="error text" color="red" />)).not.toContain(RED);
    } finally {
      delete process.env.NO_COLOR;
    }
  });
});
