/**
 * An answer to a permission question may change the input (`updatedInput`). The changed input is checked like
 * the model's own: schema, validation, PreToolUse hooks, deny rules, protected paths, the working directories.
 * Real tools (Write, Bash), the real rule engine and real hook processes; every test checks the file system.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AnyObject, CanUseToolFn, HookRunner } from "../../../src/core/Tool.js";
import type { PermissionDecision, PermissionRule } from "../../../src/core/permissionTypes.js";
import { runToolUse, type ToolResultUpdate } from "../../../src/core/pipeline/index.js";
import { hasPermissionsToUseTool } from "../../../src/permissions/index.js";
import { BashTool } from "../../../src/tools/Bash/index.js";
import { ReadTool } from "../../../src/tools/Read/index.js";
import { WriteTool } from "../../../src/tools/Write/index.js";
import { assistantMessage, testContext } from "../../helpers.js";
import { hooksFor, makeTempDir, nodeHook, removeTempDirs, runnerFor } from "../../hooks/helpers.js";
import { permissionContext, rule } from "../../permissions/helpers.js";

afterEach(removeTempDirs);

interface Answerer {
  fn: CanUseToolFn;
  asked: Array<{ input: AnyObject; decision: PermissionDecision }>;
}

/** The asker (SDK host, prompt tool): says yes, with the input `rewrite` makes of what it was shown. */
function answerer(rewrite: (input: AnyObject) => AnyObject): Answerer {
  const asked: Answerer["asked"] = [];
  const fn: CanUseToolFn = async (_tool, input, _ctx, _msg, _id, decision) => {
    asked.push({ input, decision });
    return { behavior: "allow", updatedInput: rewrite(input), decisionReason: { type: "other", reason: "allowed by the test host" } };
  };
  return { fn, asked };
}

function setup(options: { rules?: PermissionRule[]; hookRunner?: (dir: string) => HookRunner } = {}) {
  const dir = makeTempDir("toolgate-answered-");
  const outside = makeTempDir("toolgate-answered-outside-");
  const context = testContext({
    tools: [WriteTool, BashTool, ReadTool],
    cwd: dir,
    permissionContext: permissionContext(dir, options.rules ?? []),
    permissionDecider: hasPermissionsToUseTool,
    hookRunner: options.hookRunner?.(dir),
  });
  let counter = 0;
  const run = async (name: string, input: AnyObject, canUseTool: CanUseToolFn): Promise<ToolResultUpdate & { text: string }> => {
    const results: ToolResultUpdate[] = [];
    for await (const update of runToolUse({ type: "tool_use", id: `toolu_${++counter}`, name, input }, assistantMessage(), canUseTool, context)) {
      if (update.type === "result") results.push(update);
    }
    expect(results).toHaveLength(1);
    const block = results[0].block;
    const text = typeof block.content === "string" ? block.content : block.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
    return { ...results[0], text };
  };
  /** A file that exists, read first, so Write's own validation lets it be overwritten and only the permission step decides. */
  const original = async (file: string, content = "original") => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    const read = await run("Read", { file_path: file }, async () => ({ behavior: "allow" }));
    expect(read.outcome, read.text).toBe("success");
  };
  return { dir, outside, context, run, original, file: (name: string) => path.join(dir, name) };
}

const moveTo = (file_path: string) => (input: AnyObject) => ({ ...input, file_path });

