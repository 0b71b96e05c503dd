/** A compiled `matcher`: given a tool's names (name first, then aliases), does the entry apply? */
export interface CompiledMatcher {
  matches(toolNames: readonly string[]): boolean;
  /** Set when the matcher is an invalid regular expression; it then matches nothing. */
  problem?: string;
}

const EXACT_NAMES = /^[A-Za-z0-9_|]+$/;

/**
 * Claude Code's matcher rules: empty or `*` = every tool; only `[A-Za-z0-9_|]` = exact names separated
 * by `|`; anything else = a regular expression tested (unanchored) against the name.
 */
export function compileMatcher(matcher: string | undefined): CompiledMatcher {
  const text = matcher ?? "";
  if (text === "" || text === "*") return { matches: () => true };
  if (EXACT_NAMES.test(text)) {
    const names = new Set(text.split("|").filter(Boolean));
    return { matches: (toolNames) => toolNames.some((name) => names.has(name)) };
  }
  let regex: RegExp;
  try {
    regex = new RegExp(text);
  } catch (err) {
    return { matches: () => false, problem: `invalid matcher regular expression ${JSON.stringify(text)}: ${(err as Error).message}` };
  }
  return { matches: (toolNames) => toolNames.some((name) => regex.test(name)) };
}
