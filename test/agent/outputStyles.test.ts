import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadOutputStyles, outputStyleSection, readOutputStyleSetting, withOutputStyle } from "../../src/agent/outputStyles.js";

function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-styles-"));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

describe("output styles", () => {
  it("offers the built-ins, then project and user files with their front matter", () => {
    const root = tree({
      "p/.toolgate/output-styles/pirate.md": "---\nname: Pirate\ndescription: talks like one\n---\nAnswer like a pirate.\n",
      "p/.claude/output-styles/terse.md": "Only one sentence per answer.",
      "h/output-styles/mine.md": "---\ndescription: mine\n---\nUse tables.",
      "u/.claude/output-styles/broken.md": "---\nname: [unclosed\n",
    });
    const loaded = loadOutputStyles({ cwd: path.join(root, "p"), home: path.join(root, "h"), userHome: path.join(root, "u") });
    expect(loaded.styles.map((s) => `${s.name}:${s.source}`)).toEqual(["default:builtin", "explanatory:builtin", "learning:builtin", "Pirate:project", "terse:project", "mine:user"]);
    expect(loaded.find("pirate")).toMatchObject({ description: "talks like one", prompt: "Answer like a pirate." });
    expect(loaded.find("terse")!.description).toBe("");
    expect(loaded.problems).toHaveLength(1);
    expect(loaded.problems[0]).toContain("broken.md");
  });

  it("a file named like a built-in is reported and the built-in kept", () => {
    const root = tree({ "p/.toolgate/output-styles/learning.md": "Mine." });
    const loaded = loadOutputStyles({ cwd: path.join(root, "p"), home: path.join(root, "h"), userHome: path.join(root, "u") });
    expect(loaded.find("learning")!.source).toBe("builtin");
    expect(loaded.problems[0]).toMatch(/learning\.md is ignored: the built-in style is also named "learning"/);
  });

  it("the style is one section of the system prompt, replaced on a change, none for the default", () => {
    const root = tree({});
    const styles = loadOutputStyles({ cwd: root, home: root, userHome: root });
    expect(outputStyleSection(styles.find("default"))).toBeUndefined();
    const explained = withOutputStyle(["base", "env"], styles.find("explanatory"));
    expect(explained).toHaveLength(3);
    expect(explained[2]).toMatch(/^<output_style name="explanatory">[\s\S]*Insight:/);
    const learning = withOutputStyle(explained, styles.find("learning"));
    expect(learning).toHaveLength(3);
    expect(learning[2]).toContain("TODO(human)");
    expect(withOutputStyle(learning, styles.find("default"))).toEqual(["base", "env"]);
  });

  it("reads the outputStyle setting", () => {
    expect(readOutputStyleSetting({ outputStyle: "learning" })).toBe("learning");
    expect(readOutputStyleSetting({ outputStyle: 3 })).toBeUndefined();
    expect(readOutputStyleSetting({})).toBeUndefined();
  });
});