describe("an answer's updatedInput is checked again", () => {
  it("a changed file_path that a deny rule covers is denied and nothing is written", async () => {
    const s = setup({ rules: [rule("deny", "Edit(./secret/**)")] });
    await s.original(s.file("secret/key"));
    const host = answerer(moveTo(s.file("secret/key")));
    const result = await s.run("Write", { file_path: s.file("notes.txt"), content: "pwned" }, host.fn);
    expect(host.asked).toHaveLength(1);
    // Write's own validation already refuses a denied path; either way the call ends as an error, unrun.
    expect(["denied", "invalid_input"]).toContain(result.outcome);
    expect(result.block.is_error).toBe(true);
    expect(result.text).toContain('denied by rule "Edit(./secret/**)"');
    expect(fs.readFileSync(s.file("secret/key"), "utf8")).toBe("original");
    expect(fs.existsSync(s.file("notes.txt"))).toBe(false);
  });

  it("a whole-tool deny rule for the changed input still denies (the asker answered for another input)", async () => {
    // Bash(rm:*) is denied; the host rewrites an innocent touch into rm.
    const s = setup({ rules: [rule("deny", "Bash(rm:*)")] });
    fs.writeFileSync(s.file("victim"), "keep me");
    const host = answerer(() => ({ command: `rm -f ${s.file("victim")}` }));
    const result = await s.run("Bash", { command: `touch ${s.file("made")}` }, host.fn);
    expect(result.outcome).toBe("denied");
    expect(result.text).toMatch(/not allowed: .*denied by rule/);
    expect(fs.readFileSync(s.file("victim"), "utf8")).toBe("keep me");
    expect(fs.existsSync(s.file("made"))).toBe(false);
  });

  for (const [label, target] of [
    [".git/config", ".git/config"],
    [".bashrc", ".bashrc"],
    [".toolgate/settings.json", ".toolgate/settings.json"],
    ["upper-case .GIT/hooks", ".GIT/hooks/pre-commit"],
  ] as const) {
    it(`a changed file_path onto a protected path (${label}) needs its own approval: denied, the file untouched`, async () => {
      const s = setup();
      await s.original(s.file(target));
      const host = answerer(moveTo(s.file(target)));
      const result = await s.run("Write", { file_path: s.file("notes.txt"), content: "pwned" }, host.fn);
      expect(result.outcome).toBe("denied");
      expect(result.text).toContain("needs an approval that answer did not give");
      expect(result.text).toContain("always needs approval");
      expect(fs.readFileSync(s.file(target), "utf8")).toBe("original");
    });
  }

  it("a changed file_path through a symlink onto a protected file is denied (the real path is checked)", async () => {
    const s = setup();
    fs.mkdirSync(s.file(".git"));
    fs.writeFileSync(s.file(".git/config"), "original");
    fs.symlinkSync(s.file(".git/config"), s.file("innocent.txt"));
    expect((await s.run("Read", { file_path: s.file("innocent.txt") }, async () => ({ behavior: "allow" }))).outcome).toBe("success");
    const host = answerer(moveTo(s.file("innocent.txt")));
    const result = await s.run("Write", { file_path: s.file("notes.txt"), content: "pwned" }, host.fn);
    expect(result.outcome).toBe("denied");
    expect(fs.readFileSync(s.file(".git/config"), "utf8")).toBe("original");
  });

  it("a changed file_path outside the working directories is denied, also spelled with ../ or relative", async () => {
    const s = setup();
    for (const spelling of [path.join(s.outside, "a.txt"), `${s.dir}/../${path.basename(s.outside)}/b.txt`, path.relative(s.dir, path.join(s.outside, "c.txt"))]) {
      const host = answerer(moveTo(spelling));
      const result = await s.run("Write", { file_path: s.file("notes.txt"), content: "pwned" }, host.fn);
      expect(result.outcome, spelling).toBe("denied");
      expect(result.text).toContain("outside the working directories");
    }
    expect(fs.readdirSync(s.outside)).toEqual([]);
  });

  it("a Bash command rewritten to redirect into a protected file or outside is denied", async () => {
    const s = setup();
    fs.writeFileSync(s.file(".zshrc"), "original");
    const commands = [
      `echo pwned > ${s.file(".zshrc")}`,
      `echo pwned > ${path.join(s.outside, "x")}`,
      `D=${s.outside}; echo pwned > "$D/y"`,
      `cd ${s.outside} && echo pwned > z`,
      `echo pwned > ${s.dir}/sub/../.zshrc`,
    ];
    for (const command of commands) {
      const host = answerer(() => ({ command }));
      const result = await s.run("Bash", { command: `touch ${s.file("made")}` }, host.fn);
      expect(result.outcome, command).toBe("denied");
    }
    expect(fs.readFileSync(s.file(".zshrc"), "utf8")).toBe("original");
    expect(fs.readdirSync(s.outside)).toEqual([]);
    expect(fs.existsSync(s.file("made"))).toBe(false);
  });

  it("a changed input that fails the schema or the tool's validation is an is_error result saying what is wrong", async () => {
    const s = setup();
    const badType = await s.run("Write", { file_path: s.file("notes.txt"), content: "x" }, answerer((input) => ({ ...input, file_path: 42 })).fn);
    expect(badType.outcome).toBe("invalid_input");
    expect(badType.block.is_error).toBe(true);
    expect(badType.text).toContain("The answer to the permission question changed the input of Write into an invalid one");
    expect(badType.text).toContain("file_path");
    const extra = await s.run("Write", { file_path: s.file("notes.txt"), content: "x" }, answerer((input) => ({ ...input, mode: "0777" })).fn);
    expect(extra.outcome).toBe("invalid_input");
    expect(extra.text).toContain("mode");
    // Write's own validation: an existing file that was never read may not be overwritten.
    fs.writeFileSync(s.file("unread.txt"), "original");
    const unread = await s.run("Write", { file_path: s.file("notes.txt"), content: "x" }, answerer(moveTo(s.file("unread.txt"))).fn);
    expect(unread.outcome).toBe("invalid_input");
    expect(unread.block.is_error).toBe(true);
    expect(fs.readFileSync(s.file("unread.txt"), "utf8")).toBe("original");
    expect(fs.existsSync(s.file("notes.txt"))).toBe(false);
  });

  it("the asker's yes still covers what it was asked: another plain file inside, or other content for the same protected file", async () => {
    const s = setup();
    const inside = await s.run("Write", { file_path: s.file("notes.txt"), content: "from the model" }, answerer((input) => ({ ...input, file_path: s.file("other.txt"), content: "from the host" })).fn);
    expect(inside.outcome).toBe("success");
    expect(fs.readFileSync(s.file("other.txt"), "utf8")).toBe("from the host");
    expect(fs.existsSync(s.file("notes.txt"))).toBe(false);
    const host = answerer((input) => ({ ...input, content: "reviewed" }));
    const same = await s.run("Write", { file_path: s.file(".gitmodules"), content: "from the model" }, host.fn);
    expect(host.asked[0].decision).toMatchObject({ behavior: "ask", decisionReason: { type: "safetyCheck" } });
    expect(same.outcome).toBe("success");
    expect(fs.readFileSync(s.file(".gitmodules"), "utf8")).toBe("reviewed");
  });

  it("a yes for one protected file is not a yes for another", async () => {
    const s = setup();
    await s.original(s.file(".bashrc"));
    const host = answerer(moveTo(s.file(".bashrc")));
    const result = await s.run("Write", { file_path: s.file(".gitmodules"), content: "pwned" }, host.fn);
    expect(host.asked[0].decision).toMatchObject({ behavior: "ask", decisionReason: { type: "safetyCheck" } });
    expect(result.outcome).toBe("denied");
    expect(fs.readFileSync(s.file(".bashrc"), "utf8")).toBe("original");
    expect(fs.existsSync(s.file(".gitmodules"))).toBe(false);
  });

  it("a yes to read one file outside the working directories is not a yes to read another", async () => {
    const s = setup();
    fs.writeFileSync(path.join(s.outside, "asked.txt"), "asked");
    fs.writeFileSync(path.join(s.outside, "secret.txt"), "TOP SECRET CONTENT");
    const host = answerer(moveTo(path.join(s.outside, "secret.txt")));
    const result = await s.run("Read", { file_path: path.join(s.outside, "asked.txt") }, host.fn);
    expect(host.asked[0].decision).toMatchObject({ behavior: "ask", decisionReason: { type: "workingDirectory", inside: false } });
    expect(result.outcome).toBe("denied");
    expect(result.text).not.toContain("TOP SECRET CONTENT");
    const same = await s.run("Read", { file_path: path.join(s.outside, "asked.txt") }, answerer((input) => ({ ...input, limit: 1 })).fn);
    expect(same.outcome).toBe("success");
    expect(same.text).toContain("asked");
  });

  it("an ask rule that covers the changed input but not the asked one makes it denied", async () => {
    const s = setup({ rules: [rule("ask", "Edit(./release/**)")] });
    fs.mkdirSync(s.file("release"));
    const result = await s.run("Write", { file_path: s.file("notes.txt"), content: "x" }, answerer(moveTo(s.file("release/v1.txt"))).fn);
    expect(result.outcome).toBe("denied");
    expect(result.text).toContain("needs approval by rule");
    expect(fs.existsSync(s.file("release/v1.txt"))).toBe(false);
  });
});

