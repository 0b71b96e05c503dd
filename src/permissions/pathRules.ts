import path from "node:path";
import ignore, { type Ignore } from "ignore";
import picomatch from "picomatch";
import { isPathInside } from "../core/paths.js";
import type { PermissionBehavior, PermissionRule, ToolPermissionContext } from "../core/permissionTypes.js";
import { compareRulesByPrecedence, contentRulesView, wholeToolRulesView } from "./rules.js";
import { resolveRealPath, userHomeDir } from "./paths.js";

/** The two path-rule families. Which tools each judges, the tools declare (`ruleFamily`). */
export type PathRuleTool = "Read" | "Edit";

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
  rule: PermissionRule;
  /** The root and its real path. */
  roots: string[];
  /** The rule's gitignore pattern, and for `dir/**` also `dir`: the folder itself, for searches rooted at it. */
  patterns: string[];
  /** Built on first use: only needed to tell which rule of a group matched. */
  matcher?: Ignore;
  lookups: number;
}

/** Every content rule of one root in one gitignore matcher, so a path is tested once per root, not per rule. */
interface RootGroup {
  root: string;
  matcher: Ignore;
  behavior: PermissionBehavior;
  lookups: number;
  /** Highest source first. */
  rules: CompiledPathRule[];
}

/**
 * `ignore` remembers its answer for every path (and each parent) it was asked about; a long session that
 * searches huge trees would grow that without end. A matcher asked this often is rebuilt empty.
 */
const MATCHER_LOOKUP_LIMIT = 50_000;

interface PathRuleSet {
  /** The highest whole-tool rule (`Read`, `Edit`): it covers every path. */
  whole?: PermissionRule;
  compiled: CompiledPathRule[];
  groups: RootGroup[];
}

const setCache = new WeakMap<readonly PermissionRule[], { length: number; sets: Map<string, PathRuleSet> }>();

