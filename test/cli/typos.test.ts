/** A lone word close to a subcommand is a typo, told with the command meant; other words stay prompts. */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { cliArgs, cliEnv, repoRoot } from "../cliCommand.js";
import { tempDir } from "../helpers.js";

function toolgate(args: string[]) {
  const home = tempDir("tg-typo-home-");
  return spawnSync(process.execPath, [...cliArgs, ...args], { cwd: repoRoot, encoding: "utf8", input: "", env: { ...process.env, ...cliEnv, TOOLGATE_HOME: home }, timeout: 60_000 });
}

describe("a misspelt subcommand", () => {
  it.each([
    ["sesions", "sessions"],
    ["doctr", "doctor"],
    ["permisions", "permissions"],
  ])("toolgate %s exits 2 and names toolgate %s", (typo, meant) => {
    const run = toolgate([typo]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`toolgate: unknown command '${typo}': did you mean 'toolgate ${meant}'? (To start the interactive UI with it as the first prompt, add a word.)\n`);
  });

  it("a word no command is near, a sentence, or -p stay prompts", () => {
    // without a terminal the UI refuses to start: that refusal shows the word went on as a prompt
    for (const prompt of ["fix", "refactor", "sesions please"]) expect(toolgate([prompt]).stderr).toMatch(/the interactive UI needs a terminal/);
    const printed = toolgate(["-p", "sesions", "--model", "x", "--provider", "anthropic"]);
    expect(printed.stderr).not.toContain("did you mean");
  });
});
