import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTool } from "../../src/core/buildTool.js";
import {
  buildMcpToolName,
  findToolByName,
  getDeferredToolNames,
  getToolsForModel,
  normalizeNameForMcp,
  parseMcpToolName,
  toolMatchesName,
} from "../../src/core/registry.js";
import { AbortError, classifyToolError, TelemetrySafeError } from "../../src/core/errors.js";
import { createFileStateCache } from "../../src/core/fileStateCache.js";
import { rewindFiles } from "../../src/core/context.js";
import { UnknownCheckpointError } from "../../src/core/fileHistory.js";
import { toolInputJSONSchema } from "../../src/core/apiSchema.js";
import { expandPath } from "../../src/core/paths.js";
import { tempDir, testContext } from "../helpers.js";

const minimal = (name: string, extra: Record<string, unknown> = {}) =>
  buildTool({
    name,
    maxResultSizeChars: 1000,
    inputSchema: z.strictObject({ a: z.string(), n: z.number().default(3) }),
    description: () => "",
    prompt: () => "",
    call: async () => ({ data: null }),
    mapToolResultToToolResultBlockParam: (_o: unknown, id: string) => ({ type: "tool_result", tool_use_id: id, content: "" }),
    ...extra,
  });

describe("buildTool", () => {
  it("fills fail-closed defaults that the definition can override", async () => {
    const tool = minimal("T");
    expect(tool.isEnabled()).toBe(true);
    expect(tool.isConcurrencySafe({ a: "x", n: 1 })).toBe(false);
    expect(tool.isReadOnly({ a: "x", n: 1 })).toBe(false);
    expect(tool.isDestructive({ a: "x", n: 1 })).toBe(false);
    expect(tool.toAutoClassifierInput({ a: "x", n: 1 })).toBe("");
    expect(tool.userFacingName()).toBe("T");
    expect(await tool.checkPermissions({ a: "x", n: 1 }, testContext({ tools: [] }))).toEqual({
      behavior: "allow",
      updatedInput: { a: "x", n: 1 },
    });
    const custom = minimal("U", { isReadOnly: () => true, userFacingName: () => "Custom" });
    expect(custom.isReadOnly({ a: "x", n: 1 })).toBe(true);
    expect(custom.userFacingName()).toBe("Custom");
  });

  it("builds a lazy schema once, on first use", () => {
    let built = 0;
    const tool = minimal("Lazy", {
      inputSchema: () => {
        built++;
        return z.strictObject({ a: z.string() });
      },
    });
    expect(built).toBe(0);
    void tool.inputSchema;
    void tool.inputSchema;
    expect(built).toBe(1);
  });

  it("exposes the input side of the schema as JSON Schema (defaulted fields optional)", () => {
    const schema = toolInputJSONSchema(minimal("J"));
    expect(schema).toMatchObject({ type: "object", required: ["a"], additionalProperties: false });
    expect(schema.$schema).toBeUndefined();
  });
});

describe("registry", () => {
  it("matches names and aliases, preferring a primary name over another tool's alias", () => {
    const a = minimal("TaskOutput", { aliases: ["BashOutput"] });
    const b = minimal("BashOutput");
    expect(toolMatchesName(a, "BashOutput")).toBe(true);
    expect(toolMatchesName(a, "Other")).toBe(false);
    expect(findToolByName([a, b], "BashOutput")).toBe(b);
    expect(findToolByName([a], "BashOutput")).toBe(a);
    expect(findToolByName([a], "nope")).toBeUndefined();
  });

  it("normalizes MCP names to mcp__server__tool", () => {
    expect(normalizeNameForMcp("my server.v2/ü")).toBe("my_server_v2__");
    expect(buildMcpToolName("git hub", "create-issue")).toBe("mcp__git_hub__create-issue");
    expect(parseMcpToolName("mcp__github__create_issue")).toEqual({ serverName: "github", toolName: "create_issue" });
    expect(parseMcpToolName("mcp__github")).toEqual({ serverName: "github" });
    expect(parseMcpToolName("Read")).toBeNull();
  });

  it("announces deferred tools by name until they are loaded; alwaysLoad opts out", () => {
    const read = minimal("Read");
    const mcp = minimal("mcp__s__t", { isMcp: true });
    const pinned = minimal("mcp__s__pinned", { isMcp: true, alwaysLoad: true });
    const rare = minimal("NotebookEdit", { shouldDefer: true });
    const tools = [read, mcp, pinned, rare];
    expect(getToolsForModel(tools, new Set()).map((t) => t.name)).toEqual(["Read", "mcp__s__pinned"]);
    expect(getDeferredToolNames(tools, new Set())).toEqual(["mcp__s__t", "NotebookEdit"]);
    expect(getToolsForModel(tools, new Set(["NotebookEdit"])).map((t) => t.name)).toEqual(["Read", "mcp__s__pinned", "NotebookEdit"]);
  });
});

