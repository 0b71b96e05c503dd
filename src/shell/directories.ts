/**
 * Which directory each command of a line runs in, followed in the order bash runs them: `cd src && ls`
 * lists src, `cat a; cd /tmp` reads ./a. A state is the set of `cd` chains (targets applied one after the
 * other to the shell's starting directory) that may be in effect; `undefined` when it cannot be known
 * (`cd "$X"`, `popd`, a loop or function that changes directory, too many possibilities).
 * Subshells, pipeline elements and substitutions keep their `cd` to themselves. A `cd` may fail, so the
 * directory before it stays possible, except on the right of `&&` (only after success) and `||` (only after
 * failure).
 */
import type { SyntaxNode } from "./parser.js";

export type DirectoryState = ReadonlyArray<readonly string[]> | undefined;

/** The starting directory alone. */
export const START: DirectoryState = [[]];

const MAX_CHAINS = 32;

interface Flow {
  ok: DirectoryState;
  failed: DirectoryState;
}

export function unionStates(a: DirectoryState, b: DirectoryState): DirectoryState {
  if (a === undefined || b === undefined) return undefined;
  const seen = new Map<string, readonly string[]>();
  for (const chain of [...a, ...b]) seen.set(JSON.stringify(chain), chain);
  return seen.size > MAX_CHAINS ? undefined : [...seen.values()];
}

function changeTo(state: DirectoryState, target: string | undefined): DirectoryState {
  if (state === undefined || target === undefined) return undefined;
  // an absolute target (or ~) forgets where the shell was
  if (target.startsWith("/") || target.startsWith("~")) return [[target]];
  return unionStates(state.map((chain) => [...chain, target]), []);
}

const all = (flow: Flow) => unionStates(flow.ok, flow.failed);
const same = (state: DirectoryState): Flow => ({ ok: state, failed: state });

/** Nodes that run in a child process: a `cd` inside does not move the shell. */
const ISOLATED = new Set(["subshell", "command_substitution", "process_substitution"]);
const LOOPS = new Set(["while_statement", "for_statement", "c_style_for_statement"]);

export interface DirectoryTracking {
  /** The directory change a simple command makes: its target (undefined when unknown), or null for none. */
  changeOf(command: SyntaxNode): string | undefined | null;
  /** Whether the line may change directory anywhere: function bodies then run in an unknown directory. */
  mayChangeDirectory: boolean;
}

/**
 * The directory state each `command` node and each file redirection starts in, keyed by node id.
 * A redirection is opened before its command or compound runs, so it gets that statement's entry state.
 */
export function trackDirectories(root: SyntaxNode, start: DirectoryState, tracking: DirectoryTracking): Map<number, DirectoryState> {
  const states = new Map<number, DirectoryState>();

  const containsChange = (node: SyntaxNode): boolean => node.descendantsOfType("command").some((c) => tracking.changeOf(c) !== null);

  const flow = (node: SyntaxNode, entry: DirectoryState, depth: number): Flow => {
    if (depth > 200) return same(undefined);
    switch (node.type) {
      case "command": {
        states.set(node.id, entry);
        for (const child of node.children) if (child) flow(child, entry, depth + 1);
        const change = tracking.changeOf(node);
        return change === null ? same(entry) : { ok: changeTo(entry, change), failed: entry };
      }
      case "redirected_statement": {
        const body = node.childForFieldName("body");
        const result = body ? flow(body, entry, depth + 1) : same(entry);
        // tree-sitter hangs `a && b > out` on the whole list; bash opens `out` for `b`, in b's directory
        let last = body;
        while (last?.type === "list") last = last.child(last.childCount - 1);
        const opensIn = body?.type !== "list" ? entry : last?.type === "command" && states.has(last.id) ? states.get(last.id) : unionStates(entry, all(result));
        for (const redirect of node.childrenForFieldName("redirect")) flow(redirect, opensIn, depth + 1);
        return result;
      }
      case "file_redirect":
        states.set(node.id, entry);
        for (const child of node.children) if (child) flow(child, entry, depth + 1);
        return same(entry);
      case "list": {
        const [left, operator, right] = [node.child(0), node.child(1), node.child(2)];
        if (!left || !operator || !right) return sequence(node, entry, depth);
        const first = flow(left, entry, depth + 1);
        if (operator.type === "&&") {
          const second = flow(right, first.ok, depth + 1);
          return { ok: second.ok, failed: unionStates(first.failed, second.failed) };
        }
        if (operator.type === "||") {
          const second = flow(right, first.failed, depth + 1);
          return { ok: unionStates(first.ok, second.ok), failed: second.failed };
        }
        return sequence(node, entry, depth);
      }
      case "pipeline":
        // every element runs in a subshell of its own
        for (const child of node.children) if (child) flow(child, entry, depth + 1);
        return same(entry);
      case "negated_command": {
        const inner = sequence(node, entry, depth);
        return { ok: inner.failed, failed: inner.ok };
      }
      case "function_definition": {
        // the body runs when the function is called, wherever the shell is by then
        const body = node.childForFieldName("body");
        if (body) flow(body, tracking.mayChangeDirectory ? undefined : entry, depth + 1);
        return same(entry);
      }
      default:
        if (ISOLATED.has(node.type)) {
          sequence(node, entry, depth);
          return same(entry);
        }
        if (LOOPS.has(node.type) && containsChange(node)) {
          sequence(node, undefined, depth);
          return same(undefined);
        }
        return sequence(node, entry, depth);
    }
  };

  /** Children one after the other; each may have failed or succeeded. */
  const sequence = (node: SyntaxNode, entry: DirectoryState, depth: number): Flow => {
    let state = entry;
    let last: Flow = same(entry);
    for (const child of node.children) {
      if (!child) continue;
      last = flow(child, state, depth + 1);
      state = all(last);
    }
    return last;
  };

  flow(root, start, 0);
  return states;
}
