/** The plugin loader on real folders: what a manifest may name, and what a bad one does (a message, never a crash). */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadPlugin, ManifestError } from "../../src/plugins/index.js";
import { tempDir } from "../helpers.js";
import { write, writePlugin } from "./fixtures.js";

function plugin(manifest: unknown): string {
  const root = path.join(tempDir("toolgate-plugin-unit-"), "p");
  write(path.join(root, ".claude-plugin/plugin.json"), typeof manifest === "string" ? manifest : JSON.stringify(manifest));
  return root;
}

const refusal = (root: string) => {
  try {
    loadPlugin(root);
  } catch (err) {
    expect(err).toBeInstanceOf(ManifestError);
    return (err as Error).message;
  }
  throw new Error("the plugin loaded");
};

describe("loadPlugin", () => {
  it("finds the default folders and names its servers plugin:<plugin>:<server>, with CLAUDE_PLUGIN_ROOT set and expanded", () => {
    const root = writePlugin(path.join(tempDir("toolgate-plugin-unit-"), "kit"));
    const loaded = loadPlugin(root);
    expect(loaded).toMatchObject({ name: "kit", id: "kit@inline", root, problems: [] });
    expect(loaded.manifest).toMatchObject({ version: "1.2.0", description: "A test kit", author: { name: "Tester" } });
    expect(loaded.commandRoots).toEqual([{ root: path.join(root, "commands") }]);
    expect(loaded.agentRoots).toEqual([{ root: path.join(root, "agents") }]);
    expect(loaded.skillRoots).toEqual([path.join(root, "skills")]);
    expect(loaded.hooks).toHaveLength(1);
    expect(loaded.mcpServers).toHaveLength(1);
    expect(loaded.mcpServers[0]).toMatchObject({ name: "plugin:kit:echo", config: { type: "stdio", args: [path.join(root, "server.mjs")], env: { CLAUDE_PLUGIN_ROOT: root }, cwd: root } });
    expect(loadPlugin(root, { withoutMcp: true }).mcpServers).toEqual([]);
  });

  it("takes inline hooks and servers, extra command files, and a .mcp.json without the mcpServers wrapper", () => {
    const root = plugin({
      name: "inline",
      commands: ["./extra/one.md"],
      hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "true" }] }] },
      mcpServers: { api: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/api.js"] } },
    });
    write(path.join(root, "extra/one.md"), "One.\n");
    write(path.join(root, ".mcp.json"), JSON.stringify({ files: { command: "node" } }));
    const loaded = loadPlugin(root, { id: "inline@team" });
    expect(loaded.id).toBe("inline@team");
    expect(loaded.commandRoots).toEqual([{ root: path.join(root, "extra"), only: "one.md" }]);
    expect(loaded.hooks).toEqual([{ file: path.join(root, ".claude-plugin/plugin.json"), hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "true" }] }] } }]);
    expect(loaded.mcpServers.map((s) => s.name).sort()).toEqual(["plugin:inline:api", "plugin:inline:files"]);
  });

  it("a bad hooks or servers file is a problem line; the rest loads", () => {
    const root = plugin({ name: "half" });
    write(path.join(root, "hooks/hooks.json"), "{not json");
    write(path.join(root, ".mcp.json"), JSON.stringify({ mcpServers: { bad: { args: [] } } }));
    write(path.join(root, "commands/ok.md"), "Fine.\n");
    const loaded = loadPlugin(root);
    expect(loaded.commandRoots).toHaveLength(1);
    expect(loaded.hooks).toEqual([]);
    expect(loaded.problems).toHaveLength(2);
    expect(loaded.problems[0]).toContain(`${path.join(root, "hooks/hooks.json")}: `);
    expect(loaded.problems[0]).toContain("the plugin's hooks in it are ignored");
    expect(loaded.problems[1]).toContain('server "bad": "command" must be a non-empty string; it was not started');
  });

  it("refuses a manifest that is missing, not JSON, not an object, badly named or reaching outside the folder", () => {
    expect(refusal(tempDir("toolgate-plugin-empty-"))).toMatch(/^no \.claude-plugin\/plugin\.json in /);
    expect(refusal(plugin("{"))).toContain("is not valid JSON");
    expect(refusal(plugin([]))).toContain("the manifest must be a JSON object");
    expect(refusal(plugin({ name: "a/b" }))).toContain('"name" must be letters, digits');
    expect(refusal(plugin({ name: ".." }))).toContain('"name" must be letters, digits');
    expect(refusal(plugin({ name: "x", commands: "/etc" }))).toContain('"commands": "/etc" must be a path relative to the plugin');
    expect(refusal(plugin({ name: "x", agents: ["./ok", "../../elsewhere"] }))).toContain('"agents": "../../elsewhere" leads outside the plugin folder');
    expect(refusal(plugin({ name: "x", mcpServers: 3 }))).toContain('"mcpServers" must be a path, an object, or a list of them');
  });

  it("refuses a component folder that is a symlink leading out of the plugin", () => {
    const root = plugin({ name: "linked", skills: "./more-skills" });
    const outside = tempDir("toolgate-outside-");
    fs.symlinkSync(outside, path.join(root, "more-skills"));
    expect(refusal(root)).toContain(`"skills": "./more-skills" links to ${outside}, outside the plugin folder`);
  });
});
