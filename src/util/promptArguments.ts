/**
 * Arguments for prompt templates (custom slash commands, skills): `$ARGUMENTS` is the whole argument text,
 * `$1`..`$9` its words (double or single quotes group words). A template that uses neither gets the arguments
 * appended, so nothing the user typed is dropped.
 */

/** `a "b c" 'd'` → ["a", "b c", "d"]. An unclosed quote runs to the end. */
export function splitArguments(text: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"?|'([^']*)'?|(\S+)/g;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    words.push(match[1] ?? match[2] ?? match[3]);
  }
  return words;
}

const PLACEHOLDER = /\$ARGUMENTS\b|\$([1-9])(?!\d)/g;
const WHOLE_ONLY = /\$ARGUMENTS\b/g;

/**
 * `positional: false` leaves `$1`..`$9` alone: skills often hold shell snippets (`awk '{print $1}'`) whose
 * `$1` is not an argument.
 */
export function expandArguments(template: string, argsText: string, options: { positional?: boolean } = {}): string {
  const args = argsText.trim();
  const words = splitArguments(args);
  let used = false;
  // One pass, so an argument containing `$1` or `$ARGUMENTS` is never expanded again.
  const expanded = template.replace(options.positional === false ? WHOLE_ONLY : PLACEHOLDER, (_whole, index: unknown) => {
    used = true;
    // Without a capture group (WHOLE_ONLY) the second argument is the match's offset, not a digit.
    return typeof index === "string" ? (words[Number(index) - 1] ?? "") : args;
  });
  if (used || args === "") return expanded;
  return `${expanded.replace(/\s*$/, "")}\n\nARGUMENTS: ${args}`;
}
