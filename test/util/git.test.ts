/**
 * toolgate's own git runs outside the sandbox in a repository sandboxed commands may write: each test plants a way to
 * make git run a program (checked first with a plain git, which does run it) and asserts toolgate's git never does.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readGitState } from "../../src/agent/environment.js";
import { withGitView } from "../../src/util/git.js";
import { tempDir } from "../helpers.js";

const IDENTITY = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };

interface Setup {
  root: string;
  repo: string;
  marker: string;
  /** A script that records it ran and passes stdin through (so it also works as a clean filter). */
  evil: string;
  git: (...args: string[]) => string;
}

function setup(): Setup {
  const root = tempDir("toolgate-git-");
  const repo = path.join(root, "repo");
  fs.mkdirSync(repo);
  const marker = path.join(root, "marker");
  const evil = path.join(root, "evil.sh");
  fs.writeFileSync(evil, `#!/bin/sh\necho "$0 $*" >> '${marker}'\ncat\n`, { mode: 0o755 });
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env: { ...process.env, ...IDENTITY }, encoding: "utf8" });
  git("init", "-q", "-b", "trunk");
  fs.writeFileSync(path.join(repo, "a.txt"), "a\n");
  git("add", "a.txt");
  git("commit", "-qm", "first commit");
  return { root, repo, marker, evil, git };
}

/** Same content, new mtime: git must read the file (through any clean filter) to know whether it changed. */
function makeStatDirty(file: string): void {
  const later = new Date(Date.now() + 60_000);
  fs.utimesSync(file, later, later);
}

/** The plant works: a plain git run in the repository runs the script. */
function expectPlainGitRunsIt(s: Setup, args: string[], cwd = s.repo): void {
  try {
    execFileSync("git", args, { cwd, stdio: "ignore" });
  } catch {
    // the script is not a real fsmonitor/gpg: git may complain after running it
  }
  expect(fs.existsSync(s.marker), `plain git ${args.join(" ")} ran the planted program`).toBe(true);
  fs.rmSync(s.marker);
}

async function expectToolgateGitRunsNothing(s: Setup, cwd = s.repo) {
  const state = await readGitState(cwd);
  expect(fs.existsSync(s.marker) ? fs.readFileSync(s.marker, "utf8") : "").toBe("");
  return state;
}

