/**
 * Best-effort parse of a JSON prefix (a tool input still streaming), for display only: open strings, arrays and
 * objects are closed, a dangling key or separator is dropped. Returns undefined when even that does not parse.
 */
export function parsePartialJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // fall through to repair
  }
  const closers: string[] = [];
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") closers.push("}");
    else if (c === "[") closers.push("]");
    else if (c === "}" || c === "]") closers.pop();
  }
  let repaired = text;
  // A dangling backslash starts an escape that never came: drop it.
  if (inString) repaired = (escaped ? repaired.slice(0, -1) : repaired) + '"';
  // A half-written escape like `\u00` cannot be closed; drop it with the string's tail.
  repaired = repaired.replace(/\\u[0-9a-fA-F]{0,3}"$/, '"');
  for (let attempt = 0; attempt < 3; attempt++) {
    const candidate = trimDangling(repaired) + closers.slice().reverse().join("");
    try {
      return JSON.parse(candidate);
    } catch {
      // A key without its value (`{"a": 1, "b"`): drop the key and try again.
      repaired = trimDangling(repaired).replace(/,?\s*"(?:[^"\\]|\\.)*"\s*$/, "");
    }
  }
  return undefined;
}

function trimDangling(text: string): string {
  return text
    .replace(/\s+$/, "")
    .replace(/[,:]$/, "")
    .replace(/,?\s*"(?:[^"\\]|\\.)*"\s*:\s*$/, "")
    .replace(/(?<![\w"])(t|tr|tru|f|fa|fal|fals|n|nu|nul|-)$/, "")
    .replace(/,\s*$/, "");
}

/**
 * The object a streaming tool input already is for certain, or undefined. Unlike parsePartialJson, nothing is
 * guessed: a string still open may grow (`"/a/b` → `"/a/b/c"`), so is a number or literal with nothing after it
 * (`1` → `10`) and an array or object still open below the top level. So the prefix must stand at the top level
 * of the object, right after a complete value (or a comma after one); the value is every key so far. More keys
 * may still arrive: whoever acts on the value must compare it with the final input.
 */
export function parseSettledJsonPrefix(text: string): Record<string, unknown> | undefined {
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** Whether the last top-level token was a complete value (a closed string value, container or a delimited literal). */
  let settled = false;
  /** The string being read is a key (it follows `{` or `,` at the top level). */
  let stringIsKey = false;
  let expectKey = false;
  let literal = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') {
        inString = false;
        if (depth === 1) settled = !stringIsKey;
      }
      continue;
    }
    if (c === " " || c === "\n" || c === "\r" || c === "\t") {
      if (literal && depth === 1) settled = true;
      literal = false;
      continue;
    }
    if (literal && depth === 1 && (c === "," || c === "}")) settled = true;
    literal = false;
    if (c === '"') {
      inString = true;
      stringIsKey = depth === 1 && expectKey;
      expectKey = false;
      if (depth === 1) settled = false;
    } else if (c === "{" || c === "[") {
      if (depth === 0) {
        if (c !== "{" || start !== -1) return undefined;
        start = i;
        expectKey = true;
      } else if (depth === 1) settled = false;
      depth++;
    } else if (c === "}" || c === "]") {
      depth--;
      if (depth === 1) settled = true;
      if (depth === 0) return parseObject(text.slice(start, i + 1));
    } else if (c === ",") {
      if (depth === 1) expectKey = true;
    } else if (c === ":") {
      if (depth === 1) settled = false;
    } else if (depth === 1) {
      literal = true;
      settled = false;
    }
  }
  if (start === -1 || inString || depth !== 1 || !settled) return undefined;
  const body = text.slice(start).replace(/[\s,]+$/, "");
  return parseObject(`${body}}`);
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