/** `!x` and `#x` mean negation and comment to gitignore; in a rule they are file names. */
function literalPattern(pattern: string): string {
  return /^[!#]/.test(pattern) ? `\\${pattern}` : pattern;
}

function ignoreCase(behavior: PermissionBehavior): boolean {
  // deny and ask ignore case (case-insensitive file systems); allow does not, so it never covers more than written
  return behavior !== "allow";
}

/**
 * One Unicode form for rules and paths: macOS and some tools store names decomposed (NFD), editors and
 * settings files usually hold them composed (NFC), and `café` must be the same folder either way.
 */
const nfc = (text: string) => text.normalize("NFC");

function compileRule(rule: PermissionRule, cwd: string, home: string): CompiledPathRule {
  const resolved = resolvePatternRoot(rule.ruleValue.ruleContent as string, rule, cwd, home);
  const root = nfc(resolved.root);
  const real = nfc(resolveRealPath(resolved.root));
  const literal = literalPattern(nfc(resolved.pattern));
  const folder = literal.endsWith("/**") ? literal.slice(0, -3) : "";
  return { rule, roots: real === root ? [root] : [root, real], patterns: folder && folder !== "/" ? [literal, folder] : [literal], lookups: 0 };
}

/** The compiled rules of one family and behaviour, cached per rules array, cwd and home directory. */
function pathRuleSet(ctx: ToolPermissionContext, family: PathRuleTool, behavior: PermissionBehavior): PathRuleSet {
  const home = userHomeDir();
  let entry = setCache.get(ctx.rules);
  if (!entry || entry.length !== ctx.rules.length) {
    entry = { length: ctx.rules.length, sets: new Map() };
    setCache.set(ctx.rules, entry);
  }
  const key = `${family}\0${behavior}\0${ctx.cwd}\0${home}`;
  const cached = entry.sets.get(key);
  if (cached) return cached;
  const compiled = contentRulesView(ctx, family, behavior).map((rule) => compileRule(rule, ctx.cwd, home));
  const groups = new Map<string, RootGroup>();
  for (const c of compiled) {
    for (const root of c.roots) {
      let group = groups.get(root);
      if (!group) {
        group = { root, matcher: ignore({ ignorecase: ignoreCase(behavior) }), behavior, lookups: 0, rules: [] };
        groups.set(root, group);
      }
      group.matcher.add(c.patterns);
      group.rules.push(c);
    }
  }
  const set: PathRuleSet = { whole: wholeToolRulesView(ctx, family, behavior)[0], compiled, groups: [...groups.values()] };
  entry.sets.set(key, set);
  return set;
}

/** `target` relative to `root` when strictly inside it; both absolute and normalized. */
function relativeInside(target: string, root: string): string | undefined {
  if (root === "/") return target.length > 1 ? target.slice(1) : undefined;
  if (target.length > root.length && target.startsWith(root) && target[root.length] === "/") return target.slice(root.length + 1);
  return undefined;
}

function matches(matcher: Ignore, rel: string, behavior: PermissionBehavior): boolean {
  // a directory pattern (`secrets/`) also stops the directory itself when denying or asking
  return matcher.ignores(rel) || (behavior !== "allow" && matcher.ignores(`${rel}/`));
}

function ruleMatcher(c: CompiledPathRule): Ignore {
  if (++c.lookups > MATCHER_LOOKUP_LIMIT) {
    c.matcher = undefined;
    c.lookups = 0;
  }
  return (c.matcher ??= ignore({ ignorecase: ignoreCase(c.rule.ruleBehavior) }).add(c.patterns));
}

function groupMatcher(group: RootGroup): Ignore {
  if (++group.lookups > MATCHER_LOOKUP_LIMIT) {
    group.matcher = ignore({ ignorecase: ignoreCase(group.behavior) }).add(group.rules.flatMap((c) => c.patterns));
    group.lookups = 0;
  }
  return group.matcher;
}

/** The highest-precedence rule of this family and behaviour covering `target` (absolute, normalized), and the part it matched. */
export function findMatchingPathRule(
  ctx: ToolPermissionContext,
  family: PathRuleTool,
  behavior: PermissionBehavior,
  target: string,
): { rule: PermissionRule; matched: string } | undefined {
  const set = pathRuleSet(ctx, family, behavior);
  let best: { rule: PermissionRule; matched: string } | undefined = set.whole ? { rule: set.whole, matched: target } : undefined;
  const normalized = nfc(target);
  for (const group of set.groups) {
    const rel = relativeInside(normalized, group.root);
    if (rel === undefined || !matches(groupMatcher(group), rel, behavior)) continue;
    const hit = group.rules.find((c) => matches(ruleMatcher(c), rel, behavior));
    if (hit && (!best || compareRulesByPrecedence(hit.rule, best.rule) < 0)) best = { rule: hit.rule, matched: rel };
  }
  return best;
}

/** What part of `target` one rule matched (the path relative to the rule's root), or undefined. */
export function matchPathRule(rule: PermissionRule, target: string, cwd: string): string | undefined {
  if (rule.ruleValue.ruleContent === undefined) return target;
  const compiled = compileRule(rule, cwd, userHomeDir());
  for (const root of compiled.roots) {
    const rel = relativeInside(nfc(path.resolve(target)), root);
    if (rel !== undefined && matches(ruleMatcher(compiled), rel, rule.ruleBehavior)) return rel;
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
  const searchRoots = [...new Set([nfc(rootAbs), nfc(resolveRealPath(rootAbs))])];
  const set = pathRuleSet(ctx, "Read", "deny");
  if (set.whole) return ["**"];
  for (const compiled of set.compiled) {
    let pattern = compiled.patterns[0];
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
  // ripgrep compares bytes: a name stored decomposed needs the decomposed glob
  return [...new Set([...out].flatMap((glob) => [glob, glob.normalize("NFD")]))];
}
