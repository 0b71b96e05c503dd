/**
 * git's reading subcommands, each with its list of known-safe options. Not read-only, whatever follows:
 * global options that point git at another repository or configuration (`-C`, `--git-dir`, `--work-tree`,
 * `--bare`, `-c`, `--config-env`, `--exec-path`: a crafted `config` there runs `core.fsmonitor` or
 * `core.sshCommand`), and options that write or run programs (`--output` on every subcommand that takes
 * it, `grep -O`/`--open-files-in-pager`, `ls-remote --upload-pack`, `--ext-diff`). Files a subcommand reads
 * are paths: its pathspecs, and the path of `REV:path` (relative to the top of the repository).
 */
import { expandingAsUnknown, hasOption, mergeTables, optionTable, parseArguments, type OptionTable, type ParsedArguments } from "./options.js";
import type { OperandsVerdict, PathArgument, ProgramSpec } from "./readOnly.js";
import type { Word } from "./words.js";

const HELP = "help";

const DIFF = optionTable({
  flags: "puszRaDwbW",
  values: "USGl",
  optional: "MCB",
  paths: "O",
  numeric: false,
  long:
    "patch no-patch raw patch-with-raw patch-with-stat stat=? numstat shortstat dirstat=? cumulative dirstat-by-file=? summary " +
    "compact-summary name-only name-status submodule=? color=? no-color color-moved=? no-color-moved color-moved-ws= " +
    "no-color-moved-ws word-diff=? word-diff-regex= color-words=? no-renames rename-empty no-rename-empty check ws-error-highlight= " +
    "full-index binary abbrev=? break-rewrites=? find-renames=? find-copies=? find-copies-harder irreversible-delete " +
    "diff-filter= pickaxe-all pickaxe-regex find-object= skip-to= rotate-to= relative=? text ignore-cr-at-eol " +
    "ignore-space-at-eol ignore-space-change ignore-all-space ignore-blank-lines ignore-matching-lines= ignore-submodules=? " +
    "inter-hunk-context= function-context exit-code quiet no-prefix default-prefix src-prefix= dst-prefix= line-prefix= " +
    "ita-invisible-in-index ita-visible-in-index minimal patience histogram anchored= diff-algorithm= unified= indent-heuristic " +
    "no-indent-heuristic textconv no-textconv no-ext-diff stat-width= stat-name-width= stat-graph-width= stat-count= " +
    "merge-base cached staged no-index base ours theirs output-indicator-new= output-indicator-old= output-indicator-context= " +
    `follow z ${HELP}`,
});

const REVISIONS = optionTable({
  flags: "igmcEFPtz",
  values: "n",
  numeric: true,
  long:
    "max-count= skip= since= after= until= before= author= committer= grep-reflog= grep= all-match invert-grep " +
    "regexp-ignore-case basic-regexp extended-regexp fixed-strings perl-regexp remove-empty merges no-merges min-parents= " +
    "max-parents= no-min-parents no-max-parents first-parent exclude-first-parent-only not all branches=? tags=? remotes=? glob= " +
    "exclude= exclude-hidden= reflog alternate-refs single-worktree ignore-missing bisect stdin cherry-mark cherry-pick left-only " +
    "right-only cherry walk-reflogs merge boundary simplify-by-decoration full-history dense sparse simplify-merges ancestry-path=? " +
    "show-pulls date-order author-date-order topo-order reverse no-walk=? do-walk pretty=? format= abbrev-commit no-abbrev-commit " +
    "oneline encoding= expand-tabs=? no-expand-tabs notes=? no-notes show-notes=? standard-notes no-standard-notes show-signature " +
    "relative-date date= parents children left-right graph show-linear-break=? count diff-merges= no-diff-merges combined-all-paths " +
    "cc dd remerge-diff decorate=? no-decorate decorate-refs= decorate-refs-exclude= clear-decorations source mailmap no-mailmap " +
    "use-mailmap no-use-mailmap log-size since-as-filter= objects objects-edge objects-edge-aggressive unpacked object-names " +
    "no-object-names filter= no-filter filter-print-omitted missing= exclude-promisor-objects timestamp header in-commit-order " +
    "first-parent",
});

/** log, show, whatchanged, shortlog, reflog show, stash list: revision options plus diff options. */
const LOG = mergeTables(DIFF, REVISIONS);

/** Global options that only change how git prints or locks. */
const GLOBAL = optionTable({
  flags: "Pp",
  long: "no-pager paginate no-optional-locks no-replace-objects literal-pathspecs glob-pathspecs noglob-pathspecs icase-pathspecs no-advice no-lazy-fetch version namespace=",
  optionsFirst: true,
});

