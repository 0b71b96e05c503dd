/**
 * "Did you mean …?" for a tool name that names no tool: `read` → `Read`, `Reed` → `Read`, `bash` → `Bash`.
 * Used by the pipeline (unknown tool) and by the check of rule tool names.
 */

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** Short names tolerate one typo, longer ones two; more than that suggests a different word, not a typo. */
function maxDistance(name: string): number {
  return name.length <= 4 ? 1 : 2;
}

/**
 * The known name the user most likely meant: the same name in another case, else the closest one within
 * a typo or two (ignoring case). Undefined when nothing is close, or when two names are equally close.
 */
export function suggestToolName(name: string, known: Iterable<string>): string | undefined {
  const candidates = [...new Set(known)].filter((candidate) => candidate !== name);
  const lower = name.toLowerCase();
  const sameLetters = candidates.filter((candidate) => candidate.toLowerCase() === lower);
  if (sameLetters.length === 1) return sameLetters[0];
  if (sameLetters.length > 1) return undefined;
  let best: string | undefined;
  let bestDistance = maxDistance(name) + 1;
  let tie = false;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
      tie = false;
    } else if (distance === bestDistance) {
      tie = true;
    }
  }
  return tie ? undefined : best;
}
