import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createToolUseContext } from "../../src/core/context.js";
import type { PermissionMode } from "../../src/core/permissionTypes.js";
import { loadSettings } from "../../src/session/settings.js";
import { buildPermissionContext, createNonInteractiveCanUseTool, hasPermissionsToUseTool, PermissionRuleParseError } from "../../src/permissions/index.js";
import { fileTool, plainTool, recordingCanUseTool, resultText, runOne, tempDir } from "./helpers.js";

let base: string;
let cwd: string;
let home: string;
let managed: string;
const realHome = process.env.HOME;

function write(file: string, value: unknown) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

const files = () => ({
  user: path.join(home, "settings.json"),
  project: path.join(cwd, ".toolgate/settings.json"),
  local: path.join(cwd, ".toolgate/settings.local.json"),
  flag: path.join(base, "flag.json"),
  managed,
});

beforeEach(() => {
  base = tempDir("tg-src-");
  cwd = path.join(base, "project");
  home = path.join(base, "home", ".toolgate");
  managed = path.join(base, "etc", "managed-settings.json");
  fs.mkdirSync(cwd, { recursive: true });
  fs.writeFileSync(path.join(cwd, "a.txt"), "A");
  process.env.HOME = path.join(base, "home");
});
afterEach(() => {
  process.env.HOME = realHome;
});

const tools = [fileTool("Read", "read"), fileTool("Edit", "write"), plainTool("Deploy"), plainTool("Lint", { readOnly: true })];

function session(
  options: { mode?: PermissionMode; allowedTools?: string[]; disallowedTools?: string[]; addDirs?: string[]; settingsFile?: string; nonInteractive?: boolean } = {},
) {
  const loaded = loadSettings({ cwd, home, managedSettingsPath: managed, settingsFile: options.settingsFile, env: {} });
  const permissionContext = buildPermissionContext({ loaded, cwd, nonInteractive: options.nonInteractive ?? false, ...options });
  const context = createToolUseContext({ tools, cwd, home, permissionContext, permissionDecider: hasPermissionsToUseTool });
  return { loaded, context, permissionContext };
}

const decide = (context: ReturnType<typeof session>["context"], name: string, input: Record<string, unknown>) =>
  hasPermissionsToUseTool(tools.find((t) => t.name === name)!, input, context, { toolUseID: "x" });

