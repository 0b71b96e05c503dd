/**
 * Claude through a cloud platform (Amazon Bedrock, Google Vertex AI): which one the environment selects, with
 * the variables Claude Code reads, so a shell set up for Claude Code works unchanged.
 */
import type { ProviderName } from "./events.js";

/** A switch variable is on for 1, true, yes or on (any case); unset, empty, 0 and false are off. */
export function envFlag(value: string | undefined): boolean {
  return /^(?:1|true|yes|on)$/i.test(value?.trim() ?? "");
}

/** Bedrock before Vertex when both are on, as Claude Code checks them. */
const SWITCHES: ReadonlyArray<readonly [ProviderName, readonly string[]]> = [
  ["bedrock", ["CLAUDE_CODE_USE_BEDROCK", "TOOLGATE_USE_BEDROCK"]],
  ["vertex", ["CLAUDE_CODE_USE_VERTEX", "TOOLGATE_USE_VERTEX"]],
];

/** The platform a switch variable turns on, and that variable's name (for doctor). */
export function platformFromEnv(env: NodeJS.ProcessEnv): { provider: ProviderName; variable: string } | undefined {
  for (const [provider, variables] of SWITCHES) {
    const variable = variables.find((name) => envFlag(env[name]));
    if (variable) return { provider, variable };
  }
  return undefined;
}

/** Where a value came from, said the way doctor and error messages say it. */
export interface Sourced<T> {
  value: T;
  /** The variable's name, `settings provider.<key>`, a file, or `default`. */
  source: string;
}
