import { describe, expect, it } from "vitest";
import { createCallLock } from "../../src/mcp/server/callLock.js";
import { toolResultToCallToolResult } from "../../src/mcp/server/content.js";
import { describeSuggestions } from "../../src/mcp/server/permissionPrompt.js";

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("createCallLock", () => {
  it("runs shared calls together and an exclusive call alone, in arrival order", async () => {
    const lock = createCallLock();
    const events: string[] = [];
    const task = (name: string, shared: boolean) =>
      lock.run(shared, async () => {
        events.push(`start ${name}`);
        await tick();
        events.push(`end ${name}`);
        return name;
      });
    const results = await Promise.all([task("read1", true), task("read2", true), task("edit", false), task("read3", true)]);
    expect(results).toEqual(["read1", "read2", "edit", "read3"]);
    expect(events).toEqual(["start read1", "start read2", "end read1", "end read2", "start edit", "end edit", "start read3", "end read3"]);
  });

  it("releases the lock when a task fails", async () => {
    const lock = createCallLock();
    await expect(lock.run(false, async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(lock.run(false, async () => "next")).resolves.toBe("next");
  });
});

describe("toolResultToCallToolResult", () => {
  it("maps strings, text, images, documents and tool references; is_error → isError", () => {
    expect(toolResultToCallToolResult({ type: "tool_result", tool_use_id: "t", content: "plain", is_error: true })).toEqual({
      content: [{ type: "text", text: "plain" }],
      isError: true,
    });
    expect(
      toolResultToCallToolResult({
        type: "tool_result",
        tool_use_id: "t",
        content: [
          { type: "text", text: "a" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
          { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBE" }, title: "doc" },
          { type: "document", source: { type: "text", media_type: "text/plain", data: "doc text" } },
          { type: "tool_reference", tool_name: "mcp__x__y" },
        ],
      }),
    ).toEqual({
      content: [
        { type: "text", text: "a" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "resource", resource: { uri: "toolgate://document/2/doc", mimeType: "application/pdf", blob: "JVBE" } },
        { type: "text", text: "doc text" },
        { type: "text", text: "[tool reference: mcp__x__y]" },
      ],
    });
  });
});

describe("describeSuggestions", () => {
  it("names the rules that would allow a call", () => {
    expect(
      describeSuggestions([
        { type: "addRules", behavior: "allow", rules: [{ toolName: "Bash", ruleContent: "npm run (x)" }], destination: "localSettings" },
        { type: "addDirectories", directories: ["/data"], destination: "session" },
      ]),
    ).toBe(' An allow rule such as "Bash(npm run \\(x\\))" (localSettings) or the directories /data (session) would let it run.');
    expect(describeSuggestions(undefined)).toBe("");
  });
});
