import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compileMatcher } from "../../src/hooks/index.js";
import { makeContext, makeEchoTool, makeTempDir, removeTempDirs, runnerFor, runOne } from "./helpers.js";

afterEach(removeTempDirs);

describe("compileMatcher", () => {
  it.each([
    [undefined, ["Bash"], true],
    ["", ["mcp__srv__tool"], true],
    ["*", ["Anything"], true],
    ["Edit|Write", ["Write"], true],
    ["Edit|Write", ["Read"], false],
    ["Edit", ["EditNotebook"], false],
    ["Task", ["Agent", "Task"], true],
    ["mcp__srv__.*", ["mcp__srv__tool"], true],
    ["mcp__srv__.*", ["mcp__other__tool"], false],
    ["^Notebook", ["NotebookEdit"], true],
    ["Web.*", ["WebFetch"], true],
  ])("%s against %j → %s", (matcher, names, expected) => {
    const compiled = compileMatcher(matcher);
    expect(compiled.problem).toBeUndefined();
    expect(compiled.matches(names)).toBe(expected);
  });

  it("an invalid regular expression matches nothing and says why", () => {
    const compiled = compileMatcher("Bash(");
    expect(compiled.matches(["Bash("])).toBe(false);
    expect(compiled.matches(["Bash"])).toBe(false);
    expect(compiled.problem).toMatch(/invalid matcher regular expression "Bash\("/);
  });
});

describe("matchers decide which hooks run", () => {
  it("each configured matcher runs only for the tools it names", async () => {
    const dir = makeTempDir();
    const log = path.join(dir, "log");
    // Each hook appends "<label> <tool_name>" so one log shows every (matcher, tool) pair that ran.
    const record = (label: string) => ({
      type: "command",
      command: `node -e 'let d="";process.stdin.on("data",c=>d+=c).on("end",()=>require("fs").appendFileSync(process.argv[1], process.argv[2]+" "+JSON.parse(d).tool_name+"\\n"))' "${log}" "${label}"`,
    });
    const runner = runnerFor(dir, {
      PreToolUse: [
        { matcher: "*", hooks: [record("star")] },
        { matcher: "", hooks: [record("empty")] },
        { hooks: [record("absent")] },
        { matcher: "Echo|Other", hooks: [record("pipe")] },
        { matcher: "mcp__srv__.*", hooks: [record("regex")] },
        { matcher: "Old", hooks: [record("alias")] },
        { matcher: "Echo(", hooks: [record("invalid")] },
      ],
    });
    const echo = makeEchoTool({ name: "Echo" });
    const other = makeEchoTool({ name: "Other", aliases: ["Old"] });
    const mcp = makeEchoTool({ name: "mcp__srv__thing" });
    const context = makeContext(dir, [echo.tool, other.tool, mcp.tool], { hookRunner: runner });

    for (const name of ["Echo", "Other", "mcp__srv__thing"]) {
      const result = await runOne(context, name, { text: "x" });
      expect(result.outcome).toBe("success");
    }

    const ran = fs.readFileSync(log, "utf8").trim().split("\n").sort();
    expect(ran).toEqual(
      [
        "star Echo", "empty Echo", "absent Echo", "pipe Echo",
        "star Other", "empty Other", "absent Other", "pipe Other", "alias Other",
        "star mcp__srv__thing", "empty mcp__srv__thing", "absent mcp__srv__thing", "regex mcp__srv__thing",
      ].sort(),
    );
    expect(runner.configNotices).toEqual([expect.objectContaining({ level: "error", message: expect.stringMatching(/invalid matcher regular expression "Echo\("/) })]);
  });
});
