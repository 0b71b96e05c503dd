/**
 * The Bash tool's own permission verdict, part by part:
 *   any part denied (a deny rule, or a read of a Read-denied path) → deny;
 *   any part with an ask rule, or a write needing a safety check → ask (forced: no mode or allow rule skips it);
 *   a command that cannot be judged part by part (eval, source, unparseable, too complex) → ask,
 *     unless an exact rule names the whole command;
 *   otherwise allow only when every part is allowed — by an allow rule, or because it is a read-only
 *     command whose files are inside the working directories — and every redirection target may be written.
 * Pure apart from the path checks it is given.
 */
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import type {
  PermissionBehavior,
  PermissionDecisionReason,
  PermissionResult,
  PermissionRule,
  PermissionRuleValue,
  PermissionUpdate,
  ToolPermissionContext,
} from "../../../core/permissionTypes.js";
import * as permissions from "../../../permissions/index.js";
import { analyzeCommand, type BashAnalysis, type CommandPart, type DirectoryState, type PathArgument, type RedirectPart } from "../../../shell/analyze.js";
import { bashSyntaxError, bashSyntaxErrorAsync, loadBashParser } from "../../../shell/parser.js";
import { suggestRuleContent } from "./suggestions.js";
import { BASH_TOOL_NAME } from "../prompt.js";
import { resolvePhysicalPath } from "../../../core/paths.js";


/** The permission engine functions the verdict needs (injected so tests and benches can swap them). */
export interface BashPermissionDeps {
  getContentRulesForTool(ctx: ToolPermissionContext, toolName: string, behavior: PermissionBehavior): PermissionRule[];
  matchCommandPattern(ruleContent: string, command: string): boolean;
  checkWritePermissionForPath(absPath: string, ctx: ToolPermissionContext): PermissionResult;
  checkReadPermissionForPath(absPath: string, ctx: ToolPermissionContext): PermissionResult;
}

const defaultBashPermissionDeps: BashPermissionDeps = {
  getContentRulesForTool: permissions.getContentRulesForTool,
  matchCommandPattern: permissions.matchCommandPattern,
  checkWritePermissionForPath: permissions.checkWritePermissionForPath,
  checkReadPermissionForPath: permissions.checkReadPermissionForPath,
};

export interface BashPermissionRequest {
  command: string;
  permissionContext: ToolPermissionContext;
  /** The shell's current directory, which relative paths in the command resolve against. */
  cwd: string;
  /** For `~`; defaults to the user's home. */
  home?: string;
}

type Part = { command: string; result: PermissionResult };

/** Files that redirections may always use: they are not files in the project. */
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/fd/0", "/dev/fd/1", "/dev/fd/2"]);

const STRICTNESS: Record<PermissionResult["behavior"], number> = { allow: 0, passthrough: 1, ask: 2, deny: 3 };

function strictest(results: PermissionResult[]): PermissionResult {
  return results.reduce((a, b) => (STRICTNESS[b.behavior] > STRICTNESS[a.behavior] ? b : a));
}

function hasUnescapedStar(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === "*") return true;
  }
  return false;
}

/** `npm test` is exact; `npm run:*` and `git *` are not. */
export function isExactCommandRule(ruleContent: string): boolean {
  const trimmed = ruleContent.trim();
  return !trimmed.endsWith(":*") && !hasUnescapedStar(trimmed);
}

const ruleText = (rule: PermissionRule) => permissions.describeRule(rule);

const code = (text: string) => {
  const oneLine = text.replace(/\s*\n\s*/g, " ⏎ ");
  return `\`${oneLine.length > 200 ? `${oneLine.slice(0, 197)}...` : oneLine}\``;
};

interface Rules {
  allow: PermissionRule[];
  deny: PermissionRule[];
  ask: PermissionRule[];
}

interface Judge {
  request: BashPermissionRequest;
  deps: BashPermissionDeps;
  rules: Rules;
  home: string;
  /** Read deny or ask rules exist, so a glob cannot be judged by its directory alone. */
  readRulesRestrict: boolean;
}

