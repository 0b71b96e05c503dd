// Apart from flags.ts so that building the command line (main.ts) does not load the permission engine.

/**
 * commander's argParser for a flag that may be repeated: each occurrence adds one value. A flag takes
 * exactly one value, so it can never swallow the positional arguments that follow it.
 */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
