/**
 * ExitPlanMode and AskUserQuestion in `toolgate -p --input-format stream-json --output-format stream-json`, with
 * the test as the SDK host: it answers `can_use_tool` as the Agent SDK does (allow, allow with updatedInput
 * carrying `answers`, deny with a message). Without anyone to answer, the question fails and the model is told
 * to go on by itself. Both tools are in the init line's tool list.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { FakeModelServer } from "../../scripts/fake-model.mjs";
import { agentEnv, project, runCli, serveModel, startCli, type CliRun } from "../cli/agentRun.js";

vi.setConfig({ testTimeout: 120_000 });

const STREAM = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--no-sandbox"];
const PLAN = "# Add notes\n\n1. Write notes.txt";
const QUESTIONS = [
  { question: "Which date library should we use?", header: "Library", options: [{ label: "date-fns", description: "functions" }, { label: "dayjs", description: "small" }], multiSelect: false },
  { question: "Which features do you want?", header: "Features", options: [{ label: "dark mode", description: "" }, { label: "export", description: "" }, { label: "sync", description: "" }], multiSelect: true },
];

type Line = Record<string, any>;
type Answer = (request: Line) => Record<string, unknown>;

/** The CLI with stdin open: each can_use_tool request is answered by `answer` (by tool name); stdin ends at the result. */
function host(dir: string, server: FakeModelServer, args: string[], answer: Answer): Promise<CliRun & { asked: Line[] }> {
  const run = startCli([...STREAM, "--cwd", dir, ...args], agentEnv(server, dir));
  const write = (value: unknown) => run.child.stdin.write(`${JSON.stringify(value)}\n`);
  write({ type: "user", message: { role: "user", content: "go" } });
  const asked: Line[] = [];
  run.onLine((line) => {
    if (line.type === "control_request" && line.request.subtype === "can_use_tool") {
      asked.push(line.request);
      write({ type: "control_response", response: { subtype: "success", request_id: line.request_id, response: answer(line.request) } });
    }
    if (line.type === "result") run.child.stdin.end();
  });
  return run.done.then((result) => ({ ...result, asked }));
}

/** The tool_result the model was sent for `id`. */
function sentResult(server: FakeModelServer, id: string): { text: string; isError: boolean } {
  for (const request of server.requests() as Array<{ body: any }>) {
    for (const message of request.body.messages ?? []) {
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (block.type === "tool_result" && block.tool_use_id === id) {
          return { text: typeof block.content === "string" ? block.content : block.content.map((b: any) => b.text ?? "").join("\n"), isError: block.is_error === true };
        }
      }
    }
  }
  throw new Error(`no tool_result for ${id} was sent`);
}

const use = (id: string, name: string, input: Record<string, unknown>) => ({ content: [{ type: "tool_use" as const, id, name, input }] });
const done = { content: [{ type: "text" as const, text: "done" }] };

describe("toolgate -p: ExitPlanMode answered over can_use_tool", () => {
  it("allow leaves plan mode: the plan is asked about, then a write is asked (not denied by plan mode) and runs", async () => {
    const dir = project();
    const notes = path.join(dir, "notes.txt");
    const server = await serveModel({ turns: [use("toolu_plan", "ExitPlanMode", { plan: PLAN }), use("toolu_write", "Write", { file_path: notes, content: "notes\n" }), done] });
    const run = await host(dir, server, ["--permission-mode", "plan"], () => ({ behavior: "allow" }));
    expect(run.code).toBe(0);
    const init = run.lines.find((l) => l.type === "system" && l.subtype === "init")!;
    expect(init.permissionMode).toBe("plan");
    expect(init.tools).toEqual(expect.arrayContaining(["ExitPlanMode", "AskUserQuestion", "TodoWrite"]));
    expect(run.asked.map((r) => r.tool_name)).toEqual(["ExitPlanMode", "Write"]);
    expect(run.asked[0]!.input).toEqual({ plan: PLAN });
    // the prompt told the model it is in plan mode and how to leave it
    expect(JSON.stringify((server.requests()[0]!.body as any).messages.at(-1))).toContain("The session is in plan mode");
    const plan = sentResult(server, "toolu_plan");
    expect(plan.isError).toBe(false);
    expect(plan.text).toContain("left plan mode (now default mode)");
    expect(fs.readFileSync(notes, "utf8")).toBe("notes\n");
  });

  it("allow with the suggested setMode leaves plan mode for acceptEdits: the write runs without asking", async () => {
    const dir = project();
    const notes = path.join(dir, "notes.txt");
    const server = await serveModel({ turns: [use("toolu_plan", "ExitPlanMode", { plan: PLAN }), use("toolu_write", "Write", { file_path: notes, content: "notes\n" }), done] });
    const run = await host(dir, server, ["--permission-mode", "plan"], (request) => ({ behavior: "allow", updatedPermissions: request.permission_suggestions }));
    expect(run.code).toBe(0);
    expect(run.asked.map((r) => r.tool_name)).toEqual(["ExitPlanMode"]);
    expect(run.asked[0]!.permission_suggestions).toEqual([{ type: "setMode", mode: "acceptEdits", destination: "session" }]);
    expect(sentResult(server, "toolu_plan").text).toContain("now acceptEdits mode");
    expect(fs.readFileSync(notes, "utf8")).toBe("notes\n");
  });

  it("deny with a message keeps plan mode: the message reaches the model, and the next write is denied unasked", async () => {
    const dir = project();
    const notes = path.join(dir, "notes.txt");
    const server = await serveModel({ turns: [use("toolu_plan", "ExitPlanMode", { plan: PLAN }), use("toolu_write", "Write", { file_path: notes, content: "notes\n" }), done] });
    const run = await host(dir, server, ["--permission-mode", "plan"], () => ({ behavior: "deny", message: "Split step 1 into two steps first." }));
    expect(run.code).toBe(0);
    expect(run.asked.map((r) => r.tool_name)).toEqual(["ExitPlanMode"]);
    const plan = sentResult(server, "toolu_plan");
    expect(plan.isError).toBe(true);
    expect(plan.text).toContain("Split step 1 into two steps first.");
    const write = sentResult(server, "toolu_write");
    expect(write.isError).toBe(true);
    expect(write.text).toContain("plan mode");
    expect(fs.existsSync(notes)).toBe(false);
  });
});