describe("rule sources from real settings files", () => {
  it("a deny from user settings beats an allow from managed settings and the CLI", async () => {
    write(files().user, { permissions: { deny: ["Deploy"] } });
    write(files().managed, { permissions: { allow: ["Deploy"] } });
    const { context } = session({ allowedTools: ["Deploy"] });
    const d = await decide(context, "Deploy", {});
    expect(d.behavior).toBe("deny");
    expect(d.decisionReason).toMatchObject({ type: "rule", rule: { source: "userSettings", file: files().user } });
  });

  it("an ask from project settings beats allows from local and --settings, even in bypass", async () => {
    write(files().project, { permissions: { ask: ["Deploy"] } });
    write(files().local, { permissions: { allow: ["Deploy"] } });
    write(files().flag, { permissions: { allow: ["Deploy"] } });
    const { context } = session({ settingsFile: files().flag, mode: "bypassPermissions" });
    expect((await decide(context, "Deploy", {})).behavior).toBe("ask");
  });

  it("each source's rules carry their source, file and root", () => {
    write(files().user, { permissions: { allow: ["Read(/notes/**)"] } });
    write(files().project, { permissions: { deny: ["Edit(/dist/**)"] } });
    write(files().local, { permissions: { ask: ["Deploy"] } });
    write(files().flag, { permissions: { allow: ["Lint"] } });
    write(files().managed, { permissions: { deny: ["Read(//etc/shadow)"] } });
    const { permissionContext } = session({ settingsFile: files().flag, allowedTools: ["Read(docs/**) Lint"], disallowedTools: ["Deploy"] });
    expect(permissionContext.rules.map((r) => [r.source, r.ruleBehavior, r.file, r.root])).toEqual([
      ["userSettings", "allow", files().user, path.join(base, "home")],
      ["projectSettings", "deny", files().project, cwd],
      ["localSettings", "ask", files().local, cwd],
      ["flagSettings", "allow", files().flag, base],
      ["policySettings", "deny", files().managed, path.dirname(managed)],
      ["cliArg", "allow", undefined, cwd],
      ["cliArg", "allow", undefined, cwd],
      ["cliArg", "deny", undefined, cwd],
    ]);
  });

  it("`/x` in user settings is relative to the home directory, in project settings to the project", async () => {
    write(files().user, { permissions: { deny: ["Read(/private/**)"] } });
    write(files().project, { permissions: { deny: ["Edit(/dist/**)"] } });
    const { context } = session({ mode: "acceptEdits" });
    fs.mkdirSync(path.join(base, "home/private"), { recursive: true });
    expect((await decide(context, "Read", { file_path: path.join(base, "home/private/x") })).behavior).toBe("deny");
    expect((await decide(context, "Read", { file_path: path.join(cwd, "private/x") })).behavior).toBe("allow");
    expect((await decide(context, "Edit", { file_path: path.join(cwd, "dist/a.js") })).behavior).toBe("deny");
    expect((await decide(context, "Edit", { file_path: path.join(cwd, "src/dist/a.js") })).behavior).toBe("allow");
  });

  it("the four pattern roots from a real --settings file outside the project", async () => {
    const abs = path.join(base, "vault");
    const flagDir = path.join(base, "ci");
    write(path.join(flagDir, "s.json"), {
      permissions: { deny: [`Read(/${abs}/**)`, "Read(~/.aws/**)", "Read(/fixtures/**)", "Read(./top.txt)", "Read(*.key)"] },
    });
    const { context } = session({ settingsFile: path.join(flagDir, "s.json"), mode: "bypassPermissions" });
    const read = async (p: string) => (await decide(context, "Read", { file_path: p })).behavior;
    expect(await read(path.join(abs, "a"))).toBe("deny");
    expect(await read(path.join(base, "home/.aws/credentials"))).toBe("deny");
    expect(await read(path.join(flagDir, "fixtures/x.json"))).toBe("deny");
    expect(await read(path.join(cwd, "fixtures/x.json"))).toBe("allow");
    expect(await read(path.join(cwd, "top.txt"))).toBe("deny");
    expect(await read(path.join(cwd, "sub/top.txt"))).toBe("allow");
    expect(await read(path.join(cwd, "deep/er/id.key"))).toBe("deny");
  });

  it("a file that is not valid JSON is ignored entirely; an invalid entry drops only itself", async () => {
    write(files().local, '{"permissions": {"allow": ["Deploy"], "deny": ["Read"]');
    write(files().project, { permissions: { ask: ["Lint"], deny: ["Deploy"], allow: ["Read", "Bash(npm"] } });
    const { loaded, context } = session();
    expect(loaded.errors.map((e) => [e.source, e.scope ?? "file"])).toEqual([
      ["projectSettings", "entry"],
      ["localSettings", "file"],
    ]);
    expect(loaded.errors[0].message).toContain('permissions.allow[1]: invalid permission rule "Bash(npm"');
    // nothing of the broken local file applies: its deny of Read is gone, so is its allow of Deploy
    expect((await decide(context, "Read", { file_path: path.join(cwd, "a.txt") })).behavior).toBe("allow");
    // the project file's valid entries still apply, its deny rule first of all
    expect((await decide(context, "Deploy", {})).behavior).toBe("deny");
    expect((await decide(context, "Lint", {})).behavior).toBe("ask");
  });

  it("CLI --disallowedTools deny and invalid CLI rules are reported", async () => {
    const { context } = session({ disallowedTools: ["Read(a.txt)"] });
    const d = await decide(context, "Read", { file_path: path.join(cwd, "a.txt") });
    expect(d).toMatchObject({ behavior: "deny", decisionReason: { rule: { source: "cliArg" } } });
    expect(() => session({ allowedTools: ["Bash(npm"] })).toThrow(PermissionRuleParseError);
  });
});

