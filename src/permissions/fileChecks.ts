import path from "node:path";
import type {
  PermissionBehavior,
  PermissionResult,
  PermissionRule,
  PermissionUpdate,
  ToolPermissionContext,
} from "../core/permissionTypes.js";
import { isPathInside } from "../core/paths.js";
import { describeRule } from "./describe.js";
import { findMatchingPathRule, type PathRuleTool } from "./pathRules.js";
import { pathCandidates, workingDirectoryContaining } from "./paths.js";
import { ruleSuggestions } from "./suggestions.js";
import { SAFETY_DIRECTORY_NAMES, SAFETY_FILE_NAMES } from "./safetyPaths.js";

/** Directory names whose contents are always confirmed before a write, even in bypassPermissions mode. */
const PROTECTED_DIRECTORIES = new Set(SAFETY_DIRECTORY_NAMES);
/** File names always confirmed before a write: shell start-up files and configuration that runs code. */
const PROTECTED_FILES = new Set(SAFETY_FILE_NAMES);

/** Why writing `target` needs a human's confirmation whatever the mode, or undefined. */
export function protectedPathReason(target: string): string | undefined {
  const segments = path.resolve(target).split(path.sep).filter(Boolean);
  for (let i = 0; i < segments.length; i++) {
    const name = segments[i].toLowerCase();
    if (i < segments.length - 1 || name === ".git") {
      if (PROTECTED_DIRECTORIES.has(name)) return `${segments[i]}/ is a protected location`;
    }
  }
  const base = (segments[segments.length - 1] ?? "").toLowerCase();
  if (PROTECTED_FILES.has(base)) return `${segments[segments.length - 1]} is a protected file`;
  return undefined;
}

const STRICTNESS: Record<PermissionResult["behavior"], number> = { allow: 0, passthrough: 1, ask: 2, deny: 3 };

/** The stricter of the verdicts; the first wins a tie. */
function strictest(results: PermissionResult[]): PermissionResult {
  return results.reduce((a, b) => (STRICTNESS[b.behavior] > STRICTNESS[a.behavior] ? b : a));
}

function onPath(target: string, given: string): string {
  return target === given ? target : `${given} (real path ${target})`;
}

