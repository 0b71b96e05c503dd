/**
 * Keys typed while the UI starts, in the real CLI in tmux: a prompt typed ahead and ended with Enter is sent (it
 * used to arrive cooked, Enter turned into a line feed, and sat unsent in the prompt with a blank line under it);
 * Ctrl-C still interrupts a start that hangs; keys typed before the trust question never answer it.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { closedAfterEach, hasTmux, Terminal, tuiEnv, tuiProject, until } from "./tmux.js";

vi.setConfig({ testTimeout: 180_000 });

const { terminals, serve } = closedAfterEach();

/** A project whose user settings hold a SessionStart hook that says it started, then waits for `release` to exist. */
function slowStart(prefix: string): { dir: string; home: string; started: string; release: string } {
  const { dir, home } = tuiProject(prefix);
  const started = path.join(dir, "started");
  const release = path.join(dir, "release");
  const command = `touch ${JSON.stringify(started)}; while [ ! -e ${JSON.stringify(release)} ]; do sleep 0.05; done`;
  fs.writeFileSync(path.join(home, "settings.json"), JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command, timeout: 120 }] }] } }));
  return { dir, home, started, release };
}

/** The terminal's line settings as `stty -a` prints them. */
function lineSettings(t: Terminal): string {
  return execFileSync("stty", ["-F", t.tty(), "-a"], { encoding: "utf8" });
}

describe.skipIf(!hasTmux)("keys typed while the UI starts", () => {
  it("a prompt typed ahead with Enter is sent once the UI is up, without being echoed over the screen", async () => {
    const { dir, home, started, release } = slowStart("toolgate-typeahead-");
    const server = await serve({ turns: [{ content: [{ type: "text", text: "Answered the early bird." }] }] });
    const t = new Terminal(dir, tuiEnv(home, server.url), ["--no-sandbox"], { columns: 120 });
    terminals.push(t);
    await until(() => fs.existsSync(started), "the SessionStart hook");
    // The CLI is past its start and waiting on the hook: the UI is not drawn yet.
    expect(t.screen()).not.toContain("ask anything");
    await t.write("hello early\r");
    fs.writeFileSync(release, "");
    await t.waitFor("Answered the early bird.", { all: true });
    const body = server.requests()[0]!.body as { messages: Array<{ role: string; content: unknown }> };
    expect(JSON.stringify(body.messages.at(-1)!.content)).toContain("hello early");
    expect(JSON.stringify(body.messages.at(-1)!.content)).not.toContain("hello early\\n");
    // Once in the transcript and nowhere else: a cooked terminal would have echoed it above the UI too.
    expect(t.all().split("hello early").length - 1).toBe(1);
  });

  it("a prompt typed before the CLI had even loaded, while the terminal was still cooked, is sent too", async () => {
    for (let attempt = 0; ; attempt++) {
      const { dir, home } = tuiProject("toolgate-typeahead-cooked-");
      const server = await serve({ turns: [{ content: [{ type: "text", text: "Answered the earliest bird." }] }] });
      const t = new Terminal(dir, tuiEnv(home, server.url), ["--no-sandbox"], { columns: 120 });
      terminals.push(t);
      // Sent as the terminal starts: Node has not loaded the CLI, so the terminal takes it cooked (Enter → line feed).
      await t.write("typed early\r", { wait: false });
      await until(() => Buffer.concat(t.reads()).toString().includes("typed early"), "the CLI to read the early keys");
      if (!Buffer.concat(t.reads()).toString().includes("typed early\n")) {
        // The CLI was already raw when the keys came (a very fast start): this attempt proves nothing, try again.
        if (attempt < 3) continue;
        throw new Error("the CLI was raw before keys sent at once could arrive, four times");
      }
      await t.waitFor("Answered the earliest bird.", { all: true });
      const body = server.requests()[0]!.body as { messages: Array<{ content: unknown }> };
      expect(JSON.stringify(body.messages.at(-1)!.content)).toContain("typed early");
      return;
    }
  });

  it("Ctrl-C during a start that hangs ends the CLI, and the terminal is left cooked", async () => {
    const { dir, home, started } = slowStart("toolgate-typeahead-int-");
    const server = await serve({ turns: [] });
    const t = new Terminal(dir, tuiEnv(home, server.url), ["--no-sandbox"]);
    terminals.push(t);
    await until(() => fs.existsSync(started), "the SessionStart hook");
    expect(lineSettings(t)).toMatch(/(^|\s)-icanon(\s|$)/);
    await t.write("never sent");
    await t.key("C-c");
    await until(() => fs.existsSync(t.exitFile), "the CLI's exit");
    // killed by SIGINT, as a cooked terminal's Ctrl-C would have
    expect(fs.readFileSync(t.exitFile, "utf8").trim()).toBe("130");
    expect(lineSettings(t)).toMatch(/(^|\s)icanon(\s|$)/);
    expect(server.requests()).toHaveLength(0);
  });

  it("a key typed before the trust question shows does not answer it", async () => {
    for (let attempt = 0; ; attempt++) {
      const { dir, home } = tuiProject("toolgate-typeahead-trust-");
      fs.mkdirSync(path.join(dir, ".toolgate"));
      fs.writeFileSync(path.join(dir, ".toolgate/settings.json"), JSON.stringify({ permissions: { allow: ["Bash"] } }));
      const server = await serve({ turns: [] });
      const t = new Terminal(dir, tuiEnv(home, server.url), ["--no-sandbox"]);
      terminals.push(t);
      // "y" answers the question with trust. Sent as the CLI starts, it is in the terminal before the question.
      await t.write("y", { wait: false });
      if (t.screen().includes("Do you trust")) {
        // The question was drawn first after all (a very fast start): this attempt proves nothing, try again.
        if (attempt < 3) continue;
        throw new Error("the trust question showed before a key sent at once could arrive, four times");
      }
      await t.waitFor("Do you trust the files in this folder?");
      await t.key("Escape");
      await t.waitFor("ask anything");
      await t.waitFor("this folder is not trusted", { all: true });
      expect(fs.existsSync(path.join(home, "trusted-folders.json"))).toBe(false);
      return;
    }
  });
});
