/**
 * The permission dialog with the real engine's asks in a real project directory: what it shows of the call, why
 * it asks (once), each choice's wording for every rule shape, the rule it writes, and that the next matching call
 * no longer asks.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Box } from "ink";
import { render, cleanup } from "ink-testing-library";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSession, type Session } from "../../src/session/index.js";
import { loadBashImplementation } from "../../src/tools/Bash/tool.js";
import type { AnyTool } from "../../src/core/Tool.js";
import type { PermissionAskDecision, PermissionDecision } from "../../src/core/permissionTypes.js";
import { PermissionDialog } from "../../src/ui/PermissionDialog.js";
import { answerPermission, permissionChoices, type PermissionChoice, type PermissionRequest } from "../../src/ui/permissionAnswer.js";
import { ensureRenderer } from "../../src/ui/ToolCall.js";
import type { RenderOptions } from "../../src/ui/toolRenderer.js";

const sessions: Session[] = [];
afterEach(async () => {
  cleanup();
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});
const MCP_TOOL = "mcp__tracker__create_issue";

beforeAll(async () => {
  await loadBashImplementation();
  // the App loads a tool's renderer before it asks; so do these tests
  for (const name of ["Bash", "Edit", "Write", "WebFetch", MCP_TOOL]) await ensureRenderer(name);
});

const tick = (ms = 60) => new Promise((r) => setTimeout(r, ms));

async function setup() {
  const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-dialog-")));
  const home = path.join(cwd, ".home");
  fs.mkdirSync(home);
  const session = await createSession({ cwd, home, interactive: true, sandbox: false, env: { ...process.env, HOME: home } });
  sessions.push(session);
  const tool = (name: string) => session.context.options.tools.find((t) => t.name === name) as AnyTool;
  const bash = tool("Bash");
  const decide = async (command: string) => session.context.permissionDecider!(bash, { command }, session.context, { toolUseID: "toolu_x" });
  return { cwd, home, session, bash, tool, decide };
}

/** What the real engine asks about one call of a built-in tool, with the dialog's choices for it. */
async function askWith(toolName: string, input: (cwd: string) => Record<string, unknown>) {
  const env = await setup();
  const tool = env.tool(toolName);
  const callInput = input(env.cwd);
  const decision = await env.session.context.permissionDecider!(tool, callInput, env.session.context, { toolUseID: "toolu_x" });
  expect(decision.behavior).toBe("ask");
  const request: PermissionRequest = { tool, input: callInput, toolUseID: "toolu_x", decision: decision as PermissionAskDecision };
  const choices = permissionChoices(request.decision, { cwd: env.cwd, home: env.home });
  return { ...env, request, choices };
}

const askFor = (command: string) => askWith("Bash", () => ({ command }));

const optionsFor = (cwd: string, columns = 100): RenderOptions => ({ columns, expanded: false, verbose: false, cwd });

/** Renders the dialog, presses `keys`, and returns what the user chose. */
async function choose(request: PermissionRequest, choices: PermissionChoice[], keys: string[], layout: { cwd?: string; columns?: number; rows?: number } = {}) {
  let answered: { choice: PermissionChoice; feedback?: string } | undefined;
  const columns = layout.columns ?? 100;
  const ui = render(
    <Box width={columns} flexDirection="column">
      <PermissionDialog
        request={request}
        choices={choices}
        mode="default"
        options={optionsFor(layout.cwd ?? "/", columns)}
        rows={layout.rows}
        onAnswer={(choice, feedback) => (answered = { choice, feedback })}
      />
    </Box>,
  );
  await tick();
  for (const key of keys) {
    ui.stdin.write(key);
    await tick();
  }
  return { answered, frame: ui.lastFrame() ?? "" };
}

