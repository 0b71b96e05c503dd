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
