/**
 * The registry's Bash tool (tools/Bash/tool.ts) does not load the bash parser at import: sessions that never
 * run Bash never pay for it. Until it is loaded the synchronous answers are the safe ones, and no permission
 * decision is made without the AST. This file must not import a module that waits for the parser
 * (src/shell/index.ts, src/tools/Bash/index.ts, src/tools/Bash/permissions/index.ts, the package root).
 */
import { describe, expect, it } from "vitest";
import { createToolUseContext } from "../../../src/core/context.js";
import { hasPermissionsToUseTool } from "../../../src/permissions/index.js";
import { BashTool } from "../../../src/tools/Bash/tool.js";
import { bashSyntaxError, bashSyntaxErrorAsync, isBashParserLoaded } from "../../../src/shell/parser.js";
import { checkBashCommandPermission, checkBashCommandPermissionAsync } from "../../../src/tools/Bash/permissions/decide.js";
import { tempDir } from "../../helpers.js";
import { permissionContext } from "./helpers.js";

describe("the bash parser loads on first need", () => {
  it("is not loaded by importing the Bash tool; until it is, Bash is neither read-only nor concurrency-safe, and a plan-mode decision still sees the AST", async () => {
    expect(isBashParserLoaded()).toBe(false);
    // an input without a command cannot be judged, loaded or not (tools --json shows "depends on input")
    expect(() => BashTool.isReadOnly({} as never)).toThrow();
    expect(BashTool.isReadOnly({ command: "ls" })).toBe(false);
    expect(BashTool.isConcurrencySafe({ command: "ls" })).toBe(false);
    // loading has started (the synchronous asks start it) but not finished: the decision must wait for it
    expect(isBashParserLoaded()).toBe(false);
    const cwd = tempDir("tg-lazy-parser-");
    const context = createToolUseContext({
      tools: [BashTool],
      cwd,
      home: tempDir("tg-lazy-home-"),
      permissionContext: permissionContext(cwd, {}, "plan"),
      permissionDecider: hasPermissionsToUseTool,
    });
    const decision = await hasPermissionsToUseTool(BashTool, { command: "ls" }, context, { toolUseID: "lazy-1" });
    expect(decision.behavior).toBe("allow");
    expect(isBashParserLoaded()).toBe(true);
    expect(BashTool.isReadOnly({ command: "ls" })).toBe(true);
    expect(BashTool.isConcurrencySafe({ command: "ls" })).toBe(true);
    const denied = await hasPermissionsToUseTool(BashTool, { command: "touch x" }, context, { toolUseID: "lazy-2" });
    expect(denied.behavior).toBe("deny");
  });
});

describe("bash -n without blocking", () => {
  const lines = ["ls", "ls ;; pwd", "fi", "echo 'unterminated", "if true; then echo; fi", "cat <<EOF\nx\nEOF", ""];

  it("gives bash's own answer, the same as the synchronous check", async () => {
    for (const line of lines) {
      // distinct text per call so neither answer comes from the other's cache
      const asyncAnswer = await bashSyntaxErrorAsync(`${line}\n#async`);
      expect(asyncAnswer, line).toBe(bashSyntaxError(`${line}\n#sync`));
    }
    expect(await bashSyntaxErrorAsync("ls ;; pwd #a")).toMatch(/syntax error near unexpected token `;;'/);
    expect(await bashSyntaxErrorAsync("echo ok #a")).toBeUndefined();
  });

  it("lets other work run while bash reads the line, and asks bash once for concurrent checks of one line", async () => {
    let ticked = false;
    setImmediate(() => (ticked = true));
    const line = "for f in *; do echo \"$f\"; done #concurrent";
    const [a, b] = await Promise.all([bashSyntaxErrorAsync(line), bashSyntaxErrorAsync(line)]);
    expect(ticked).toBe(true);
    expect(a).toBeUndefined();
    expect(b).toBeUndefined();
  });

  it("the async permission check decides exactly as the synchronous one", async () => {
    const cwd = tempDir("tg-async-check-");
    const commands = ["ls", "ls ;; pwd", "bash -c 'ls ;; pwd'", "cat a.txt && echo done", "rm -rf /", "git status", "echo $(id)", "ls > out.txt"];
    for (const command of commands) {
      const request = { command, permissionContext: permissionContext(cwd, { allow: ["Bash(git status)"], deny: ["Bash(rm:*)"] }), cwd, home: cwd };
      const asyncResult = await checkBashCommandPermissionAsync(request);
      expect(asyncResult, command).toEqual(checkBashCommandPermission(request));
    }
  });
});
