/**
 * The permission dialog with the real engine's ask for `git push` in a real project directory: each choice,
 * the rule it writes, and that the next matching call no longer asks.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { render, cleanup } from "ink-testing-library";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSession, type Session } from "../../src/session/index.js";
import { loadBashImplementation } from "../../src/tools/Bash/tool.js";
import type { AnyTool } from "../../src/core/Tool.js";
import type { PermissionAskDecision, PermissionDecision } from "../../src/core/permissionTypes.js";
import { PermissionDialog } from "../../src/ui/PermissionDialog.js";
import { answerPermission, permissionChoices, type PermissionChoice, type PermissionRequest } from "../../src/ui/permissionAnswer.js";

const sessions: Session[] = [];
afterEach(async () => {
  cleanup();
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});
beforeAll(async () => {
  await loadBashImplementation();
});

const tick = (ms = 60) => new Promise((r) => setTimeout(r, ms));

async function setup() {
  const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-dialog-")));
  const home = path.join(cwd, ".home");
  fs.mkdirSync(home);
  const session = await createSession({ cwd, home, interactive: true, sandbox: false, env: { ...process.env, HOME: home } });
  sessions.push(session);
  const bash = session.context.options.tools.find((t) => t.name === "Bash") as AnyTool;
  const decide = async (command: string) => session.context.permissionDecider!(bash, { command }, session.context, { toolUseID: "toolu_x" });
  return { cwd, home, session, bash, decide };
}

async function askFor(command: string) {
  const env = await setup();
  const decision = await env.decide(command);
  expect(decision.behavior).toBe("ask");
  const request: PermissionRequest = { tool: env.bash, input: { command }, toolUseID: "toolu_x", decision: decision as PermissionAskDecision };
  const choices = permissionChoices(request.decision, { cwd: env.cwd, home: env.home });
  return { ...env, request, choices };
}

/** Renders the dialog, presses `keys`, and returns what the user chose. */
async function choose(request: PermissionRequest, choices: PermissionChoice[], keys: string[]) {
  let answered: { choice: PermissionChoice; feedback?: string } | undefined;
  const ui = render(<PermissionDialog request={request} choices={choices} mode="default" onAnswer={(choice, feedback) => (answered = { choice, feedback })} />);
  await tick();
  for (const key of keys) {
    ui.stdin.write(key);
    await tick();
  }
  return { answered, frame: ui.lastFrame() ?? "" };
}

describe("permission dialog", () => {
  it("shows the command, why it asks, and one 'don't ask again' choice per scope with the file named", async () => {
    const { request, choices } = await askFor("git push origin main");
    const { frame } = await choose(request, choices, []);
    expect(frame).toContain("Allow Bash?");
    expect(frame).toContain("git push origin main");
    expect(frame).toContain("needs approval");
    expect(choices.map((c) => c.kind)).toEqual(["once", "always", "always", "always", "deny"]);
    expect(choices[2]!.label).toContain("Bash(git push:*) in this project (saved to .toolgate/settings.local.json)");
    expect(choices[3]!.label).toContain("all your projects (saved to .home/settings.json)");
  });

  it("Yes (Enter on the first choice) allows once and remembers nothing", async () => {
    const { request, choices, session, cwd, decide } = await askFor("git push origin main");
    const { answered } = await choose(request, choices, ["\r"]);
    expect(answered?.choice.kind).toBe("once");
    const outcome = answerPermission(request, answered!.choice, session.context);
    expect(outcome.decision.behavior).toBe("allow");
    expect(fs.existsSync(path.join(cwd, ".toolgate/settings.local.json"))).toBe(false);
    expect((await decide("git push origin main")).behavior).toBe("ask");
  });

  it("'this project' writes Bash(git push:*) to .toolgate/settings.local.json and the next push is allowed", async () => {
    const { request, choices, session, cwd, decide } = await askFor("git push origin main");
    const { answered } = await choose(request, choices, ["3"]);
    expect(answered?.choice).toMatchObject({ kind: "always", destination: "localSettings" });
    const outcome = answerPermission(request, answered!.choice, session.context);
    expect(outcome.decision.behavior).toBe("allow");
    expect(outcome.notice?.text).toContain(path.join(cwd, ".toolgate/settings.local.json"));
    expect(JSON.parse(fs.readFileSync(path.join(cwd, ".toolgate/settings.local.json"), "utf8"))).toEqual({ permissions: { allow: ["Bash(git push:*)"] } });
    expect((await decide("git push origin feature")).behavior).toBe("allow");
    // Exactly the rule shown: another git subcommand still asks.
    expect((await decide("git reset --hard")).behavior).toBe("ask");
  });

  it("'this session' (↓ then Enter) changes no file but the session stops asking", async () => {
    const { request, choices, session, cwd, home, decide } = await askFor("git push origin main");
    const { answered } = await choose(request, choices, ["\u001B[B", "\r"]);
    expect(answered?.choice).toMatchObject({ kind: "always", destination: "session" });
    answerPermission(request, answered!.choice, session.context);
    expect(fs.existsSync(path.join(cwd, ".toolgate"))).toBe(false);
    expect(fs.existsSync(path.join(home, "settings.json"))).toBe(false);
    expect((await decide("git push origin main")).behavior).toBe("allow");
  });

  it("'all your projects' writes the user settings file", async () => {
    const { request, choices, session, home } = await askFor("git push origin main");
    const { answered } = await choose(request, choices, ["4"]);
    answerPermission(request, answered!.choice, session.context);
    expect(JSON.parse(fs.readFileSync(path.join(home, "settings.json"), "utf8")).permissions.allow).toEqual(["Bash(git push:*)"]);
  });

  it("No with feedback: the model is told what the user typed", async () => {
    const { request, choices, session } = await askFor("git push origin main");
    const { answered, frame } = await choose(request, choices, ["5", "u", "s", "e", " ", "a", " ", "P", "R", "\r"]);
    expect(answered?.choice.kind).toBe("deny");
    expect(answered?.feedback).toBe("use a PR");
    expect(frame).toContain("tell the model");
    const decision: PermissionDecision = answerPermission(request, answered!.choice, session.context, answered!.feedback).decision;
    expect(decision).toMatchObject({ behavior: "deny" });
    expect(decision.behavior === "deny" && decision.message).toContain("said: use a PR");
  });

  it("Esc denies", async () => {
    const { request, choices } = await askFor("git push origin main");
    const { answered } = await choose(request, choices, ["\u001B"]);
    expect(answered?.choice.kind).toBe("deny");
    expect(answered?.feedback).toBeUndefined();
  });

  it("a settings file that is malformed is not rewritten: the call is allowed once and the user told why", async () => {
    const { request, choices, session, cwd } = await askFor("git push origin main");
    fs.mkdirSync(path.join(cwd, ".toolgate"));
    fs.writeFileSync(path.join(cwd, ".toolgate/settings.local.json"), "{ not json");
    const outcome = answerPermission(request, choices[2]!, session.context);
    expect(outcome.decision.behavior).toBe("allow");
    expect(outcome.notice?.level).toBe("warning");
    expect(fs.readFileSync(path.join(cwd, ".toolgate/settings.local.json"), "utf8")).toBe("{ not json");
  });
});
