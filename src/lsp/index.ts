/** Language servers: settings, the client, and what the session and the Diagnostics tool use. */
import type { LspManager } from "./manager.js";

export type { LspManager, LspServerStatus, FileDiagnosticsResult } from "./manager.js";
export { resolveServerCommand, skippedProgramsNote } from "./command.js";
export { lspSettingsSection, readLspSettings, type LspServerSettings } from "./settingsSection.js";
export { formatDiagnostic, formatDiagnosticList, newProblems, countBySeverity, isProblem, severityName } from "./format.js";

declare module "../core/Tool.js" {
  interface ToolUseContext {
    /** The session's language servers (set by the session when settings configure `lsp`). */
    lsp?: LspManager;
  }
}

/** The manager, loaded on demand: the JSON-RPC libraries are only needed when a server is configured. */
export async function startLsp(options: import("./manager.js").LspManagerOptions): Promise<LspManager> {
  const { createLspManager } = await import("./manager.js");
  return createLspManager(options);
}
