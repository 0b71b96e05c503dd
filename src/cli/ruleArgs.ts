/**
 * `--allowedTools "Bash(git diff:*)" Edit,Read` → one rule per entry. Entries are separated by commas or
 * whitespace outside parentheses, so `Bash(npm run a, b)` stays one rule.
 */
export function splitRuleArgs(values: readonly string[] | undefined): string[] {
  const rules: string[] = [];
  for (const value of values ?? []) {
    let depth = 0;
    let current = "";
    for (let i = 0; i < value.length; i++) {
      const ch = value[i];
      if (ch === "\\" && i + 1 < value.length) {
        current += ch + value[++i];
        continue;
      }
      if (ch === "(") depth++;
      else if (ch === ")" && depth > 0) depth--;
      if (depth === 0 && (ch === "," || /\s/.test(ch))) {
        if (current) rules.push(current);
        current = "";
        continue;
      }
      current += ch;
    }
    if (current) rules.push(current);
  }
  return rules;
}
