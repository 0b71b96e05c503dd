import os from "node:os";
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { createToolUseContext } from "../../src/core/context.js";
import { loadSettings } from "../../src/session/settings.js";
import { applyPermissionUpdate, buildPermissionContext, hasPermissionsToUseTool } from "../../src/permissions/index.js";
import { plainTool, tempDir } from "./helpers.js";

let cwd: string;
let home: string;
const tools = [plainTool("Deploy")];
const askFirst = plainTool("Deploy");

beforeEach(() => {
  const base = tempDir("tg-upd-");
  cwd = path.join(base, "project");
  home = path.join(base, "home");
  fs.mkdirSync(cwd, { recursive: true });
});

function makeContext() {
  const loaded = loadSettings({ cwd, home, managedSettingsPath: path.join(home, "none.json"), env: {} });
  const permissionContext = buildPermissionContext({ loaded, cwd, nonInteractive: false });
  return createToolUseContext({ tools, cwd, home, permissionContext, permissionDecider: hasPermissionsToUseTool });
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"));

describe("applyPermissionUpdate", () => {
  it("session updates change only the session's context", async () => {
    const context = makeContext();
    applyPermissionUpdate({ type: "addRules", behavior: "deny", rules: [{ toolName: "Deploy" }], destination: "session" }, context);
    expect(context.getAppState().toolPermissionContext.rules).toMatchObject([{ source: "session", ruleBehavior: "deny" }]);
    expect((await hasPermissionsToUseTool(askFirst, {}, context, { toolUseID: "x" })).behavior).toBe("deny");
    applyPermissionUpdate({ type: "setMode", mode: "acceptEdits", destination: "session" }, context);
    applyPermissionUpdate({ type: "addDirectories", directories: ["../other", "~/notes"], destination: "session" }, context);
    const ctx = context.getAppState().toolPermissionContext;
    expect(ctx.mode).toBe("acceptEdits");
    expect(ctx.additionalWorkingDirectories).toEqual([
      { path: path.join(path.dirname(cwd), "other"), source: "session" },
      { path: path.join(os.homedir(), "notes"), source: "session" },
    ]);
    expect(fs.existsSync(path.join(cwd, ".toolgate"))).toBe(false);
  });

  it("creates a missing local settings file and applies the rule at once", async () => {
    const context = makeContext();
    const outcome = applyPermissionUpdate(
      { type: "addRules", behavior: "allow", rules: [{ toolName: "Bash", ruleContent: "npm test" }], destination: "localSettings" },
      context,
    );
    const file = path.join(cwd, ".toolgate/settings.local.json");
    expect(outcome).toEqual({ destination: "localSettings", file });
    expect(readJson(file)).toEqual({ permissions: { allow: ["Bash(npm test)"] } });
    expect(context.getAppState().toolPermissionContext.rules).toMatchObject([{ source: "localSettings", file, root: cwd }]);
    expect(loadSettings({ cwd, home, env: {}, managedSettingsPath: "/nonexistent" }).files[0].settings.permissions?.allow).toEqual(["Bash(npm test)"]);
  });

  it("keeps every other key of an existing project file, its indentation, and does not duplicate rules", () => {
    const file = path.join(cwd, ".toolgate/settings.json");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const original = { env: { A: "1" }, permissions: { allow: ["Read"], deny: ["Bash(rm:*)"], defaultMode: "plan" }, hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "x" }] }] }, custom: [1, 2] };
    fs.writeFileSync(file, JSON.stringify(original, null, 4));
    fs.chmodSync(file, 0o600);
    const update = { type: "addRules" as const, behavior: "allow" as const, rules: [{ toolName: "Edit", ruleContent: "src/**" }], destination: "projectSettings" as const };
    applyPermissionUpdate(update, { cwd, home });
    applyPermissionUpdate(update, { cwd, home });
    expect(readJson(file)).toEqual({ ...original, permissions: { ...original.permissions, allow: ["Read", "Edit(src/**)"] } });
    expect(fs.readFileSync(file, "utf8")).toContain('\n    "env"');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual(["settings.json"]);
  });

  it("writes user settings under the toolgate home and remembers directories", () => {
    applyPermissionUpdate({ type: "addDirectories", directories: ["/data/shared"], destination: "userSettings" }, { cwd, home });
    applyPermissionUpdate({ type: "addRules", behavior: "ask", rules: [{ toolName: "Bash", ruleContent: "git push:*" }], destination: "userSettings" }, { cwd, home });
    expect(readJson(path.join(home, "settings.json"))).toEqual({ permissions: { additionalDirectories: ["/data/shared"], ask: ["Bash(git push:*)"] } });
  });

  it("refuses to rewrite a malformed file and leaves it byte-identical", () => {
    const file = path.join(cwd, ".toolgate/settings.local.json");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const broken = '{"permissions": {"deny": ["Bash(rm:*)"],}}';
    fs.writeFileSync(file, broken);
    expect(() =>
      applyPermissionUpdate({ type: "addRules", behavior: "allow", rules: [{ toolName: "Bash" }], destination: "localSettings" }, { cwd, home }),
    ).toThrow(/malformed.*invalid JSON at line 1/);
    expect(fs.readFileSync(file, "utf8")).toBe(broken);
    // valid JSON with one invalid entry is updated, and the entry the user wrote is kept as it was
    fs.writeFileSync(file, JSON.stringify({ permissions: { allow: ["Bash(oops"] } }));
    applyPermissionUpdate({ type: "addRules", behavior: "allow", rules: [{ toolName: "Read" }], destination: "localSettings" }, { cwd, home });
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ permissions: { allow: ["Bash(oops", "Read"] } });
  });

  it("refuses to write a mode change to a file", () => {
    expect(() => applyPermissionUpdate({ type: "setMode", mode: "plan", destination: "localSettings" } as never, { cwd, home })).toThrow(/session/);
  });
});
