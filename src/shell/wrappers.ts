/**
 * Leading environment assignments and wrapper commands (`timeout 5`, `nice -n 2`, `env FOO=1`, `xargs -0`…)
 * are stripped so that rules see the command that really runs, for allow and deny alike.
 */
import type { Word } from "./words.js";

export interface Assignment {
  name: string;
  raw: string;
}

export interface StrippedCommand {
  /** The command that runs, after every wrapper. */
  words: Word[];
  /** The word list before each wrapper was removed, outermost first (deny and ask rules see all of them). */
  stages: Word[][];
  /** Environment assignments in front of the command or given to `env`. */
  assignments: Assignment[];
  /** Names of the wrappers removed, outermost first. */
  wrappers: string[];
  /** `xargs` appends arguments read from stdin: an exact rule cannot vouch for them. */
  appendsArgs: boolean;
  /** `xargs -I`: stdin text is pasted into the arguments. */
  pastesInput: boolean;
  /** Files a wrapper reads its input from (`xargs -a FILE`). */
  argumentFiles: Word[];
  /** Why the command cannot be judged (an option we do not understand, a dynamic option). */
  complex?: string;
}

/** Wrappers stripped for deny and ask rules only: they change who runs the command, so they never help allow it. */
export const DENY_ONLY_WRAPPERS = new Set(["sudo", "doas"]);

/** Variables that only change formatting or locale: safe in front of a command that a rule or the allowlist allows. */
const SAFE_ENV_NAMES = new Set([
  "LANG",
  "LANGUAGE",
  "TZ",
  "TERM",
  "COLUMNS",
  "LINES",
  "NO_COLOR",
  "FORCE_COLOR",
  "CLICOLOR",
  "CLICOLOR_FORCE",
  "CI",
  "DEBUG",
  "NODE_ENV",
  "RUST_BACKTRACE",
  "RUST_LOG",
  "PYTHONUNBUFFERED",
  "PYTHONDONTWRITEBYTECODE",
  "PYTHONIOENCODING",
  "GOOS",
  "GOARCH",
  "CGO_ENABLED",
  "TMPDIR",
  "VERBOSE",
]);

/**
 * A variable that cannot turn a command into a different program: lowercase shell variables, locale and
 * formatting settings. Only these may stand in front of a command the read-only allowlist lets run unasked.
 */
export function isSafeEnvName(name: string): boolean {
  return /^[a-z_][a-z0-9_]*$/.test(name) || SAFE_ENV_NAMES.has(name) || /^LC_[A-Z]+$/.test(name);
}

const DANGEROUS_ENV_NAMES = new Set([
  "PATH", "IFS", "ENV", "BASH_ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "CDPATH", "GLOBIGNORE",
  "HOME", "ZDOTDIR", "SHELL", "PAGER", "MANPAGER", "EDITOR", "VISUAL", "BROWSER", "LESSOPEN", "LESSCLOSE",
  "SSH_ASKPASS", "SUDO_ASKPASS", "NODE_OPTIONS", "NODE_PATH", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME",
  "PERL5LIB", "PERL5OPT", "PERLLIB", "RUBYOPT", "RUBYLIB", "CLASSPATH", "RUSTC", "RUSTDOC", "CC", "CXX", "LD",
  "AR", "MAKE", "MAKEFLAGS", "GOFLAGS", "TERMINFO", "KUBECONFIG",
]);
const DANGEROUS_ENV_PREFIXES = ["LD_", "DYLD_", "GIT_", "XDG_", "NPM_CONFIG_", "YARN_", "PNPM_", "BUN_", "CARGO_", "PIP_", "UV_", "POETRY_", "DOCKER_", "BASH_FUNC_"];
const DANGEROUS_ENV_SUFFIXES = ["_OPTIONS", "_OPTS", "PATH", "_HOME", "_COMMAND", "_EDITOR", "_PAGER", "_SHELL", "_PRELOAD", "_WRAPPER", "_PROGRAM", "_CONFIG"];

/**
 * A variable known to change which program runs or what it loads (PATH, LD_PRELOAD, GIT_*, NODE_OPTIONS,
 * *_HOME, *PATH…). An allow rule for `npm test` does not cover `NODE_OPTIONS=… npm test`; it does cover `FOO=1 npm test`.
 */
export function isDangerousEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  if (/^[a-z_][a-z0-9_]*$/.test(name) && !/^(npm_config_|ld_|dyld_)/.test(name)) return false;
  return (
    DANGEROUS_ENV_NAMES.has(upper) ||
    DANGEROUS_ENV_PREFIXES.some((p) => upper.startsWith(p)) ||
    DANGEROUS_ENV_SUFFIXES.some((s) => upper.endsWith(s)) ||
    !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)
  );
}

type Step = { rest: Word[]; assignments?: Assignment[]; appendsArgs?: boolean; pastesInput?: boolean; argumentFiles?: Word[] } | { complex: string } | undefined;

