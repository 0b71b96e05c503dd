/**
 * Whether the UI may colour its output. chalk (which Ink and marked-terminal use) ignores NO_COLOR, so the UI's
 * own components decide here and draw plain text when it is set (https://no-color.org: any non-empty value).
 */
export function colorEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false";
}

/** The colour for an Ink `color` prop, or none when colour is off. */
export function tint<C extends string>(color: C, enabled: boolean = colorEnabled()): C | undefined {
  return enabled ? color : undefined;
}

export type Style = (text: string) => string;

const plain: Style = (text) => text;

/** An SGR style, applied per line so a wrapped or split line never carries an open escape sequence. */
function sgr(open: number[], close: number): Style {
  const start = `\u001b[${open.join(";")}m`;
  const end = `\u001b[${close}m`;
  return (text) =>
    text
      .split("\n")
      .map((line) => (line === "" ? line : start + line + end))
      .join("\n");
}

/** The handful of styles the markdown and code renderers use; all plain when colour is off. */
export function styles(enabled: boolean) {
  const make = (open: number[], close: number): Style => (enabled ? sgr(open, close) : plain);
  return {
    plain,
    bold: make([1], 22),
    dim: make([2], 22),
    italic: make([3], 23),
    underline: make([4], 24),
    strike: make([9], 29),
    red: make([31], 39),
    green: make([32], 39),
    yellow: make([33], 39),
    blue: make([34], 39),
    magenta: make([35], 39),
    cyan: make([36], 39),
    gray: make([90], 39),
    boldMagentaUnderline: make([1, 35, 4], 0),
    boldGreen: make([1, 32], 0),
    blueUnderline: make([34, 4], 0),
    grayItalic: make([90, 3], 0),
  };
}