/** `REV:path`, `:path`, `:N:path` → the path (relative to the repository's top, or to the shell's directory for `./`). */
export function revisionPath(text: string): PathArgument | undefined {
  if (text.startsWith(":/") || text.startsWith(":!") || text.startsWith(":(")) return undefined; // commit message search, pathspec magic
  const staged = /^:[0-3]:(.*)$/s.exec(text);
  const colon = text.indexOf(":");
  if (!staged && colon < 0) return undefined;
  const rest = staged ? staged[1] : text.slice(colon + 1);
  if (/^\.\.?(\/|$)/.test(rest)) return { path: rest, pattern: false };
  return { path: rest === "" ? "." : rest, pattern: false, base: "gitRoot" };
}

/** Operands that are revisions or pathspecs: each is checked as a path, and `REV:path` by its path. */
function revisionsAndPaths(skip = 0) {
  return (parsed: ParsedArguments): OperandsVerdict => {
    const paths: Word[] = [];
    const extraPaths: PathArgument[] = [];
    for (const word of parsed.operands.slice(skip)) {
      const revPath = word.value === undefined ? undefined : revisionPath(word.value);
      if (revPath) extraPaths.push(revPath);
      else paths.push(word);
    }
    return { paths, extraPaths };
  };
}

/** Operands that are ref names or patterns, never files. */
const refsOnly = (): OperandsVerdict => ({ paths: [] });

interface Subcommand {
  table: OptionTable;
  operands: (parsed: ParsedArguments) => OperandsVerdict;
}

const sub = (table: OptionTable, operands: Subcommand["operands"] = revisionsAndPaths()): Subcommand => ({ table, operands });

const refuse = (reason: string): OperandsVerdict => ({ paths: [], refuse: reason });

/** `git branch` / `git tag` only when listing: patterns only in list mode, never a name to create. */
function listingOperands(listOptions: string[]) {
  return (parsed: ParsedArguments): OperandsVerdict =>
    parsed.operands.length === 0 || hasOption(parsed, ...listOptions) ? { paths: [] } : refuse("with a name, it creates a branch or tag");
}

const LISTING = optionTable({
  flags: "arvli",
  long:
    "all remotes verbose list show-current color=? no-color column=? no-column ignore-case omit-empty abbrev=? no-abbrev " +
    "contains=? no-contains=? merged=? no-merged=? points-at= sort= format=",
});

/** A remote name (`git ls-remote origin`); a URL or a path could run a transport helper or a program. */
const REMOTE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const CONFIG = optionTable({
  flags: "lz",
  paths: "f",
  long:
    "get get-all get-regexp get-urlmatch list global system local worktree file=path blob= show-origin show-scope name-only " +
    "null type= bool int bool-or-int path expiry-date default= includes no-includes",
});

function configOperands(parsed: ParsedArguments): OperandsVerdict {
  const [first] = parsed.operands;
  const listing = hasOption(parsed, "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l");
  const newStyle = first?.value === "get" || first?.value === "list";
  if (!listing && !newStyle) return refuse("without --get or --list, git config sets a value");
  if (newStyle && hasOption(parsed, "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l")) return refuse("an unknown form of git config");
  const blob = parsed.options.find((o) => o.name === "--blob")?.values[0]?.value;
  const blobPath = blob === undefined ? undefined : revisionPath(blob);
  return { paths: [], extraPaths: blobPath ? [blobPath] : [] };
}