const jsonHook = (dir: string, name: string, output: unknown) => nodeHook(dir, name, `process.stdout.write(${JSON.stringify(JSON.stringify(output))});`);

describe("hooks and a changed input", () => {
  it("a PermissionRequest hook's allow with an updatedInput onto a protected path is denied", async () => {
    let target = "";
    const s = setup({
      hookRunner: (dir) => {
        target = path.join(dir, ".git", "config");
        return runnerFor(dir, hooksFor("PermissionRequest", jsonHook(dir, "answer.js", { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedInput: { file_path: target, content: "pwned" } } } })));
      },
    });
    await s.original(target);
    const host = answerer((input) => input);
    const result = await s.run("Write", { file_path: s.file("notes.txt"), content: "x" }, host.fn);
    expect(host.asked).toEqual([]);
    expect(result.outcome).toBe("denied");
    expect(fs.readFileSync(target, "utf8")).toBe("original");
  });

  it("PreToolUse hooks run on the changed input: a guard hook blocks what the asker rewrote to", async () => {
    const s = setup({
      hookRunner: (dir) =>
        runnerFor(
          dir,
          hooksFor(
            "PreToolUse",
            nodeHook(dir, "guard.js", `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const i=JSON.parse(s).tool_input;if(/\\brm\\b/.test(i.command??"")){process.stderr.write("no rm here");process.exit(2)}});`),
          ),
        ),
    });
    fs.writeFileSync(s.file("victim"), "keep me");
    const result = await s.run("Bash", { command: `touch ${s.file("made")}` }, answerer(() => ({ command: `rm -f ${s.file("victim")}` })).fn);
    expect(result.outcome).toBe("denied");
    expect(result.text).toContain("no rm here");
    expect(fs.readFileSync(s.file("victim"), "utf8")).toBe("keep me");
  });

  it("a rewriting PreToolUse hook is not applied twice to an input the asker changed", async () => {
    const s = setup({
      hookRunner: (dir) =>
        runnerFor(
          dir,
          hooksFor(
            "PreToolUse",
            nodeHook(dir, "tag.js", `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const i=JSON.parse(s).tool_input;process.stdout.write(JSON.stringify({hookSpecificOutput:{hookEventName:"PreToolUse",updatedInput:{...i,content:i.content+"+tag"}}}))});`),
          ),
        ),
    });
    const result = await s.run("Write", { file_path: s.file("a.txt"), content: "text" }, answerer(moveTo(s.file("b.txt"))).fn);
    expect(result.outcome).toBe("success");
    expect(fs.readFileSync(s.file("b.txt"), "utf8")).toBe("text+tag");
  });

  it("a PreToolUse hook's allow with an updatedInput never skips a deny rule or a protected path", async () => {
    const rewriteTo = (dir: string, target: string) =>
      runnerFor(dir, hooksFor("PreToolUse", jsonHook(dir, "rewrite.js", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { file_path: path.join(dir, target), content: "pwned" } } }), { matcher: "Write" }));
    const denied = setup({ rules: [rule("deny", "Edit(./secret/**)")], hookRunner: (dir) => rewriteTo(dir, "secret/key") });
    await denied.original(denied.file("secret/key"));
    const nobody = answerer((input) => input);
    const refused = await denied.run("Write", { file_path: denied.file("notes.txt"), content: "x" }, nobody.fn);
    expect(refused.block.is_error).toBe(true);
    expect(refused.text).toContain("denied by rule");
    expect(fs.readFileSync(denied.file("secret/key"), "utf8")).toBe("original");
    const protectedPath = setup({ hookRunner: (dir) => rewriteTo(dir, ".mcp.json") });
    const refuser: CanUseToolFn = async () => ({ behavior: "deny", message: "not approved" });
    const result = await protectedPath.run("Write", { file_path: protectedPath.file("notes.txt"), content: "x" }, refuser);
    expect(result.outcome).toBe("denied");
    expect(fs.existsSync(protectedPath.file(".mcp.json"))).toBe(false);
    expect(nobody.asked).toEqual([]);
  });
});
