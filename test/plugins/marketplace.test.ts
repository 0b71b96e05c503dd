/**
 * Marketplaces through the real CLI: a git repository (cloned through a file:// URL) with
 * `.claude-plugin/marketplace.json`; install → enable → used in a run → disable → gone → uninstall. And a
 * local-folder marketplace, with the entries and ids that try to reach outside their folders.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { agentEnv, project, runCli, serveModel } from "../cli/agentRun.js";
import { tempDir } from "../helpers.js";
import { write, writePlugin } from "./fixtures.js";

vi.setConfig({ testTimeout: 120_000 });

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args], { cwd, stdio: "ignore" });
}

/** A git repository holding a marketplace `team` with the plugin `kit` under plugins/kit. */
function marketplaceRepo(): string {
  const repo = tempDir("toolgate-market-");
  write(path.join(repo, ".claude-plugin/marketplace.json"), JSON.stringify({ name: "team", owner: { name: "Team" }, plugins: [{ name: "kit", source: "./plugins/kit", description: "The team's kit" }] }, null, 2));
  writePlugin(path.join(repo, "plugins/kit"));
  git(repo, "init", "-q");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "marketplace");
  return repo;
}

const initOf = (run: Awaited<ReturnType<typeof runCli>>) => run.lines.find((l) => l.type === "system" && l.subtype === "init")!;

