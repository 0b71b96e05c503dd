import path from "node:path";
import ignore, { type Ignore } from "ignore";
import picomatch from "picomatch";
import { isPathInside } from "../core/paths.js";
import type { PermissionBehavior, PermissionRule, ToolPermissionContext } from "../core/permissionTypes.js";
import { rulesByBehavior } from "./rules.js";
import { resolveRealPath, userHomeDir } from "./paths.js";

/** `Read(...)` rules govern Read, Glob and Grep; `Edit(...)` rules govern Edit, MultiEdit, Write, NotebookEdit. */
export type PathRuleTool = "Read" | "Edit";

export const READ_RULE_TOOLS = ["Read", "Glob", "Grep"] as const;
export const EDIT_RULE_TOOLS = ["Edit", "MultiEdit", "Write", "NotebookEdit"] as const;

/**
 * A rule's pattern split into the directory it is relative to and a gitignore pattern:
 * `//abs` → `/` + `/abs`; `~/x` → home + `/x`; `/x` → the settings file's root + `/x`;
 * `./x`, `../x` → that directory + `/x` (anchored); `x` → cwd + `x` (gitignore: any depth when no slash).
 */
export function resolvePatternRoot(content: string, rule: Pick<PermissionRule, "root">, cwd: string, home = userHomeDir()) {
  let root: string;
  let pattern: string;
  if (content.startsWith("//")) {
    root = "/";
    pattern = content.slice(1);
  } else if (content === "~" || content.startsWith("~/")) {
    root = home;
    pattern = content.slice(1);
  } else if (content.startsWith("/")) {
    root = rule.root ?? cwd;
    pattern = content;
  } else if (content === "." || content === ".." || content.startsWith("./") || content.startsWith("../")) {
    const segments = content.split("/");
    let i = 0;
    while (i < segments.length && (segments[i] === "." || segments[i] === "..")) i++;
    root = path.resolve(cwd, ...segments.slice(0, i));
    pattern = `/${segments.slice(i).join("/")}`;
  } else {
    root = cwd;
    pattern = content;
  }
  if (pattern === "" || pattern === "/") pattern = "**";
  return { root: path.resolve(root), pattern };
}

interface CompiledPathRule {
  cwd: string;
  home: string;
  /** The root and its real path. */
  roots: string[];
  pattern: string;
  /** Undefined for whole-tool rules, which cover every path. */
  matcher?: Ignore;
}

const compiledCache = new WeakMap<PermissionRule, CompiledPathRule>();

function compile(rule: PermissionRule, cwd: string): CompiledPathRule {
  const home = userHomeDir();
  const cached = compiledCache.get(rule);
  if (cached && cached.cwd === cwd && cached.home === home) return cached;
  const content = rule.ruleValue.ruleContent;
  let compiled: CompiledPathRule;
  if (content === undefined) {
    compiled = { cwd, home, roots: ["/"], pattern: "**" };
  } else {
    const { root, pattern } = resolvePatternRoot(content, rule, cwd, home);
    const real = resolveRealPath(root);
    // deny and ask ignore case (case-insensitive file systems); allow does not, so it never covers more than written
    const matcher = ignore({ ignorecase: rule.ruleBehavior !== "allow" }).add(pattern);
    compiled = { cwd, home, roots: real === root ? [root] : [root, real], pattern, matcher };
  }
  compiledCache.set(rule, compiled);
  return compiled;
}

/** What part of `target` the rule matched (the path relative to the rule's root), or undefined. */
export function matchPathRule(rule: PermissionRule, target: string, cwd: string): string | undefined {
  const compiled = compile(rule, cwd);
  if (!compiled.matcher) return target;
  for (const root of compiled.roots) {
    if (!isPathInside(target, root) || target === root) continue;
    const rel = path.relative(root, target);
    if (compiled.matcher.ignores(rel)) return rel;
    // a directory pattern (`secrets/`) also stops the directory itself when denying or asking
    if (rule.ruleBehavior !== "allow" && compiled.matcher.ignores(`${rel}/`)) return rel;
  }
  return undefined;
}

