/**
 * `toolgate diff`: what an agent session changed, from its checkpoints (so it works without git): each file from
 * its state before the session first changed it to its content now, as a unified diff and a stat summary.
 */
import path from "node:path";
import { findSession, SessionNotFoundError } from "../agent/transcript.js";
import { changeSummaryJson, diffSession, formatFileDiff, formatStat, uncoveredChanges } from "../agent/changes.js";
import { createFileHistory } from "../core/fileHistory.js";
import { getSessionPaths } from "../core/context.js";
import { getToolgateHome } from "../util/home.js";

export interface DiffFlags {
  cwd?: string;
  session?: string;
  stat?: boolean;
  json?: boolean;
}

export async function diffCommand(flags: DiffFlags): Promise<number> {
  const cwd = path.resolve(flags.cwd ?? process.cwd());
  const home = getToolgateHome();
  let sessionId: string;
  try {
    sessionId = findSession(home, cwd, flags.session).sessionId;
  } catch (err) {
    if (!(err instanceof SessionNotFoundError)) throw err;
    process.stderr.write(`toolgate diff: ${err.message}\n`);
    return 1;
  }
  const history = createFileHistory(path.join(getSessionPaths(home, cwd, sessionId).sessionDir, "file-history"));
  const { summary, diffs } = diffSession(history, cwd);
  const uncovered = uncoveredChanges(history, cwd);
  const uncoveredText = uncovered.length
    ? `\nNot covered by checkpoints (changed, but their earlier content was not kept):\n${uncovered.map((u) => `  ${u.path}: ${u.reason}\n`).join("")}`
    : "";

  if (flags.json) {
    const json = changeSummaryJson(summary);
    const files = flags.stat ? json.files : json.files.map((file, i) => ({ ...file, diff: formatFileDiff(diffs[i]) }));
    const notCovered = uncovered.length ? { not_covered: uncovered } : {};
    process.stdout.write(`${JSON.stringify({ session_id: sessionId, files, totals: json.totals, ...notCovered }, null, 2)}\n`);
    return 0;
  }
  if (!summary.files.length) {
    process.stdout.write(`Session ${sessionId} changed no files (or its changes were rewound).\n${uncoveredText}`);
    return 0;
  }
  process.stdout.write(formatStat(summary, process.stdout.columns || 80));
  if (!flags.stat) process.stdout.write(`\n${diffs.map(formatFileDiff).join("")}`);
  process.stdout.write(uncoveredText);
  return 0;
}