function ruleVerdict(
  behavior: PermissionBehavior,
  verb: string,
  shown: string,
  hit: { rule: PermissionRule; matched: string },
): PermissionResult {
  const reason = { type: "rule" as const, rule: hit.rule, matched: hit.matched };
  const by = `by rule ${describeRule(hit.rule)}`;
  if (behavior === "deny") return { behavior, message: `Permission to ${verb} ${shown} was denied ${by}.`, decisionReason: reason };
  if (behavior === "ask") return { behavior, message: `${capitalize(verb)} ${shown} needs approval ${by}.`, decisionReason: reason };
  return { behavior, decisionReason: reason };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The rule pattern that covers a directory, written for each destination (`/x` differs per file, `//` does not). */
function directoryRuleContent(dir: string, ctx: ToolPermissionContext): string {
  if (isPathInside(dir, ctx.cwd)) {
    const rel = path.relative(ctx.cwd, dir);
    return rel ? `./${rel.split(path.sep).join("/")}/**` : "./**";
  }
  return absoluteDirectoryRuleContent(dir);
}

function absoluteDirectoryRuleContent(dir: string): string {
  return `/${dir}/**`;
}

function directorySuggestions(family: PathRuleTool, dir: string, ctx: ToolPermissionContext, extra: PermissionUpdate[]): PermissionUpdate[] {
  return [
    ...ruleSuggestions({ toolName: family, ruleContent: directoryRuleContent(dir, ctx) }, "allow", {
      userSettings: { toolName: family, ruleContent: absoluteDirectoryRuleContent(dir) },
    }),
    ...extra,
  ];
}

function checkOne(
  family: PathRuleTool,
  target: string,
  given: string,
  ctx: ToolPermissionContext,
): PermissionResult {
  const verb = family === "Read" ? "read" : "write";
  const shown = onPath(target, given);
  for (const behavior of ["deny", "ask"] as const) {
    const hit = findMatchingPathRule(ctx, family, behavior, target);
    if (hit) return ruleVerdict(behavior, verb, shown, hit);
  }
  if (family === "Edit") {
    const reason = protectedPathReason(target);
    if (reason) {
      return {
        behavior: "ask",
        message: `Writing ${shown} always needs approval: ${reason}.`,
        decisionReason: { type: "safetyCheck", path: target, reason },
      };
    }
  }
  const allowHit = findMatchingPathRule(ctx, family, "allow", target);
  if (allowHit) return ruleVerdict("allow", verb, shown, allowHit);

  const directory = workingDirectoryContaining(target, ctx);
  const dir = path.dirname(target);
  if (directory && (family === "Read" || ctx.mode === "acceptEdits")) {
    return {
      behavior: "allow",
      decisionReason: family === "Read" ? { type: "workingDirectory", path: target, inside: true, directory } : { type: "mode", mode: "acceptEdits" },
    };
  }
  if (directory) {
    return {
      behavior: "passthrough",
      message: `Writing ${shown} needs approval (inside the working directory ${directory}, in ${ctx.mode} mode).`,
      decisionReason: { type: "workingDirectory", path: target, inside: true, directory },
      suggestions: directorySuggestions(family, dir, ctx, [{ type: "setMode", mode: "acceptEdits", destination: "session" }]),
    };
  }
  return {
    behavior: "passthrough",
    message: `${capitalize(family === "Read" ? "reading" : "writing")} ${shown} needs approval: it is outside the working directories.`,
    decisionReason: { type: "workingDirectory", path: target, inside: false },
    suggestions: directorySuggestions(family, dir, ctx, [{ type: "addDirectories", directories: [dir], destination: "session" }]),
  };
}

/** The path and its real path; `realPath`, when the caller resolved it already, is the one judged. */
function candidatesOf(absPath: string, ctx: ToolPermissionContext, realPath: string | undefined): string[] {
  if (realPath === undefined) return pathCandidates(absPath, ctx.cwd);
  const given = path.resolve(ctx.cwd, absPath);
  return realPath === given ? [given] : [given, realPath];
}

/** Path verdicts never carry updatedInput, so they fit any tool's PermissionResult<Input>. */
function checkPath(family: PathRuleTool, absPath: string, ctx: ToolPermissionContext, realPath?: string): PermissionResult {
  const candidates = candidatesOf(absPath, ctx, realPath);
  return strictest(candidates.map((candidate) => checkOne(family, candidate, candidates[0], ctx)));
}

/**
 * Read access to an absolute path (Read, Glob, Grep; `Read(...)` rules). Checks the path and its realpath
 * (`realPath` when the caller resolved it, so the verdict is about the file it will open).
 * deny rule → deny; ask rule → ask; allow rule → allow; inside a working directory → allow;
 * else passthrough with suggestions (a Read rule for the directory, or adding the directory).
 */
export function checkReadPermissionForPath<Input = Record<string, unknown>>(absPath: string, ctx: ToolPermissionContext, realPath?: string): PermissionResult<Input> {
  return checkPath("Read", absPath, ctx, realPath) as PermissionResult<Input>;
}

/**
 * Write access to an absolute path (Edit, MultiEdit, Write, NotebookEdit, Bash redirections; `Edit(...)` rules).
 * Checks the path and its realpath (`realPath` when given). deny rule → deny; ask rule → ask (decisionReason type "rule");
 * safety path (SAFETY_DIRECTORY_NAMES, SAFETY_FILE_NAMES) → ask (type "safetyCheck");
 * allow rule → allow; acceptEdits and inside a working directory → allow; else passthrough with suggestions.
 */
export function checkWritePermissionForPath<Input = Record<string, unknown>>(absPath: string, ctx: ToolPermissionContext, realPath?: string): PermissionResult<Input> {
  return checkPath("Edit", absPath, ctx, realPath) as PermissionResult<Input>;
}

/**
 * The Read deny rule covering this absolute path (or its real path), if any (to drop Glob/Grep results).
 * `realPath`, when the caller already knows it, saves resolving it (a search joins its root's real path
 * with each relative result).
 */
export function matchingReadDenyRule(absPath: string, ctx: ToolPermissionContext, realPath?: string): PermissionRule | undefined {
  for (const candidate of candidatesOf(absPath, ctx, realPath)) {
    const hit = findMatchingPathRule(ctx, "Read", "deny", candidate);
    if (hit) return hit.rule;
  }
  return undefined;
}
