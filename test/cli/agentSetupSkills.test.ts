/** What prepareAgent adds for skills and custom commands, on a real session over real folders (no network). */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { prepareAgent } from "../../src/cli/agentSetup.js";
import { createSession } from "../../src/session/index.js";
import { getBuiltinTools } from "../../src/tools/index.js";
import { tempDir } from "../helpers.js";

function write(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

async function sessionIn(cwd: string, home: string, tools = getBuiltinTools(), disallowedTools: string[] = []) {
  const env = { ...process.env, TOOLGATE_HOME: home, HOME: path.join(home, "user"), TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json"), ANTHROPIC_API_KEY: "test", TOOLGATE_PROVIDER: "" };
  return createSession({ cwd, home, env, tools, sandbox: false, mcpConfigFiles: [], disallowedTools });
}

describe("prepareAgent with skills and custom commands", () => {
  it("lists the skills in the system prompt, registers the catalog once, and returns commands and problems", async () => {
    const cwd = tempDir();
    const home = tempDir("toolgate-home-");
    write(path.join(cwd, ".claude/skills/lint/SKILL.md"), "---\ndescription: Lint the project.\n---\nRun the linter.\n");
    write(path.join(cwd, ".claude/skills/bad/SKILL.md"), "---\nname: bad\n");
    write(path.join(cwd, ".claude/commands/ship.md"), "Ship $1.\n");
    const session = await sessionIn(cwd, home);
    try {
      const prepared = await prepareAgent(session, { appendSystemPrompt: "APPENDED" });
      const listing = prepared.system.find((s) => s.startsWith("<skills>"));
      expect(listing).toContain("- lint: Lint the project.");
      // The appended prompt stays last.
      expect(prepared.system.at(-1)).toBe("APPENDED");
      expect(prepared.notices).toEqual([`${path.join(cwd, ".claude/skills/bad/SKILL.md")}: the front matter starting with --- on the first line has no closing --- line; the skill was skipped`]);
      expect(prepared.commands.expand("ship", "v2")).toBe("Ship v2.");
      expect(session.context.skills?.list().map((s) => s.name)).toEqual(["lint"]);
      expect(session.context.fileWriteObservers).toHaveLength(1);
      await prepareAgent(session, {});
      expect(session.context.fileWriteObservers).toHaveLength(1);
      expect(session.context.fileWriteObservers![0]).toBe(session.context.skills);
    } finally {
      await session.close();
    }
  });

  it("does not offer a skill whose SKILL.md a Read rule denies", async () => {
    const cwd = tempDir();
    const home = tempDir("toolgate-home-");
    write(path.join(cwd, ".claude/skills/open/SKILL.md"), "---\ndescription: Open to all.\n---\nx\n");
    write(path.join(cwd, ".claude/skills/private/SKILL.md"), "---\ndescription: Private notes.\n---\nx\n");
    const session = await sessionIn(cwd, home, getBuiltinTools(), [`Read(/${cwd}/.claude/skills/private/**)`]);
    try {
      const prepared = await prepareAgent(session, {});
      const listing = prepared.system.find((s) => s.startsWith("<skills>"))!;
      expect(listing).toContain("- open: Open to all.");
      expect(listing).not.toContain("private");
    } finally {
      await session.close();
    }
  });

  it("without the Skill tool nothing is listed and no catalog is registered", async () => {
    const cwd = tempDir();
    const home = tempDir("toolgate-home-");
    write(path.join(cwd, ".claude/skills/lint/SKILL.md"), "---\ndescription: Lint the project.\n---\nRun the linter.\n");
    const session = await sessionIn(cwd, home, getBuiltinTools().filter((t) => t.name !== "Skill"));
    try {
      const prepared = await prepareAgent(session, {});
      expect(prepared.system.join("\n")).not.toContain("<skills>");
      expect(session.context.skills).toBeUndefined();
      expect(session.context.fileWriteObservers ?? []).toHaveLength(0);
    } finally {
      await session.close();
    }
  });
});