const savedEnv = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
afterEach(() => {
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("toolgate's own git", () => {
  it("reads branch, status and log as before", async () => {
    const s = setup();
    fs.writeFileSync(path.join(s.repo, "b.txt"), "b");
    fs.writeFileSync(path.join(s.repo, "a.txt"), "changed\n");
    fs.writeFileSync(path.join(s.repo, ".git", "info", "exclude"), "ignored.txt\n");
    fs.writeFileSync(path.join(s.repo, "ignored.txt"), "x");
    const state = await readGitState(s.repo);
    expect(state).toEqual({ branch: "trunk", status: " M a.txt\n?? b.txt", recentCommits: expect.stringMatching(/^[0-9a-f]+ first commit$/) });
  });

  it("core.fsmonitor in .git/config does not run", async () => {
    const s = setup();
    s.git("config", "core.fsmonitor", s.evil);
    expectPlainGitRunsIt(s, ["status"]);
    expect((await expectToolgateGitRunsNothing(s))?.branch).toBe("trunk");
  });

  it("an include.path to an attacker's config file does not run its fsmonitor", async () => {
    const s = setup();
    const attacker = path.join(s.root, "attacker.cfg");
    fs.writeFileSync(attacker, `[core]\n\tfsmonitor = ${s.evil}\n`);
    s.git("config", "include.path", attacker);
    expectPlainGitRunsIt(s, ["status"]);
    await expectToolgateGitRunsNothing(s);
  });

  it("a planted .git/commondir pointing at an attacker's directory does not run its config", async () => {
    const s = setup();
    const common = path.join(s.root, "attacker-common");
    fs.cpSync(path.join(s.repo, ".git"), common, { recursive: true });
    fs.appendFileSync(path.join(common, "config"), `[core]\n\tfsmonitor = ${s.evil}\n`);
    fs.writeFileSync(path.join(s.repo, ".git", "commondir"), `${common}\n`);
    expectPlainGitRunsIt(s, ["status"]);
    expect((await expectToolgateGitRunsNothing(s))?.recentCommits).toMatch(/first commit/);
  });

  it("config.worktree (extensions.worktreeConfig) does not run its fsmonitor", async () => {
    const s = setup();
    s.git("config", "core.repositoryformatversion", "1");
    s.git("config", "extensions.worktreeConfig", "true");
    fs.writeFileSync(path.join(s.repo, ".git", "config.worktree"), `[core]\n\tfsmonitor = ${s.evil}\n`);
    expectPlainGitRunsIt(s, ["status"]);
    await expectToolgateGitRunsNothing(s);
  });

  it("a .git file pointing at an attacker's git directory does not run that directory's config", async () => {
    const s = setup();
    const planted = path.join(s.root, "attacker-gitdir");
    fs.renameSync(path.join(s.repo, ".git"), planted);
    fs.appendFileSync(path.join(planted, "config"), `[core]\n\tfsmonitor = ${s.evil}\n[filter "x"]\n\tclean = ${s.evil} clean\n`);
    fs.writeFileSync(path.join(s.repo, ".git"), `gitdir: ${planted}\n`);
    fs.writeFileSync(path.join(s.repo, ".gitattributes"), "*.txt filter=x\n");
    makeStatDirty(path.join(s.repo, "a.txt"));
    expectPlainGitRunsIt(s, ["status"]);
    expect((await expectToolgateGitRunsNothing(s))?.branch).toBe("trunk");
  });

  describe("filters named by attributes", () => {
    for (const [kind, value] of [["clean", "clean"], ["process", "process"]] as const) {
      it(`filter.<x>.${kind} named by the tracked .gitattributes does not run for a stat-dirty file`, async () => {
        const s = setup();
        fs.writeFileSync(path.join(s.repo, ".gitattributes"), "*.txt filter=x\n");
        s.git("add", ".gitattributes");
        s.git("commit", "-qm", "attributes");
        s.git("config", `filter.x.${kind}`, `${s.evil} ${value}`);
        makeStatDirty(path.join(s.repo, "a.txt"));
        expectPlainGitRunsIt(s, ["status"]);
        makeStatDirty(path.join(s.repo, "a.txt"));
        const state = await expectToolgateGitRunsNothing(s);
        expect(state?.status).toBe("(clean)");
      });
    }

    it("a filter reached through an attribute macro, in .git/info/attributes, under a driver name that differs by case", async () => {
      const s = setup();
      fs.writeFileSync(path.join(s.repo, ".git", "info", "attributes"), "[attr]harmless filter=Evil\n*.txt harmless\n");
      s.git("config", "filter.Evil.clean", `${s.evil} clean`);
      makeStatDirty(path.join(s.repo, "a.txt"));
      expectPlainGitRunsIt(s, ["status"]);
      makeStatDirty(path.join(s.repo, "a.txt"));
      await expectToolgateGitRunsNothing(s);
    });

    it("a filter in a nested .gitattributes, with the file made racily clean (same mtime as the index)", async () => {
      const s = setup();
      fs.mkdirSync(path.join(s.repo, "deep", "er"), { recursive: true });
      fs.writeFileSync(path.join(s.repo, "deep", "er", "c.txt"), "c\n");
      fs.writeFileSync(path.join(s.repo, "deep", ".gitattributes"), "** filter=x\n");
      s.git("add", "deep");
      s.git("commit", "-qm", "deep");
      s.git("config", "filter.x.clean", `${s.evil} clean`);
      const racy = new Date(Date.now() + 120_000);
      fs.utimesSync(path.join(s.repo, "deep", "er", "c.txt"), racy, racy);
      s.git("update-index", "--refresh");
      fs.rmSync(s.marker, { force: true });
      fs.utimesSync(path.join(s.repo, ".git", "index"), racy, racy);
      expectPlainGitRunsIt(s, ["status"]);
      await expectToolgateGitRunsNothing(s);
    });
  });

  it("a submodule's own config (fsmonitor, filter) does not run: submodules are not checked", async () => {
    const s = setup();
    const upstream = path.join(s.root, "upstream");
    fs.mkdirSync(upstream);
    const inUpstream = (...args: string[]) => execFileSync("git", args, { cwd: upstream, env: { ...process.env, ...IDENTITY } });
    inUpstream("init", "-q");
    fs.writeFileSync(path.join(upstream, "s.txt"), "s\n");
    inUpstream("add", ".");
    inUpstream("commit", "-qm", "sub");
    s.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", upstream, "sub");
    s.git("commit", "-qm", "add sub");
    execFileSync("git", ["config", "core.fsmonitor", s.evil], { cwd: path.join(s.repo, "sub") });
    expectPlainGitRunsIt(s, ["status"]);
    const state = await expectToolgateGitRunsNothing(s);
    expect(state?.status).toBe("(clean)");
  });

  it("log.showSignature with a planted gpg.program does not run it for a commit carrying a signature", async () => {
    const s = setup();
    const head = s.git("rev-parse", "HEAD").trim();
    const tree = s.git("rev-parse", "HEAD^{tree}").trim();
    const signed = `tree ${tree}\nparent ${head}\nauthor t <t@t> 1700000000 +0000\ncommitter t <t@t> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n\nsigned commit\n`;
    const id = execFileSync("git", ["hash-object", "-t", "commit", "-w", "--stdin"], { cwd: s.repo, input: signed, encoding: "utf8" }).trim();
    s.git("update-ref", "refs/heads/trunk", id);
    s.git("config", "log.showSignature", "true");
    s.git("config", "gpg.program", s.evil);
    expectPlainGitRunsIt(s, ["log", "--oneline", "-n", "1"]);
    expect((await expectToolgateGitRunsNothing(s))?.recentCommits).toMatch(/signed commit/);
  });

  it("a user config the sandbox could write (project = home) does not run its fsmonitor or filters either", async () => {
    const s = setup();
    process.env.HOME = s.repo;
    process.env.XDG_CONFIG_HOME = path.join(s.repo, ".config");
    fs.writeFileSync(path.join(s.repo, ".gitconfig"), `[core]\n\tfsmonitor = ${s.evil}\n[filter "x"]\n\tclean = ${s.evil} clean\n`);
    fs.mkdirSync(path.join(s.repo, ".config", "git"), { recursive: true });
    fs.writeFileSync(path.join(s.repo, ".config", "git", "attributes"), "* filter=x\n");
    makeStatDirty(path.join(s.repo, "a.txt"));
    expectPlainGitRunsIt(s, ["status"]);
    makeStatDirty(path.join(s.repo, "a.txt"));
    await expectToolgateGitRunsNothing(s);
  });

  it("a kept setting's value cannot smuggle a section into the view's config", async () => {
    const s = setup();
    s.git("config", "i18n.logOutputEncoding", `UTF-8"\n[core]\n\tfsmonitor = ${s.evil}\n[x]\n\ty = "`);
    await expectToolgateGitRunsNothing(s);
    await withGitView(s.repo, async (git) => {
      expect(await git(["config", "core.fsmonitor"])).toBe("false\n");
      expect(await git(["config", "--get-all", "x.y"])).toBeUndefined();
    });
  });

  it("inherited GIT_* variables do not redirect it", async () => {
    const s = setup();
    const other = setup();
    other.git("config", "core.fsmonitor", other.evil);
    process.env.GIT_DIR = path.join(other.repo, ".git");
    process.env.GIT_CONFIG_PARAMETERS = `'core.fsmonitor'='${s.evil}'`;
    try {
      expect((await expectToolgateGitRunsNothing(s))?.recentCommits).toMatch(/first commit/);
      expect(fs.existsSync(other.marker)).toBe(false);
    } finally {
      delete process.env.GIT_DIR;
      delete process.env.GIT_CONFIG_PARAMETERS;
    }
  });

  it("outside a work tree, in .git, or in a bare repository there is no view", async () => {
    const s = setup();
    expect(await readGitState(s.root)).toBeUndefined();
    expect(await readGitState(path.join(s.repo, ".git"))).toBeUndefined();
    const bare = path.join(s.root, "bare.git");
    execFileSync("git", ["init", "-q", "--bare", bare]);
    execFileSync("git", ["config", "core.fsmonitor", s.evil], { cwd: bare });
    expect(await readGitState(bare)).toBeUndefined();
    expect(fs.existsSync(s.marker)).toBe(false);
  });
});
