import { describe, expect, it } from "vitest";
import { formatPermissionRule, parsePermissionRule, splitRuleList } from "../../src/permissions/index.js";

describe("parsePermissionRule", () => {
  it("parses whole-tool and content rules", () => {
    expect(parsePermissionRule("Bash")).toEqual({ toolName: "Bash" });
    expect(parsePermissionRule("Bash(npm test)")).toEqual({ toolName: "Bash", ruleContent: "npm test" });
    expect(parsePermissionRule("  Read(src/**)  ")).toEqual({ toolName: "Read", ruleContent: "src/**" });
  });

  it("treats Tool(*) and Tool() as the whole tool", () => {
    expect(parsePermissionRule("Bash(*)")).toEqual({ toolName: "Bash" });
    expect(parsePermissionRule("Bash()")).toEqual({ toolName: "Bash" });
  });

  it("unescapes \\( \\) and \\\\ and keeps inner parentheses", () => {
    expect(parsePermissionRule("Bash(echo \\(hi\\))")).toEqual({ toolName: "Bash", ruleContent: "echo (hi)" });
    expect(parsePermissionRule("Bash(echo $(date))")).toEqual({ toolName: "Bash", ruleContent: "echo $(date)" });
    expect(parsePermissionRule("Bash(printf a\\\\b)")).toEqual({ toolName: "Bash", ruleContent: "printf a\\b" });
  });

  it("accepts MCP server rules", () => {
    expect(parsePermissionRule("mcp__github")).toEqual({ toolName: "mcp__github" });
    expect(parsePermissionRule("mcp__github__*")).toEqual({ toolName: "mcp__github__*" });
    expect(parsePermissionRule("mcp__github__create_issue")).toEqual({ toolName: "mcp__github__create_issue" });
  });

  it("rejects malformed rules with a reason", () => {
    expect(() => parsePermissionRule("Bash(npm test")).toThrow(/missing '\)'/);
    expect(() => parsePermissionRule("Bash)")).toThrow(/unbalanced/);
    expect(() => parsePermissionRule("")).toThrow(/empty/);
    expect(() => parsePermissionRule("(npm test)")).toThrow(/tool name is missing/);
    expect(() => parsePermissionRule("Ba sh")).toThrow(/not a tool name/);
    expect(() => parsePermissionRule("Bash(x\\)")).toThrow(/missing/);
    expect(() => parsePermissionRule("mcp__github__*(x)")).toThrow(/no content/);
  });

  it("formats back to a string that parses to the same value", () => {
    for (const text of ["Bash", "Bash(npm test)", "Bash(echo \\(hi\\))", "Bash(printf a\\\\b)", "Read(//etc/**)", "mcp__s__*"]) {
      const value = parsePermissionRule(text);
      expect(parsePermissionRule(formatPermissionRule(value))).toEqual(value);
    }
    expect(formatPermissionRule({ toolName: "Bash", ruleContent: "echo (x)" })).toBe("Bash(echo \\(x\\))");
  });
});

describe("splitRuleList", () => {
  it("splits on commas and spaces outside parentheses", () => {
    expect(splitRuleList(["Bash(git diff:*) Edit,Read", "Bash(npm run a, b)"])).toEqual(["Bash(git diff:*)", "Edit", "Read", "Bash(npm run a, b)"]);
  });
});
