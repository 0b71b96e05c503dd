import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { attachMentionedFiles, mentionedPaths } from "../../src/agent/mentions.js";
import { promptText } from "../../src/agent/history.js";
import { createEmptyPermissionContext } from "../../src/core/context.js";
import { ReadTool } from "../../src/tools/Read/index.js";
import { approveAll, tempDir, testContext } from "../helpers.js";

function project() {
  const dir = fs.realpathSync(tempDir("tg-mentions-"));
  fs.mkdirSync(path.join(dir, "src"));
  fs.writeFileSync(path.join(dir, "src", "notes.md"), "line one\nline two\n");
  fs.writeFileSync(path.join(dir, "secret.txt"), "hunter2\n");
  fs.writeFileSync(path.join(dir, "with space.txt"), "spaced\n");
  return dir;
}

describe("@file mentions", () => {
  it("finds paths after @ at a word start; an email or trailing punctuation is not part of one", () => {
    expect(mentionedPaths("look at @src/notes.md, then @secret.txt. mail me@example.com @src/notes.md")).toEqual(["src/notes.md", "secret.txt"]);
    expect(mentionedPaths("@with\\ space.txt and @")).toEqual(["with space.txt"]);
  });

  it("attaches a mentioned file's content as Read returns it, and the prompt's own text stays what the person wrote", async () => {
    const dir = project();
    const context = testContext({ tools: [ReadTool], cwd: dir });
    const prompt = "summarise @src/notes.md and @with\\ space.txt, not @nowhere.md";
    const attached = await attachMentionedFiles(prompt, context, approveAll);
    expect(attached.blocks).toHaveLength(2);
    const first = attached.blocks[0] as { type: "text"; text: string };
    expect(first.text).toMatch(/^<attached-file path="src\/notes.md">/);
    expect(first.text).toContain("line one");
    expect(first.text).toContain("line two");
    expect((attached.blocks[1] as { text: string }).text).toContain("spaced");
    expect(attached.notes).toEqual([{ level: "info", text: "attached @src/notes.md" }, { level: "info", text: "attached @with space.txt" }]);
    // Read recorded it, so an Edit of the file needs no Read first
    expect(context.readFileState.has(path.join(dir, "src", "notes.md"))).toBe(true);
    expect(promptText({ role: "user", content: [...attached.blocks, { type: "text", text: prompt }] })).toBe(prompt);
  });

  it("a file a deny rule keeps from Read is not attached, and the person is told why", async () => {
    const dir = project();
    const permissionContext = { ...createEmptyPermissionContext(dir), rules: [{ source: "userSettings" as const, ruleBehavior: "deny" as const, ruleValue: { toolName: "Read", ruleContent: "./secret.txt" }, root: dir }] };
    const context = testContext({ tools: [ReadTool], cwd: dir, permissionContext });
    const attached = await attachMentionedFiles("what is in @secret.txt", context, approveAll);
    expect(attached.blocks).toEqual([]);
    expect(attached.notes).toHaveLength(1);
    expect(attached.notes[0]!.level).toBe("warning");
    expect(attached.notes[0]!.text).toMatch(/^@secret\.txt was not attached: .*denied/i);
    expect(JSON.stringify(attached)).not.toContain("hunter2");
  });

  it("a call the person refuses when asked is not attached either", async () => {
    const dir = project();
    const context = testContext({ tools: [ReadTool], cwd: dir, permissionContext: { ...createEmptyPermissionContext(dir), rules: [{ source: "userSettings", ruleBehavior: "ask", ruleValue: { toolName: "Read" } }] } });
    const attached = await attachMentionedFiles("@secret.txt", context, async () => ({ behavior: "deny", message: "The user said no." }));
    expect(attached.blocks).toEqual([]);
    expect(attached.notes[0]!.text).toContain("The user said no.");
  });
});
