/** Permission updates from outside (a client's updatedPermissions): what is taken, what is refused and why. */
import { describe, expect, it } from "vitest";
import { parsePermissionUpdates } from "../../src/permissions/index.js";

describe("parsePermissionUpdates", () => {
  it("takes rule objects and rule strings, read back through the rule parser", () => {
    const { updates, problems } = parsePermissionUpdates([
      { type: "addRules", behavior: "allow", rules: ["Bash(git push:*)", { toolName: "Bash", ruleContent: "echo (x)" }], destination: "projectSettings" },
      { type: "addDirectories", directories: ["../shared"], destination: "session" },
      { type: "setMode", mode: "acceptEdits", destination: "session" },
    ]);
    expect(problems).toEqual([]);
    expect(updates).toEqual([
      { type: "addRules", behavior: "allow", rules: [{ toolName: "Bash", ruleContent: "git push:*" }, { toolName: "Bash", ruleContent: "echo (x)" }], destination: "projectSettings" },
      { type: "addDirectories", directories: ["../shared"], destination: "session" },
      { type: "setMode", mode: "acceptEdits", destination: "session" },
    ]);
  });

  it("absent is nothing; not an array is one problem", () => {
    expect(parsePermissionUpdates(undefined)).toEqual({ updates: [], problems: [] });
    expect(parsePermissionUpdates({ type: "addRules" })).toEqual({ updates: [], problems: ["updatedPermissions must be an array of permission updates"] });
  });

  it("refuses what a client must not do, each with its index, and keeps the rest", () => {
    const { updates, problems } = parsePermissionUpdates([
      // settings files toolgate never writes for an answer
      { type: "addRules", behavior: "allow", rules: ["Bash"], destination: "policySettings" },
      { type: "addRules", behavior: "allow", rules: ["Bash"], destination: "managedSettings" },
      // turning the checks off, or a mode saved to a file
      { type: "setMode", mode: "bypassPermissions", destination: "session" },
      { type: "setMode", mode: "acceptEdits", destination: "userSettings" },
      // rules that do not parse, an empty list, a behavior that does not exist, unknown kinds, junk
      { type: "addRules", behavior: "allow", rules: ["Bash(rm"], destination: "session" },
      { type: "addRules", behavior: "allow", rules: [], destination: "session" },
      { type: "addRules", behavior: "always", rules: ["Read"], destination: "session" },
      { type: "replaceRules", behavior: "allow", rules: ["Bash"], destination: "session" },
      null,
      "Bash",
      { type: "addRules", behavior: "deny", rules: ["Read(./.env)"], destination: "localSettings" },
    ]);
    expect(updates).toEqual([{ type: "addRules", behavior: "deny", rules: [{ toolName: "Read", ruleContent: "./.env" }], destination: "localSettings" }]);
    expect(problems).toHaveLength(10);
    problems.forEach((problem, index) => expect(problem.startsWith(`updatedPermissions[${index}] was ignored: `)).toBe(true));
    expect(problems[2]).toContain("cannot switch to bypassPermissions");
  });
});