function matchRule(judge: Judge, rules: PermissionRule[], views: string[], exactAllowed = true): { rule: PermissionRule; matched: string } | undefined {
  for (const rule of rules) {
    const content = rule.ruleValue.ruleContent;
    if (content === undefined || (!exactAllowed && isExactCommandRule(content))) continue;
    for (const view of views) if (judge.deps.matchCommandPattern(content, view)) return { rule, matched: view };
  }
  return undefined;
}

function ruleResult(behavior: "deny" | "ask" | "allow", shown: string, hit: { rule: PermissionRule; matched: string }): PermissionResult {
  const decisionReason: PermissionDecisionReason = { type: "rule", rule: hit.rule, matched: hit.matched };
  if (behavior === "deny") return { behavior, message: `Permission to run ${code(shown)} was denied by rule ${ruleText(hit.rule)}.`, decisionReason };
  if (behavior === "ask") return { behavior, message: `Running ${code(shown)} needs approval by rule ${ruleText(hit.rule)}.`, decisionReason };
  return { behavior, decisionReason };
}

function needsApproval(message: string, reason: string, suggestions: PermissionUpdate[] = []): PermissionResult {
  return { behavior: "passthrough", message, decisionReason: { type: "other", reason }, suggestions };
}

/**
 * `~` and `~/x`; undefined for `~user`. Not core's expandPath: it trims, and a shell word's spaces belong
 * to the name (`cat "../proj "` reads a sibling of the project `proj`, not the project itself).
 */
function expandHome(p: string, home: string): string | undefined {
  if (p === "~") return home;
  if (p.startsWith("~/")) return path.join(home, p.slice(2));
  if (p.startsWith("~")) return undefined; // ~user
  return p;
}

/** The directories a part may run in: its `cd` chains applied to the shell's directory; undefined when unknown. */
function candidateCwds(judge: Judge, directories: DirectoryState): string[] | undefined {
  if (directories === undefined) return undefined;
  const cwds = new Set<string>();
  for (const chain of directories) {
    let dir = path.resolve(judge.request.cwd);
    for (const target of chain) {
      const expanded = expandHome(target, judge.home);
      if (expanded === undefined) return undefined;
      dir = path.resolve(dir, expanded);
    }
    cwds.add(dir);
  }
  return [...cwds];
}

/** The top of the git repository a directory is in (the nearest parent with `.git`), or the directory itself. */
function gitRoot(dir: string): string {
  for (let current = dir; ; current = path.dirname(current)) {
    if (fs.existsSync(path.join(current, ".git"))) return current;
    if (path.dirname(current) === current) return dir;
  }
}

