/**
 * What the sandbox lets one command do, derived from the permission context: pure functions, no I/O
 * beyond the bounded scan for nested safety paths. The runtime (runtime.ts) turns the result into the
 * sandbox-runtime's per-command configuration.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { PermissionDecision, PermissionMode, PermissionRule, ToolPermissionContext } from "../core/permissionTypes.js";
import { getWorkingDirectories } from "../permissions/paths.js";
import { resolvePatternRoot } from "../permissions/pathRules.js";
import { contentRulesView } from "../permissions/rules.js";
import { matchDomainRule } from "../permissions/matchers.js";
import { SAFETY_DIRECTORY_NAMES, SAFETY_FILE_NAMES } from "../permissions/safetyPaths.js";
import type { SandboxSettings } from "./settingsSection.js";

/**
 * `none`: nothing writable but the session's private temp dir (no rule vouched for the command).
 * `workingDirectories`: the working directories too, minus the safety paths and Edit-denied paths.
 */
export type WriteScope = "none" | "workingDirectories";

export interface FilesystemPolicy {
  denyRead: string[];
  allowWrite: string[];
  denyWrite: string[];
}

export interface NetworkPolicy {
  /** Host patterns: `example.com`, `*.example.com`. */
  allowed: string[];
  denied: string[];
}

/** Safety paths inside each working directory that stay read-only whatever the scope. */
const SAFETY_RELATIVE_PATHS = SAFETY_DIRECTORY_NAMES.filter((name) => name !== ".git");

/**
 * A repository's whole `.git` (a folder, or the file of a worktree) is read-only: anything in it may make
 * git run a program. Where there is none yet, its hooks and config are held, as before (a placeholder for
 * the whole folder would stop nothing more and break `git init` messages).
 */
function gitSafetyPaths(dir: string): string[] {
  const git = path.join(dir, ".git");
  return fs.existsSync(git) ? [git] : [path.join(git, "hooks"), path.join(git, "config")];
}
/** How deep the scan for nested repositories and configuration files goes below a working directory. */
const NESTED_SCAN_DEPTH = 3;
const NESTED_SCAN_LIMIT = 2_000;
const SCAN_SKIP = new Set(["node_modules", ".git"]);

/**
 * Whether the decision vouches for writes: a mode that lets edits through, a user or hook approval, a rule
 * covering the whole tool, or a command whose every part is allowed with at least one part by a rule.
 * A command allowed only because it looked read-only, or only because the sandbox contains it, gets none.
 */
export function writeScopeFor(decision: PermissionDecision | undefined, mode: PermissionMode): WriteScope {
  if (mode === "acceptEdits" || mode === "bypassPermissions") return "workingDirectories";
  if (mode === "plan" || !decision || decision.behavior !== "allow") return "none";
  const reason = decision.decisionReason;
  // the engine's own allows always carry a reason: one without came from whoever answered the ask
  if (!reason) return "workingDirectories";
  switch (reason.type) {
    case "rule":
      return reason.rule.ruleBehavior === "allow" ? "workingDirectories" : "none";
    case "hook":
      return "workingDirectories";
    case "subcommands": {
      const parts = reason.parts.map((p) => p.result);
      const byRule = parts.some((r) => r.behavior === "allow" && r.decisionReason?.type === "rule");
      return byRule && parts.every((r) => r.behavior === "allow") ? "workingDirectories" : "none";
    }
    case "other":
      // an interactive approval carries the user's answer
      return reason.reason === SANDBOX_AUTO_ALLOW_REASON ? "none" : "workingDirectories";
    default:
      return "none";
  }
}

/** The decision reason of a Bash command allowed because the sandbox contains it. */
export const SANDBOX_AUTO_ALLOW_REASON = "sandboxed, read-only: no rule allows this command, so it runs in the sandbox";

/** `root` + a gitignore pattern as absolute sandbox paths (globs allowed); a pattern without a slash matches at any depth. */
export function ruleToSandboxPaths(rule: PermissionRule, cwd: string, home = os.homedir()): string[] {
  const content = rule.ruleValue.ruleContent;
  if (content === undefined) return [];
  const { root, pattern } = resolvePatternRoot(content, rule, cwd, home);
  let body = pattern.replace(/\/+$/, "");
  // gitignore: a slash anywhere but at the end anchors the pattern to its root
  const anchored = body.startsWith("/") || body.slice(0, -1).includes("/");
  if (body.endsWith("/**")) body = body.slice(0, -3);
  if (body === "" || body === "**") return [root];
  const rel = body.replace(/^\/+/, "");
  if (anchored) return [path.join(root, rel)];
  return [path.join(root, rel), path.join(root, "**", rel)];
}

