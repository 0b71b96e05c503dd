/**
 * toolgate's own git commands (the environment's branch, status and log). They run outside the sandbox, in a
 * repository that sandboxed commands may write to, so nothing the repository holds may make them execute a program:
 * a planted `.git/config`, `commondir`, `include.path`, `config.worktree`, `.gitattributes` filter or a `.git` file
 * pointing elsewhere would otherwise run fsmonitor hooks, clean filters, signature programs... unsandboxed.
 *
 * git has no switch to skip the repository's config or attributes, so commands run against a view: `GIT_DIR` is the
 * real one (HEAD, index), `GIT_COMMON_DIR` a temporary directory holding a copy of the few repository settings that
 * shape the output (read once, so a later change cannot slip in), `info/attributes` that unsets every filter (it
 * outranks the tracked `.gitattributes`), and links to the real objects and refs. Command-line overrides also cover
 * the user's and the system's config, which the sandbox may reach when a working directory holds them.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const GIT_TIMEOUT_MS = 3_000;

/** Overrides for settings that run programs during the commands toolgate uses, whichever config sets them. */
const OVERRIDES = [
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.pager=cat",
  "log.showSignature=false",
  "status.submoduleSummary=false",
  "diff.external=",
  "protocol.allow=never",
];

/** The repository settings copied into the view: none of them runs a program or names a file that does. */
const KEPT_SETTINGS = new Set([
  "core.repositoryformatversion",
  "core.ignorecase",
  "core.precomposeunicode",
  "core.quotepath",
  "core.filemode",
  "core.symlinks",
  "core.trustctime",
  "core.checkstat",
  "core.autocrlf",
  "core.eol",
  "core.abbrev",
  "core.sparsecheckout",
  "core.sparsecheckoutcone",
  "core.splitindex",
  "core.untrackedcache",
  "extensions.objectformat",
  "extensions.refstorage",
  "index.version",
  "index.sparse",
  "status.showuntrackedfiles",
  "status.renames",
  "status.renamelimit",
  "i18n.logoutputencoding",
  "i18n.commitencoding",
]);

/** What the view links from the real common directory; all of it is data git reads, never runs. */
const LINKED_ENTRIES = ["objects", "refs", "packed-refs", "reftable", "shallow", "logs", path.join("info", "exclude"), path.join("info", "grafts")];

/** Every attribute that names a driver defined in config: unset for all paths. */
const ATTRIBUTES = "* -filter -diff -merge\n";

/** The environment toolgate's git runs in: the caller's, without any GIT_* variable that redirects or configures git. */
function gitEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("GIT_")) env[name] = value;
  return { ...env, GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0", GIT_NO_LAZY_FETCH: "1", GIT_PROTOCOL_FROM_USER: "0", ...extra };
}

function execGit(cwd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const argv = ["--no-pager", "--no-optional-locks", ...OVERRIDES.flatMap((o) => ["-c", o]), ...args];
  return new Promise((resolve) => {
    execFile("git", argv, { cwd, env, timeout: GIT_TIMEOUT_MS, maxBuffer: 1 << 20 }, (err, stdout) => resolve(err ? undefined : stdout));
  });
}

interface Setting {
  key: string;
  value: string | undefined;
}

/** `git config --list -z --show-scope` output: scope NUL key (LF value) NUL, per entry. */
function parseConfigList(out: string): Array<Setting & { scope: string }> {
  const parts = out.split("\0");
  const settings: Array<Setting & { scope: string }> = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const entry = parts[i + 1]!;
    const newline = entry.indexOf("\n");
    settings.push({ scope: parts[i]!, key: newline < 0 ? entry : entry.slice(0, newline), value: newline < 0 ? undefined : entry.slice(newline + 1) });
  }
  return settings;
}

function quoteValue(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\t/g, "\\t")}"`;
}

/** A config file with the repository's settings from the kept list, in the order git read them (the last one wins). */
function formatConfig(settings: Setting[]): string {
  const lines: string[] = [];
  for (const { key, value } of settings) {
    const dot = key.indexOf(".");
    lines.push(`[${key.slice(0, dot)}]`, value === undefined ? `\t${key.slice(dot + 1)}` : `\t${key.slice(dot + 1)} = ${quoteValue(value)}`);
  }
  return `${lines.join("\n")}\n`;
}

function buildView(viewDir: string, commonDir: string, settings: Setting[]): void {
  fs.mkdirSync(path.join(viewDir, "info"));
  fs.writeFileSync(path.join(viewDir, "config"), formatConfig(settings.filter((s) => KEPT_SETTINGS.has(s.key))));
  fs.writeFileSync(path.join(viewDir, "info", "attributes"), ATTRIBUTES);
  for (const entry of LINKED_ENTRIES) {
    const target = path.join(commonDir, entry);
    if (fs.existsSync(target)) fs.symlinkSync(target, path.join(viewDir, entry));
  }
}

/** Runs one git command in the view; its stdout, or undefined when git fails, is missing or too slow. */
export type GitRunner = (args: string[]) => Promise<string | undefined>;

/**
 * Calls `use` with a runner for git commands on the work tree around `cwd`, through a view that keeps the
 * repository from running anything. Undefined outside a work tree (also for a bare repository, or one git refuses
 * to open, e.g. for its owner).
 */
export async function withGitView<T>(cwd: string, use: (git: GitRunner) => Promise<T>): Promise<T | undefined> {
  const plain = gitEnv({});
  const where = await execGit(cwd, ["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "--show-toplevel"], plain);
  const [gitDir, commonDir, workTree] = where?.split("\n") ?? [];
  if (!gitDir || !commonDir || !workTree) return undefined;
  const listed = await execGit(cwd, ["config", "--list", "-z", "--show-scope"], plain);
  if (listed === undefined) return undefined;
  const repoSettings = parseConfigList(listed).filter((s) => s.scope === "local" || s.scope === "worktree");
  const viewDir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-gitview-"));
  try {
    buildView(viewDir, commonDir, repoSettings);
    const env = gitEnv({ GIT_DIR: gitDir, GIT_COMMON_DIR: viewDir, GIT_WORK_TREE: workTree });
    return await use((args) => execGit(cwd, args, env));
  } finally {
    fs.rmSync(viewDir, { recursive: true, force: true });
  }
}
