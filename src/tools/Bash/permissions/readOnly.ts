/**
 * The allowlist of read-only commands. A simple command is read-only when its program is listed here and
 * its arguments pass the program's check (no `find -exec`, no `sort -o`, no `git -c`…). Programs whose
 * options can write or run code refuse arguments that are not literals or that the shell expands
 * (a glob could expand to a file named `-delete`).
 */
import type { Word } from "./words.js";

interface ReadOnlySpec {
  /** Reads the files named in its arguments: those must be inside the working directories to run unasked. */
  readsFiles: boolean;
  /** Judges the arguments (static values, after the program name). Present = options can write or execute. */
  check?: (args: string[]) => boolean;
}

const hasAny = (args: string[], options: readonly string[]) =>
  args.some((a) => options.some((o) => a === o || (o.startsWith("--") && a.startsWith(`${o}=`))));

const positionals = (args: string[]) => {
  const out: string[] = [];
  let endOfOptions = false;
  for (const a of args) {
    if (!endOfOptions && a === "--") endOfOptions = true;
    else if (endOfOptions || !a.startsWith("-") || a === "-") out.push(a);
  }
  return out;
};

const FIND_ACTIONS = ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"];

const GIT_READ_ONLY = new Set([
  "status",
  "log",
  "diff",
  "show",
  "shortlog",
  "blame",
  "describe",
  "rev-parse",
  "rev-list",
  "ls-files",
  "ls-tree",
  "ls-remote",
  "cat-file",
  "show-ref",
  "merge-base",
  "name-rev",
  "whatchanged",
  "count-objects",
  "for-each-ref",
  "check-ignore",
  "diff-tree",
  "diff-files",
  "diff-index",
  "grep",
  "version",
]);

const GIT_BRANCH_FLAGS = ["-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "-l", "--list", "--show-current", "--color", "--no-color", "--column", "--no-column", "-i", "--ignore-case", "--omit-empty"];
const GIT_LISTING_VALUE_OPTIONS = ["--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format", "-n"];

/** `git branch` / `git tag` only when listing: listing flags, and patterns only after `--list`. */
function gitListing(args: string[]): boolean {
  const listMode = args.includes("-l") || args.includes("--list");
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (GIT_BRANCH_FLAGS.includes(a)) continue;
    const name = a.includes("=") ? a.slice(0, a.indexOf("=")) : a;
    if (GIT_LISTING_VALUE_OPTIONS.includes(name)) {
      if (!a.includes("=")) i++;
      continue;
    }
    if (/^-n\d+$/.test(a)) continue;
    if (!a.startsWith("-") && listMode) continue;
    return false;
  }
  return true;
}

const GIT_GLOBAL_FLAGS = ["--no-pager", "-P", "--no-optional-locks", "--paginate", "-p", "--bare", "--no-replace-objects", "--literal-pathspecs", "--no-advice"];
const GIT_GLOBAL_WITH_VALUE = ["-C", "--git-dir", "--work-tree", "--namespace"];