describe("permission dialog", () => {
  it("shows the command, why it asks, and one 'don't ask again' choice per scope with the rule, what it covers, the scope and the file", async () => {
    const { request, choices } = await askFor("git push origin main");
    const { frame } = await choose(request, choices, []);
    expect(frame).toContain("Allow Bash?");
    expect(frame).toContain("git push origin main");
    expect(frame).toContain("needs approval");
    expect(choices.map((c) => c.kind)).toEqual(["once", "always", "always", "always", "deny"]);
    expect(choices.map((c) => c.label)).toEqual([
      "Yes, just this once",
      "Yes, and don't ask again for `Bash(git push:*)` (only commands that start with `git push`) for the rest of this session",
      "Yes, and don't ask again for `Bash(git push:*)` (only commands that start with `git push`) in this project, for you only (.toolgate/settings.local.json)",
      "Yes, and don't ask again for `Bash(git push:*)` (only commands that start with `git push`) in any project (your user settings, .home/settings.json)",
      "No, and tell the model what to do instead",
    ]);
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

  it("'in any project' writes the user settings file", async () => {
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

/** How often `part` occurs in `text`. */
const count = (text: string, part: string) => text.split(part).length - 1;

/** The frame's text without the border, each row trimmed and the rows joined, for text that wraps. */
const flat = (frame: string) =>
  frame
    .split("\n")
    .map((line) => line.replace(/^[│╭╰]/, "").replace(/[│╮╯]$/, "").trim())
    .join(" ");

describe("what the dialog says", () => {
  it("says why it asks once: the engine's message, not its reason again", async () => {
    const { request, choices } = await askFor("git push origin main");
    const { frame } = await choose(request, choices, []);
    expect(count(flat(frame), "needs approval")).toBe(1);
    expect(frame).not.toContain("judged per command part");
    expect(frame).not.toContain("deciding part");
  });

  it("for a command of several parts lists each part that needs approval once, in words (no engine jargon)", async () => {
    const { request, choices } = await askFor("ls && git push origin main && rm -rf build");
    const { frame } = await choose(request, choices, []);
    const text = flat(frame);
    expect(text).toContain("2 of the 3 parts of this command need approval:");
    expect(count(text, "`git push origin main` needs approval")).toBe(1);
    expect(count(text, "`rm -rf build` needs approval")).toBe(1);
    expect(text).not.toContain("passthrough");
    expect(text).not.toContain("more part of the command");
    expect(choices[1]!.label).toBe(
      "Yes, and don't ask again for `Bash(git push:*)` (only commands that start with `git push`) and `Bash(rm -rf build)` (only this exact command) for the rest of this session",
    );
  });

  it("an Edit shows the path and the change as a diff, never the raw input, and option 4 says its rule is for one folder", async () => {
    const { request, choices, cwd } = await askWith("Edit", (dir) => {
      fs.mkdirSync(path.join(dir, "src"));
      fs.writeFileSync(path.join(dir, "src/app.ts"), "export const a = 1;\n");
      return { file_path: path.join(dir, "src/app.ts"), old_string: "export const a = 1;", new_string: "export const a = 2;" };
    });
    const { frame } = await choose(request, choices, [], { cwd });
    expect(frame).toContain("Allow Edit?");
    expect(frame).toMatch(/^│ +src\/app\.ts +│$/m);
    expect(frame).toContain("- export const a = 1;");
    expect(frame).toContain("+ export const a = 2;");
    expect(frame).not.toContain("old_string");
    expect(frame).not.toContain('{"');
    expect(count(flat(frame), "inside the working directory")).toBe(1);
    expect(choices.map((c) => c.label)).toEqual([
      "Yes, just this once",
      "Yes, and don't ask again for `Edit(./src/**)` (changing only files under that folder) for the rest of this session",
      "Yes, and don't ask again for `Edit(./src/**)` (changing only files under that folder) in this project, for you only (.toolgate/settings.local.json)",
      `Yes, and don't ask again for \`Edit(/${cwd}/src/**)\` (changing only files under that folder) in any project (your user settings, .home/settings.json)`,
      "Yes, and switch this session to acceptEdits mode (changes to files inside the working directories stop asking)",
      "No, and tell the model what to do instead",
    ]);
    expect(flat(frame)).not.toContain("all your projects");
  });

  it("a Write shows the path, how many lines and the first of them numbered", async () => {
    const content = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n");
    const { request, choices, cwd } = await askWith("Write", (dir) => ({ file_path: path.join(dir, "notes.txt"), content }));
    const { frame } = await choose(request, choices, [], { cwd, rows: 40 });
    expect(frame).toContain("notes.txt · 30 lines, the whole new content");
    expect(frame).toContain(" 1 + line 1");
    expect(frame).not.toContain("line 30");
    expect(frame).toMatch(/… \+\d+ lines/);
    expect(frame).not.toContain('"content"');
  });

  it("a WebFetch shows the URL and what will be asked of the page; its rule is for that host only", async () => {
    const { request, choices } = await askWith("WebFetch", () => ({ url: "https://docs.example.com/guide?x=1", prompt: "Summarise the install steps" }));
    const { frame } = await choose(request, choices, []);
    expect(frame).toMatch(/^│ +https:\/\/docs\.example\.com\/guide\?x=1 +│$/m);
    expect(frame).toContain("then asks of the page: Summarise the install steps");
    expect(frame).not.toContain('"url"');
    expect(choices[3]!.label).toBe(
      "Yes, and don't ask again for `WebFetch(domain:docs.example.com)` (only fetching from that host) in any project (your user settings, .home/settings.json)",
    );
  });

  it("an MCP tool shows its arguments as key: value rows and says its rule covers every call of that tool", async () => {
    const { cwd, home } = await setup();
    const tool = { name: MCP_TOOL, userFacingName: () => "tracker - create_issue (MCP)" } as unknown as AnyTool;
    const decision: PermissionAskDecision = {
      behavior: "ask",
      message: `${MCP_TOOL} is a tool of the MCP server "tracker"; it runs only with your permission.`,
      suggestions: [{ type: "addRules", behavior: "allow", rules: [{ toolName: MCP_TOOL }], destination: "localSettings" }],
    };
    const input = { repo: "acme/app", title: "Crash on start", labels: ["bug", "p1"], body: "Steps:\n1. open\n2. crash", options: { draft: true } };
    const request: PermissionRequest = { tool, input, toolUseID: "toolu_m", decision };
    const choices = permissionChoices(decision, { cwd, home });
    const { frame } = await choose(request, choices, [], { cwd });
    expect(frame).toContain("Allow tracker - create_issue (MCP)?");
    expect(frame).toMatch(/repo: acme\/app/);
    expect(frame).toMatch(/title: Crash on start/);
    expect(frame).toMatch(/labels: bug, p1 /);
    expect(frame).toMatch(/body: Steps:\s*│\n│\s+1\. open/);
    expect(frame).toMatch(/options:\s*│\n│\s+draft: true/);
    expect(frame).not.toContain('{"repo"');
    expect(choices[1]!.label).toBe(
      `Yes, and don't ask again for \`${MCP_TOOL}\` (every call of this tool of the MCP server tracker) in this project, for you only (.toolgate/settings.local.json)`,
    );
  });

  it("words every other rule shape truly: a relative path kept in user settings, a whole tool, a folder added, a mode", () => {
    const where = { cwd: "/p", home: "/h/.toolgate" };
    const labels = (suggestions: PermissionAskDecision["suggestions"]) =>
      permissionChoices({ behavior: "ask", message: "asks", suggestions }, where)
        .slice(1, -1)
        .map((c) => c.label);
    expect(labels([{ type: "addRules", behavior: "allow", rules: [{ toolName: "Edit", ruleContent: "src/app.ts" }], destination: "userSettings" }])).toEqual([
      "Yes, and don't ask again for `Edit(src/app.ts)` (changing only src/app.ts of whichever project you are in) in any project (your user settings, /h/.toolgate/settings.json)",
    ]);
    expect(labels([{ type: "addRules", behavior: "allow", rules: [{ toolName: "Read", ruleContent: "./**" }], destination: "localSettings" }])).toEqual([
      "Yes, and don't ask again for `Read(./**)` (reading any file of this project) in this project, for you only (.toolgate/settings.local.json)",
    ]);
    expect(labels([{ type: "addRules", behavior: "allow", rules: [{ toolName: "WebSearch" }], destination: "session" }])).toEqual([
      "Yes, and don't ask again for `WebSearch` (every web search) for the rest of this session",
    ]);
    expect(labels([{ type: "addRules", behavior: "allow", rules: [{ toolName: "Edit", ruleContent: "~/notes/today.md" }], destination: "userSettings" }])).toEqual([
      "Yes, and don't ask again for `Edit(~/notes/today.md)` (changing only that one file) in any project (your user settings, /h/.toolgate/settings.json)",
    ]);
    expect(labels([{ type: "addDirectories", directories: ["/srv/data"], destination: "session" }])).toEqual(["Yes, and add /srv/data to the working directories for the rest of this session"]);
    expect(labels([{ type: "setMode", mode: "acceptEdits", destination: "session" }])).toEqual([
      "Yes, and switch this session to acceptEdits mode (changes to files inside the working directories stop asking)",
    ]);
  });
});

describe("how the dialog is laid out", () => {
  it("a long label wraps under its own text, not under its number, and no row is wider than the dialog", async () => {
    const { request, choices } = await askFor("git push origin main");
    const { frame } = await choose(request, choices, [], { columns: 80 });
    const rows = frame.split("\n");
    expect(rows.every((row) => Array.from(row).length <= 80)).toBe(true);
    const second = rows.findIndex((row) => row.includes("2. Yes, and don't ask again"));
    // the row after choice 2's first one continues its label, indented past "  2. "
    expect(rows[second + 1]).toMatch(/^│ {6}\S/);
  });

  it("on a short screen the dialog still fits: the preview is cut and the other choices take one row each", async () => {
    const { request, choices, cwd } = await askWith("Write", (dir) => ({
      file_path: path.join(dir, "a/rather/long/directory/path/that/keeps/going/notes.txt"),
      content: Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n"),
    }));
    const { frame } = await choose(request, choices, [], { cwd, columns: 60, rows: 24 });
    const rows = frame.split("\n");
    // the dialog, and the status line under it
    expect(rows.length + 1).toBeLessThanOrEqual(24);
    expect(frame).toContain("Allow Write?");
    expect(frame).toContain("❯ 1. Yes, just this once");
    // each other choice on one row: its rule and scope
    for (let n = 2; n < choices.length; n++) {
      const at = rows.findIndex((row) => row.startsWith(`│   ${n}. `));
      expect(rows[at + 1]).toMatch(new RegExp(`^│   ${n + 1}\\. `));
    }
    expect(frame).toContain("2. Yes, this session: don't ask again for `Edit(./a/r…");
    expect(frame).toContain("3. Yes, this project, for you: don't ask again for `E…");
    expect(frame).toContain("4. Yes, any project (user settings): don't ask again …");
  });
});