describe("toolgate -p: AskUserQuestion", () => {
  it("the host's allow with updatedInput.answers is the tool_result: a label (with its note), and several joined", async () => {
    const dir = project();
    const server = await serveModel({ turns: [use("toolu_ask", "AskUserQuestion", { questions: QUESTIONS }), done] });
    const run = await host(dir, server, [], (request) => ({
      behavior: "allow",
      // Claude Code's answer shape, annotations included
      updatedInput: { ...request.input, answers: { [QUESTIONS[0]!.question]: "dayjs", [QUESTIONS[1]!.question]: "dark mode, sync" }, annotations: { [QUESTIONS[0]!.question]: { notes: "smallest bundle" } } },
    }));
    expect(run.code).toBe(0);
    expect(run.asked).toHaveLength(1);
    expect(run.asked[0]).toMatchObject({ tool_name: "AskUserQuestion", tool_use_id: "toolu_ask", input: { questions: QUESTIONS } });
    expect(JSON.stringify(server.requests()[0]!.body)).not.toContain("The session is in plan mode");
    const answer = sentResult(server, "toolu_ask");
    expect(answer.isError).toBe(false);
    expect(answer.text).toContain('"Which date library should we use?" → "dayjs" (their note: smallest bundle)');
    expect(answer.text).toContain('"Which features do you want?" → "dark mode, sync"');
  });

  it("--permission-prompts none: nothing is sent to the host and the call fails saying no one can answer", async () => {
    const dir = project();
    const server = await serveModel({ turns: [use("toolu_ask", "AskUserQuestion", { questions: QUESTIONS }), done] });
    const run = await host(dir, server, ["--permission-prompts", "none"], () => {
      throw new Error("nothing may be asked");
    });
    expect(run.asked).toEqual([]);
    const answer = sentResult(server, "toolu_ask");
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain("No one can answer AskUserQuestion in this session");
    expect(answer.text).toContain("go on with your own judgement");
    expect(run.lines.at(-1)).toMatchObject({ type: "result", result: "done" });
  });

  it("without a control channel (a prompt argument) the call fails the same way; init lists both tools", async () => {
    const dir = project();
    const server = await serveModel({ turns: [use("toolu_ask", "AskUserQuestion", { questions: QUESTIONS }), done] });
    const run = await runCli(["-p", "pick a library", "--cwd", dir, "--output-format", "stream-json", "--verbose", "--no-sandbox"], agentEnv(server, dir));
    const init = run.lines.find((l) => l.type === "system" && l.subtype === "init")!;
    expect(init.tools).toEqual(expect.arrayContaining(["ExitPlanMode", "AskUserQuestion"]));
    expect(run.lines.some((l) => l.type === "control_request")).toBe(false);
    const answer = sentResult(server, "toolu_ask");
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain("No one can answer AskUserQuestion in this session (it is non-interactive)");

    // text output: the model went on by itself, so the run succeeds (no exit 3 for a call someone could allow)
    const again = await serveModel({ turns: [use("toolu_ask", "AskUserQuestion", { questions: QUESTIONS }), done] });
    const plain = await runCli(["-p", "pick a library", "--cwd", dir, "--no-sandbox"], agentEnv(again, dir));
    expect(plain.stdout.trim()).toBe("done");
    expect(plain.code).toBe(0);
  });
});