describe("classifyToolError", () => {
  it("labels errors for telemetry without code or paths", () => {
    const enoent = Object.assign(new Error("ENOENT: no such file or directory, open '/home/alice/secret.txt'"), { code: "ENOENT" });
    expect(classifyToolError(enoent)).toBe("Error:ENOENT");
    expect(classifyToolError(new TypeError("x is not a function at /src/app.ts:3"))).toBe("TypeError");
    expect(classifyToolError(new AbortError())).toBe("AbortError");
    expect(classifyToolError(new Error("failed reading /etc/passwd"))).toBe("Error");
    expect(classifyToolError("a string")).toBe("UnknownError");
    expect(classifyToolError(null)).toBe("UnknownError");
    expect(classifyToolError({ name: "Err" })).toBe("UnknownError");
    const weird = new Error("boom");
    weird.name = "/tmp/evil/path";
    expect(classifyToolError(weird)).toBe("Error");
    const safe = new TelemetrySafeError("could not open /Users/bob/x.txt", "open failed for /Users/bob/x.txt in ./src/y.ts");
    expect(classifyToolError(safe)).toBe("open failed for <path> in <path>");
    expect(classifyToolError(new TelemetrySafeError("m", "x".repeat(500)))).toHaveLength(200);
    for (const label of [enoent, safe, weird].map(classifyToolError)) expect(label).not.toMatch(/\/[a-z]/i);
  });
});

describe("readFileState", () => {
  it("is an LRU bounded by entries and by cached content size", () => {
    const cache = createFileStateCache(3, 100);
    const state = (content?: string) => ({ contentHash: "h", content, mtimeMs: 1, size: 1, timestamp: 1 });
    cache.set("/a", state("a"));
    cache.set("/b", state("b"));
    cache.set("/c", state("c"));
    cache.get("/a");
    cache.set("/d", state("d"));
    expect(cache.keys().sort()).toEqual(["/a", "/c", "/d"]);
    cache.set("/big", state("x".repeat(90)));
    expect(cache.contentChars).toBeLessThanOrEqual(100);
    expect(cache.has("/big")).toBe(true);
    expect(cache.get("/a//")).toBeUndefined();
    expect(cache.get("/big/../big")?.content).toHaveLength(90);
  });
});

describe("file history", () => {
  it("rewinds files changed since a message and deletes files created since", () => {
    const dir = tempDir();
    const ctx = testContext({ tools: [], cwd: dir });
    const existing = path.join(dir, "keep.txt");
    const created = path.join(dir, "new.txt");
    fs.writeFileSync(existing, "v1");
    fs.chmodSync(existing, 0o751);

    ctx.fileHistory.checkpoint(existing, "m1");
    fs.writeFileSync(existing, "v2");
    ctx.fileHistory.checkpoint(existing, "m2");
    fs.writeFileSync(existing, "v3");
    ctx.fileHistory.checkpoint(created, "m2");
    fs.writeFileSync(created, "fresh");
    ctx.readFileState.set(existing, { contentHash: "x", mtimeMs: 0, size: 2, timestamp: 0 });

    const r2 = rewindFiles(ctx, "m2");
    expect(r2.restored).toEqual([existing]);
    expect(r2.deleted).toEqual([created]);
    expect(fs.readFileSync(existing, "utf8")).toBe("v2");
    expect(fs.existsSync(created)).toBe(false);
    expect(ctx.readFileState.has(existing)).toBe(false);

    rewindFiles(ctx, "m1");
    expect(fs.readFileSync(existing, "utf8")).toBe("v1");
    expect(fs.statSync(existing).mode & 0o777).toBe(0o751);
    expect(() => rewindFiles(ctx, "m1")).toThrow(UnknownCheckpointError);
  });
});

describe("expandPath", () => {
  it("expands ~ and resolves relative paths against cwd", () => {
    expect(expandPath("~/x", "/w", "/home/u")).toBe("/home/u/x");
    expect(expandPath("~", "/w", "/home/u")).toBe("/home/u");
    expect(expandPath("a/../b", "/w")).toBe("/w/b");
    expect(expandPath("/abs//p/", "/w")).toBe("/abs/p");
  });
});
