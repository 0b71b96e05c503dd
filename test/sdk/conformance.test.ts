/**
 * Claude Code conformance: the tool results toolgate gives for 37 probe calls, against the same calls recorded
 * from the real Claude Code CLI (test/fixtures/conformance/claude-code.json, scripts/conformance-probe.mjs).
 * Wording is our own; the shapes a model relies on are checked here row by row, as docs/agent-sdk.md's
 * "Claude Code conformance" table states them, so the table cannot go stale.
 */
import fs from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { fixturePath, recordSession } from "../../scripts/conformance-probe.mjs";
import { cliArgs, cliEnv } from "../cliCommand.js";

type Result = { content: unknown; is_error: boolean; missing?: boolean };
const fixture = JSON.parse(fs.readFileSync(fixturePath, "utf8")) as { probes: Array<{ id: string; claudeCode: Result }> };

const text = (c: unknown): string => (typeof c === "string" ? c : Array.isArray(c) ? c.map((b: { text?: string; type: string }) => b.text ?? `[${b.type}]`).join("\n") : JSON.stringify(c));

/** What a model keys on: error or not, the error wrapper, cat -n numbering, a persisted-output preview. */
function shape(r: Result): string {
  const t = text(r.content);
  return [r.is_error ? "error" : "ok", /^<tool_use_error>/.test(t) ? "wrapped" : "", /^\s*\d+\t/.test(t) ? "numbered" : "", /^<persisted-output>/.test(t) ? "persisted" : ""].filter(Boolean).join(" ");
}

/** Rows where toolgate's shape differs from Claude Code's on purpose (docs/agent-sdk.md says why), with ours. */
const DIFFERENT: Record<string, string> = {
  "read-missing": "error wrapped",
  "read-directory": "error wrapped",
  "read-over-size": "error wrapped",
  "edit-unread": "error wrapped",
  "write-existing-unread": "error wrapped",
  "bash-timeout": "error",
};

describe("Claude Code conformance", () => {
  let ours: Record<string, Result>;
  beforeAll(async () => {
    ours = (await recordSession("toolgate", { toolgateArgs: [...cliArgs], env: { ...cliEnv } })).results as Record<string, Result>;
  }, 120_000);

  it("every probe got exactly one result", () => {
    for (const probe of fixture.probes) expect(ours[probe.id], probe.id).toBeDefined();
    for (const probe of fixture.probes) expect(ours[probe.id]!.missing, probe.id).toBeUndefined();
  });

  it.each(fixture.probes.map((p) => [p.id, p] as const))("%s", (id, probe) => {
    const expected = DIFFERENT[id] ?? shape(probe.claudeCode);
    expect(shape(ours[id]!)).toBe(expected);
    // a row listed as different must still differ from Claude Code's, or the list (and the docs table) is stale
    if (id in DIFFERENT) expect(shape(probe.claudeCode)).not.toBe(expected);
  });

  it("the rows the table calls the same text are the same text", () => {
    for (const id of ["glob-mtime", "glob-none", "grep-content", "grep-none", "bash-success", "bash-silent", "bash-exit", "unknown-tool"]) {
      expect(text(ours[id]!.content), id).toBe(text(fixture.probes.find((p) => p.id === id)!.claudeCode.content));
    }
  });

  it("a large Bash output is a short preview with the file that holds all of it, as Claude Code's", () => {
    const t = text(ours["bash-large"]!.content);
    expect(t.length).toBeLessThan(5_000);
    expect(t).toMatch(/<persisted-output>[\s\S]*<\/persisted-output>/);
  });
});