function gitReadOnly(args: string[]): boolean {
  let i = 0;
  while (i < args.length && args[i].startsWith("-")) {
    const a = args[i];
    if (GIT_GLOBAL_FLAGS.includes(a)) i++;
    else if (GIT_GLOBAL_WITH_VALUE.includes(a)) i += 2;
    else if (GIT_GLOBAL_WITH_VALUE.some((o) => o.startsWith("--") && a.startsWith(`${o}=`))) i++;
    else return a === "--version" && args.length === 1; // -c, --exec-path, --config-env… can run code
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (sub === undefined) return true;
  if (GIT_READ_ONLY.has(sub)) {
    if (hasAny(rest, ["--output", "--ext-diff", "-O", "--open-files-in-pager"])) return false;
    return true;
  }
  switch (sub) {
    case "branch":
    case "tag":
      return gitListing(rest);
    case "remote":
      return rest.length === 0 || rest.every((a) => a === "-v" || a === "--verbose") || (["get-url", "show"].includes(rest[0]) && rest.length <= 3);
    case "stash":
      return rest[0] === "list" || rest[0] === "show";
    case "worktree":
      return rest[0] === "list";
    case "reflog":
      return rest.length === 0 || rest[0] === "show" || rest[0].startsWith("-");
    case "config":
      return hasAny(rest, ["--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch"]) || rest[0] === "get" || rest[0] === "list";
    default:
      return false;
  }
}

const NO_FILES: ReadOnlySpec = { readsFiles: false };
const FILES: ReadOnlySpec = { readsFiles: true };

const READ_ONLY_COMMANDS: Record<string, ReadOnlySpec> = {
  // no file access
  echo: NO_FILES,
  printf: {
    readsFiles: false,
    // `printf -v NAME` assigns a shell variable: harmless unless it is one that changes what runs (PATH…)
    check: (args) => {
      const at = args.indexOf("-v");
      return at < 0 || /^[a-z_][a-z0-9_]*$/.test(args[at + 1] ?? "");
    },
  },
  pwd: NO_FILES,
  true: NO_FILES,
  false: NO_FILES,
  ":": NO_FILES,
  which: NO_FILES,
  type: NO_FILES,
  whoami: NO_FILES,
  id: NO_FILES,
  groups: NO_FILES,
  uname: NO_FILES,
  hostname: { readsFiles: false, check: (args) => positionals(args).length === 0 && !hasAny(args, ["-F", "--file", "-b", "--boot"]) },
  date: { readsFiles: false, check: (args) => !hasAny(args, ["-s", "--set"]) && positionals(args).every((a) => a.startsWith("+")) },
  seq: NO_FILES,
  sleep: NO_FILES,
  test: NO_FILES,
  "[": NO_FILES,
  basename: NO_FILES,
  dirname: NO_FILES,
  nproc: NO_FILES,
  arch: NO_FILES,
  uptime: NO_FILES,
  tty: NO_FILES,
  locale: NO_FILES,
  printenv: NO_FILES,
  env: NO_FILES, // reached only without a command (with one, env is a stripped wrapper)
  command: { readsFiles: false, check: (args) => args[0] === "-v" || args[0] === "-V" },
  // reading files
  cat: FILES,
  head: FILES,
  tail: FILES,
  ls: FILES,
  wc: FILES,
  grep: FILES,
  egrep: FILES,
  fgrep: FILES,
  rg: { readsFiles: true, check: (args) => !hasAny(args, ["--pre", "--hostname-bin"]) },
  find: { readsFiles: true, check: (args) => !hasAny(args, FIND_ACTIONS) },
  fd: { readsFiles: true, check: (args) => !hasAny(args, ["-x", "--exec", "-X", "--exec-batch"]) },
  tree: { readsFiles: true, check: (args) => !hasAny(args, ["-o"]) },
  file: FILES,
  stat: FILES,
  du: FILES,
  df: FILES,
  realpath: FILES,
  readlink: FILES,
  sort: { readsFiles: true, check: (args) => !hasAny(args, ["-o", "--output", "--compress-program"]) && !args.some((a) => /^-[^-]*o/.test(a)) },
  uniq: { readsFiles: true, check: (args) => positionals(args).length <= 1 },
  cut: FILES,
  tr: NO_FILES,
  nl: FILES,
  tac: FILES,
  rev: FILES,
  fold: FILES,
  column: FILES,
  paste: FILES,
  od: FILES,
  hexdump: FILES,
  xxd: { readsFiles: true, check: (args) => positionals(args).length <= 1 },
  strings: FILES,
  md5sum: FILES,
  sha1sum: FILES,
  sha256sum: FILES,
  sha512sum: FILES,
  cksum: FILES,
  b2sum: FILES,
  cmp: FILES,
  comm: FILES,
  diff: FILES,
  jq: FILES,
  git: { readsFiles: true, check: gitReadOnly },
  // change the shell's directory only
  cd: FILES,
  pushd: FILES,
  popd: NO_FILES,
};

/** Commands that change the working directory of the shell running the command. */
export const DIRECTORY_CHANGERS = new Set(["cd", "pushd", "popd"]);

export interface ReadOnlyVerdict {
  readOnly: boolean;
  /** Reads files named in its arguments. */
  readsFiles: boolean;
}

/** Whether a simple command (after wrappers were stripped) is on the read-only allowlist. */
export function judgeReadOnly(words: readonly Word[]): ReadOnlyVerdict {
  const name = words[0]?.value;
  const spec = name === undefined ? undefined : Object.hasOwn(READ_ONLY_COMMANDS, name) ? READ_ONLY_COMMANDS[name] : undefined;
  if (!spec) return { readOnly: false, readsFiles: false };
  const args = words.slice(1);
  if (spec.check) {
    if (args.some((w) => w.value === undefined || w.expands)) return { readOnly: false, readsFiles: spec.readsFiles };
    if (!spec.check(args.map((w) => w.value as string))) return { readOnly: false, readsFiles: spec.readsFiles };
  }
  return { readOnly: true, readsFiles: spec.readsFiles };
}
