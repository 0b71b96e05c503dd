/**
 * EXTENSION POINT for custom slash commands (`.toolgate/commands/*.md`, `.claude/commands/*.md`). The loader is
 * src/agent/commands.ts, written in parallel by another change; until it is merged no custom command exists.
 * The lead wires it here: return its commands mapped to this shape.
 */
export interface CustomCommand {
  /** Typed after the slash, e.g. "review" for /review. */
  name: string;
  description: string;
  /** The prompt sent to the model for `/name args`. */
  expand(args: string): string;
}

export function customCommands(_cwd: string): CustomCommand[] {
  return [];
}
