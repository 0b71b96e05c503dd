import { z } from "zod";

/** The optional `timeout` of a tool that runs code (Bash, REPL): whole milliseconds, at most `maxMs`. */
export const timeoutInput = (defaultMs: number, maxMs: number) =>
  z
    .number()
    .int()
    .min(1)
    .max(maxMs)
    .optional()
    .describe(`Timeout in milliseconds (default ${defaultMs}, at most ${maxMs})`);