/** Rules of this family and behaviour: `Read(...)`/`Edit(...)` and the whole-tool `Read`/`Edit`, highest source first. */
export function pathRules(ctx: ToolPermissionContext, family: PathRuleTool, behavior: PermissionBehavior): PermissionRule[] {
  return rulesByBehavior(ctx, behavior).filter((rule) => rule.ruleValue.toolName === family);
}

export function findMatchingPathRule(
  ctx: ToolPermissionContext,
  family: PathRuleTool,
  behavior: PermissionBehavior,
  target: string,
): { rule: PermissionRule; matched: string } | undefined {
  for (const rule of pathRules(ctx, family, behavior)) {
    const matched = matchPathRule(rule, target, ctx.cwd);
    if (matched !== undefined) return { rule, matched };
  }
  return undefined;
}

const GLOB_CHARS = /[*?[\]{}!]/;

/**
 * Globs for the part of an absolute gitignore pattern (as segments) below `dirSegments`.
 * `**` may absorb any number of directory segments; a pattern used up on an ancestor covers everything.
 */
function remainders(patternSegments: string[], dirSegments: string[], out: Set<string>, dirOnly: boolean): void {
  if (patternSegments.length === 0) {
    out.add("**");
    return;
  }
  if (dirSegments.length === 0) {
    const rest = patternSegments.join("/") + (dirOnly ? "/" : "");
    out.add(rest.startsWith("**") ? rest : `/${rest}`);
    return;
  }
  const [head, ...tail] = patternSegments;
  if (head === "**") {
    remainders(patternSegments, dirSegments.slice(1), out, dirOnly);
    remainders(tail, dirSegments, out, dirOnly);
    return;
  }
  const matches = GLOB_CHARS.test(head) ? picomatch(head, { dot: true, nocase: true })(dirSegments[0]) : head.toLowerCase() === dirSegments[0].toLowerCase();
  if (!matches) return;
  remainders(tail, dirSegments.slice(1), out, dirOnly);
}

/**
 * Ripgrep globs relative to `searchRoot` covering every Read-denied path. Ripgrep matches `--glob`
 * against paths relative to its working directory, so run it with `cwd: searchRoot` and pass each
 * as `--glob !<g>`. Anchored globs start with `/`; `**` means everything under searchRoot is denied.
 */
export function readDenyGlobsForRoot(ctx: ToolPermissionContext, searchRoot: string): string[] {
  const out = new Set<string>();
  const rootAbs = path.resolve(ctx.cwd, searchRoot);
  const searchRoots = [...new Set([rootAbs, resolveRealPath(rootAbs)])];
  for (const rule of pathRules(ctx, "Read", "deny")) {
    const compiled = compile(rule, ctx.cwd);
    if (!compiled.matcher) {
      out.add("**");
      continue;
    }
    let pattern = compiled.pattern;
    const dirOnly = pattern.endsWith("/");
    if (dirOnly) pattern = pattern.slice(0, -1);
    const anchored = pattern.startsWith("/") || pattern.includes("/");
    const segments = pattern.split("/").filter(Boolean);
    const relative = anchored ? segments : ["**", ...segments];
    for (const ruleRoot of compiled.roots) {
      for (const search of searchRoots) {
        if (isPathInside(search, ruleRoot)) {
          const dirSegments = path.relative(ruleRoot, search).split(path.sep).filter(Boolean);
          remainders(relative, dirSegments, out, dirOnly);
        } else if (isPathInside(ruleRoot, search)) {
          const prefix = path.relative(search, ruleRoot).split(path.sep).filter(Boolean);
          out.add(`/${[...prefix, ...relative].join("/")}${dirOnly ? "/" : ""}`);
        }
      }
    }
  }
  return [...out];
}
