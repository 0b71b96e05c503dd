/** What the model is told about where it runs: directory, platform, date, and the state of the git repository. */
import os from "node:os";
import { withGitView } from "../util/git.js";

export interface Environment {
  cwd: string;
  platform: NodeJS.Platform;
  osRelease: string;
  shell: string;
  /** Local date, YYYY-MM-DD. */
  date: string;
  git?: GitState;
}

export interface GitState {
  branch: string;
  /** `git status --short`, cut to a bounded length. */
  status: string;
  recentCommits: string;
}

const MAX_STATUS_CHARS = 2_000;

/** The repository's state, or undefined outside a repository (or when git is missing or too slow). */
export async function readGitState(cwd: string): Promise<GitState | undefined> {
  const state = await withGitView(cwd, async (git) => {
    // submodules are left out: git would check each with a git of its own that reads the submodule's config
    const [branch, status, log] = await Promise.all([
      git(["branch", "--show-current"]),
      git(["status", "--short", "--ignore-submodules=all"]),
      git(["log", "--oneline", "-n", "5"]),
    ]);
    return { branch: branch?.trimEnd(), status: status?.trimEnd(), log: log?.trimEnd() };
  });
  if (!state) return undefined;
  let shown = state.status ?? "";
  if (shown.length > MAX_STATUS_CHARS) shown = `${shown.slice(0, MAX_STATUS_CHARS)}\n… (cut; run git status for the rest)`;
  return { branch: state.branch || "(detached HEAD)", status: shown || "(clean)", recentCommits: state.log || "(no commits yet)" };
}

function localDate(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export async function readEnvironment(cwd: string, now = new Date()): Promise<Environment> {
  return { cwd, platform: process.platform, osRelease: os.release(), shell: process.env.SHELL ?? "bash", date: localDate(now), git: await readGitState(cwd) };
}

export function formatEnvironment(env: Environment): string {
  const lines = [
    `Working directory: ${env.cwd}`,
    `Platform: ${env.platform} ${env.osRelease}`,
    `Shell: ${env.shell}`,
    `Today's date: ${env.date}`,
    `Git repository: ${env.git ? "yes" : "no"}`,
  ];
  if (env.git) {
    lines.push(
      `Current branch: ${env.git.branch}`,
      "",
      "Git status at the start of the session (it does not update as you work):",
      env.git.status,
      "",
      "Recent commits:",
      env.git.recentCommits,
    );
  }
  return lines.join("\n");
}
