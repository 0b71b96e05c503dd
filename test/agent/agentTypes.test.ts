/** Custom agent types from markdown files: precedence, the front matter's forms, and bad files reported, never fatal. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GENERAL_PURPOSE_AGENT, loadAgentTypes, parseAgentFile } from "../../src/agent/agentTypes.js";
import { tempDir } from "../helpers.js";

function write(file: string, text: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

const agent = (name: string, description: string, extra = "", body = "Do the thing.") => `---\nname: ${name}\ndescription: ${description}\n${extra}---\n${body}\n`;

describe("agent types", () => {
  it("project files win over user files, .toolgate over .claude; general-purpose is built in", () => {
    const cwd = tempDir();
    const home = tempDir();
    const userHome = tempDir();
    write(path.join(cwd, ".toolgate/agents/reviewer.md"), agent("reviewer", "project toolgate reviewer"));
    write(path.join(cwd, ".claude/agents/reviewer.md"), agent("reviewer", "project claude reviewer"));
    write(path.join(cwd, ".claude/agents/tester.md"), agent("tester", "project tester", "tools: [Bash, Read]\nmodel: small\n"));
    write(path.join(home, "agents/tester.md"), agent("tester", "user tester"));
    write(path.join(home, "agents/docs.md"), agent("docs", "user docs writer", "tools: Read, Edit ,Write\nmodel: claude-haiku-4-5\nmaxTurns: 5\n"));
    write(path.join(userHome, ".claude/agents/planner.md"), agent("planner", "claude user planner", "tools: '*'\n"));
    const { types, warnings } = loadAgentTypes({ cwd, home, userHome });
    expect(warnings).toEqual([]);
    expect(types.map((t) => t.name)).toEqual([GENERAL_PURPOSE_AGENT, "docs", "planner", "reviewer", "tester"]);
    const byName = Object.fromEntries(types.map((t) => [t.name, t]));
    expect(byName.reviewer.description).toBe("project toolgate reviewer");
    expect(byName.reviewer.source).toBe(path.join(cwd, ".toolgate/agents/reviewer.md"));
    expect(byName.tester).toMatchObject({ description: "project tester", tools: ["Bash", "Read"], model: "small" });
    expect(byName.docs).toMatchObject({ tools: ["Read", "Edit", "Write"], model: "claude-haiku-4-5", maxTurns: 5, systemPrompt: "Do the thing." });
    expect(byName.planner.tools).toBeUndefined();
    expect(byName.reviewer.model).toBe("inherit");
    expect(byName[GENERAL_PURPOSE_AGENT].source).toBe("built-in");
  });

  it("a bad file is reported with what to fix and skipped; the others still load", () => {
    const cwd = tempDir();
    const dir = path.join(cwd, ".toolgate/agents");
    write(path.join(dir, "good.md"), agent("good", "works"));
    write(path.join(dir, "unclosed.md"), "---\nname: x\ndescription: y\nno closing line\n");
    write(path.join(dir, "noname.md"), "---\ndescription: nameless\n---\nbody\n");
    write(path.join(dir, "badname.md"), agent("../../etc", "path in the name"));
    write(path.join(dir, "nodesc.md"), "---\nname: nodesc\n---\nbody\n");
    write(path.join(dir, "badtools.md"), agent("badtools", "tools of the wrong type", "tools: {Read: true}\n"));
    write(path.join(dir, "badyaml.md"), "---\nname: [unclosed\n---\nbody\n");
    write(path.join(dir, "nobody.md"), agent("nobody", "no prompt", "", ""));
    write(path.join(dir, "turns.md"), agent("turns", "bad turns", "maxTurns: -3\n"));
    fs.mkdirSync(path.join(dir, "folder.md"));
    write(path.join(dir, "notes.txt"), "not an agent");
    const { types, warnings } = loadAgentTypes({ cwd, home: tempDir(), userHome: tempDir() });
    expect(types.map((t) => t.name)).toEqual([GENERAL_PURPOSE_AGENT, "good"]);
    const text = warnings.join("\n");
    expect(warnings).toHaveLength(8);
    expect(text).toMatch(/unclosed\.md was skipped: .*no closing ---/);
    expect(text).toMatch(/noname\.md was skipped: front matter needs `name:`/);
    expect(text).toMatch(/badname\.md was skipped: front matter needs `name:`/);
    expect(text).toMatch(/nodesc\.md was skipped: front matter needs a `description:`/);
    expect(text).toMatch(/badtools\.md was skipped: `tools` must be a list/);
    expect(text).toMatch(/badyaml\.md was skipped/);
    expect(text).toMatch(/nobody\.md was skipped: the file has no system prompt/);
    expect(text).toMatch(/turns\.md was skipped: `maxTurns` must be a positive whole number/);
  });

  it("a custom file may replace the built-in general-purpose type", () => {
    const cwd = tempDir();
    write(path.join(cwd, ".claude/agents/gp.md"), agent(GENERAL_PURPOSE_AGENT, "our own", "tools: Read\n"));
    const { types } = loadAgentTypes({ cwd, home: tempDir(), userHome: tempDir() });
    expect(types).toHaveLength(1);
    expect(types[0]).toMatchObject({ name: GENERAL_PURPOSE_AGENT, description: "our own", tools: ["Read"] });
  });

  it("the example agent file in docs/subagents.md parses as documented", () => {
    const readme = fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), "../../docs/subagents.md"), "utf8");
    const example = /cat > \.toolgate\/agents\/reviewer\.md <<'MD'\n([\s\S]*?)\nMD\n/.exec(readme);
    expect(example).not.toBeNull();
    expect(parseAgentFile("reviewer.md", example![1])).toMatchObject({ name: "reviewer", tools: ["Read", "Grep", "Glob", "Bash"], model: "inherit", maxTurns: 20 });
  });

  it("parseAgentFile accepts a file without tools or model", () => {
    expect(parseAgentFile("/x.md", agent("plain", "plain one"))).toMatchObject({ name: "plain", model: "inherit", systemPrompt: "Do the thing." });
  });
});