describe("plugin marketplaces", () => {
  it("git marketplace: install → enabled and used in a run → disable → gone → enable → uninstall", async () => {
    const dir = project();
    const env = agentEnv(undefined, dir);
    const home = env.TOOLGATE_HOME!;
    const repo = marketplaceRepo();

    const added = await runCli(["plugin", "marketplace", "add", pathToFileURL(repo).href], env);
    expect(added.stderr).toBe("");
    expect(added.stdout).toContain("Added marketplace team (1 plugin: kit)");
    expect(fs.existsSync(path.join(home, "plugins/marketplaces/team/.claude-plugin/marketplace.json"))).toBe(true);

    const installed = await runCli(["plugin", "install", "kit@team"], env);
    expect(installed.code).toBe(0);
    const copy = path.join(home, "plugins/cache/team/kit");
    expect(installed.stdout).toContain(`Installed kit@team 1.2.0 in ${copy} and enabled it`);
    expect(JSON.parse(fs.readFileSync(path.join(home, "settings.json"), "utf8")).enabledPlugins).toEqual({ "kit@team": true });
    expect(fs.existsSync(path.join(copy, ".git"))).toBe(false);

    const listed = await runCli(["plugin", "list", "--json"], env);
    expect(JSON.parse(listed.stdout).plugins).toEqual([{ id: "kit@team", path: copy, version: "1.2.0", enabled: true }]);

    // mcp list starts the plugin's server; doctor names the plugin with its hooks and server.
    const mcpList = JSON.parse((await runCli(["mcp", "list", "--json", "--cwd", dir], env)).stdout);
    expect(mcpList.servers).toMatchObject([{ name: "plugin:kit:echo", status: "connected", toolCount: 1 }]);
    const doctor = await runCli(["doctor", "--cwd", dir], env);
    expect(doctor.stdout).toContain(`kit@team 1.2.0 — ${copy}`);
    expect(doctor.stdout).toContain(`  hooks: ${path.join(copy, "hooks/hooks.json")}`);
    expect(doctor.stdout).toContain(`PreToolUse [Bash] node "\${CLAUDE_PLUGIN_ROOT}/hooks/guard.mjs" — ${path.join(copy, "hooks/hooks.json")} (plugin kit@team)`);

    const server = await serveModel({ turns: [{ content: [{ type: "text", text: "one" }] }, { content: [{ type: "text", text: "two" }] }, { content: [{ type: "text", text: "three" }] }], loop: false });
    const used = await runCli(["-p", "/kit:hello Ada", "--cwd", dir, "--output-format", "stream-json", "--no-sandbox"], agentEnv(server, dir));
    expect(initOf(used).plugins).toEqual([{ name: "kit", path: copy }]);
    expect(initOf(used).mcp_servers).toEqual([{ name: "plugin:kit:echo", status: "connected" }]);
    expect(JSON.stringify(server.requests()[0].body)).toContain("Say hello to Ada in the kit style.");

    const disabled = await runCli(["plugin", "disable", "kit@team"], env);
    expect(disabled.stdout).toContain("Disabled kit@team");
    const gone = await runCli(["-p", "/kit:hello Ada", "--cwd", dir, "--output-format", "stream-json", "--no-sandbox"], agentEnv(server, dir));
    expect(initOf(gone).plugins).toEqual([]);
    expect(initOf(gone).slash_commands).not.toContain("kit:hello");
    expect(initOf(gone).mcp_servers).toEqual([]);
    // Not a command any more: the text goes to the model as written.
    expect(JSON.stringify(server.requests()[1].body)).toContain("/kit:hello Ada");

    expect((await runCli(["plugin", "enable", "kit@team"], env)).code).toBe(0);
    const uninstalled = await runCli(["plugin", "uninstall", "kit@team"], env);
    expect(uninstalled.stdout).toContain("Uninstalled kit@team.");
    expect(fs.existsSync(copy)).toBe(false);
    expect(JSON.parse(fs.readFileSync(path.join(home, "settings.json"), "utf8")).enabledPlugins).toBeUndefined();
    const enableGone = await runCli(["plugin", "enable", "kit@team"], env);
    expect(enableGone.code).toBe(1);
    expect(enableGone.stderr).toContain("kit@team is not installed (toolgate plugin install kit@team)");
  });

  it("refuses entries, ids and records that lead outside their folders", async () => {
    const dir = project();
    const env = agentEnv(undefined, dir);
    const home = env.TOOLGATE_HOME!;
    const outside = writePlugin(path.join(tempDir("toolgate-outside-"), "evil"), "evil");
    const market = tempDir("toolgate-market-dir-");
    fs.symlinkSync(outside, path.join(market, "linked"));
    write(
      path.join(market, ".claude-plugin/marketplace.json"),
      JSON.stringify({ name: "local", plugins: [{ name: "escape", source: "../escape" }, { name: "linked", source: "./linked" }, { name: "../up", source: "./x" }] }),
    );
    const added = await runCli(["plugin", "marketplace", "add", market], env);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain("Added marketplace local (1 plugin: linked)");
    expect(added.stdout).toContain('plugins[0] (escape): source "../escape" leads outside the marketplace folder; the entry is ignored');
    expect(added.stdout).toContain('plugins[2]: "name" must be letters, digits, - _ or .; the entry is ignored');

    // A symlink inside the marketplace that leads out of it installs nothing.
    const linked = await runCli(["plugin", "install", "linked@local"], env);
    expect(linked.code).toBe(1);
    expect(linked.stderr).toContain(`plugin linked's source leads to ${outside}, outside the marketplace ${market}`);
    // Ids are names, never paths.
    const traversal = await runCli(["plugin", "install", "../../x@local"], env);
    expect(traversal.code).toBe(1);
    expect(traversal.stderr).toContain('"../../x@local" is not a plugin id');
    expect(fs.existsSync(path.join(home, "plugins/cache/local"))).toBe(true);
    expect(fs.readdirSync(path.join(home, "plugins/cache/local"))).toEqual([]);

    // A hand-edited record cannot make an id load a folder outside toolgate's plugin cache.
    write(path.join(home, "plugins/installed_plugins.json"), JSON.stringify({ plugins: { "evil@local": { path: outside, installedAt: "now" } } }));
    write(path.join(home, "settings.json"), JSON.stringify({ enabledPlugins: { "evil@local": true } }));
    const server = await serveModel({ turns: [{ content: [{ type: "text", text: "ok" }] }] });
    const run = await runCli(["-p", "hi", "--cwd", dir, "--output-format", "stream-json", "--verbose", "--no-sandbox"], agentEnv(server, dir));
    expect(initOf(run).plugins).toEqual([]);
    expect(run.stderr).toContain("enabledPlugins turns on evil@local, which is not installed");
    expect(fs.existsSync(path.join(outside, "hook-ran.txt"))).toBe(false);
  });

  it("a manifest path with ../ refuses the whole plugin; a command linked out of the plugin is skipped", async () => {
    const dir = project();
    const plugin = writePlugin(path.join(tempDir("toolgate-plugin-"), "kit"));
    const secret = path.join(tempDir("toolgate-secret-"), "secret.md");
    write(secret, "---\ndescription: secret\n---\nTOP SECRET TEXT\n");
    fs.symlinkSync(secret, path.join(plugin, "commands/leak.md"));
    const escaping = writePlugin(path.join(tempDir("toolgate-plugin-"), "esc"), "esc");
    write(path.join(escaping, ".claude-plugin/plugin.json"), JSON.stringify({ name: "esc", hooks: "../../outside/hooks.json" }));
    const server = await serveModel({ turns: [{ content: [{ type: "text", text: "ok" }] }] });
    const run = await runCli(["-p", "/leak", "--cwd", dir, "--plugin-dir-no-mcp", plugin, "--plugin-dir-no-mcp", escaping, "--output-format", "stream-json", "--verbose", "--no-sandbox"], agentEnv(server, dir));
    expect(initOf(run).plugins).toEqual([{ name: "kit", path: plugin }]);
    expect(run.stderr).toContain(`"hooks": "../../outside/hooks.json" leads outside the plugin folder; the plugin was skipped`);
    expect(run.stderr).toContain(`${path.join(plugin, "commands/leak.md")}: it links to ${secret}, outside ${plugin}`);
    expect(JSON.stringify(server.requests()[0].body)).not.toContain("TOP SECRET TEXT");
  });

  it("extraKnownMarketplaces in the user's settings is added on install; an untrusted project's is not used (projectMarketplaces.test.ts)", async () => {
    const dir = project();
    const env = agentEnv(undefined, dir);
    const home = env.TOOLGATE_HOME!;
    const repo = marketplaceRepo();
    write(path.join(home, "settings.json"), JSON.stringify({ extraKnownMarketplaces: { team: { source: { source: "git", url: pathToFileURL(repo).href } } } }));
    write(path.join(dir, ".toolgate/settings.json"), JSON.stringify({ extraKnownMarketplaces: { proj: { source: { source: "directory", path: repo } } } }));
    expect((await runCli(["plugin", "list"], env)).stdout).toContain("team  (extraKnownMarketplaces in your settings; toolgate plugin install <name>@team adds it)");

    const fromProject = await runCli(["plugin", "install", "kit@proj"], env, undefined, dir);
    expect(fromProject.code).toBe(1);
    expect(fromProject.stderr).toContain(`marketplace proj is only declared by ${path.join(dir, ".toolgate/settings.json")}, and it is not used: ${dir} is not a trusted folder`);

    const installed = await runCli(["plugin", "install", "kit@team"], env);
    expect(installed.stderr).toBe("");
    expect(installed.stdout).toContain("Installed kit@team 1.2.0");
    expect(Object.keys(JSON.parse(fs.readFileSync(path.join(home, "plugins/known_marketplaces.json"), "utf8")))).toEqual(["team"]);
    const settings = JSON.parse(fs.readFileSync(path.join(home, "settings.json"), "utf8"));
    expect(settings.enabledPlugins).toEqual({ "kit@team": true });
    expect(settings.extraKnownMarketplaces.team).toBeDefined();
  });

  it("marketplace update fetches the repository again; installing again updates the plugin", async () => {
    const dir = project();
    const env = agentEnv(undefined, dir);
    const home = env.TOOLGATE_HOME!;
    const repo = marketplaceRepo();
    expect((await runCli(["plugin", "marketplace", "add", pathToFileURL(repo).href], env)).code).toBe(0);
    expect((await runCli(["plugin", "install", "kit@team"], env)).code).toBe(0);

    write(path.join(repo, "plugins/kit/commands/hello.md"), "Say goodbye to $ARGUMENTS.\n");
    writePlugin(path.join(repo, "plugins/extra"), "extra");
    const manifest = JSON.parse(fs.readFileSync(path.join(repo, ".claude-plugin/marketplace.json"), "utf8"));
    manifest.plugins.push({ name: "extra", source: "./plugins/extra" });
    write(path.join(repo, ".claude-plugin/marketplace.json"), JSON.stringify(manifest));
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "more");

    const updated = await runCli(["plugin", "marketplace", "update", "team"], env);
    expect(updated.stdout).toContain("Updated marketplace team (kit, extra)");
    const copy = path.join(home, "plugins/cache/team/kit/commands/hello.md");
    expect(fs.readFileSync(copy, "utf8")).toContain("Say hello");
    expect((await runCli(["plugin", "install", "kit@team"], env)).code).toBe(0);
    expect(fs.readFileSync(copy, "utf8")).toBe("Say goodbye to $ARGUMENTS.\n");
    expect((await runCli(["plugin", "install", "extra@team"], env)).stdout).toContain("Installed extra@team");
  });
});
