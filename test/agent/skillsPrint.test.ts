/**
 * Skills and custom slash commands in `toolgate -p`: the real CLI against the scripted model server, asserting
 * on what the server received (the system prompt's listing, the Skill tool's result, the expanded command).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { FakeModelServer } from "../../scripts/fake-model.mjs";
import { runCli, serveModel } from "../cli/agentRun.js";

vi.setConfig({ testTimeout: 120_000 });


function write(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

/** A git repository with a toolgate home and a user home beside it (never the real ones). */
function project() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-skills-print-")));
  const dir = path.join(root, "repo");
  fs.mkdirSync(path.join(dir, ".git"), { recursive: true });
  return { root, dir, home: path.join(root, "home"), userHome: path.join(root, "user") };
}

function envFor(server: FakeModelServer, provider: "anthropic" | "openai", p: ReturnType<typeof project>): NodeJS.ProcessEnv {
  const base = { ...process.env, TOOLGATE_HOME: p.home, HOME: p.userHome, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", ANTHROPIC_BASE_URL: "", OPENAI_BASE_URL: "" };
  return provider === "anthropic"
    ? { ...base, ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url }
    : { ...base, TOOLGATE_PROVIDER: "openai", OPENAI_API_KEY: "test", OPENAI_BASE_URL: `${server.url}/v1` };
}

/** Everything the model was sent in one request, as text: system prompt, messages, tool results. */
const requestText = (server: FakeModelServer, index: number) => JSON.stringify(server.requests()[index].body);

function systemText(server: FakeModelServer, index: number, provider: "anthropic" | "openai"): string {
  const body = server.requests()[index].body;
  if (provider === "anthropic") return (body.system as Array<{ text: string }>).map((b) => b.text).join("\n");
  return (body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === "system").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
}

describe("skills in toolgate -p", () => {
  for (const provider of ["anthropic", "openai"] as const) {
    it(`${provider}: the system prompt lists the skills, Skill loads one, an Edit near a new package's skills announces them`, async () => {
      const p = project();
      write(path.join(p.dir, ".claude/skills/greeting/SKILL.md"), "---\nname: greeting\ndescription: Greet someone in the house style.\n---\nSay hello to $ARGUMENTS, then read style.md.\n");
      write(path.join(p.dir, ".claude/skills/greeting/style.md"), "Warm and brief.\n");
      write(path.join(p.home, "skills/user-notes/SKILL.md"), "---\ndescription: Keep the user's notes.\n---\nAppend to notes.md.\n");
      write(path.join(p.dir, ".claude/skills/broken/SKILL.md"), "---\nname: broken\n");
      write(path.join(p.dir, "packages/ui/.toolgate/skills/ui-kit/SKILL.md"), "---\nname: ui-kit\ndescription: Components of the ui package.\n---\nUse the Button from ui-kit.\n");
      const server = await serveModel({
        turns: [
          { content: [{ type: "tool_use", id: "toolu_skill", name: "Skill", input: { skill: "greeting", args: "Ada" } }] },
          { content: [{ type: "tool_use", id: "toolu_edit", name: "Edit", input: { file_path: "packages/ui/index.ts", old_string: "", new_string: "export {};\n" } }] },
          { content: [{ type: "tool_use", id: "toolu_skill2", name: "Skill", input: { skill: "ui-kit" } }] },
          { content: [{ type: "text", text: "Done." }] },
        ],
      });
      const result = await runCli(["-p", "Greet Ada", "--cwd", p.dir, "--permission-mode", "acceptEdits", "--no-sandbox"], envFor(server, provider, p));
      expect(result.stdout).toBe("Done.\n");
      expect(result.code).toBe(0);
      // The bad skill is the user's business: reported on stderr, never sent to the model.
      expect(result.stderr).toContain(`[toolgate] warning: ${path.join(p.dir, ".claude/skills/broken/SKILL.md")}: the front matter starting with --- on the first line has no closing --- line; the skill was skipped`);
      expect(server.requests()).toHaveLength(4);

      const system = systemText(server, 0, provider);
      expect(system).toContain("<skills>");
      expect(system).toContain("- greeting: Greet someone in the house style.");
      expect(system).toContain("- user-notes: Keep the user's notes.");
      expect(system).not.toContain("broken");
      expect(system).not.toContain("ui-kit");
      expect(requestText(server, 0)).toContain('"Skill"');

      const afterSkill = requestText(server, 1);
      expect(afterSkill).toContain(`Loaded the skill \\"greeting\\" from ${path.join(p.dir, ".claude/skills/greeting/SKILL.md")}`);
      expect(afterSkill).toContain("Say hello to Ada, then read style.md.");
      expect(afterSkill).toContain("style.md");

      const afterEdit = requestText(server, 2);
      expect(fs.readFileSync(path.join(p.dir, "packages/ui/index.ts"), "utf8")).toBe("export {};\n");
      expect(afterEdit).toContain(`Skills were found near ${path.join("packages/ui/index.ts")}`);
      expect(afterEdit).toContain("- ui-kit: Components of the ui package.");

      expect(requestText(server, 3)).toContain("Use the Button from ui-kit.");
    });
  }
});

describe("custom slash commands in toolgate -p", () => {
  for (const provider of ["anthropic", "openai"] as const) {
    it(`${provider}: /name args sends the expanded command; an unknown /word is sent as written`, async () => {
      const p = project();
      write(path.join(p.dir, ".claude/commands/git/summarize.md"), "---\ndescription: Summarise a folder\nargument-hint: [folder] [tone]\n---\nSummarise the files in $1 in a $2 tone. (asked: $ARGUMENTS)\n");
      write(path.join(p.home, "commands/hello.md"), "Say hello.\n");
      const server = await serveModel({ turns: [{ content: [{ type: "text", text: "One." }] }, { content: [{ type: "text", text: "Two." }] }, { content: [{ type: "text", text: "Three." }] }, { content: [{ type: "text", text: "Four." }] }], loop: false });
      const env = envFor(server, provider, p);
      const runs = [
        await runCli(["-p", "/summarize src 'dry wit'", "--cwd", p.dir, "--no-sandbox"], env),
        await runCli(["-p", "/git:summarize lib calm", "--cwd", p.dir, "--no-sandbox"], env),
        await runCli(["-p", "/nosuch thing", "--cwd", p.dir, "--no-sandbox"], env),
        await runCli(["-p", "/hello", "--cwd", p.dir, "--no-sandbox"], env),
      ];
      expect(runs.map((r) => r.stdout)).toEqual(["One.\n", "Two.\n", "Three.\n", "Four.\n"]);
      expect(runs.map((r) => r.stderr)).toEqual(["", "", "", ""]);
      const prompts = server.requests().map((r) => JSON.stringify(r.body.messages));
      expect(prompts[0]).toContain("Summarise the files in src in a dry wit tone. (asked: src 'dry wit')");
      expect(prompts[0]).not.toContain("/summarize");
      expect(prompts[1]).toContain("Summarise the files in lib in a calm tone. (asked: lib calm)");
      expect(prompts[2]).toContain("/nosuch thing");
      expect(prompts[3]).toContain("Say hello.");
    });
  }
});
