/**
 * README and docs/ say what a newcomer will see: the quick start and the tour's examples run as written and
 * print what the README shows, and every link between the files lands on a file and a heading that exist.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers.js";
import { cliArgs, cliEnv, repoRoot, withoutSandboxNotice } from "../cliCommand.js";
import { agentEnv, project, runCli, serveModel } from "../cli/agentRun.js";

const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");

function section(text: string, heading: string): string {
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const end = text.indexOf("\n## ", start + heading.length + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

const fences = (text: string) => [...text.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], body: m[2] }));

function run(command: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // `npx toolgate` in the README is this checkout's CLI
  const npx = `npx() { shift; ${[process.execPath, ...cliArgs].map((a) => `'${a}'`).join(" ")} "$@"; }`;
  const child = spawn("bash", ["-c", `${npx}\n${command}`], { cwd: repoRoot, env: { ...env, ...cliEnv } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("README", () => {
  it("the quick start prints what the README shows", async () => {
    const [commands, output] = fences(section(readme, "## Quick start"));
    const dir = tempDir("toolgate-quickstart-");
    const home = tempDir("toolgate-quickstart-home-");
    const result = await run(commands.body.replaceAll("/tmp/demo", dir), { ...process.env, TOOLGATE_HOME: home, HOME: home });
    expect(withoutSandboxNotice(result.stderr)).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(output.body);
    expect(fs.readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("hello there\n");
  });

  it("the tour's -p example answers from the scripted model as the README says", async () => {
    const tour = section(readme, "## A tour");
    const script = /<<'JSON'\n([\s\S]*?)\nJSON/.exec(tour)![1];
    const prompt = /-p "([^"]+)"/.exec(tour)![1];
    const said = /It prints `([^`]+)`/.exec(tour)![1];
    const dir = project({ "notes.txt": "ship it on friday\n" });
    const server = await serveModel(JSON.parse(script));
    const result = await runCli(["-p", prompt, "--cwd", dir], agentEnv(server, dir));
    expect(result.stdout.trim()).toBe(said);
    expect(result.code).toBe(0);
    expect(server.requests()[1].body.messages.at(-1).content[0].content).toContain("ship it on friday");
  });
});

describe("links in README.md, CHANGELOG.md and docs/", () => {
  const files = ["README.md", "CHANGELOG.md", ...fs.readdirSync(path.join(repoRoot, "docs")).map((f) => `docs/${f}`)];
  const slug = (h: string) => h.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
  function anchors(file: string): Set<string> {
    const text = fs.readFileSync(path.join(repoRoot, file), "utf8").replace(/```[\s\S]*?```/g, "");
    return new Set([...text.matchAll(/^#{1,6} (.*)$/gm)].map((m) => slug(m[1])));
  }

  it.each(files)("every relative link in %s lands on a file and a heading", (file) => {
    const text = fs.readFileSync(path.join(repoRoot, file), "utf8").replace(/```[\s\S]*?```/g, "");
    const broken: string[] = [];
    for (const [, href] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(href)) continue;
      const [target, anchor] = href.split("#");
      const targetFile = target ? path.relative(repoRoot, path.resolve(path.dirname(path.join(repoRoot, file)), target)) : file;
      if (!fs.existsSync(path.join(repoRoot, targetFile))) broken.push(`${href} (no file ${targetFile})`);
      else if (anchor && !anchors(targetFile).has(anchor)) broken.push(`${href} (no heading #${anchor} in ${targetFile})`);
    }
    expect(broken).toEqual([]);
  });

  it("README stays a newcomer's page: the reference lives in docs/", () => {
    expect(readme.split("\n").length).toBeLessThan(300);
    for (const file of files.filter((f) => f.startsWith("docs/") && f !== "docs/README.md")) expect(readme).toContain(`](${file})`);
  });
});
