/**
 * Memory and MCP resource mentions in the real CLI (tmux, scripted model): `# note` is appended to the picked
 * file and not sent; `/memory` opens the file in $EDITOR while the session goes on, and the UI comes back (also
 * after an editor that fails, or is interrupted); `/init` is sent to the model and
 * its Write of AGENTS.md asks as any Write; `@server:uri` completes and attaches an MCP resource, a failed read
 * is an error on screen.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { closedAfterEach, hasTmux, Terminal, tuiEnv, tuiProject } from "./tmux.js";
import { DYNAMIC_SERVER, repoRoot, TSX_IMPORT } from "../mcp/helpers.js";

vi.setConfig({ testTimeout: 180_000 });

const { terminals, serve } = closedAfterEach();

const project = () => tuiProject("toolgate-tui-memory-");

describe.skipIf(!hasTmux)("memory, /init and resource mentions", () => {
  it("# appends to the picked memory file (not sent); /memory opens it in $EDITOR", async () => {
    const server = await serve({ turns: [] });
    const { dir, home } = project();
    fs.writeFileSync(path.join(dir, "CLAUDE.md"), "# Rules\nKeep it small.");
    const editor = path.join(home, "editor.sh");
    fs.writeFileSync(editor, '#!/bin/sh\necho "- added in the editor" >> "$1"\n', { mode: 0o755 });
    const terminal = new Terminal(dir, tuiEnv(home, server.url, { EDITOR: editor }), ["--no-sandbox"], { columns: 100, rows: 30 });
    terminals.push(terminal);
    await terminal.waitFor("ask anything");
    await terminal.write("# always run the linter\r");
    await terminal.waitFor("Save this note to which memory?");
    await terminal.waitFor("Project memory: CLAUDE.md");
    await terminal.key("Enter");
    await terminal.waitFor("- always run the linter");
    await terminal.waitFor(`saved to ${path.join(dir, "CLAUDE.md")}`);
    expect(fs.readFileSync(path.join(dir, "CLAUDE.md"), "utf8")).toBe("# Rules\nKeep it small.\n- always run the linter\n");
    // the user memory, created
    await terminal.write("#prefer tabs\r");
    await terminal.waitFor("User memory:");
    await terminal.key("Down");
    await terminal.key("Enter");
    await terminal.waitFor(`saved to ${path.join(home, "AGENTS.md")}`);
    expect(fs.readFileSync(path.join(home, "AGENTS.md"), "utf8")).toBe("- prefer tabs\n");
    expect(server.requests()).toHaveLength(0);

    await terminal.write("/memory\r");
    await terminal.waitFor("Open which memory file in");
    await terminal.key("Enter");
    await terminal.waitFor(`edited ${path.join(dir, "CLAUDE.md")}`);
    expect(fs.readFileSync(path.join(dir, "CLAUDE.md"), "utf8")).toBe("# Rules\nKeep it small.\n- always run the linter\n- added in the editor\n");
    // the UI reads keys again
    await terminal.write("/help\r");
    await terminal.waitFor("/output-style");
  });

  it("/memory: the session goes on while the editor has the terminal, and the UI reads keys again after", async () => {
    const server = await serve({ turns: [] });
    const { dir, home } = project();
    fs.writeFileSync(path.join(dir, "CLAUDE.md"), "# Rules\n");
    const hang = path.join(dir, "hang");
    const pidFile = path.join(dir, "status.pid");
    // Once asked to, the status line command hangs; only toolgate's 5 s timer ends it (and only its event loop reaps it).
    const statusLine = `if [ -e ${hang} ]; then rm ${hang}; echo $$ > ${pidFile}; exec sleep 120; fi; echo status-ok`;
    fs.writeFileSync(path.join(home, "settings.json"), JSON.stringify({ statusLine: { type: "command", command: statusLine } }));
    // The editor waits until that command is gone: with the UI blocked it would give up and exit 3.
    const editor = path.join(home, "editor.sh");
    fs.writeFileSync(editor, `#!/bin/sh\ni=0\nwhile kill -0 "$(cat ${pidFile})" 2>/dev/null; do i=$((i+1)); [ "$i" -gt 300 ] && exit 3; sleep 0.1; done\necho "- written while the session went on" >> "$1"\n`, { mode: 0o755 });
    const terminal = new Terminal(dir, tuiEnv(home, server.url, { EDITOR: editor }), ["--no-sandbox"], { columns: 100, rows: 30 });
    terminals.push(terminal);
    await terminal.waitFor("ask anything");
    await terminal.waitFor("status-ok");
    fs.writeFileSync(hang, "");
    await terminal.write("/memory\r");
    await terminal.waitFor("Open which memory file in");
    const deadline = Date.now() + 60_000;
    while (!fs.existsSync(pidFile)) {
      if (Date.now() > deadline) throw new Error("the status line command did not start");
      await new Promise((r) => setTimeout(r, 50));
    }
    await terminal.key("Enter");
    const screen = await terminal.waitFor(/edited \S*CLAUDE\.md|exited with/, { timeoutMs: 90_000 });
    expect(screen).toContain(`edited ${path.join(dir, "CLAUDE.md")}`);
    expect(fs.readFileSync(path.join(dir, "CLAUDE.md"), "utf8")).toBe("# Rules\n- written while the session went on\n");
    // raw mode is back: a control key arrives on its own, without Enter
    await terminal.key("C-o");
    await terminal.waitFor("results shown whole");
    await terminal.write("/help\r");
    await terminal.waitFor("/output-style");
  });

  it.each([
    { editor: "/no/such/editor", says: '/memory: could not start the editor "/no/such/editor" (exit 127' },
    { editor: "sh -c 'exit 4'", says: "/memory: sh -c 'exit 4' exited with 4" },
  ])("/memory: an editor that cannot start or fails ($editor) is reported, and the UI takes the terminal back", async ({ editor, says }) => {
    const server = await serve({ turns: [] });
    const { dir, home } = project();
    const terminal = new Terminal(dir, tuiEnv(home, server.url, { EDITOR: editor }), ["--no-sandbox"], { columns: 100, rows: 30 });
    terminals.push(terminal);
    await terminal.waitFor("ask anything");
    await terminal.write("/memory\r");
    await terminal.waitFor(`Open which memory file in ${editor}?`);
    await terminal.key("Enter");
    await terminal.waitFor(says);
    await terminal.key("C-o");
    await terminal.waitFor("results shown whole");
    await terminal.write("/help\r");
    await terminal.waitFor("/output-style");
  });

  it("/memory: Ctrl-C in an editor that leaves the terminal cooked ends the editor, not the session", async () => {
    const server = await serve({ turns: [] });
    const { dir, home } = project();
    const started = path.join(dir, "editor-started");
    const editor = path.join(home, "editor.sh");
    fs.writeFileSync(editor, `#!/bin/sh\ntouch ${started}\nexec sleep 120\n`, { mode: 0o755 });
    const terminal = new Terminal(dir, tuiEnv(home, server.url, { EDITOR: editor }), ["--no-sandbox"], { columns: 100, rows: 30 });
    terminals.push(terminal);
    await terminal.waitFor("ask anything");
    await terminal.write("/memory\r");
    await terminal.waitFor("Open which memory file in");
    await terminal.key("Enter");
    const deadline = Date.now() + 60_000;
    while (!fs.existsSync(started)) {
      if (Date.now() > deadline) throw new Error("the editor did not start");
      await new Promise((r) => setTimeout(r, 50));
    }
    // the editor's: the cooked terminal turns it into SIGINT, the CLI reads nothing
    await terminal.key("C-c", { read: false });
    await terminal.waitFor(/\/memory: \S+ (?:exited with 130|was ended by SIGINT)/);
    await terminal.key("C-o");
    await terminal.waitFor("results shown whole");
    expect(fs.existsSync(terminal.exitFile)).toBe(false);
  });

  it("/init is sent to the model, and its Write of AGENTS.md goes through the permission dialog", async () => {
    const server = await serve({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_w", name: "Write", input: { file_path: "AGENTS.md", content: "# Agents\nRun npm test.\n" } }] },
        { content: [{ type: "text", text: "Wrote AGENTS.md." }] },
      ],
    });
    const { dir, home } = project();
    const terminal = new Terminal(dir, tuiEnv(home, server.url), ["--no-sandbox"], { columns: 100, rows: 30 });
    terminals.push(terminal);
    await terminal.waitFor("ask anything");
    await terminal.write("/init\r");
    await terminal.waitFor("Allow Write?");
    expect(JSON.stringify((server.requests()[0]!.body as { messages: unknown[] }).messages.at(-1))).toContain("Study this repository and write instructions");
    expect(fs.existsSync(path.join(dir, "AGENTS.md"))).toBe(false);
    await terminal.key("1");
    await terminal.waitFor("Wrote AGENTS.md.");
    expect(fs.readFileSync(path.join(dir, "AGENTS.md"), "utf8")).toBe("# Agents\nRun npm test.\n");
  });

  it("@server:uri completes with Tab and attaches the resource; a failed read is an error and is not sent", async () => {
    const server = await serve({ turns: [{ content: [{ type: "text", text: "Read it." }] }, { content: [{ type: "text", text: "Second." }] }] });
    const { dir, home } = project();
    const mcpConfig = JSON.stringify({ mcpServers: { dyn: { command: process.execPath, args: [...TSX_IMPORT, DYNAMIC_SERVER], cwd: repoRoot } } });
    const terminal = new Terminal(dir, tuiEnv(home, server.url), ["--no-sandbox", "--mcp-config", mcpConfig], { columns: 100, rows: 30 });
    terminals.push(terminal);
    await terminal.waitFor("ask anything");
    await terminal.type("summarise @dyn:");
    await terminal.key("Tab");
    await terminal.waitFor("summarise @dyn:dyn://docs/");
    await terminal.write("first\r");
    await terminal.waitFor("attached @dyn:dyn://docs/first");
    await terminal.waitFor("Read it.");
    const sent = JSON.stringify((server.requests()[0]!.body as { messages: unknown[] }).messages.at(-1));
    expect(sent).toContain('<mcp-resource server=\\"dyn\\" uri=\\"dyn://docs/first\\">');
    expect(sent).toContain("first document");

    await terminal.write("and @dyn:dyn://docs/missing\r");
    await terminal.waitFor("@dyn:dyn://docs/missing could not be read, so it was not attached:");
    await terminal.waitFor("Second.");
    expect(JSON.stringify((server.requests()[1]!.body as { messages: unknown[] }).messages.at(-1))).not.toContain("<mcp-resource");
  });
});
