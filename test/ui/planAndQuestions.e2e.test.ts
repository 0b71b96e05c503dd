/**
 * The plan dialog and the question picker in a real terminal: the real CLI in tmux (100×40) against the scripted
 * model server, keys sent one at a time, every wait on the screen or on what the model was sent.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { FakeModelScript, FakeModelServer } from "../../scripts/fake-model.mjs";
import { closedAfterEach, hasTmux, Terminal, tuiEnv } from "./tmux.js";

vi.setConfig({ testTimeout: 180_000 });

const { terminals, serve } = closedAfterEach();

async function start(script: FakeModelScript, args: string[] = []) {
  const server = await serve(script);
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-tui-plan-")));
  const home = path.join(dir, ".home");
  fs.mkdirSync(home);
  const env = tuiEnv(home, server.url);
  const terminal = new Terminal(dir, env, ["--no-sandbox", ...args], { columns: 100, rows: 40 });
  terminals.push(terminal);
  await terminal.waitFor("ask anything");
  return { server, terminal };
}

/** The tool_result the model was sent for `id` (once it has been). */
function sentResult(server: FakeModelServer, id: string): { text: string; isError: boolean } | undefined {
  for (const request of server.requests() as Array<{ body: any }>) {
    for (const message of request.body.messages ?? []) {
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (block.type === "tool_result" && block.tool_use_id === id) {
          return { text: typeof block.content === "string" ? block.content : block.content.map((b: any) => b.text ?? "").join("\n"), isError: block.is_error === true };
        }
      }
    }
  }
  return undefined;
}

const use = (id: string, name: string, input: Record<string, unknown>) => ({ content: [{ type: "tool_use" as const, id, name, input }] });
const say = (text: string) => ({ content: [{ type: "text" as const, text }] });
const PLAN = "# Rename the helper\n\n1. Rename `foo` to bar in src/a.ts\n2. Run the tests";

describe.skipIf(!hasTmux)("plan dialog", () => {
  it("keep planning sends the feedback and stays in plan mode; 'yes, and accept edits' leaves it for acceptEdits", async () => {
    const { server, terminal } = await start(
      { turns: [use("toolu_plan1", "ExitPlanMode", { plan: PLAN }), use("toolu_plan2", "ExitPlanMode", { plan: `${PLAN}\n3. Update the docs` }), say("Starting on the plan.")] },
      ["--permission-mode", "plan"],
    );
    await terminal.waitFor("plan mode");
    await terminal.write("plan the rename\r");
    await terminal.waitFor("Here is the plan:");
    const dialog = await terminal.waitFor("No, keep planning");
    expect(dialog).toContain("to bar in src/a.ts");
    expect(dialog).toContain("Rename the helper");
    expect(dialog).toContain("Yes, and accept file edits without asking");
    await terminal.key("3");
    await terminal.waitFor("tell the model (optional):");
    await terminal.type("also update the docs");
    await terminal.waitFor("tell the model (optional): also update the docs");
    await terminal.key("Enter");

    // the second plan: the first one's answer went to the model as its tool_result
    await terminal.waitFor("3. Update the docs");
    const rejected = sentResult(server, "toolu_plan1")!;
    expect(rejected.isError).toBe(true);
    expect(rejected.text).toContain("Their feedback: also update the docs");
    expect(terminal.screen()).toContain("mode: plan");
    await terminal.key("2");
    await terminal.waitFor("Starting on the plan.");
    await terminal.waitFor("acceptEdits mode");
    const approved = sentResult(server, "toolu_plan2")!;
    expect(approved.isError).toBe(false);
    expect(approved.text).toContain("now acceptEdits mode");
  });

  it("yes leaves plan mode for default", async () => {
    const { server, terminal } = await start({ turns: [use("toolu_plan", "ExitPlanMode", { plan: PLAN }), say("Plan approved, working.")] }, ["--permission-mode", "plan"]);
    await terminal.write("plan the rename\r");
    await terminal.waitFor("Yes, leave plan mode and start");
    await terminal.key("Down");
    await terminal.waitFor("❯ 2. Yes, and accept");
    await terminal.key("Up");
    await terminal.waitFor("❯ 1. Yes, leave plan mode");
    await terminal.key("Enter");
    await terminal.waitFor("Plan approved, working.");
    await terminal.waitFor("default mode");
    expect(terminal.screen()).not.toContain("plan mode");
    expect(sentResult(server, "toolu_plan")!.text).toContain("now default mode");
  });
});

describe.skipIf(!hasTmux)("question picker", () => {
  it("picks with arrows and Enter, ticks several with Space, takes a typed Other, and Esc declines", async () => {
    const library = { question: "Which date library should we use?", header: "Library", options: [{ label: "date-fns", description: "many small functions" }, { label: "dayjs", description: "tiny, moment-like" }], multiSelect: false };
    const features = { question: "Which features do you want?", header: "Features", options: [{ label: "dark mode", description: "" }, { label: "export", description: "" }, { label: "sync", description: "" }], multiSelect: true };
    const naming = { question: "What should the button say?", header: "Label", options: [{ label: "Save", description: "" }, { label: "Apply", description: "" }], multiSelect: false };
    const style = { question: "Tabs or spaces?", header: "Style", options: [{ label: "Tabs", description: "" }, { label: "Spaces", description: "" }], multiSelect: false };
    const { server, terminal } = await start({
      turns: [use("toolu_q1", "AskUserQuestion", { questions: [library, features] }), use("toolu_q2", "AskUserQuestion", { questions: [naming] }), use("toolu_q3", "AskUserQuestion", { questions: [style] }), say("Thanks, going ahead.")],
    });
    await terminal.write("set up the project\r");

    // question 1 of 2: ↓ then Enter picks dayjs
    const first = await terminal.waitFor("Which date library should we use?");
    expect(first).toContain("question 1 of 2");
    expect(first).toContain("tiny, moment-like");
    expect(first).toContain("3. Other");
    await terminal.key("Down");
    await terminal.waitFor("❯ 2. dayjs");
    await terminal.key("Enter");

    // question 2 of 2: tick dark mode and sync, then type under Other
    await terminal.waitFor("Which features do you want?");
    await terminal.key("Space");
    await terminal.waitFor("[x] dark mode");
    await terminal.key("Down");
    await terminal.key("Down");
    await terminal.key("Space");
    await terminal.waitFor("[x] sync");
    await terminal.key("Down");
    await terminal.waitFor("your answer:");
    await terminal.type("offline");
    await terminal.waitFor("your answer: offline");
    await terminal.key("Enter");

    // one question: Other with a typed answer
    await terminal.waitFor("What should the button say?");
    await terminal.key("Up");
    await terminal.waitFor("❯ 3. Other");
    await terminal.type("Keep it");
    await terminal.waitFor("your answer: Keep it");
    await terminal.key("Enter");

    // Esc declines
    await terminal.waitFor("Tabs or spaces?");
    await terminal.key("Escape");
    await terminal.waitFor("Thanks, going ahead.");

    const q1 = sentResult(server, "toolu_q1")!;
    expect(q1.isError).toBe(false);
    expect(q1.text).toContain('"Which date library should we use?" → "dayjs"');
    expect(q1.text).toContain('"Which features do you want?" → "dark mode, sync, offline"');
    expect(sentResult(server, "toolu_q2")!.text).toContain('"What should the button say?" → "Keep it"');
    const q3 = sentResult(server, "toolu_q3")!;
    expect(q3.isError).toBe(true);
    expect(q3.text).toContain("The user declined to answer your questions");
  });
});
