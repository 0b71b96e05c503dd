import { describe, expect, it } from "vitest";
import { validateHooksSettings } from "../../src/hooks/index.js";

describe("validateHooksSettings", () => {
  it("keeps a valid configuration as it is (extra Claude Code fields are dropped, not fatal)", () => {
    const value = {
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "check.sh", timeout: 5, statusMessage: "checking" }] }],
      PostToolUse: [{ hooks: [{ type: "command", command: "fmt.sh" }] }],
      Stop: [{ matcher: "", hooks: [{ type: "command", command: "notify.sh" }] }],
    };
    expect(validateHooksSettings(value)).toEqual({
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "check.sh", timeout: 5 }] }],
        PostToolUse: [{ hooks: [{ type: "command", command: "fmt.sh" }] }],
        Stop: [{ matcher: "", hooks: [{ type: "command", command: "notify.sh" }] }],
      },
      problems: [],
    });
  });

  it("absent hooks are fine", () => {
    expect(validateHooksSettings(undefined)).toEqual({ hooks: {}, problems: [] });
  });

  it.each([
    ["an array", []],
    ["a string", "PreToolUse"],
    ["a number", 3],
  ])("hooks that is %s is reported and ignored entirely", (_label, value) => {
    const { hooks, problems } = validateHooksSettings(value);
    expect(hooks).toEqual({});
    expect(problems).toEqual([{ path: "hooks", message: expect.stringMatching(/must be an object/) }]);
  });

  it("reports each malformed part with its path and keeps the rest", () => {
    const { hooks, problems } = validateHooksSettings({
      PreToolUse: [
        { matcher: "Bash", hooks: [{ type: "command" }, { type: "command", command: "ok.sh" }, { type: "agent", prompt: "judge" }] },
        { matcher: 7, hooks: [{ type: "command", command: "x" }] },
        { matcher: "Read", hooks: "nope" },
        { matcher: "[", hooks: [{ type: "command", command: "x" }] },
        { matcher: "Write", hooks: [{ type: "command", command: "   " }, { type: "command", command: "t.sh", timeout: -1 }, { type: "command", command: "t.sh", timeout: "5" }] },
      ],
      PostToolUse: { matcher: "*" },
      OnSave: [],
    });
    expect(hooks).toEqual({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "ok.sh" }] }] });
    expect(problems.map((p) => p.path)).toEqual([
      "hooks.PreToolUse[0].hooks[0]",
      "hooks.PreToolUse[0].hooks[2]",
      "hooks.PreToolUse[1]",
      "hooks.PreToolUse[2]",
      "hooks.PreToolUse[3].matcher",
      "hooks.PreToolUse[4].hooks[0]",
      "hooks.PreToolUse[4].hooks[1]",
      "hooks.PreToolUse[4].hooks[2]",
      "hooks.PostToolUse",
      "hooks.OnSave",
    ]);
    const byPath = Object.fromEntries(problems.map((p) => [p.path, p.message]));
    expect(byPath["hooks.PreToolUse[0].hooks[0]"]).toMatch(/^command: .*ignored/);
    expect(byPath["hooks.PreToolUse[0].hooks[2]"]).toMatch(/hook type "agent" is not supported/);
    expect(byPath["hooks.PreToolUse[1]"]).toMatch(/^matcher: /);
    expect(byPath["hooks.PreToolUse[2]"]).toMatch(/^hooks: /);
    expect(byPath["hooks.PreToolUse[3].matcher"]).toMatch(/invalid matcher regular expression "\["/);
    expect(byPath["hooks.PreToolUse[4].hooks[0]"]).toMatch(/must not be empty/);
    expect(byPath["hooks.PreToolUse[4].hooks[1]"]).toMatch(/^timeout: /);
    expect(byPath["hooks.PreToolUse[4].hooks[2]"]).toMatch(/^timeout: /);
    expect(byPath["hooks.PostToolUse"]).toMatch(/must be an array/);
    expect(byPath["hooks.OnSave"]).toMatch(/unknown hook event "OnSave"/);
    expect(problems.every((p) => p.hookEvent !== undefined)).toBe(true);
  });
});

describe("prompt hooks in settings", () => {
  it("are kept on events that take a verdict, with their timeout; elsewhere, or without a prompt, reported", () => {
    const { hooks, problems } = validateHooksSettings({
      Stop: [{ hooks: [{ type: "prompt", prompt: "Is the work done? $ARGUMENTS", timeout: 20 }] }],
      Notification: [{ hooks: [{ type: "prompt", prompt: "x" }] }],
      PreToolUse: [{ hooks: [{ type: "prompt", prompt: "  " }] }],
    });
    expect(hooks).toEqual({ Stop: [{ hooks: [{ type: "prompt", prompt: "Is the work done? $ARGUMENTS", timeout: 20 }] }] });
    expect(problems.map((p) => [p.path, p.message])).toEqual([
      ["hooks.Notification[0].hooks[0]", expect.stringMatching(/prompt hooks are not supported for Notification/)],
      ["hooks.PreToolUse[0].hooks[0]", expect.stringMatching(/prompt: must not be empty/)],
    ]);
  });
});
