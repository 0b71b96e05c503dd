/** Types for scripts/conformance-probe.mjs (used by test/sdk/conformance.test.ts). */
export declare const claudeCodeBinary: string;
export declare const fixturePath: string;
export declare const probes: ReadonlyArray<{ id: string; title: string }>;
export declare function recordSession(
  cli: "toolgate" | "claude-code",
  options?: { toolgateArgs?: string[]; env?: Record<string, string> },
): Promise<{ results: Record<string, { content: unknown; is_error: boolean } | { missing: true }>; version?: string; exitCode: number | null; stderr: string; root: string; home: string }>;
