/**
 * The rule to offer when a command needs approval: `npm run test:*` for tools with subcommands,
 * `pytest:*` for ordinary programs, and the exact command for programs where a prefix would
 * allow far more than was asked (rm, sudo, interpreters, shells…).
 */
import type { CommandPart } from "../../../shell/analyze.js";
import { canonicalText, rawText } from "../../../shell/words.js";

/** Programs whose subcommand is part of what the user approves (`git commit`, `npm run build`). */
const SUBCOMMAND_TOOLS = new Set([
  "git", "npm", "pnpm", "yarn", "bun", "npx", "deno", "cargo", "go", "docker", "podman", "kubectl", "helm", "gh",
  "make", "pip", "pip3", "uv", "poetry", "dotnet", "mvn", "gradle", "./gradlew", "terraform", "brew", "apt", "apt-get",
  "composer", "bundle", "rake", "mix", "swift", "rustup", "nx", "turbo", "pytest", "jest", "vitest", "tsc", "eslint",
]);

/** A second subcommand level: `npm run build`, `docker compose up`, `cargo x …`. */
const SECOND_LEVEL = new Set(["run", "run-script", "exec", "compose", "workspace", "x"]);

/** Programs for which a prefix rule would allow arbitrary effects: only the exact command is offered. */
const EXACT_ONLY = new Set([
  "rm", "rmdir", "sudo", "su", "doas", "chmod", "chown", "chgrp", "dd", "mkfs", "shred", "kill", "pkill", "killall",
  "bash", "sh", "zsh", "dash", "fish", "ksh", "python", "python3", "node", "perl", "ruby", "php", "lua", "osascript",
  "eval", "exec", "source", ".", "env", "xargs", "ssh", "scp", "rsync", "curl", "wget", "mv", "cp", "ln", "git-shell",
  "crontab", "systemctl", "launchctl", "reboot", "shutdown", "trap",
]);

const PLAIN_WORD = /^[A-Za-z][\w.:@-]*$/;

/** Rule content for a part that needs approval, or undefined when no sensible rule exists. */
export function suggestRuleContent(part: CommandPart): string | undefined {
  const words = part.words;
  const name = words[0]?.value;
  if (name === undefined || part.unsafeAssignments.length || words.some((w) => w.value === undefined)) {
    const text = rawText(words);
    return text || undefined;
  }
  const exact = canonicalText(words);
  if (EXACT_ONLY.has(name) || words.length === 1) return exact;
  const prefix = [name];
  if (SUBCOMMAND_TOOLS.has(name)) {
    const sub = words[1]?.value;
    if (sub && PLAIN_WORD.test(sub)) {
      prefix.push(sub);
      const next = words[2]?.value;
      if (SECOND_LEVEL.has(sub) && next && PLAIN_WORD.test(next)) prefix.push(next);
    }
  }
  return `${prefix.join(" ")}:*`;
}
