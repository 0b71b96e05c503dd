/** `--agents <json>`: subagents defined on the command line, through the real CLI and the scripted model server. */
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { FakeModelServer } from "../../scripts/fake-model.mjs";
import { project, runCli, serveModel } from "../cli/agentRun.js";

vi.setConfig({ testTimeout: 120_000 });

function run(args: string[], server: FakeModelServer, dir: string) {
  const home = path.join(dir, ".home");
  return runCli(args, { ...process.env, HOME: home, TOOLGATE_HOME: home, ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", TOOLGATE_PROVIDER: "" });
}

describe("toolgate -p --agents", () => {
  it("an inline agent is listed in init, replaces the agent file of its name, and the Agent tool runs it with its prompt and tools", async () => {
    const server = await serveModel({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_agent", name: "Agent", input: { description: "Check notes", prompt: "Quote notes.txt.", subagent_type: "note-reader" } }] },
        { content: [{ type: "text", text: "notes say: ship" }] },
        { content: [{ type: "text", text: "done" }] },
      ],
    });
    const dir = project({
      "notes.txt": "ship\n",
      ".claude/agents/note-reader.md": "---\nname: note-reader\ndescription: From the file.\n---\nFILE PROMPT\n",
      ".claude/agents/other.md": "---\nname: other\ndescription: Another one.\n---\nOther prompt\n",
    });
    const agents = { "note-reader": { description: "Reads notes inline.", prompt: "INLINE PROMPT: quote the notes.", tools: ["Read", "Grep"] }, reviewer: { description: "Reviews.", prompt: "Review." } };
    const result = await run(["-p", "notes?", "--cwd", dir, "--output-format", "stream-json", "--no-sandbox", "--agents", JSON.stringify(agents)], server, dir);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines[0].agents).toEqual(expect.arrayContaining(["note-reader", "reviewer", "other"]));
    expect(lines.at(-1)).toMatchObject({ type: "result", result: "done" });
    const [parent, sub] = server.requests().map((r) => r.body);
    expect(JSON.stringify(parent.tools)).toContain("note-reader: Reads notes inline.");
    expect(JSON.stringify(parent.tools)).not.toContain("From the file.");
    expect(JSON.stringify(sub.system)).toContain("INLINE PROMPT: quote the notes.");
    expect(JSON.stringify(sub.system)).not.toContain("FILE PROMPT");
    expect(sub.tools.map((t: { name: string }) => t.name).sort()).toEqual(["Grep", "Read"]);
  });

  it("invalid JSON and an entry without a prompt are usage errors naming the problem", async () => {
    const server = await serveModel({ loop: true, turns: [{ content: [{ type: "text", text: "x" }] }] });
    const dir = project({});
    const bad = await run(["-p", "hi", "--cwd", dir, "--no-sandbox", "--agents", "{not json"], server, dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--agents: not valid JSON/);
    const missing = await run(["-p", "hi", "--cwd", dir, "--no-sandbox", "--agents", JSON.stringify({ helper: { description: "no prompt" } })], server, dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--agents: agents.helper needs a description and a prompt");
    expect(server.requests()).toHaveLength(0);
  });
});