const hasGlob = (p: string) => /[*?[\]{}]/.test(p);

/**
 * Write-deny globs as the files they name now: the runtime drops globs from write rules on Linux, and a
 * dropped deny would let the command write what an Edit deny rule forbids.
 */
function expandWriteGlob(pattern: string): string[] {
  const firstGlob = pattern.split("/").findIndex(hasGlob);
  const base = pattern.split("/").slice(0, firstGlob).join("/") || "/";
  const re = globToRegExp(pattern);
  const found: string[] = [];
  walk(base, NESTED_SCAN_DEPTH + 3, (p) => {
    if (re.test(p)) found.push(p);
  });
  return found;
}

function globToRegExp(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      // `/**/` matches zero or more directories
      if (glob[i + 2] === "/") {
        out += "(?:.*/)?";
        i += 2;
      } else {
        out += ".*";
        i++;
      }
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`, "i");
}

/** Every path below `dir`, breadth-bounded, skipping dependency folders and git internals; `listed` sees each directory read. */
function walk(dir: string, depth: number, visit: (p: string) => void, budget = { left: NESTED_SCAN_LIMIT }, listed?: (dir: string) => void): void {
  if (depth < 0 || budget.left <= 0) return;
  listed?.(dir);
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (budget.left-- <= 0) return;
    const p = path.join(dir, entry.name);
    visit(p);
    if (entry.isDirectory() && !SCAN_SKIP.has(entry.name)) walk(p, depth - 1, visit, budget, listed);
  }
}

/** A directory's mtime, which changes whenever an entry in it is added, removed or renamed; -1 when it cannot be read. */
const mtimeOf = (dir: string) => fs.statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? -1;

/** One working directory's nested scan, with the mtime of every directory it read (taken before reading it). */
interface NestedScan {
  found: string[];
  listed: { dir: string; mtimeMs: number }[];
}

/**
 * Scans reused while none of the directories they read has changed: the scan reads every directory of a
 * repository down to NESTED_SCAN_DEPTH on each sandboxed call that may write (12–20 ms in a repository of a
 * few thousand files), while checking their mtimes is one stat each. A change anywhere it looked (a new
 * nested repository or configuration file) makes the next call scan again. A scan that read a directory
 * changed within the last MTIME_SETTLE_MS is not kept: file times are coarse (a clock tick), so a change in the
 * same tick as the one before the scan could leave the mtime as it was.
 */
const nestedScans = new Map<string, NestedScan>();
const MTIME_SETTLE_MS = 1_000;

function nestedSafetyPaths(dir: string): string[] {
  const cached = nestedScans.get(dir);
  if (cached && cached.listed.every((d) => mtimeOf(d.dir) === d.mtimeMs)) return cached.found;
  nestedScans.delete(dir);
  const started = Date.now();
  const scan: NestedScan = { found: [], listed: [] };
  walk(
    dir,
    NESTED_SCAN_DEPTH,
    (p) => {
      const name = path.basename(p);
      if (p === path.join(dir, name)) return;
      if (name === ".git") scan.found.push(p);
      else if (SAFETY_FILE_NAMES.includes(name) || SAFETY_DIRECTORY_NAMES.includes(name)) scan.found.push(p);
    },
    undefined,
    (listed) => scan.listed.push({ dir: listed, mtimeMs: mtimeOf(listed) }),
  );
  if (scan.listed.every((d) => d.mtimeMs < started - MTIME_SETTLE_MS)) nestedScans.set(dir, scan);
  return scan.found;
}

/** Safety paths of one working directory, nested repositories and configuration files included. */
function safetyPaths(dir: string): string[] {
  return [...gitSafetyPaths(dir), ...[...SAFETY_RELATIVE_PATHS, ...SAFETY_FILE_NAMES].map((rel) => path.join(dir, rel)), ...nestedSafetyPaths(dir)];
}

export interface FilesystemPolicyRequest {
  permissionContext: ToolPermissionContext;
  scope: WriteScope;
  /** The session's private temp dir: always writable. */
  tempDir: string;
  home?: string;
  /**
   * For a process that lives across calls (the REPL): bwrap's mount point for a missing safety path is an empty
   * read-only directory instead of an empty file. It stays in the project as long as the process does, and git
   * lists no empty directory.
   */
  directoryPlaceholders?: boolean;
}

/** Read-denied paths unreadable, Edit-denied and safety paths unwritable, and writable only what the scope allows. */
export function filesystemPolicy(request: FilesystemPolicyRequest): FilesystemPolicy {
  const ctx = request.permissionContext;
  const home = request.home ?? os.homedir();
  // the rules match any case and Unicode form; the sandbox denies paths as spelled, so every spelling on disk
  const denyRead = contentRulesView(ctx, "Read", "deny")
    .flatMap((rule) => ruleToSandboxPaths(rule, ctx.cwd, home))
    .flatMap((p) => [p, ...diskSpellings(p)]);
  const allowWrite = [request.tempDir];
  const denyWrite: string[] = [];
  if (request.scope === "workingDirectories") {
    const dirs = getWorkingDirectories(ctx);
    allowWrite.push(...dirs);
    denyWrite.push(...dirs.flatMap(safetyPaths), ...SAFETY_FILE_NAMES.map((name) => path.join(home, name)), path.join(home, ".toolgate"));
    for (const p of contentRulesView(ctx, "Edit", "deny").flatMap((rule) => ruleToSandboxPaths(rule, ctx.cwd, home))) {
      denyWrite.push(...(hasGlob(p) ? expandWriteGlob(p) : [p]));
    }
    // what cannot be read must not be replaced either
    for (const p of denyRead) denyWrite.push(...(hasGlob(p) ? expandWriteGlob(p) : [p]));
    // a deny path below a missing one makes the runtime mount an empty directory there (the path itself stays listed:
    // should it appear before bwrap starts, it is still bound as it is)
    if (request.directoryPlaceholders) denyWrite.push(...denyWrite.filter(isMissing).map((p) => path.join(p, PLACEHOLDER_CHILD)));
  }
  return { denyRead: unique(denyRead), allowWrite: unique(allowWrite), denyWrite: unique(denyWrite) };
}

const unique = (items: string[]) => [...new Set(items)];

/** The name below a missing deny path that turns its mount point into a directory; never created. */
const PLACEHOLDER_CHILD = ".toolgate-placeholder";

function isMissing(p: string): boolean {
  try {
    fs.lstatSync(p);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}

const fold = (name: string) => name.normalize("NFC").toLowerCase();
/** At most this many spellings of one rule path (a folder with thousands of look-alike names stops here). */
const MAX_SPELLINGS = 64;

/**
 * The spellings of `target` that exist on disk, component by component: entries whose case-folded NFC name is
 * the component's (`Secrets/` for a rule written `secrets/`, an NFD `café` for an NFC one). A component with
 * glob characters, and everything after it, stays as written. Names created after the sandbox started are not
 * covered (the permission layer still refuses them to the file tools).
 */
export function diskSpellings(target: string): string[] {
  const parts = target.split(path.sep).filter(Boolean);
  let prefixes: string[] = [path.sep];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (hasGlob(part)) {
      const rest = parts.slice(i).join(path.sep);
      prefixes = prefixes.map((p) => path.join(p, rest));
      break;
    }
    const next: string[] = [];
    for (const prefix of prefixes) {
      let names: string[] = [];
      try {
        names = fs.readdirSync(prefix);
      } catch {
        // not a readable folder: only the spelling as written
      }
      const found = names.filter((name) => fold(name) === fold(part));
      for (const name of found.length ? found : [part]) if (next.length < MAX_SPELLINGS) next.push(path.join(prefix, name));
    }
    prefixes = next;
  }
  return prefixes.filter((p) => p !== target);
}

/** `sandbox.network.allowedDomains` plus every `WebFetch(domain:…)` allow rule; `WebFetch(domain:…)` deny rules win. */
export function networkPolicy(ctx: ToolPermissionContext, settings: SandboxSettings): NetworkPolicy {
  const domains = (behavior: "allow" | "deny") =>
    contentRulesView(ctx, "WebFetch", behavior)
      .map((rule) => rule.ruleValue.ruleContent ?? "")
      .filter((content) => content.startsWith("domain:"))
      .map((content) => content.slice("domain:".length).trim().toLowerCase())
      .filter(Boolean);
  return {
    allowed: unique([...(settings.network?.allowedDomains ?? []).map((d) => d.trim().toLowerCase()), ...domains("allow")]),
    denied: unique(domains("deny")),
  };
}

/** `example.com` matches itself; `*.example.com` its subdomains (not itself), as `WebFetch(domain:…)` rules do. */
export function matchesHostPattern(host: string, pattern: string): boolean {
  return matchDomainRule(`domain:${pattern}`, host);
}

export function isHostAllowed(host: string, policy: NetworkPolicy): boolean {
  if (policy.denied.some((p) => matchesHostPattern(host, p))) return false;
  return policy.allowed.some((p) => matchesHostPattern(host, p));
}
