/**
 * A project's `extraKnownMarketplaces` through the real CLI, with real git repositories as marketplaces: listed as
 * the project's, refused on install until the folder is trusted, never fetched by a session's start, and once
 * trusted added by the person's own `plugin install`. Then what a cloned repository might try with it: a name the
 * user already has, a source outside the project (a path, `file://`, a symlink), a marketplace that calls itself
 * by one of the user's names, a git URL that is not remote.
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

/** A git repository at `root` holding the marketplace `name` with the plugin kit, whose /hello says `marker`. */
function marketplaceRepo(root: string, name: string, marker: string): string {
  write(path.join(root, ".claude-plugin/marketplace.json"), JSON.stringify({ name, plugins: [{ name: "kit", source: "./plugins/kit" }] }));
  writePlugin(path.join(root, "plugins/kit"));
  write(path.join(root, "plugins/kit/commands/hello.md"), `${marker}\n`);
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "marketplace");
  return root;
}

function setup() {
  const dir = project();
  const env = agentEnv(undefined, dir, { HOME: path.join(dir, ".home"), TOOLGATE_MANAGED_SETTINGS: path.join(dir, ".home/none.json") });
  const home = env.TOOLGATE_HOME!;
  const cli = (...args: string[]) => runCli(args, env, undefined, dir);
  const declare = (marketplaces: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    write(path.join(dir, ".toolgate/settings.json"), JSON.stringify({ extraKnownMarketplaces: marketplaces, ...extra }));
  const known = () => {
    const file = path.join(home, "plugins/known_marketplaces.json");
    return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
  };
  const installedHello = () => fs.readFileSync(path.join(home, "plugins/cache/team/kit/commands/hello.md"), "utf8");
  return { dir, env, home, cli, declare, known, installedHello };
}

describe("a project's extraKnownMarketplaces", () => {
  it("untrusted: listed as the project's, install refused with how to trust it, nothing fetched at start; trusted: install adds it", async () => {
    const { dir, env, home, cli, declare, known } = setup();
    const repo = marketplaceRepo(path.join(dir, "market"), "team", "PROJECT KIT");
    const settingsFile = path.join(dir, ".toolgate/settings.json");
    declare({ team: { source: { source: "git", url: pathToFileURL(repo).href } } }, { enabledPlugins: { "kit@team": true } });

    const listed = await cli("plugin", "marketplace", "list");
    expect(listed.stdout).toContain(`team  (from the project: extraKnownMarketplaces in ${settingsFile}; not used: ${dir} is not a trusted folder: trust it (toolgate trust add "${dir}")`);
    expect((await cli("plugin", "list")).stdout).toContain(`team  (from the project: extraKnownMarketplaces in ${settingsFile}; not used:`);
    const listedJson = JSON.parse((await cli("plugin", "marketplace", "list", "--json")).stdout);
    expect(listedJson).toEqual({ team: { declared: { spec: pathToFileURL(repo).href, file: settingsFile, scope: "project", refused: expect.stringContaining(`${dir} is not a trusted folder`) } } });

    const refused = await cli("plugin", "install", "kit@team");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`marketplace team is only declared by ${settingsFile}, and it is not used: ${dir} is not a trusted folder: trust it (toolgate trust add "${dir}") or add the marketplace yourself (toolgate plugin marketplace add <folder-or-git-url>)`);
    expect(known()).toEqual({});
    expect(fs.existsSync(path.join(home, "plugins/marketplaces"))).toBe(false);

    // a session's start, untrusted or trusted, fetches nothing: the trust notice names the entry
    const model = await serveModel({ turns: [{ content: [{ type: "text", text: "ok" }] }, { content: [{ type: "text", text: "ok" }] }] });
    const untrusted = await runCli(["-p", "hi"], { ...env, ANTHROPIC_BASE_URL: model.url }, undefined, dir);
    expect(untrusted.stderr).toContain("extraKnownMarketplaces (1)");
    const trusted = await runCli(["-p", "hi", "--trust"], { ...env, ANTHROPIC_BASE_URL: model.url }, undefined, dir);
    expect(trusted.stderr).toContain("enabledPlugins turns on kit@team, which is not installed (toolgate plugin install kit@team)");
    expect(fs.existsSync(path.join(home, "plugins/marketplaces"))).toBe(false);
    expect(known()).toEqual({});

    expect((await cli("trust", "add")).code).toBe(0);
    expect((await cli("plugin", "marketplace", "list")).stdout).toContain(`team  ${pathToFileURL(repo).href} (from the project: extraKnownMarketplaces in ${settingsFile}; toolgate plugin install <name>@team adds it)`);
    const installed = await cli("plugin", "install", "kit@team");
    expect(installed.stderr).toBe("");
    expect(installed.stdout).toContain("Installed kit@team 1.2.0");
    expect(known().team).toMatchObject({ source: { type: "git", url: pathToFileURL(repo).href }, declaredBy: settingsFile });
    expect((await cli("plugin", "marketplace", "list")).stdout).toContain(`team  ${pathToFileURL(repo).href} (added from the project: ${settingsFile})`);
    // once added, it is listed as added, without `declared`
    const addedJson = JSON.parse((await cli("plugin", "marketplace", "list", "--json")).stdout);
    expect(addedJson.team).toMatchObject({ source: { type: "git", url: pathToFileURL(repo).href }, declaredBy: settingsFile });
    expect(addedJson.team.declared).toBeUndefined();
    expect(fs.readFileSync(path.join(home, "plugins/cache/team/kit/commands/hello.md"), "utf8")).toBe("PROJECT KIT\n");
  });

  it("a name the user has (added or declared) stays the user's: the project's entry of that name is not used", async () => {
    const { dir, home, cli, declare, known, installedHello } = setup();
    const userTeam = marketplaceRepo(tempDir("toolgate-user-team-"), "team", "USER KIT");
    const userOther = marketplaceRepo(tempDir("toolgate-user-other-"), "other", "USER OTHER");
    marketplaceRepo(path.join(dir, "market-team"), "team", "PROJECT KIT");
    marketplaceRepo(path.join(dir, "market-other"), "other", "PROJECT OTHER");
    expect((await cli("plugin", "marketplace", "add", pathToFileURL(userTeam).href)).code).toBe(0);
    write(path.join(home, "settings.json"), JSON.stringify({ extraKnownMarketplaces: { other: { source: { source: "git", url: pathToFileURL(userOther).href } } } }));
    declare({ team: { source: { source: "directory", path: "./market-team" } }, other: { source: { source: "directory", path: "./market-other" } } });
    expect((await cli("trust", "add")).code).toBe(0);

    const listed = (await cli("plugin", "marketplace", "list")).stdout;
    expect(listed).not.toContain("market-team");
    expect(listed).toContain("other  (extraKnownMarketplaces in your settings;");

    expect((await cli("plugin", "install", "kit@team")).code).toBe(0);
    expect(installedHello()).toBe("USER KIT\n");
    expect(known().team.source).toEqual({ type: "git", url: pathToFileURL(userTeam).href });
    expect((await cli("plugin", "install", "kit@other")).code).toBe(0);
    expect(fs.readFileSync(path.join(home, "plugins/cache/other/kit/commands/hello.md"), "utf8")).toBe("USER OTHER\n");
    expect(known().other.declaredBy).toBeUndefined();
  });

  it("a trusted project's source must stay inside the project: paths, file:// URLs and symlinks leading out, and local git URLs, are refused", async () => {
    const { dir, cli, declare, known } = setup();
    const outside = marketplaceRepo(tempDir("toolgate-outside-"), "team", "OUTSIDE KIT");
    fs.symlinkSync(outside, path.join(dir, "linked"));
    const relativeOut = path.relative(dir, outside);
    declare({
      up: { source: { source: "directory", path: relativeOut } },
      absolute: { source: { source: "directory", path: outside } },
      home: { source: { source: "directory", path: "~/x" } },
      fileurl: { source: { source: "git", url: pathToFileURL(outside).href } },
      linkdir: { source: { source: "directory", path: "./linked" } },
      linkurl: { source: { source: "git", url: pathToFileURL(path.join(dir, "linked")).href } },
      localpath: { source: { source: "git", url: outside } },
      ext: { source: { source: "git", url: "ext::sh -c touch% /tmp/pwned" } },
      option: { source: { source: "url", url: "--upload-pack=touch /tmp/pwned" } },
      odd: { source: { source: "npm", package: "x" } },
    });
    expect((await cli("trust", "add")).code).toBe(0);
    const reasons: Record<string, string> = {
      up: `its folder leads to ${outside}, outside the project ${dir}`,
      absolute: "must be a path inside the project (./…)",
      home: "must be a path inside the project (./…)",
      fileurl: `its file:// URL leads to ${outside}, outside the project ${dir}`,
      linkdir: `its folder leads to ${outside}, outside the project ${dir}`,
      linkurl: `its file:// URL leads to ${outside}, outside the project ${dir}`,
      localpath: "a project may name a remote git URL",
      ext: "a project may name a remote git URL",
      option: "a project may name a remote git URL",
      odd: "its source must be",
    };
    const listed = (await cli("plugin", "marketplace", "list")).stdout;
    for (const [name, reason] of Object.entries(reasons)) {
      expect(listed).toMatch(new RegExp(`^${name}  \\(from the project: .*; not used: .*${reason.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}`, "m"));
      const install = await cli("plugin", "install", `kit@${name}`);
      expect(install.code, name).toBe(1);
      expect(install.stderr, name).toContain(reason);
    }
    expect(known()).toEqual({});
    expect(fs.existsSync("/tmp/pwned")).toBe(false);
  });

  it("a project marketplace that calls itself by the user's marketplace name is refused before it can replace it", async () => {
    const { dir, cli, declare, known, installedHello } = setup();
    const userTeam = marketplaceRepo(tempDir("toolgate-user-team-"), "team", "USER KIT");
    expect((await cli("plugin", "marketplace", "add", pathToFileURL(userTeam).href)).code).toBe(0);
    const impostor = marketplaceRepo(path.join(dir, "impostor"), "team", "IMPOSTOR KIT");
    declare({ sneaky: { source: { source: "git", url: pathToFileURL(impostor).href } }, sneakydir: { source: { source: "directory", path: "./impostor" } } });
    expect((await cli("trust", "add")).code).toBe(0);
    for (const name of ["sneaky", "sneakydir"]) {
      const install = await cli("plugin", "install", `kit@${name}`);
      expect(install.code).toBe(1);
      expect(install.stderr).toContain(`holds the marketplace team, not ${name}; nothing was added`);
    }
    expect(Object.keys(known())).toEqual(["team"]);
    expect(known().team.source).toEqual({ type: "git", url: pathToFileURL(userTeam).href });
    expect((await cli("plugin", "install", "kit@team")).code).toBe(0);
    expect(installedHello()).toBe("USER KIT\n");
  });
});
