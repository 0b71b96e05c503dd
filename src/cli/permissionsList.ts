import type { PermissionBehavior } from "../core/permissionTypes.js";
import { formatRulesTable, resolveDefaultMode, ruleToString, sortRules, sourceLabel, workingDirectoryLines } from "../permissions/index.js";
import type { Session } from "../session/index.js";
import { openSession } from "./commands.js";
import type { SessionFlags } from "./flags.js";

export interface PermissionsListing {
  mode: string;
  /** Where the mode came from: `--permission-mode`, a settings file, or the default. */
  modeSource: string;
  strict: boolean;
  workingDirectories: Array<{ path: string; source: string; file?: string }>;
  rules: Array<{ behavior: PermissionBehavior; rule: string; source: string; file?: string }>;
}

export function listPermissions(session: Session, modeFlag: boolean): PermissionsListing {
  const ctx = session.context.getAppState().toolPermissionContext;
  const fromSettings = resolveDefaultMode(session.settings);
  return {
    mode: ctx.mode,
    modeSource: modeFlag ? "--permission-mode" : fromSettings.source ? `${sourceLabel(fromSettings.source)} — ${fromSettings.file}` : "not set, the default",
    strict: session.strict,
    workingDirectories: [
      { path: ctx.cwd, source: "cwd" },
      ...ctx.additionalWorkingDirectories.map((d) => ({ path: d.path, source: d.source, ...(d.file && { file: d.file }) })),
    ],
    rules: sortRules(ctx.rules).map((r) => ({ behavior: r.ruleBehavior, rule: ruleToString(r), source: r.source, ...(r.file && { file: r.file }) })),
  };
}

/** What `toolgate permissions list` prints without --json. */
export function formatPermissionsListing(session: Session, listing: PermissionsListing): string {
  const ctx = session.context.getAppState().toolPermissionContext;
  const lines = [
    `mode: ${listing.mode} (${listing.modeSource})${listing.strict ? "; strict" : ""}`,
    "working directories:",
    ...workingDirectoryLines(ctx).map((l) => `  ${l}`),
    listing.rules.length ? "rules:" : "rules: none",
    ...formatRulesTable(ctx.rules).map((l) => `  ${l}`),
  ];
  return `${lines.join("\n")}\n`;
}

/** `toolgate permissions list [--json]`. */
export async function permissionsListCommand(flags: SessionFlags & { json?: boolean }): Promise<number> {
  const session = await openSession(flags);
  try {
    const listing = listPermissions(session, flags.permissionMode !== undefined);
    process.stdout.write(flags.json ? `${JSON.stringify(listing, null, 2)}\n` : formatPermissionsListing(session, listing));
    return 0;
  } finally {
    await session.close();
  }
}
