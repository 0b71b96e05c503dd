import fs from "node:fs";
import path from "node:path";
import { expandPath } from "../core/paths.js";
import { parsePermissionRule, splitRuleList } from "../permissions/index.js";
import type { SessionOptions } from "../session/index.js";
import type { PermissionMode } from "../core/permissionTypes.js";
import { UsageError } from "./errors.js";

/** Flags shared by every command that builds a session. */
export interface SessionFlags {
  cwd?: string;
  settings?: string;
  permissionMode?: PermissionMode;
  allowedTools?: string[];
  disallowedTools?: string[];
  addDir?: string[];
  mcpConfig?: string[];
  strict?: boolean;
  /** `--sandbox` true, `--no-sandbox` false. */
  sandbox?: boolean;
  /** `--trust`: use what this folder's own files turn on, for this run. */
  trust?: boolean;
  /** `--computer-use`: the computer tool, on a virtual display when there is no DISPLAY. */
  computerUse?: boolean;
  /** `--computer-use-app`: a program to start in that display (implies --computer-use). */
  computerUseApp?: string;
}

/** A directory named on the command line must exist and be a directory; returns it absolute. */
export function checkDirectory(flag: string, dir: string, base: string): string {
  const resolved = expandPath(dir, base);
  const shown = resolved === dir ? dir : `${dir} (${resolved})`;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(resolved);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new UsageError(`${flag} ${shown}: no such directory`);
    throw new UsageError(`${flag} ${shown}: cannot be used (${code ?? (err as Error).message})`);
  }
  if (!stat.isDirectory()) throw new UsageError(`${flag} ${shown}: not a directory`);
  return resolved;
}

/** `--plugin-dir` and `--plugin-dir-no-mcp`: each must be an existing folder (its manifest is checked when the session loads it). */
export function pluginDirsFromFlags(flags: { pluginDir?: string[]; pluginDirNoMcp?: string[] }, base: string): Array<{ dir: string; mcp: boolean }> {
  return [
    ...(flags.pluginDir ?? []).map((dir) => ({ dir: checkDirectory("--plugin-dir", dir, base), mcp: true })),
    ...(flags.pluginDirNoMcp ?? []).map((dir) => ({ dir: checkDirectory("--plugin-dir-no-mcp", dir, base), mcp: false })),
  ];
}

/** Every rule of --allowedTools / --disallowedTools must parse; the first that does not stops the CLI. */
export function checkRules(flag: string, values: readonly string[] | undefined): void {
  for (const text of splitRuleList(values ?? [])) {
    try {
      parsePermissionRule(text);
    } catch (err) {
      throw new UsageError(`${flag}: ${(err as Error).message}`);
    }
  }
}

/** `--http PORT`: digits only, 0-65535 (0 = any free port). */
export function parsePort(text: string): number {
  const trimmed = text.trim();
  if (!/^\d{1,5}$/.test(trimmed) || Number(trimmed) > 65_535) {
    throw new UsageError(`--http needs a port number between 0 and 65535, got ${JSON.stringify(text)}`);
  }
  return Number(trimmed);
}

/** A whole number of at least 1 for `flag` (`--http-max-sessions`, `--http-idle-timeout`). */
export function parsePositiveInteger(flag: string, text: string): number {
  const trimmed = text.trim();
  if (!/^\d{1,9}$/.test(trimmed) || Number(trimmed) < 1) throw new UsageError(`${flag} needs a whole number of at least 1, got ${JSON.stringify(text)}`);
  return Number(trimmed);
}

/** The session options the flags ask for, checked first: a wrong directory or rule is a usage error, not a crash later. */
export function sessionOptionsFromFlags(flags: SessionFlags): SessionOptions {
  const cwd = flags.cwd === undefined ? process.cwd() : checkDirectory("--cwd", flags.cwd, process.cwd());
  for (const dir of flags.addDir ?? []) checkDirectory("--add-dir", dir, cwd);
  checkRules("--allowedTools", flags.allowedTools);
  checkRules("--disallowedTools", flags.disallowedTools);
  return {
    cwd: path.resolve(cwd),
    settingsFile: flags.settings,
    permissionMode: flags.permissionMode,
    allowedTools: flags.allowedTools,
    disallowedTools: flags.disallowedTools,
    addDirs: flags.addDir,
    strict: flags.strict,
    sandbox: flags.sandbox,
    ...(flags.trust ? { trust: true } : {}),
    ...(flags.computerUse || flags.computerUseApp ? { computerUse: true } : {}),
    ...(flags.computerUseApp ? { computerUseApp: flags.computerUseApp } : {}),
  };
}