/** Absolute paths a path argument may name, one per candidate cwd; undefined when it cannot be known. */
function resolveCandidates(judge: Judge, arg: PathArgument, directories: DirectoryState): string[] | undefined {
  let p = expandHome(arg.path, judge.home);
  if (p === undefined) return undefined;
  if (arg.pattern) {
    if (judge.readRulesRestrict) return undefined;
    const segments = p.split("/");
    const firstGlob = segments.findIndex((s) => /[*?[]/.test(s));
    // a glob segment starting with "." may match ".."
    if (segments.slice(firstGlob).some((s) => /[*?[]/.test(s) && s.startsWith("."))) return undefined;
    p = segments.slice(0, firstGlob).join("/") || (p.startsWith("/") ? "/" : ".");
  }
  if (path.isAbsolute(p)) return withPhysicalPaths([path.normalize(p)], [p]);
  const cwds = candidateCwds(judge, directories);
  if (!cwds) return undefined;
  const bases = cwds.map((cwd) => (arg.base === "gitRoot" ? gitRoot(cwd) : cwd));
  return withPhysicalPaths(
    bases.map((base) => path.resolve(base, p as string)),
    bases.map((base) => `${base}/${p}`),
  );
}

const PARENT_SEGMENT = /(^|\/)\.\.(\/|$)/;

/**
 * The shell hands `dir/link/../x` to open(2) as written, and the kernel climbs from where `link` points, not
 * from `dir`: the path it opens is judged too (the stricter verdict wins), not only the lexically cleaned one.
 */
function withPhysicalPaths(cleaned: string[], asWritten: string[]): string[] {
  const out = [...cleaned];
  for (const raw of asWritten) {
    if (!PARENT_SEGMENT.test(raw)) continue;
    const physical = resolvePhysicalPath(raw, { asWritten: true });
    if (!physical.loop && !out.includes(physical.path)) out.push(physical.path);
  }
  return out;
}

function checkPaths(judge: Judge, part: CommandPart): PermissionResult {
  if (part.unverifiablePaths) {
    return needsApproval(`${code(part.display)} needs approval: the files it reads depend on expansions that cannot be checked in advance.`, "unverifiable paths");
  }
  const results: PermissionResult[] = [];
  for (const arg of part.pathArguments) {
    const candidates = resolveCandidates(judge, arg, part.directories);
    if (!candidates) {
      return needsApproval(`${code(part.display)} needs approval: which files ${arg.path} names cannot be determined in advance.`, "unverifiable paths");
    }
    for (const candidate of candidates) results.push(withDirectorySuggestions(judge.deps.checkReadPermissionForPath(candidate, judge.request.permissionContext), candidate));
  }
  const verdict = results.length ? strictest(results) : undefined;
  if (!verdict || verdict.behavior === "allow") {
    return { behavior: "allow", decisionReason: { type: "other", reason: "read-only command inside the working directories" } };
  }
  if (verdict.behavior === "passthrough") {
    return { ...verdict, message: `${code(part.display)} needs approval: ${lowerFirst(verdict.message)}` };
  }
  return verdict;
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** For a directory (`ls dir`, `cd dir`) the engine suggests its parent; offer the directory itself instead. */
function withDirectorySuggestions(result: PermissionResult, candidate: string): PermissionResult {
  if (result.behavior !== "passthrough" || !isDirectory(candidate)) return result;
  return {
    ...result,
    suggestions: [
      ...permissions.ruleSuggestions({ toolName: "Read", ruleContent: `/${candidate === "/" ? "" : candidate}/**` }),
      { type: "addDirectories", directories: [candidate], destination: "session" },
    ],
  };
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function judgePart(judge: Judge, part: CommandPart): PermissionResult {
  const deny = matchRule(judge, judge.rules.deny, part.denyViews);
  if (deny) return ruleResult("deny", part.display, deny);
  const ask = matchRule(judge, judge.rules.ask, part.denyViews);
  if (ask) return ruleResult("ask", part.display, ask);
  if (part.denyOnly) return { behavior: "allow", decisionReason: { type: "other", reason: "judged by the commands of its script" } };
  const allow = matchRule(judge, judge.rules.allow, part.allowViews, !part.openEnded);
  if (allow) return ruleResult("allow", part.display, allow);
  if (part.readOnly) {
    if (!part.readsFiles && !part.changesDirectory) return { behavior: "allow", decisionReason: { type: "other", reason: "read-only command" } };
    // outside the working directories: the read suggestions (a Read rule, adding the directory) fit best
    return checkPaths(judge, part);
  }
  const why = part.unsafeAssignments.length
    ? `it sets ${part.unsafeAssignments.join(", ")}, which can change what runs, and no rule allows it`
    : part.notReadOnlyReason
      ? `no rule allows it, and it is not read-only: ${part.notReadOnlyReason}`
      : "no rule allows it and it is not a read-only command";
  return needsApproval(`${code(part.display)} needs approval: ${why}.`, "no matching rule", commandSuggestions([part]));
}

function judgeRedirect(judge: Judge, redirect: RedirectPart): PermissionResult {
  const target = redirect.target.value;
  const verb = redirect.access === "write" ? "writes to" : "reads from";
  if (target !== undefined && HARMLESS_TARGETS.has(target)) return { behavior: "allow", decisionReason: { type: "other", reason: "not a file" } };
  if (target === undefined || redirect.target.expands) {
    return needsApproval(`The redirection ${code(redirect.display)} ${verb} a file whose name depends on expansions that cannot be checked in advance.`, "unverifiable redirection");
  }
  const candidates = resolveCandidates(judge, { path: target, pattern: false }, redirect.directories);
  if (!candidates) return needsApproval(`The redirection ${code(redirect.display)} ${verb} a file that cannot be determined in advance.`, "unverifiable redirection");
  const check = redirect.access === "write" ? judge.deps.checkWritePermissionForPath : judge.deps.checkReadPermissionForPath;
  const verdict = strictest(candidates.map((candidate) => check(candidate, judge.request.permissionContext)));
  if (verdict.behavior === "passthrough") return { ...verdict, message: `The redirection ${code(redirect.display)} needs approval: ${lowerFirst(verdict.message)}` };
  return verdict;
}

function commandSuggestions(parts: CommandPart[]): PermissionUpdate[] {
  const rules: PermissionRuleValue[] = [];
  for (const part of parts) {
    const content = suggestRuleContent(part);
    if (content && !rules.some((r) => r.ruleContent === content)) rules.push({ toolName: BASH_TOOL_NAME, ruleContent: content });
  }
  return ruleUpdates(rules);
}

function ruleUpdates(rules: PermissionRuleValue[]): PermissionUpdate[] {
  if (!rules.length) return [];
  return permissions.SUGGESTION_DESTINATIONS.map((destination) => ({ type: "addRules", behavior: "allow", rules: [...rules], destination }));
}

/** One addRules update per destination holding every suggested rule, then the other updates, without duplicates. */
function mergeSuggestions(updates: PermissionUpdate[]): PermissionUpdate[] {
  const merged: PermissionUpdate[] = [];
  const seen = new Set<string>();
  for (const update of updates) {
    if (update.type === "addRules") {
      const existing = merged.find((m) => m.type === "addRules" && m.destination === update.destination && m.behavior === update.behavior);
      if (existing && existing.type === "addRules") {
        for (const rule of update.rules) {
          if (!existing.rules.some((r) => r.toolName === rule.toolName && r.ruleContent === rule.ruleContent)) existing.rules.push(rule);
        }
        continue;
      }
      merged.push({ ...update, rules: [...update.rules] });
      continue;
    }
    const key = JSON.stringify(update);
    if (!seen.has(key)) {
      seen.add(key);
      merged.push(update);
    }
  }
  return merged;
}

function subcommands(parts: Part[], decidingPart?: string): PermissionDecisionReason {
  return decidingPart === undefined ? { type: "subcommands", parts } : { type: "subcommands", parts, decidingPart };
}

/** Everything but bash's own syntax check allows the line: that check has the last word. */
interface PendingSyntaxCheck {
  /** The line and every nested script (bash -c '…') bash must accept. */
  scripts: string[];
  verdict(syntaxError: string | undefined): PermissionResult;
}

/**
 * The Bash tool's checkPermissions verdict for one command line. Synchronous: it runs `bash -n` with
 * spawnSync; the tool itself uses checkBashCommandPermissionAsync, which does not block the event loop.
 * Both need the parser loaded (see loadBashParser).
 */
export function checkBashCommandPermission(request: BashPermissionRequest, deps: BashPermissionDeps = defaultBashPermissionDeps): PermissionResult {
  const judged = judgeCommand(request, deps);
  if (!("scripts" in judged)) return judged;
  return judged.verdict(judged.scripts.map(bashSyntaxError).find((error) => error !== undefined));
}

/** checkBashCommandPermission with the parser awaited and `bash -n` run without blocking. */
export async function checkBashCommandPermissionAsync(request: BashPermissionRequest, deps: BashPermissionDeps = defaultBashPermissionDeps): Promise<PermissionResult> {
  await loadBashParser();
  const judged = judgeCommand(request, deps);
  if (!("scripts" in judged)) return judged;
  const errors = await Promise.all(judged.scripts.map(bashSyntaxErrorAsync));
  return judged.verdict(errors.find((error) => error !== undefined));
}

function judgeCommand(request: BashPermissionRequest, deps: BashPermissionDeps): PermissionResult | PendingSyntaxCheck {
  const ctx = request.permissionContext;
  const command = request.command;
  const home = request.home ?? os.homedir();
  const rules: Rules = {
    allow: deps.getContentRulesForTool(ctx, BASH_TOOL_NAME, "allow"),
    deny: deps.getContentRulesForTool(ctx, BASH_TOOL_NAME, "deny"),
    ask: deps.getContentRulesForTool(ctx, BASH_TOOL_NAME, "ask"),
  };
  const analysis = analyzeCommand(command);
  const judge: Judge = {
    request,
    deps,
    rules,
    home,
    readRulesRestrict:
      deps.getContentRulesForTool(ctx, "Read", "deny").length > 0 || deps.getContentRulesForTool(ctx, "Read", "ask").length > 0,
  };
  const whole = command.trim();

  const parts: Part[] = [
    ...analysis.parts.map((part) => ({ command: part.display, result: judgePart(judge, part) })),
    ...analysis.redirects.map((redirect) => ({ command: redirect.display, result: judgeRedirect(judge, redirect) })),
  ];

  // 1. any denied part, or a deny rule on the whole line
  const denied = parts.find((p) => p.result.behavior === "deny");
  if (denied) {
    const message = (denied.result as { message: string }).message;
    return { behavior: "deny", message, decisionReason: subcommands(parts, denied.command) };
  }
  const wholeDeny = matchRule(judge, rules.deny, [whole]);
  if (wholeDeny) {
    const result = ruleResult("deny", whole, wholeDeny);
    return { ...(result as { behavior: "deny"; message: string }), decisionReason: subcommands([...parts, { command: whole, result }], whole) };
  }

  // 2. ask rules and safety checks on any part ask whatever else allows
  const forced = parts.find((p) => permissions.isForcedAsk(p.result));
  if (forced) {
    const message = (forced.result as { message: string }).message;
    return { behavior: "ask", message, decisionReason: subcommands(parts, forced.command) };
  }

  // 3. an exact rule naming the whole line vouches for all of it
  const wholeAllow = matchRule(judge, rules.allow.filter((r) => isExactCommandRule(r.ruleValue.ruleContent ?? "")), [whole]);
  if (wholeAllow) {
    const result = ruleResult("allow", whole, wholeAllow);
    return { behavior: "allow", decisionReason: subcommands([{ command: whole, result }], whole) };
  }

  // 4. what cannot be judged part by part
  if (analysis.complexity.length) {
    const reasons = analysis.complexity.join("; ");
    const result = needsApproval(`This command needs approval because it cannot be checked part by part: ${reasons}.`, reasons);
    const judged = parts.some((p) => p.command === whole) ? parts.map((p) => (p.command === whole ? { command: whole, result } : p)) : [...parts, { command: whole, result }];
    return {
      behavior: "ask",
      message: (result as { message: string }).message,
      decisionReason: subcommands(judged, whole),
      suggestions: ruleUpdates([{ toolName: BASH_TOOL_NAME, ruleContent: whole }]),
    };
  }

  // 5. every part must be allowed
  const pending = parts.filter((p) => p.result.behavior !== "allow");
  if (pending.length) {
    const first = pending[0];
    const others = pending.length > 1 ? ` (${pending.length - 1} more part${pending.length > 2 ? "s" : ""} of the command also need${pending.length > 2 ? "" : "s"} approval: ${pending.slice(1, 4).map((p) => code(p.command)).join(", ")}${pending.length > 4 ? ", …" : ""})` : "";
    const suggestions = mergeSuggestions(pending.flatMap((p) => ("suggestions" in p.result ? (p.result.suggestions ?? []) : [])));
    return {
      behavior: "ask",
      message: `${(first.result as { message: string }).message}${others}`,
      decisionReason: subcommands(parts, first.command),
      suggestions,
    };
  }
  // tree-sitter accepts lines bash rejects (`ls ;; pwd`, `fi ]] ls`): bash has the last word before anything runs unasked
  return {
    scripts: [command, ...analysis.nestedScripts],
    verdict(rejected) {
      if (rejected) {
        const result = needsApproval(`This command needs approval because bash does not accept its syntax: ${rejected}.`, "syntax error");
        return { behavior: "ask", message: (result as { message: string }).message, decisionReason: subcommands([...parts, { command: whole, result }], whole) };
      }
      return { behavior: "allow", decisionReason: subcommands(parts) };
    },
  };
}

/** Whether the whole command only reads: every part on the read-only allowlist, no file written by a redirection. */
export function isReadOnlyCommand(analysis: BashAnalysis): boolean {
  if (analysis.complexity.length || analysis.parts.length === 0) return false;
  if (!analysis.parts.every((p) => p.readOnly || p.denyOnly)) return false;
  return analysis.redirects.every((r) => r.access === "read" || (r.target.value !== undefined && HARMLESS_TARGETS.has(r.target.value)));
}
