/** `toolgate sessions`: the project's agent sessions, for --resume. */
import { listSessions } from "../agent/transcript.js";
import { getToolgateHome } from "../util/home.js";
import { sessionOptionsFromFlags, type SessionFlags } from "./flags.js";

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}

export async function sessionsCommand(flags: SessionFlags & { json?: boolean }): Promise<number> {
  const { cwd } = sessionOptionsFromFlags(flags);
  const sessions = listSessions(getToolgateHome(), cwd!);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(sessions, null, 2)}\n`);
    return 0;
  }
  if (!sessions.length) {
    process.stdout.write(`No sessions for ${cwd} yet. Start one with: toolgate -p "your prompt"\n`);
    return 0;
  }
  for (const s of sessions) {
    const prompt = s.lastPrompt.replace(/\s+/g, " ").slice(0, 60);
    process.stdout.write(`${s.sessionId}  ${(s.startedAt ?? s.modifiedAt).slice(0, 16).replace("T", " ")}  ${String(s.turns).padStart(4)} turns  ${size(s.sizeBytes).padStart(8)}  ${prompt}\n`);
  }
  process.stdout.write(`\nResume one with: toolgate -p "…" --resume <id or its first characters>\n`);
  return 0;
}
