import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { mergeSettings, formatSettingsLoadError, parseJsonWithLocation } from "../../src/settings/index.js";
import { loadSettings } from "../../src/session/settings.js";

let cwd: string;
let home: string;
let managed: string;

function write(file: string, value: unknown) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

beforeEach(() => {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tg-settings-")));
  cwd = path.join(base, "project");
  home = path.join(base, "home", ".toolgate");
  managed = path.join(base, "etc", "managed-settings.json");
  fs.mkdirSync(cwd, { recursive: true });
});

const load = (extra: { settingsFile?: string } = {}) => loadSettings({ cwd, home, managedSettingsPath: managed, env: {}, ...extra });

describe("loadSettings", () => {
  it("loads every source lowest first, with roots for `/x` patterns", () => {
    write(path.join(home, "settings.json"), { permissions: { allow: ["Read"] } });
    write(path.join(cwd, ".toolgate/settings.json"), { permissions: { deny: ["Bash(rm:*)"] } });
    write(path.join(cwd, ".toolgate/settings.local.json"), { permissions: { ask: ["Edit"] } });
    write(path.join(cwd, "extra.json"), { grep: { timeoutMs: 5 } });
    write(managed, { permissions: { deny: ["WebFetch"] } });
    const loaded = load({ settingsFile: "extra.json" });
    expect(loaded.errors).toEqual([]);
    expect(loaded.files.map((f) => [f.source, f.path, f.root])).toEqual([
      ["userSettings", path.join(home, "settings.json"), path.dirname(home)],
      ["projectSettings", path.join(cwd, ".toolgate/settings.json"), cwd],
      ["localSettings", path.join(cwd, ".toolgate/settings.local.json"), cwd],
      ["flagSettings", path.join(cwd, "extra.json"), cwd],
      ["policySettings", managed, path.dirname(managed)],
    ]);
  });

  it("skips missing files silently but reports a missing --settings file", () => {
    expect(load()).toEqual({ files: [], errors: [] });
    const loaded = load({ settingsFile: "nope.json" });
    expect(loaded.errors).toEqual([{ source: "flagSettings", path: path.join(cwd, "nope.json"), message: "the settings file does not exist" }]);
  });

  it("reads the managed path from TOOLGATE_MANAGED_SETTINGS", () => {
    write(managed, { permissions: { deny: ["Bash"] } });
    const loaded = loadSettings({ cwd, home, env: { TOOLGATE_MANAGED_SETTINGS: managed } });
    expect(loaded.files.map((f) => f.source)).toEqual(["policySettings"]);
  });

  it("reports bad JSON with line and column; the file contributes nothing", () => {
    const file = path.join(cwd, ".toolgate/settings.json");
    write(file, '{\n  "permissions": {\n    "deny": ["Bash(rm:*)"],\n  }\n}');
    const loaded = load();
    expect(loaded.files).toEqual([]);
    expect(loaded.errors).toHaveLength(1);
    expect(loaded.errors[0]).toMatchObject({ source: "projectSettings", path: file });
    expect(loaded.errors[0].message).toContain("invalid JSON at line 4, column 3");
    expect(formatSettingsLoadError(loaded.errors[0])).toBe(`${file}: ${loaded.errors[0].message}`);
    expect(formatSettingsLoadError(loaded.errors[0])).not.toContain("ignored");
  });

  it("drops each invalid entry on its own, naming it, and keeps the rest of the file", () => {
    const file = path.join(cwd, ".toolgate/settings.local.json");
    write(file, {
      permissions: { deny: ["Bash(rm:*)", 7, "Read(.env)"], allow: ["Bash(npm test", "Edit"], defaultMode: "yolo" },
      grep: { timeoutMs: "fast" },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "" }, { type: "command", command: "./guard.sh" }] }] },
    });
    write(path.join(cwd, ".toolgate/settings.json"), { permissions: { allow: ["Read"] } });
    const loaded = load();
    expect(loaded.files.map((f) => f.source)).toEqual(["projectSettings", "localSettings"]);
    const local = loaded.files[1].settings;
    expect(local.permissions).toEqual({ deny: ["Bash(rm:*)", "Read(.env)"], allow: ["Edit"] });
    expect(local.grep).toEqual({});
    expect(local.hooks?.PreToolUse?.[0].hooks).toEqual([{ type: "command", command: "./guard.sh" }]);
    const messages = loaded.errors.map((e) => e.message).join("\n");
    expect(loaded.errors.every((e) => e.scope === "entry" && e.source === "localSettings")).toBe(true);
    expect(messages).toContain('permissions.allow[0]: invalid permission rule "Bash(npm test"');
    expect(messages).toContain("permissions.deny[1]");
    expect(messages).toContain("permissions.defaultMode");
    expect(messages).toContain("grep.timeoutMs");
    expect(messages).toContain("hooks.PreToolUse[0].hooks[0].command");
  });

  it("rejects a non-object file and a directory entirely", () => {
    write(path.join(home, "settings.json"), "[1, 2]");
    fs.mkdirSync(path.join(cwd, ".toolgate/settings.json"), { recursive: true });
    const loaded = load();
    expect(loaded.files).toEqual([]);
    expect(loaded.errors.map((e) => e.source)).toEqual(["userSettings", "projectSettings"]);
    expect(loaded.errors[0].message).toContain("must contain a JSON object");
    expect(loaded.errors[1].message).toContain("directory");
  });

  it("accepts Claude Code files with keys toolgate does not use, an empty file and a BOM", () => {
    write(path.join(home, "settings.json"), { model: "x", env: { A: "1" }, permissions: { allow: ["Bash(git status)"], disableBypassPermissionsMode: "disable" }, hooks: { Notification: [{ hooks: [{ type: "command", command: "true" }] }] } });
    write(path.join(cwd, ".toolgate/settings.json"), "");
    write(path.join(cwd, ".toolgate/settings.local.json"), `\ufeff{"permissions": {"deny": ["Read(.env)"]}}`);
    const loaded = load();
    expect(loaded.errors).toEqual([]);
    expect(loaded.files).toHaveLength(3);
    expect(loaded.files[0].settings.model).toBe("x");
  });
});

describe("mergeSettings", () => {
  it("later sources win per key, objects merge, arrays concatenate", () => {
    write(path.join(home, "settings.json"), { grep: { timeoutMs: 100 }, glob: { includeHidden: false }, hooks: { PreToolUse: [{ matcher: "A", hooks: [{ type: "command", command: "a" }] }] } });
    write(path.join(cwd, ".toolgate/settings.json"), { grep: { timeoutMs: 200 }, hooks: { PreToolUse: [{ matcher: "B", hooks: [{ type: "command", command: "b" }] }] } });
    const merged = mergeSettings(load());
    expect(merged.grep).toEqual({ timeoutMs: 200 });
    expect(merged.glob).toEqual({ includeHidden: false });
    expect(merged.hooks?.PreToolUse?.map((m) => m.matcher)).toEqual(["A", "B"]);
  });
});

describe("parseJsonWithLocation", () => {
  it("locates errors Node does not", () => {
    const result = parseJsonWithLocation('{\n  "a": 1,\n  "b": }');
    expect(result).toMatchObject({ ok: false, line: 3, column: 8 });
    expect(parseJsonWithLocation('{"a": 1')).toMatchObject({ ok: false, line: 1, column: 8 });
    expect(parseJsonWithLocation('{"a": [1]}')).toEqual({ ok: true, value: { a: [1] } });
  });
});
