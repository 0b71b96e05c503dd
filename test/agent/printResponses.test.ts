/**
 * `toolgate -p --provider openai-responses` as a user runs it: the real CLI against the scripted model server's
 * Responses API, a codex model reading a file with a function call and changing it with apply_patch sent as the
 * native custom tool.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startFakeModelServer, type FakeModelServer } from "../../scripts/fake-model.mjs";
import { cliArgs, cliEnv, repoRoot, withoutSandboxNotice } from "../cliCommand.js";

vi.setConfig({ testTimeout: 120_000 });

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...cliArgs, ...args], { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("toolgate -p --provider openai-responses", () => {
  it("reads with a function call, patches with the custom apply_patch tool, answers; each request carries the last turn's call and output", async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-responses-")));
    fs.writeFileSync(path.join(dir, "notes.txt"), "status: draft\n");
    fs.mkdirSync(path.join(dir, ".home"));
    const patch = "*** Begin Patch\n*** Update File: notes.txt\n@@\n-status: draft\n+status: shipped\n*** End Patch\n";
    const server = await startFakeModelServer({
      script: {
        turns: [
          { content: [{ type: "thinking", thinking: "Read the note first.", signature: "enc-turn-1" }, { type: "tool_use", id: "call_read", name: "Read", input: { file_path: "notes.txt" } }], chunks: 3 },
          { content: [{ type: "tool_use", id: "call_patch", name: "apply_patch", input: { input: patch } }], chunks: 4 },
          { content: [{ type: "text", text: "The note now says shipped." }], usage: { input_tokens: 50, output_tokens: 7 } },
        ],
      },
    });
    servers.push(server);
    const env = { ...process.env, ...cliEnv, TOOLGATE_HOME: path.join(dir, ".home"), ANTHROPIC_API_KEY: "", ANTHROPIC_BASE_URL: "", TOOLGATE_PROVIDER: "", OPENAI_API_KEY: "test", OPENAI_BASE_URL: `${server.url}/v1` };
    const run = await runCli(["-p", "Mark the note shipped.", "--provider", "openai-responses", "--model", "gpt-5-codex", "--cwd", dir, "--permission-mode", "acceptEdits", "--output-format", "json", "--no-sandbox"], env);
    expect(withoutSandboxNotice(run.stderr)).toBe("");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ type: "result", subtype: "success", is_error: false, num_turns: 3, result: "The note now says shipped." });
    expect(fs.readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("status: shipped\n");

    const requests = server.requests();
    expect(requests.map((r) => r.path)).toEqual(["/v1/responses", "/v1/responses", "/v1/responses"]);
    const [first, second, third] = requests.map((r) => r.body);
    expect(first).toMatchObject({ model: "gpt-5-codex", store: false, include: ["reasoning.encrypted_content"], reasoning: { summary: "auto" } });
    // The codex model's edit dialect: apply_patch (a custom grammar tool here), not Edit.
    const names = first.tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(["Read", "apply_patch", "Bash"]));
    expect(names).not.toContain("Edit");
    expect(first.tools.find((t: { name: string }) => t.name === "apply_patch")).toMatchObject({ type: "custom", format: { type: "grammar", syntax: "lark" } });
    const kinds = (body: { input: Array<Record<string, unknown>> }) => body.input.map((i) => i.type ?? i.role);
    expect(kinds(second)).toEqual(["user", "reasoning", "function_call", "function_call_output"]);
    expect(second.input[1]).toMatchObject({ id: "rs_fake_0", encrypted_content: "enc-turn-1" });
    expect(second.input[3]).toMatchObject({ call_id: "call_read", output: expect.stringContaining("status: draft") });
    expect(kinds(third).slice(-2)).toEqual(["custom_tool_call", "custom_tool_call_output"]);
    expect(third.input.at(-2)).toEqual({ type: "custom_tool_call", call_id: "call_patch", name: "apply_patch", input: patch });
    expect(third.input.at(-1)).toMatchObject({ call_id: "call_patch", output: expect.stringContaining("notes.txt") });
  });
});
