/**
 * What the model reads when the sandbox refused something: which paths or hosts, and what would allow it
 * (a rule to add, acceptEdits, a domain to list). Built from the runtime's violation lines and the policy
 * the command ran with.
 */
import fs from "node:fs";
import path from "node:path";
import { isPathInside } from "../core/paths.js";
import type { FilesystemPolicy, WriteScope } from "./policy.js";

export interface SandboxReportInput {
  violations: string[];
  output: string;
  scope: WriteScope;
  filesystem: FilesystemPolicy;
  cwd: string;
  /** Bash rules that would vouch for the command (`sort:*`). */
  suggestedRules: string[];
  /** The session's working directories: a write outside them needs one more, not a rule. */
  workingDirectories?: string[];
}

const NETWORK = /^deny network-outbound (\S+?)(?::(\d+))? \((.*)\)$/;
const FILE = /^deny (\S+) (\/.*)$/;
/** What a refused write looks like in a command's own output, for when no violation was recorded. */
const READ_ONLY_OUTPUT = /Read-only file system/;
/** The path such a line names: `bash: line 1: /x/f: Read-only…`, `touch: cannot touch '/x/f': Read-only…`. */
const READ_ONLY_PATH = /(?:'([^'\n]+)'|([^\s:'][^\s:]*)): Read-only file system/g;
/** A connection to this machine's loopback refused: inside the sandbox's network namespace nothing listens there. */
const LOOPBACK_REFUSED = /(?:Couldn't connect to server|Connection refused|ECONNREFUSED)/i;
const LOOPBACK_ADDRESS = /\b(?:127\.\d+\.\d+\.\d+|localhost|\[::1\]|::1)\b/i;

function isWritable(p: string, fs: FilesystemPolicy): boolean {
  return fs.allowWrite.some((dir) => isPathInside(p, dir)) && !fs.denyWrite.some((deny) => isPathInside(p, deny));
}

const shown = (p: string, cwd: string) => (isPathInside(p, cwd) ? path.relative(cwd, p) || "." : p);

function list(items: string[], max = 5): string {
  const head = items.slice(0, max).join(", ");
  return items.length > max ? `${head} and ${items.length - max} more` : head;
}

/** Notes for the tool result; empty when the sandbox refused nothing. */
export function describeSandboxRefusals(input: SandboxReportInput): string[] {
  const notes: string[] = [];
  const hosts = new Set<string>();
  const paths = new Set<string>();
  for (const line of input.violations) {
    const net = NETWORK.exec(line);
    if (net) {
      hosts.add(net[1].replace(/^\[|\]$/g, ""));
      continue;
    }
    const file = FILE.exec(line);
    // the monitor reports every write attempt it saw; only the ones the policy refuses count
    if (file && !isWritable(path.normalize(file[2]), input.filesystem)) paths.add(path.normalize(file[2]));
  }
  // The runtime's record of a refusal can come after the command's end on a busy machine: then the paths the
  // command's own errors name, where their folder exists (a write there fails as read-only, not as missing).
  if (paths.size === 0 && READ_ONLY_OUTPUT.test(input.output)) {
    for (const match of input.output.matchAll(READ_ONLY_PATH)) {
      const named = path.resolve(input.cwd, match[1] ?? match[2]!);
      if (fs.existsSync(path.dirname(named)) && !isWritable(named, input.filesystem)) paths.add(named);
    }
  }
  const blocked = [...paths];
  const protectedPaths = blocked.filter((p) => input.filesystem.denyWrite.some((deny) => isPathInside(p, deny)));
  const elsewhere = blocked.filter((p) => !protectedPaths.includes(p));
  if (elsewhere.length || (!blocked.length && READ_ONLY_OUTPUT.test(input.output))) {
    const what = elsewhere.length ? `writing ${list(elsewhere.map((p) => shown(p, input.cwd)))}` : "a write";
    const dirs = input.workingDirectories ?? [];
    const outside = dirs.length ? elsewhere.filter((p) => !dirs.some((d) => isPathInside(p, d))) : [];
    const rule = input.suggestedRules.length ? `an allow rule such as ${list(input.suggestedRules.map((r) => `Bash(${r})`), 3)}` : "an allow rule for this command";
    if (outside.length && outside.length === elsewhere.length) {
      // Outside the working directories a rule alone never helps: the directory must become one.
      const parents = [...new Set(outside.map((p) => path.dirname(p)))];
      notes.push(
        `The sandbox blocked writing ${list(outside)}: outside the working directories nothing is writable. To write there, add ${list(parents)} as a working directory (--add-dir ${parents[0]}, or permissions.additionalDirectories)${input.scope === "none" ? `, and allow the command with ${rule} or acceptEdits mode` : ""}.`,
      );
    } else if (input.scope === "none") {
      notes.push(
        `The sandbox blocked ${what}: no rule allows this command, so it ran with a read-only file system (only its temp dir, $TMPDIR, is writable). To let it write inside the working directories, add ${rule}, or use acceptEdits mode.`,
      );
    } else {
      notes.push(
        `The sandbox blocked ${what}: only the working directories and $TMPDIR are writable. To write elsewhere, add that directory as a working directory (--add-dir or permissions.additionalDirectories).`,
      );
    }
  }
  if (protectedPaths.length) {
    notes.push(
      `The sandbox blocked writing ${list(protectedPaths.map((p) => shown(p, input.cwd)))}: safety paths (.git/hooks, .git/config, .toolgate/, .mcp.json, shell start-up files) and Edit-denied or Read-denied paths stay read-only inside the sandbox. Change them with the file tools, which ask first.`,
    );
  }
  if (!hosts.size && LOOPBACK_REFUSED.test(input.output) && LOOPBACK_ADDRESS.test(input.output)) {
    notes.push(
      "Inside the sandbox, a direct connection to localhost (127.0.0.1, ::1) reaches the sandbox's own loopback, where nothing listens. A server on this machine is reached only through the sandbox's proxy: list its host in sandbox.network.allowedDomains (or allow WebFetch(domain:localhost)) and make the client use the proxy, which NO_PROXY skips for localhost (curl --noproxy '')."
    );
  }
  for (const host of hosts) {
    notes.push(
      `The sandbox blocked a network connection to ${host}. To allow it, add "${host}" to sandbox.network.allowedDomains in settings, or the rule WebFetch(domain:${host}).`,
    );
  }
  return notes;
}