describe("mode and working directories from settings and the CLI", () => {
  it("defaultMode comes from the highest source unless a mode is given", () => {
    write(files().user, { permissions: { defaultMode: "plan" } });
    write(files().local, { permissions: { defaultMode: "acceptEdits" } });
    expect(session().permissionContext.mode).toBe("acceptEdits");
    expect(session({ mode: "dontAsk" }).permissionContext.mode).toBe("dontAsk");
  });

  it("a shared project file cannot turn on bypassPermissions", () => {
    write(files().user, { permissions: { defaultMode: "acceptEdits" } });
    write(files().project, { permissions: { defaultMode: "bypassPermissions" } });
    expect(session().permissionContext.mode).toBe("acceptEdits");
  });

  it("additionalDirectories and --add-dir become working directories", async () => {
    const shared = path.join(base, "shared");
    const extra = path.join(base, "extra");
    for (const d of [shared, extra]) fs.mkdirSync(d);
    write(files().project, { permissions: { additionalDirectories: ["../shared"] } });
    const { context, permissionContext } = session({ addDirs: ["../extra"] });
    expect(permissionContext.additionalWorkingDirectories).toEqual([
      { path: shared, source: "projectSettings", file: files().project },
      { path: extra, source: "cliArg" },
    ]);
    expect((await decide(context, "Read", { file_path: path.join(shared, "x") })).behavior).toBe("allow");
    expect((await decide(context, "Read", { file_path: path.join(extra, "x") })).behavior).toBe("allow");
    expect((await decide(context, "Read", { file_path: path.join(base, "other/x") })).behavior).toBe("ask");
  });
});

describe("end to end through runToolUse", () => {
  it("dontAsk denies a write that would ask, and the file stays untouched", async () => {
    write(files().local, { permissions: { defaultMode: "dontAsk", allow: ["Read"] } });
    const { context } = session();
    const result = await runOne(context, "Edit", { file_path: path.join(cwd, "a.txt") }, recordingCanUseTool([], "allow"));
    expect(result.outcome).toBe("denied");
    expect(resultText(result)).toContain("dontAsk");
    expect(fs.readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("A");
  });

  it("non-interactive exec-style runs deny what asks and say what would allow it", async () => {
    const { context } = session({ nonInteractive: true });
    const result = await runOne(context, "Edit", { file_path: path.join(cwd, "src/new.ts") }, createNonInteractiveCanUseTool());
    expect(result.outcome).toBe("denied");
    const text = resultText(result);
    expect(text).toContain('add "Edit(./src/**)" to permissions.allow in .toolgate/settings.local.json or pass --allowedTools "Edit(./src/**)"');
    expect(text).toContain("--permission-mode acceptEdits");
  });

  it("a safety path asks in bypass through the pipeline and writes nothing when refused", async () => {
    const asked: string[] = [];
    const { context } = session({ mode: "bypassPermissions" });
    const result = await runOne(context, "Edit", { file_path: path.join(cwd, ".vscode/settings.json") }, recordingCanUseTool(asked));
    expect(asked).toHaveLength(1);
    expect(result.outcome).toBe("denied");
    expect(fs.existsSync(path.join(cwd, ".vscode"))).toBe(false);
    const ok = await runOne(context, "Edit", { file_path: path.join(cwd, "b.txt") }, recordingCanUseTool(asked));
    expect(ok.outcome).toBe("success");
    expect(asked).toHaveLength(1);
  });

  it("a symlink into a denied directory is denied through the pipeline", async () => {
    write(files().project, { permissions: { deny: ["Read(/secrets/**)"] } });
    write(path.join(cwd, "secrets/token"), "s3cret");
    fs.symlinkSync(path.join(cwd, "secrets/token"), path.join(cwd, "readme-link"));
    const { context } = session({ mode: "bypassPermissions" });
    const result = await runOne(context, "Read", { file_path: path.join(cwd, "readme-link") }, recordingCanUseTool([], "allow"));
    expect(result.outcome).toBe("denied");
    expect(resultText(result)).not.toContain("s3cret");
    expect(resultText(result)).toContain('"Read(/secrets/**)" from project settings');
  });
});