const value = (w: Word | undefined) => w?.value;

interface OptionSpec {
  /** Options that stand alone (`-v`, `--foreground`). */
  flags: readonly string[];
  /** Options that take a value, as a separate word or attached (`-s KILL`, `-sKILL`, `--signal=KILL`). */
  withValue: readonly string[];
  /** Short options whose value is optional and only attached (`xargs -i`, `xargs -l5`). */
  optionalAttached?: readonly string[];
  /** `nice -10`: a bare `-N` is an option. */
  numericFlag?: boolean;
}

/** Skip the options of a wrapper; returns the index of the first operand or a reason to give up. */
function skipOptions(words: Word[], start: number, spec: OptionSpec, tool: string): number | { complex: string } {
  let i = start;
  while (i < words.length) {
    const text = value(words[i]);
    if (text === undefined) return { complex: `an option of ${tool} is not a literal` };
    if (text === "--") return i + 1;
    if (!text.startsWith("-") || text === "-") return i;
    if (spec.flags.includes(text)) {
      i++;
      continue;
    }
    if (spec.numericFlag && /^-\d+$/.test(text)) {
      i++;
      continue;
    }
    const eq = text.indexOf("=");
    const name = eq > 0 ? text.slice(0, eq) : text;
    if (text.startsWith("--") && spec.withValue.includes(name)) {
      i += eq > 0 ? 1 : 2;
      continue;
    }
    const short = text.slice(0, 2);
    if (!text.startsWith("--") && spec.withValue.includes(short)) {
      i += text.length > 2 ? 1 : 2;
      continue;
    }
    if (!text.startsWith("--") && spec.optionalAttached?.includes(short)) {
      i++;
      continue;
    }
    return { complex: `${tool} option ${text} is not understood` };
  }
  return i;
}

function afterOptions(words: Word[], spec: OptionSpec, tool: string): Step {
  const at = skipOptions(words, 1, spec, tool);
  if (typeof at !== "number") return at;
  return at < words.length ? { rest: words.slice(at) } : undefined;
}

const DURATION = /^\d+(?:\.\d+)?[smhd]?$/;

function stripTimeout(words: Word[]): Step {
  const at = skipOptions(
    words,
    1,
    { flags: ["--preserve-status", "--foreground", "-v", "--verbose"], withValue: ["-s", "--signal", "-k", "--kill-after"] },
    "timeout",
  );
  if (typeof at !== "number") return at;
  const duration = value(words[at]);
  if (duration === undefined) return at < words.length ? { complex: "the duration given to timeout is not a literal" } : undefined;
  if (!DURATION.test(duration)) return { complex: `timeout duration ${duration} is not understood` };
  return at + 1 < words.length ? { rest: words.slice(at + 1) } : undefined;
}

function stripEnv(words: Word[]): Step {
  const assignments: Assignment[] = [];
  let i = 1;
  while (i < words.length) {
    const text = value(words[i]);
    if (text === undefined) {
      const raw = words[i].raw;
      const name = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(raw)?.[1];
      if (!name) return { complex: "an argument of env is not a literal" };
      assignments.push({ name, raw });
      i++;
      continue;
    }
    if (text === "--") {
      i++;
      break;
    }
    if (["-i", "--ignore-environment", "-", "-0", "--null", "-v", "--debug"].includes(text)) {
      i++;
      continue;
    }
    if (text === "-u" || text === "--unset") {
      i += 2;
      continue;
    }
    if (text.startsWith("-u") || text.startsWith("--unset=")) {
      i++;
      continue;
    }
    if (text.startsWith("-")) return { complex: `env option ${text} is not understood` };
    const name = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(text)?.[1];
    if (!name) break;
    assignments.push({ name, raw: words[i].raw });
    i++;
  }
  while (i < words.length) {
    const name = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(value(words[i]) ?? "")?.[1];
    if (!name) break;
    assignments.push({ name, raw: words[i].raw });
    i++;
  }
  return i < words.length ? { rest: words.slice(i), assignments } : undefined;
}

function stripXargs(words: Word[]): Step {
  const flags = ["-0", "--null", "-r", "--no-run-if-empty", "-t", "--verbose", "-p", "--interactive", "-x", "--exit", "-o", "--open-tty", "--show-limits"];
  const withValue = ["-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "--replace", "-L", "--max-lines", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var", "--eof"];
  let pastesInput = false;
  const argumentFiles: Word[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    const text = value(w) ?? "";
    if (!text.startsWith("-") || text === "--") break;
    if (text.startsWith("-I") || text.startsWith("-i") || text.startsWith("--replace")) pastesInput = true;
    if (text === "-a" || text === "--arg-file") {
      if (words[i + 1]) argumentFiles.push(words[++i]);
    } else if (text.startsWith("--arg-file=")) argumentFiles.push({ raw: w.raw, value: text.slice("--arg-file=".length), expands: w.expands });
    else if (/^-[0rtpxo]*a./.test(text)) argumentFiles.push({ raw: w.raw, value: text.slice(text.indexOf("a") + 1), expands: w.expands });
  }
  const at = skipOptions(words, 1, { flags, withValue, optionalAttached: ["-e", "-i", "-l"] }, "xargs");
  if (typeof at !== "number") return at;
  // with no command xargs runs echo
  const rest = at < words.length ? words.slice(at) : [{ raw: "echo", value: "echo", expands: false }];
  return { rest, appendsArgs: true, pastesInput, argumentFiles };
}