const SUBCOMMANDS: Record<string, Subcommand | ((rest: Word[]) => Subcommand | string)> = {
  status: sub(
    optionTable({
      flags: "sbvz",
      optional: "u",
      long:
        "short branch show-stash porcelain=? long verbose untracked-files=? ignore-submodules=? ignored=? null column=? no-column " +
        `ahead-behind no-ahead-behind renames no-renames find-renames=? ${HELP}`,
    }),
  ),
  log: sub(LOG),
  whatchanged: sub(LOG),
  show: sub(LOG),
  shortlog: sub(mergeTables(LOG, optionTable({ flags: "nsec", values: "w", long: "numbered summary email group= committer" }))),
  diff: sub(DIFF),
  "diff-tree": sub(mergeTables(DIFF, optionTable({ flags: "rtmsvc", long: "root merge-base stdin no-commit-id always pretty=? encoding= combined-all-paths" }))),
  "diff-files": sub(mergeTables(DIFF, optionTable({ flags: "0123cq", long: "base ours theirs" }))),
  "diff-index": sub(mergeTables(DIFF, optionTable({ flags: "m", long: "cached merge-base" }))),
  blame: sub(
    optionTable({
      flags: "bclstfnpew",
      optional: "MC",
      values: "L",
      paths: "S",
      long:
        "root show-stats score-debug show-name show-number porcelain line-porcelain incremental encoding= contents=path date= " +
        "progress no-progress reverse= first-parent abbrev= show-email ignore-rev= ignore-revs-file=path color-lines color-by-age minimal " +
        HELP,
    }),
  ),
  describe: sub(
    optionTable({
      long: "all tags contains abbrev= candidates= exact-match debug long match= exclude= always first-parent dirty=? broken=? " + HELP,
    }),
    refsOnly,
  ),
  "rev-parse": sub(
    optionTable({
      flags: "q",
      long:
        "parseopt sq-quote keep-dashdash stop-at-non-option stuck-long revs-only no-revs flags no-flags default= prefix= verify quiet sq " +
        "short=? not abbrev-ref=? symbolic symbolic-full-name all branches=? tags=? remotes=? glob= exclude= exclude-hidden= disambiguate= " +
        "local-env-vars path-format= git-dir git-common-dir absolute-git-dir resolve-git-dir= git-path= show-toplevel show-superproject-working-tree " +
        "shared-index-path= show-object-format=? show-ref-format show-cdup show-prefix is-inside-git-dir is-inside-work-tree is-bare-repository " +
        "is-shallow-repository since= after= until= before=",
    }),
    refsOnly,
  ),
  "rev-list": sub(REVISIONS),
  "ls-files": sub(
    optionTable({
      flags: "cdmoisukztvfr",
      values: "x",
      paths: "X",
      long:
        "cached deleted modified others ignored stage killed directory no-empty-directory eol unmerged resolve-undo exclude= " +
        "exclude-from=path exclude-per-directory= exclude-standard error-unmatch with-tree= full-name recurse-submodules abbrev=? " +
        "debug deduplicate sparse format= " +
        HELP,
    }),
  ),
  "ls-tree": sub(optionTable({ flags: "dtrlz", long: "long name-only name-status object-only full-name full-tree abbrev=? format= " + HELP })),
  "ls-remote": sub(
    optionTable({ flags: "htqb", values: "o", long: "heads tags branches refs quiet exit-code get-url symref sort= server-option= " + HELP }),
    (parsed) => (parsed.operands.every((w, i) => i > 0 || (w.value !== undefined && REMOTE_NAME.test(w.value))) ? { paths: [] } : refuse("a repository given as a URL or path can run a transport program")),
  ),
  "cat-file": sub(
    optionTable({
      flags: "tspeZ",
      long:
        "textconv filters path= batch=? batch-check=? batch-command=? batch-all-objects buffer follow-symlinks unordered allow-unknown-type mailmap use-mailmap no-mailmap " +
        HELP,
    }),
  ),
  "show-ref": sub(optionTable({ flags: "dsq", long: "head dereference hash=? abbrev=? tags heads branches verify quiet exclude-existing=? exists " + HELP }), refsOnly),
  "merge-base": sub(optionTable({ flags: "a", long: "all octopus independent is-ancestor fork-point " + HELP }), refsOnly),
  "name-rev": sub(optionTable({ long: "tags refs= exclude= all no-undefined always name-only annotate-stdin stdin " + HELP }), refsOnly),
  "count-objects": sub(optionTable({ flags: "vH", long: "verbose human-readable " + HELP }), refsOnly),
  "for-each-ref": sub(
    optionTable({
      long: "count= sort= format= color=? shell perl python tcl points-at= merged=? no-merged=? contains=? no-contains=? ignore-case omit-empty exclude= include-root-refs stdin " + HELP,
    }),
    refsOnly,
  ),
  "check-ignore": sub(optionTable({ flags: "qvnz", long: "quiet verbose non-matching no-index stdin " + HELP })),
  grep: sub(
    optionTable({
      flags: "aiIwvhHEGFPnlLcpWqzor",
      values: "eABCm",
      paths: "f",
      numeric: true,
      long:
        "cached no-index untracked no-exclude-standard exclude-standard recurse-submodules text textconv no-textconv ignore-case " +
        "max-depth= recursive no-recursive word-regexp invert-match full-name extended-regexp basic-regexp perl-regexp fixed-strings " +
        "line-number column files-with-matches name-only files-without-match null count color=? no-color break heading show-function " +
        "context= before-context= after-context= function-context threads= and or not all-match quiet only-matching max-count= " +
        "no-column " +
        HELP,
    }),
    (parsed) => revisionsAndPaths(hasOption(parsed, "-e", "-f") ? 0 : 1)(parsed),
  ),
  version: sub(optionTable({ long: "build-options" }), refsOnly),
  branch: sub(LISTING, listingOperands(["-l", "--list", "-a", "--all", "-r", "--remotes", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"])),
  tag: sub(mergeTables(LISTING, optionTable({ optional: "n" })), listingOperands(["-l", "--list", "-n", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"])),
  remote: (rest) => {
    const action = rest[0]?.value;
    if (action === "show") return sub(optionTable({ flags: "n" }), refsOnly);
    if (action === "get-url") return sub(optionTable({ long: "push all" }), refsOnly);
    if (rest.length === 0 || action?.startsWith("-")) return sub(optionTable({ flags: "v", long: "verbose" }), (p) => (p.operands.length ? refuse("git remote with a name changes remotes") : { paths: [] }));
    return "it changes remotes";
  },
  stash: (rest) => {
    const action = rest[0]?.value;
    if (action === "list") return sub(LOG, refsOnly);
    if (action === "show") return sub(mergeTables(DIFF, optionTable({ flags: "u", long: "include-untracked only-untracked" })), refsOnly);
    return "it changes the stash";
  },
  worktree: (rest) => (rest[0]?.value === "list" ? sub(optionTable({ flags: "vz", long: "porcelain verbose expire=" }), refsOnly) : "it changes worktrees"),
  reflog: (rest) => {
    const action = rest[0]?.value;
    if (action === undefined || action === "show" || action.startsWith("-")) return sub(LOG, refsOnly);
    if (action === "exists") return sub(optionTable({}), refsOnly);
    return "it changes the reflog";
  },
  config: sub(CONFIG, configOperands),
};

/** Subcommands that take an action word before their options (`git stash list`, `git remote show`). */
const ACTION_WORD = new Set(["remote", "stash", "worktree", "reflog"]);

function judgeGitArguments(parsed: ParsedArguments): OperandsVerdict {
  return parsed.operands.length ? refuse("git was given something it does not know") : { paths: [] };
}

/** git's arguments: global options, a subcommand, its options and operands. */
function gitOperandsFromWords(args: readonly Word[]): OperandsVerdict {
  let i = 0;
  const globals: Word[] = [];
  while (i < args.length && (args[i].value === undefined || args[i].value?.startsWith("-"))) globals.push(args[i++]);
  const global = parseArguments(globals, GLOBAL);
  if ("unknown" in global) return refuse(`git option ${global.unknown} is not read-only (it can point git at another repository or configuration, or run a program)`);
  if (global.dynamic) return refuse("a git option depends on an expansion");
  const name = args[i]?.value;
  if (i >= args.length) return judgeGitArguments(global);
  if (name === undefined) return refuse("the git subcommand depends on an expansion");
  const entry = Object.hasOwn(SUBCOMMANDS, name) ? SUBCOMMANDS[name] : undefined;
  if (!entry) return refuse(`git ${name} is not a read-only subcommand`);
  let rest = args.slice(i + 1);
  const spec = typeof entry === "function" ? entry(rest) : entry;
  if (typeof spec === "string") return refuse(`git ${name} ${spec}`);
  if (ACTION_WORD.has(name) && rest[0]?.value !== undefined && !rest[0].value.startsWith("-")) rest = rest.slice(1);
  const parsed = parseArguments(rest, spec.table);
  if ("unknown" in parsed) return refuse(`option ${parsed.unknown} of git ${name} is not on its list of read-only options`);
  if (parsed.dynamic) return refuse("an argument depends on an expansion and could be an option that writes or runs code");
  const verdict = spec.operands(parsed);
  // files named by option values (`blame --contents=F`, `grep -f F`, `config --file F`) are reads too
  const optionPaths: PathArgument[] = [];
  for (const { text, word } of parsed.optionPaths) {
    if (text === undefined || word.expands) return refuse("a file it reads depends on an expansion");
    optionPaths.push({ path: text.startsWith("~") && text !== word.value ? `./${text}` : text, pattern: false });
  }
  return { ...verdict, extraPaths: [...(verdict.extraPaths ?? []), ...optionPaths] };
}

/** git as a program of the read-only allowlist: its own parser replaces the generic one. */
export const GIT_PROGRAM: ProgramSpec = {
  table: optionTable({ noOptions: true }),
  readsFiles: true,
  dynamicSafe: true, // every word is looked at by gitOperandsFromWords, which refuses dynamic ones
  operands: (parsed) => gitOperandsFromWords(expandingAsUnknown(parsed.operands)),
};
