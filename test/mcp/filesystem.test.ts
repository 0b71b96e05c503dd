import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, type McpManager } from "../../src/mcp/client/manager.js";
import { createToolUseContext } from "../../src/core/context.js";
import type { CanUseToolFn, ToolUseContext } from "../../src/core/Tool.js";
import type { PermissionMode } from "../../src/core/permissionTypes.js";
import { loadSettings } from "../../src/session/settings.js";
import { buildPermissionContext, createNonInteractiveCanUseTool, hasPermissionsToUseTool } from "../../src/permissions/index.js";
import { tempDir } from "../helpers.js";
import { FILESYSTEM_SERVER, resultText, runOne, stdioServer } from "./helpers.js";

/** server-filesystem's tools, through the real settings files and permission engine. */
let manager: McpManager;
let project: string;
let home: string;

beforeAll(async () => {
  project = tempDir("toolgate-fs-project-");
  home = tempDir("toolgate-fs-home-");
  fs.writeFileSync(path.join(project, "notes.txt"), "first line\nsecond line\n");
  fs.mkdirSync(path.join(project, "src"));
  manager = await connectMcpServers([stdioServer("fs", { command: process.execPath, args: [FILESYSTEM_SERVER, project] })]);
});

afterAll(async () => {
  await manager?.close();
});

function session(rules: { allow?: string[]; deny?: string[]; ask?: string[] }, mode?: PermissionMode): ToolUseContext {
  fs.mkdirSync(path.join(project, ".toolgate"), { recursive: true });
  fs.writeFileSync(path.join(project, ".toolgate", "settings.local.json"), JSON.stringify({ permissions: rules }));
  const loaded = loadSettings({ cwd: project, home, env: {} });
  expect(loaded.errors).toEqual([]);
  return createToolUseContext({
    tools: manager.tools(),
    cwd: project,
    home,
    isNonInteractiveSession: true,
    permissionContext: buildPermissionContext({ loaded, cwd: project, mode, nonInteractive: true }),
    permissionDecider: hasPermissionsToUseTool,
  });
}

const nonInteractive: CanUseToolFn = createNonInteractiveCanUseTool();

describe("server-filesystem behind toolgate's permission rules", () => {
  it("exposes the server's tools", () => {
    expect(manager.clients[0].status).toBe("connected");
    expect(manager.tools().map((t) => t.name)).toEqual(expect.arrayContaining(["mcp__fs__list_directory", "mcp__fs__read_text_file", "mcp__fs__write_file"]));
  });

  it("an allow rule lets list_directory run; a deny rule stops read_text_file", async () => {
    const context = session({ allow: ["mcp__fs__list_directory"], deny: ["mcp__fs__read_text_file"] });
    const listed = await runOne("mcp__fs__list_directory", { path: project }, context, nonInteractive);
    expect(listed.result.outcome).toBe("success");
    expect(resultText(listed.result)).toContain("[FILE] notes.txt");
    expect(resultText(listed.result)).toContain("[DIR] src");

    const read = await runOne("mcp__fs__read_text_file", { path: path.join(project, "notes.txt") }, context, nonInteractive);
    expect(read.result.outcome).toBe("denied");
    expect(read.result.block.is_error).toBe(true);
    expect(resultText(read.result)).toContain("mcp__fs__read_text_file");
    expect(resultText(read.result)).toContain("denied");
    expect(resultText(read.result)).not.toContain("first line");
  });

  it("without a rule the default is ask, which a non-interactive session denies, naming the rule to add", async () => {
    const target = path.join(project, "written.txt");
    const context = session({});
    const { result } = await runOne("mcp__fs__write_file", { path: target, content: "x" }, context, nonInteractive);
    expect(result.outcome).toBe("denied");
    expect(resultText(result)).toContain("non-interactive");
    expect(resultText(result)).toContain("mcp__fs__write_file");
    expect(fs.existsSync(target)).toBe(false);
  });

  it("a server-wide rule (mcp__fs) allows every tool of the server", async () => {
    const context = session({ allow: ["mcp__fs"] });
    const read = await runOne("mcp__fs__read_text_file", { path: path.join(project, "notes.txt") }, context, nonInteractive);
    expect(read.result.outcome).toBe("success");
    expect(resultText(read.result)).toBe("first line\nsecond line\n");
    const target = path.join(project, "by-rule.txt");
    const written = await runOne("mcp__fs__write_file", { path: target, content: "hello" }, context, nonInteractive);
    expect(written.result.outcome).toBe("success");
    expect(fs.readFileSync(target, "utf8")).toBe("hello");
  });

  it("a deny rule beats a server-wide allow", async () => {
    const context = session({ allow: ["mcp__fs__*"], deny: ["mcp__fs__write_file"] });
    const target = path.join(project, "never.txt");
    const { result } = await runOne("mcp__fs__write_file", { path: target, content: "x" }, context, nonInteractive);
    expect(result.outcome).toBe("denied");
    expect(fs.existsSync(target)).toBe(false);
  });

  it("the server's own refusal (a path outside its allowed directories) comes back as is_error", async () => {
    const context = session({ allow: ["mcp__fs"] });
    const outside = tempDir("toolgate-fs-outside-");
    fs.writeFileSync(path.join(outside, "secret.txt"), "secret");
    const { result } = await runOne("mcp__fs__read_text_file", { path: path.join(outside, "secret.txt") }, context, nonInteractive);
    expect(result.block.is_error).toBe(true);
    expect(resultText(result)).toMatch(/access denied|outside allowed/i);
    expect(resultText(result)).not.toContain("secret\n");
  });
});