function stripCommandBuiltin(words: Word[]): Step {
  const first = value(words[1]);
  if (first === "-v" || first === "-V") return undefined; // a lookup, nothing runs
  return afterOptions(words, { flags: ["-p"], withValue: [] }, "command");
}

function stripSudo(words: Word[]): Step {
  return afterOptions(
    words,
    {
      flags: ["-E", "-H", "-n", "-k", "-S", "-b", "-P", "-i", "-s", "--preserve-env", "--login", "--shell", "--non-interactive"],
      withValue: ["-u", "--user", "-g", "--group", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "--chdir"],
    },
    "sudo",
  );
}

const STRIPPERS: Record<string, (words: Word[]) => Step> = {
  timeout: stripTimeout,
  time: (words) => afterOptions(words, { flags: ["-p"], withValue: [] }, "time"),
  nice: (words) => afterOptions(words, { flags: [], withValue: ["-n", "--adjustment"], numericFlag: true }, "nice"),
  nohup: (words) => afterOptions(words, { flags: [], withValue: [] }, "nohup"),
  stdbuf: (words) => afterOptions(words, { flags: [], withValue: ["-i", "-o", "-e", "--input", "--output", "--error"] }, "stdbuf"),
  xargs: stripXargs,
  env: stripEnv,
  command: stripCommandBuiltin,
  builtin: (words) => afterOptions(words, { flags: [], withValue: [] }, "builtin"),
  exec: (words) => afterOptions(words, { flags: ["-c", "-l"], withValue: ["-a"] }, "exec"),
  sudo: stripSudo,
  doas: (words) => afterOptions(words, { flags: ["-n", "-s", "-L"], withValue: ["-u", "-C"] }, "doas"),
};

const MAX_WRAPPERS = 16;

/**
 * Remove wrappers from the front of a simple command. Stops at the first word that is not a known
 * wrapper, or that is a wrapper without a command after it (`env` alone lists the environment).
 * `includeDenyOnly` also strips sudo/doas, for matching deny and ask rules.
 */
export function stripWrappers(words: Word[], prefixAssignments: Assignment[], includeDenyOnly = false): StrippedCommand {
  const result: StrippedCommand = {
    words,
    stages: [],
    assignments: [...prefixAssignments],
    wrappers: [],
    appendsArgs: false,
    pastesInput: false,
    argumentFiles: [],
  };
  let current = words;
  for (let round = 0; round < MAX_WRAPPERS && current.length > 0; round++) {
    const name = value(current[0]);
    if (name === undefined) break;
    const strip = STRIPPERS[name];
    if (!strip || (!includeDenyOnly && DENY_ONLY_WRAPPERS.has(name))) break;
    const step = strip(current);
    if (!step) break;
    if ("complex" in step) {
      result.complex = step.complex;
      break;
    }
    result.stages.push(current);
    result.wrappers.push(name);
    if (step.assignments) result.assignments.push(...step.assignments);
    if (step.appendsArgs) result.appendsArgs = true;
    if (step.pastesInput) result.pastesInput = true;
    if (step.argumentFiles) result.argumentFiles.push(...step.argumentFiles);
    current = step.rest;
  }
  result.words = current;
  return result;
}

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash", "mksh"]);
const SHELL_OPTIONS_WITH_VALUE = new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);

export type ShellInvocation = { script: Word } | { complex: string } | undefined;

/** `bash -c 'script'`, `sh -ec "…"`, `zsh -c …`: the script word, or undefined when this is not one. */
export function shellScriptOf(words: Word[]): ShellInvocation {
  const name = value(words[0]);
  if (name === undefined || !SHELLS.has(name.slice(name.lastIndexOf("/") + 1))) return undefined;
  let sawC = false;
  for (let i = 1; i < words.length; i++) {
    const text = value(words[i]);
    if (text === undefined) return sawC ? { script: words[i] } : { complex: `an option of ${name} is not a literal` };
    if (text === "--" || text === "-") {
      if (sawC && i + 1 < words.length) return { script: words[i + 1] };
      return undefined;
    }
    if (SHELL_OPTIONS_WITH_VALUE.has(text)) {
      i++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(text)) {
      if (text.startsWith("-") && text.includes("c")) sawC = true;
      continue;
    }
    if (text.startsWith("--")) continue;
    return sawC ? { script: words[i] } : undefined;
  }
  return sawC ? { complex: `${name} -c without a script` } : undefined;
}
