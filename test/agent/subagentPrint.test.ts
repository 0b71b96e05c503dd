/** `toolgate -p` with subagents: the real CLI against the scripted model server. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { FakeModelServer } from "../../scripts/fake-model.mjs";
import { project, runCli, serveModel } from "../cli/agentRun.js";

vi.setConfig({ testTimeout: 120_000 });


/** `toolgate -p` with the scripted server as its Anthropic API; the project's `.home` is both homes. */
function run(args: string[], server: FakeModelServer, dir: string) {
  const home = path.join(dir, ".home");
  return runCli(args, { ...process.env, HOME: home, TOOLGATE_HOME: home, ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", TOOLGATE_PROVIDER: "" });
}

describe("toolgate -p with subagents", () => {
  it("the parent's Agent call runs a subagent (a custom type from .claude/agents); its steps stream as tool progress; the answer carries its text", async () => {
    const server = await serveModel({
      turns: [
        { content: [{ type: "text", text: "Delegating." }, { type: "tool_use", id: "toolu_agent", name: "Agent", input: { description: "Read the notes", prompt: "Quote notes.txt.", subagent_type: "note-reader" } }] },
        { content: [{ type: "tool_use", id: "toolu_sub_read", name: "Read", input: { file_path: "notes.txt" } }] },
        { content: [{ type: "text", text: "notes.txt: ship on Monday" }] },
        { content: [{ type: "text", text: "The subagent says: ship on Monday." }] },
      ],
    });
    const dir = project({
      "notes.txt": "ship on Monday\n",
      ".claude/agents/note-reader.md": "---\nname: note-reader\ndescription: Reads notes.\ntools:\n  - Read\n---\nYou read notes and quote them.\n",
      ".toolgate/agents/broken.md": "---\nname: broken\n---\nno description\n",
    });
    const result = await run(["-p", "When do we ship?", "--cwd", dir, "--output-format", "stream-json", "--toolgate-events", "--verbose", "--no-sandbox"], server, dir);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines[0].tools).toEqual(expect.arrayContaining(["Agent", "TodoWrite"]));
    expect(lines.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "The subagent says: ship on Monday." });
    // The bad agent file is reported (stderr with --verbose) and skipped.
    expect(result.stderr).toMatch(/broken\.md was skipped: front matter needs a `description:`/);
    const progress = lines.filter((l) => l.type === "system" && l.subtype === "tool_progress" && l.tool_use_id === "toolu_agent").map((l) => l.data);
    expect(progress).toEqual(expect.arrayContaining([expect.objectContaining({ type: "subagent_tool_use", toolName: "Read", toolUseID: "toolu_sub_read" }), expect.objectContaining({ type: "subagent_text", text: "notes.txt: ship on Monday" })]));
    const requests = server.requests();
    expect(requests[1].body.tools.map((t: { name: string }) => t.name)).toEqual(["Read"]);
    expect(JSON.stringify(requests[1].body.system)).toContain("You read notes and quote them.");
    expect(JSON.stringify(requests[0].body.tools)).toContain("note-reader: Reads notes.");
    const agentResult = lines.find((l) => l.type === "user" && l.message.content[0]?.tool_use_id === "toolu_agent");
    expect(JSON.stringify(agentResult)).toContain("notes.txt: ship on Monday");
    // The subagent's transcript sits in the session's folder.
    const sessionId = lines.at(-1).session_id;
    const projects = path.join(dir, ".home", "projects");
    const [projectDir] = fs.readdirSync(projects);
    const subagents = fs.readdirSync(path.join(projects, projectDir, sessionId, "subagents"));
    expect(subagents).toHaveLength(1);
    expect(subagents[0]).toMatch(/^agent-[0-9a-f]{8}\.jsonl$/);
  });
});
