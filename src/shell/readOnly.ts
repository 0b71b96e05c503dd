/**
 * The allowlist of read-only commands. A simple command is read-only when its program is listed here and
 * every option it uses is on that program's list of known-safe options (options.ts). An option that
 * writes, runs code or reads files it does not name (`sort -o`, `rg --pre`, `wc --files0-from`) is simply
 * not listed, and neither is an abbreviated long option: both make the command not read-only. The files a
 * command reads (its operands, and values of options such as `grep --file=F`) are returned as paths, so
 * they are checked against the working directories and Read rules.
 */
import { expandingAsUnknown, hasOption, optionTable, parseArguments, type OptionTable, type ParsedArguments } from "./options.js";
import { GIT_PROGRAM } from "./gitReadOnly.js";
import type { Word } from "./words.js";

export interface PathArgument {
  path: string;
  /** Unquoted glob syntax: the shell expands it to the files it matches. */
  pattern: boolean;
  /** Relative to the top of the git repository (`git show HEAD:path`) rather than to the shell's directory. */
  base?: "gitRoot";
}

/** What a program's operands are, once its options are read. */
export interface OperandsVerdict {
  /** Operands (or option values) that name files it reads. */
  paths: Word[];
  /** Paths with a special meaning (git's `REV:path`), already decoded. */
  extraPaths?: PathArgument[];
  /** Why it is not read-only, when an operand makes it write or run something. */
  refuse?: string;
}

export interface ProgramSpec {
  table: OptionTable;
  /** Reads the files named in its arguments: those must be inside the working directories to run unasked. */
  readsFiles: boolean;
  /**
   * No option of the program writes, runs code or reads a file it was not given: a word that depends on an
   * expansion (or arguments xargs appends) cannot make it do more than read unknown files.
   */
  dynamicSafe: boolean;
  /** Sorts operands into files and data; defaults to "every operand is a file" (or none when readsFiles is false). */
  operands?: (parsed: ParsedArguments) => OperandsVerdict;
}

export interface ReadOnlyVerdict {
  readOnly: boolean;
  /** Reads files named in its arguments. */
  readsFiles: boolean;
  /** The files it reads, from operands and option values. */
  paths: PathArgument[];
  /** Some files it reads cannot be known in advance (an argument depends on an expansion, or xargs adds some). */
  unverifiable: boolean;
  /** Why it is not read-only. */
  reason?: string;
}

const NOTHING: OperandsVerdict = { paths: [] };
const allFiles = (parsed: ParsedArguments): OperandsVerdict => ({ paths: parsed.operands });
const noFiles = (): OperandsVerdict => NOTHING;

/** grep, rg, fd: the first operand is the pattern, unless a pattern option gave it. */
function patternThenFiles(patternOptions: string[]) {
  return (parsed: ParsedArguments): OperandsVerdict => ({
    paths: hasOption(parsed, ...patternOptions) ? parsed.operands : parsed.operands.slice(1),
  });
}

/** At most `max` operands: a further one is an output file (`uniq in out`, `xxd in out`). */
function atMostFiles(max: number, what: string) {
  return (parsed: ParsedArguments): OperandsVerdict =>
    parsed.operands.length > max || parsed.dynamic ? { paths: [], refuse: `its operand after the ${what} is a file it writes` } : { paths: parsed.operands };
}

function program(spec: { readsFiles: boolean; dynamicSafe: boolean; operands?: ProgramSpec["operands"] } & Parameters<typeof optionTable>[0]): ProgramSpec {
  const { readsFiles, dynamicSafe, operands, ...table } = spec;
  return { table: optionTable(table), readsFiles, dynamicSafe, operands: operands ?? (readsFiles ? allFiles : noFiles) };
}

const HELP = "help version";

/** `echo`, `true`: any argument is data. */
const DATA_ONLY: ProgramSpec = { table: optionTable({ noOptions: true }), readsFiles: false, dynamicSafe: true, operands: noFiles };

/** `test` / `[`: bash evaluates the array subscript in `-v 'a[$(cmd)]'`, so no name after -v may have one. */
function testOperands(parsed: ParsedArguments): OperandsVerdict {
  const words = parsed.operands;
  for (let i = 0; i < words.length; i++) {
    const opensName = words[i].value === undefined || words[i].value === "-v" || words[i].value === "-R";
    const next = words[i + 1];
    if (opensName && next && (next.value === undefined || next.value.includes("["))) {
      return { paths: [], refuse: "bash evaluates the array subscript of the variable name it tests, which can run code" };
    }
  }
  return NOTHING;
}

/** `printf -v NAME`: NAME must be a plain lowercase variable (no subscript, nothing that changes what runs). */
function printfOperands(parsed: ParsedArguments): OperandsVerdict {
  if (parsed.dynamic) return { paths: [], refuse: "an argument depends on an expansion and could be -v" };
  for (const o of parsed.options) {
    const name = o.values[0]?.value;
    if (name === undefined || !/^[a-z_][a-z0-9_]*$/.test(name)) return { paths: [], refuse: "printf -v assigns a variable that can change what runs or evaluates a subscript" };
  }
  return NOTHING;
}

/** `date`: an operand that is not `+FORMAT` sets the clock. */
function dateOperands(parsed: ParsedArguments): OperandsVerdict {
  if (parsed.dynamic || !parsed.operands.every((w) => w.value?.startsWith("+"))) return { paths: [], refuse: "an operand of date that is not +FORMAT sets the clock" };
  return { paths: parsed.options.filter((o) => o.name === "-r" || o.name === "--reference").map((o) => o.values[0]) };
}

/** jq: the filter, then input files; a filter that imports a module reads files we cannot see. */
function jqOperands(parsed: ParsedArguments): OperandsVerdict {
  const fromFile = hasOption(parsed, "-f", "--from-file");
  const filter = fromFile ? undefined : parsed.operands[0];
  if (filter && (filter.value === undefined || /\b(import|include|modulemeta|get_search_list)\b/.test(filter.value))) {
    return { paths: [], refuse: "its filter loads modules from files" };
  }
  return { paths: fromFile ? parsed.operands : parsed.operands.slice(1) };
}

/** `strings @file` reads more options from a file. */
function stringsOperands(parsed: ParsedArguments): OperandsVerdict {
  if (parsed.operands.some((w) => w.value?.startsWith("@"))) return { paths: [], refuse: "@FILE reads options from a file" };
  return { paths: parsed.operands };
}

const CHECKSUM = { readsFiles: true, dynamicSafe: false, flags: "btz", long: `binary text tag zero ${HELP}` };

const PROGRAMS: Record<string, ProgramSpec> = {
  // no file access
  echo: DATA_ONLY,
  true: DATA_ONLY,
  false: DATA_ONLY,
  ":": DATA_ONLY,
  printf: program({ readsFiles: false, dynamicSafe: false, values: "v", optionsFirst: true, operands: printfOperands }),
  pwd: program({ readsFiles: false, dynamicSafe: false, flags: "LP", optionsFirst: true }),
  which: program({ readsFiles: false, dynamicSafe: false, flags: "as" }),
  type: program({ readsFiles: false, dynamicSafe: false, flags: "afpPt", optionsFirst: true }),
  whoami: program({ readsFiles: false, dynamicSafe: false, long: HELP }),
  id: program({ readsFiles: false, dynamicSafe: false, flags: "aZgGnruz", long: `context group groups name real user zero ${HELP}` }),
  groups: program({ readsFiles: false, dynamicSafe: false, long: HELP }),
  uname: program({
    readsFiles: false,
    dynamicSafe: false,
    flags: "asnrvmpio",
    long: `all kernel-name nodename kernel-release kernel-version machine processor hardware-platform operating-system ${HELP}`,
  }),
  hostname: program({
    readsFiles: false,
    dynamicSafe: false,
    flags: "aAdfiIsy",
    long: `alias all-fqdns domain fqdn long ip-address all-ip-addresses short yp nis ${HELP}`,
    operands: (parsed) => (parsed.operands.length ? { paths: [], refuse: "hostname NAME sets the host name" } : NOTHING),
  }),
  // reads only the time of the file given to -r, but that is still a file it names
  date: program({
    readsFiles: true,
    dynamicSafe: false,
    flags: "uR",
    values: "d",
    optional: "I",
    paths: "r",
    long: `date= debug iso-8601=? rfc-email rfc-3339= reference=path utc universal ${HELP}`,
    operands: dateOperands,
  }),
  seq: program({ readsFiles: false, dynamicSafe: false, flags: "w", values: "fs", numeric: true, long: `format= separator= equal-width ${HELP}` }),
  sleep: program({ readsFiles: false, dynamicSafe: true, long: HELP }),
  // dynamic operands are fine (`[ -n "$x" ]`): testOperands refuses the one place bash evaluates them
  test: { table: optionTable({ noOptions: true }), readsFiles: false, dynamicSafe: true, operands: testOperands },
  "[": { table: optionTable({ noOptions: true }), readsFiles: false, dynamicSafe: true, operands: testOperands },
  basename: program({ readsFiles: false, dynamicSafe: true, flags: "az", values: "s", long: `multiple suffix= zero ${HELP}` }),
  dirname: program({ readsFiles: false, dynamicSafe: true, flags: "z", long: `zero ${HELP}` }),
  nproc: program({ readsFiles: false, dynamicSafe: false, long: `all ignore= ${HELP}` }),
  arch: program({ readsFiles: false, dynamicSafe: false, long: HELP }),
  uptime: program({ readsFiles: false, dynamicSafe: false, flags: "psh", long: `pretty since ${HELP}` }),
  tty: program({ readsFiles: false, dynamicSafe: false, flags: "s", long: `silent quiet ${HELP}` }),
  locale: program({ readsFiles: false, dynamicSafe: false, flags: "amckv", long: `all-locales charmaps category-name keyword-name verbose ${HELP}` }),
  printenv: program({ readsFiles: false, dynamicSafe: false, flags: "0", long: `null ${HELP}` }),
  // reached only without a command (with one, env is a stripped wrapper): it prints the environment
  env: program({
    readsFiles: false,
    dynamicSafe: false,
    flags: "0i",
    values: "u",
    long: `null ignore-environment unset= ${HELP}`,
    operands: (parsed) => (parsed.operands.every((w) => w.value !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w.value)) ? NOTHING : { paths: [], refuse: "env runs its operand" }),
  }),
  command: program({
    readsFiles: false,
    dynamicSafe: false,
    flags: "pvV",
    optionsFirst: true,
    operands: (parsed) => (hasOption(parsed, "-v", "-V") ? NOTHING : { paths: [], refuse: "command runs its operand" }),
  }),
  tr: program({ readsFiles: false, dynamicSafe: true, flags: "cCdst", long: `complement delete squeeze-repeats truncate-set1 ${HELP}` }),
  // reading files
  cat: program({ readsFiles: true, dynamicSafe: true, flags: "AbeEnstTuv", long: `show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting ${HELP}` }),
  head: program({ readsFiles: true, dynamicSafe: true, flags: "qvz", values: "cn", numeric: true, long: `bytes= lines= quiet silent verbose zero-terminated ${HELP}` }),
  tail: program({
    readsFiles: true,
    dynamicSafe: true,
    flags: "fFqvz",
    values: "cns",
    numeric: true,
    long: `bytes= lines= follow=? retry pid= quiet silent sleep-interval= max-unchanged-stats= verbose zero-terminated ${HELP}`,
  }),
  ls: program({
    readsFiles: true,
    dynamicSafe: true,
    flags: "aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxXZ1",
    values: "ITw",
    long:
      "all almost-all author escape block-size= ignore-backups color=? directory dired classify=? file-type format= full-time " +
      "group-directories-first no-group human-readable si dereference-command-line dereference-command-line-symlink-to-dir hide= " +
      "hyperlink=? indicator-style= inode ignore= kibibytes dereference numeric-uid-gid literal hide-control-chars show-control-chars " +
      `quote-name quoting-style= reverse recursive size sort= time= time-style= tabsize= width= context zero ${HELP}`,
  }),
  wc: program({ readsFiles: true, dynamicSafe: false, flags: "cmlLw", long: `bytes chars lines max-line-length words total= ${HELP}` }),
  grep: grepProgram(),
  egrep: grepProgram(),
  fgrep: grepProgram(),
  rg: program({
    readsFiles: true,
    dynamicSafe: false,
    flags: "aFHhiIlLnNopqsSuUvwxcb0",
    values: "ABCdEegjmMrtT",
    paths: "f",
    numeric: false,
    long:
      "after-context= before-context= context= binary block-buffered byte-offset case-sensitive color= colors= column context-separator= " +
      "count count-matches crlf debug dfa-size-limit= encoding= engine= field-context-separator= field-match-separator= file=path " +
      "files files-with-matches files-without-match fixed-strings follow glob= glob-case-insensitive heading hidden hyperlink-format= iglob= " +
      "ignore-case ignore-file=path ignore-file-case-insensitive include-zero invert-match json line-buffered line-number line-regexp " +
      "max-columns= max-columns-preview max-count= max-depth= max-filesize= mmap multiline multiline-dotall no-config no-context-separator " +
      "no-filename no-heading no-hidden no-ignore no-ignore-dot no-ignore-exclude no-ignore-files no-ignore-global no-ignore-messages " +
      "no-ignore-parent no-ignore-vcs no-line-number no-messages no-mmap no-multiline no-pcre2-unicode no-require-git no-unicode null " +
      "null-data one-file-system only-matching passthru path-separator= pcre2 pretty quiet regex-size-limit= regexp= replace= " +
      "smart-case sort= sortr= stats text threads= trim type= type-add= type-clear= type-list type-not= unrestricted vimgrep " +
      `with-filename word-regexp auto-hybrid-regex no-auto-hybrid-regex sort-files no-sort-files ${HELP}`,
    operands: (parsed) =>
      hasOption(parsed, "--files", "--type-list") ? { paths: parsed.operands } : patternThenFiles(["-e", "--regexp", "-f", "--file"])(parsed),
  }),
  find: { table: optionTable({}), readsFiles: true, dynamicSafe: false, operands: () => NOTHING }, // judged by findVerdict
  fd: program({
    readsFiles: true,
    dynamicSafe: false,
    flags: "HIuspiFgaL0lq1",
    values: "dtecjSE",
    long:
      "hidden no-hidden no-ignore ignore no-ignore-vcs ignore-vcs no-require-git require-git no-ignore-parent no-global-ignore-file " +
      "unrestricted case-sensitive ignore-case glob regex fixed-strings and= absolute-path relative-path list-details follow no-follow " +
      "full-path print0 max-depth= min-depth= exact-depth= exclude= prune type= extension= size= changed-within= changed-before= " +
      "change-newer-than= change-older-than= newer= older= owner= format= color= threads= max-results= quiet show-errors " +
      `base-directory=path path-separator= search-path=path strip-cwd-prefix=? one-file-system ignore-file=path ${HELP}`,
    operands: (parsed) => ({ paths: [...parsed.operands.slice(1), ...parsed.options.filter((o) => o.name === "--search-path").map((o) => o.values[0])] }),
  }),
  tree: program({
    readsFiles: true,
    dynamicSafe: false,
    flags: "adlfxACDFJNQSXghinpqrstuvU",
    values: "LPI",
    long: `noreport charset= filelimit= dirsfirst filesfirst du prune matchdirs ignore-case metafirst gitignore sort= timefmt= ${HELP}`,
  }),
  file: program({
    readsFiles: true,
    dynamicSafe: false,
    flags: "bcdEhiklLNnprsS0v",
    values: "eFP",
    long:
      "brief checking-printout debug exclude= exclude-quiet= extension keep-going list mime mime-type mime-encoding no-dereference " +
      `dereference no-buffer no-pad preserve-date raw special-files no-sandbox separator= parameter= print0 apple ${HELP}`,
  }),
  stat: program({ readsFiles: true, dynamicSafe: true, flags: "Lft", values: "c", long: `dereference file-system format= printf= terse cached= ${HELP}` }),
  du: program({
    readsFiles: true,
    dynamicSafe: false,
    flags: "0abcDHhklLmPSsx",
    values: "Bdt",
    paths: "X",
    long:
      "null all apparent-size block-size= bytes total dereference-args human-readable inodes dereference count-links no-dereference " +
      `separate-dirs si summarize threshold= time=? time-style= exclude= exclude-from=path max-depth= one-file-system ${HELP}`,
  }),
  df: program({
    readsFiles: true,
    dynamicSafe: false,
    flags: "ahHiklPTv",
    values: "Btx",
    long: `all block-size= human-readable si inodes local no-sync sync output=? portability total type= print-type exclude-type= ${HELP}`,
  }),
  realpath: program({
    readsFiles: true,
    dynamicSafe: false,
    flags: "emLPqsz",
    long: `canonicalize-existing canonicalize-missing logical physical quiet relative-to=path relative-base=path strip no-symlinks zero ${HELP}`,
  }),
  readlink: program({ readsFiles: true, dynamicSafe: true, flags: "femnqsvz", long: `canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent verbose zero ${HELP}` }),
  sort: program({
    readsFiles: true,
    dynamicSafe: false,
    flags: "bdfghiMnRrVcCmsuz",
    values: "ktS",
    long:
      "ignore-leading-blanks dictionary-order ignore-case general-numeric-sort human-numeric-sort ignore-nonprinting month-sort " +
      "numeric-sort random-sort reverse version-sort sort= check=? debug merge key= field-separator= stable unique zero-terminated " +
      `random-source=path parallel= buffer-size= ${HELP}`,
  }),
  uniq: program({
    readsFiles: true,
    dynamicSafe: false,
    flags: "cdDiuz",
    values: "fsw",
    long: `count repeated all-repeated=? group=? ignore-case unique zero-terminated skip-fields= skip-chars= check-chars= ${HELP}`,
    operands: atMostFiles(1, "input"),
  }),
  cut: program({ readsFiles: true, dynamicSafe: true, flags: "nsz", values: "bcdf", long: `bytes= characters= delimiter= fields= complement only-delimited output-delimiter= zero-terminated ${HELP}` }),
  nl: program({
    readsFiles: true,
    dynamicSafe: true,
    flags: "p",
    values: "bdfhilnsvw",
    long: `body-numbering= section-delimiter= footer-numbering= header-numbering= line-increment= join-blank-lines= number-format= no-renumber number-separator= starting-line-number= number-width= ${HELP}`,
  }),
  tac: program({ readsFiles: true, dynamicSafe: true, flags: "br", values: "s", long: `before regex separator= ${HELP}` }),
  rev: program({ readsFiles: true, dynamicSafe: true, flags: "0", long: `zero ${HELP}` }),
  fold: program({ readsFiles: true, dynamicSafe: true, flags: "bs", values: "w", long: `bytes spaces width= ${HELP}` }),
  column: program({
    readsFiles: true,
    dynamicSafe: true,
    flags: "tnexJLd",
    values: "scoNRHOWlrEC",
    long: `table separator= output-separator= fillrows table-columns= json keep-empty-lines table-noheadings output-width= table-right= table-hide= table-order= table-wrap= table-name= tree= tree-id= tree-parent= ${HELP}`,
  }),
  paste: program({ readsFiles: true, dynamicSafe: true, flags: "sz", values: "d", long: `delimiters= serial zero-terminated ${HELP}` }),
  od: program({
    readsFiles: true,
    dynamicSafe: true,
    flags: "bcdfilosxv",
    values: "AjNSt",
    optional: "w",
    long: `address-radix= endian= skip-bytes= read-bytes= strings=? format= output-duplicates width=? traditional ${HELP}`,
  }),
  hexdump: program({ readsFiles: true, dynamicSafe: false, flags: "bcCdoxv", values: "ens", paths: "f", long: `canonical format= length= skip= no-squeezing color=? ${HELP}` }),
  xxd: program({
    readsFiles: true,
    dynamicSafe: false,
    flags: "abCEeiprud",
    values: "cglosnR",
    long: `autoskip bits capitalize EBCDIC include ps postscript plain reverse uppercase cols= groupsize= len= name= seek= version`,
    operands: atMostFiles(1, "input file"),
  }),
  strings: program({ readsFiles: true, dynamicSafe: false, flags: "adfw", values: "nteTs", long: `all data print-file-name bytes= radix= encoding= target= include output-separator= ${HELP}`, operands: stringsOperands }),
  md5sum: program(CHECKSUM),
  sha1sum: program(CHECKSUM),
  sha224sum: program(CHECKSUM),
  sha256sum: program(CHECKSUM),
  sha384sum: program(CHECKSUM),
  sha512sum: program(CHECKSUM),
  b2sum: program({ ...CHECKSUM, values: "l", long: `${CHECKSUM.long} length=` }),
  cksum: program({ readsFiles: true, dynamicSafe: false, flags: "z", values: "al", long: `algorithm= base64 length= raw tag untagged zero debug ${HELP}` }),
  cmp: program({ readsFiles: true, dynamicSafe: true, flags: "blsz", values: "in", long: `print-bytes ignore-initial= verbose bytes= quiet silent ${HELP}` }),
  comm: program({ readsFiles: true, dynamicSafe: true, flags: "123z", long: `check-order nocheck-order output-delimiter= total zero-terminated ${HELP}` }),
  diff: program({
    readsFiles: true,
    dynamicSafe: true,
    flags: "abBdeEfHiNnpqrstTuwyZ",
    values: "CDFILSUWx",
    paths: "X",
    long:
      "normal brief report-identical-files context=? unified=? ed rcs side-by-side width= left-column suppress-common-lines " +
      "show-c-function show-function-line= label= expand-tabs initial-tab tabsize= suppress-blank-empty line-format= old-line-format= " +
      "new-line-format= unchanged-line-format= old-group-format= new-group-format= changed-group-format= unchanged-group-format= ifdef= " +
      "recursive new-file unidirectional-new-file ignore-file-name-case no-ignore-file-name-case exclude= exclude-from=path starting-file= " +
      "from-file=path to-file=path ignore-case ignore-tab-expansion ignore-trailing-space ignore-space-change ignore-all-space " +
      "ignore-blank-lines ignore-matching-lines= text strip-trailing-cr minimal horizon-lines= speed-large-files color=? palette= " +
      `no-dereference ${HELP}`,
  }),
  jq: program({
    readsFiles: true,
    dynamicSafe: false,
    flags: "nrjaCMScseR0",
    paths: "fL",
    long:
      "null-input raw-input slurp compact-output raw-output raw-output0 join-output ascii-output sort-keys color-output monochrome-output " +
      "tab indent= stream stream-errors seq exit-status arg=pair argjson=pair slurpfile=namedPath rawfile=namedPath from-file=path " +
      `args jsonargs unbuffered ${HELP}`,
    operands: jqOperands,
  }),
  git: GIT_PROGRAM,
  // change the shell's directory only (their target is judged by analyze)
  cd: program({ readsFiles: false, dynamicSafe: true, flags: "LPe@", optionsFirst: true }),
  pushd: program({ readsFiles: false, dynamicSafe: true, flags: "n", optionsFirst: true }),
  popd: program({ readsFiles: false, dynamicSafe: true, flags: "n", optionsFirst: true }),
};

function grepProgram(): ProgramSpec {
  return program({
    readsFiles: true,
    dynamicSafe: true,
    flags: "EFGPiyvwxcLloqsbHhnTZzaIrRUV",
    values: "eABCmdD",
    paths: "f",
    numeric: true,
    long:
      "extended-regexp fixed-strings basic-regexp perl-regexp ignore-case no-ignore-case invert-match word-regexp line-regexp count " +
      "color=? colour=? files-without-match files-with-matches only-matching quiet silent no-messages byte-offset with-filename " +
      "no-filename label= line-number initial-tab null null-data text binary-files= devices= directories= recursive " +
      "dereference-recursive include= exclude= exclude-dir= exclude-from=path line-buffered binary after-context= before-context= " +
      `context= max-count= regexp= file=path ${HELP}`,
    operands: patternThenFiles(["-e", "--regexp", "-f", "--file"]),
  });
}

/** find's expression: tests and actions that only read; `-exec`, `-delete`, `-fprint`… are not listed. */
const FIND_NO_VALUE = new Set(
  ("-depth -empty -executable -false -follow -ignore_readdir_race -noignore_readdir_race -ls -mount -xdev -noleaf -nogroup -nouser " +
    "-print -print0 -prune -quit -readable -true -writable -daystart -warn -nowarn -not -a -and -o -or ! ( ) , -help --help -version --version").split(" "),
);
const FIND_WITH_VALUE = new Set(
  ("-amin -atime -cmin -ctime -mmin -mtime -used -gid -uid -group -user -inum -links -size -perm -type -xtype -name -iname -path " +
    "-ipath -wholename -iwholename -regex -iregex -lname -ilname -regextype -maxdepth -mindepth -printf -fstype -context").split(" "),
);
const FIND_WITH_PATH = new Set(["-newer", "-anewer", "-cnewer", "-samefile"]);

function findVerdict(args: readonly Word[]): ReadOnlyVerdict {
  const refuse = (reason: string): ReadOnlyVerdict => ({ readOnly: false, readsFiles: true, paths: [], unverifiable: false, reason });
  const files: Word[] = [];
  let i = 0;
  // leading options, then starting points, then the expression
  while (i < args.length && /^-([HLP]|D\S*|O\d)$/.test(args[i].value ?? "")) i += args[i].value === "-D" ? 2 : 1;
  while (i < args.length) {
    const text = args[i].value;
    if (text === undefined) return refuse("an argument depends on an expansion and could be an action such as -delete");
    if (text.startsWith("-") || text === "!" || text === "(") break;
    files.push(args[i++]);
  }
  while (i < args.length) {
    const text = args[i].value;
    if (text === undefined) return refuse("an argument depends on an expansion and could be an action such as -delete");
    if (FIND_NO_VALUE.has(text)) i++;
    else if (FIND_WITH_VALUE.has(text)) i += 2;
    else if (FIND_WITH_PATH.has(text) || /^-newer[aBcm][aBcm]$/.test(text)) {
      if (args[i + 1]) files.push(args[i + 1]);
      i += 2;
    } else if (/^-newer[aBcm]t$/.test(text)) i += 2;
    else return refuse(`find ${text} is not a read-only expression`);
  }
  if (files.length === 0) return { readOnly: true, readsFiles: true, paths: [{ path: ".", pattern: false }], unverifiable: false };
  return { readOnly: true, readsFiles: true, ...pathsOf(files) };
}

/** Commands that change the working directory of the shell running the command. */
export const DIRECTORY_CHANGERS = new Set(["cd", "pushd", "popd"]);

/** Paths from words: globs keep their pattern, words with brace expansion or an expansion cannot be known. */
export function pathsOf(words: readonly Word[], attached?: ReadonlyMap<Word, string>): { paths: PathArgument[]; unverifiable: boolean } {
  const paths: PathArgument[] = [];
  let unverifiable = false;
  for (const word of words) {
    let text = attached?.get(word) ?? word.value;
    if (text === undefined) {
      unverifiable = true;
      continue;
    }
    if (text === "-" || text === "") continue;
    // an attached value (`--file=~/x`) is not tilde-expanded by bash: it names ./~/x
    if (attached?.has(word) && text.startsWith("~")) text = `./${text}`;
    if (word.expands && /[{}]/.test(text)) unverifiable = true;
    else paths.push({ path: text, pattern: word.expands && /[*?[]/.test(text) });
  }
  return { paths, unverifiable };
}

function lookup(name: string | undefined): ProgramSpec | undefined {
  return name !== undefined && Object.hasOwn(PROGRAMS, name) ? PROGRAMS[name] : undefined;
}

/** Judge a program's arguments against its spec. */
export function judgeProgram(spec: ProgramSpec, args: readonly Word[]): ReadOnlyVerdict {
  const refuse = (reason: string): ReadOnlyVerdict => ({ readOnly: false, readsFiles: spec.readsFiles, paths: [], unverifiable: false, reason });
  const parsed = parseArguments(spec.dynamicSafe ? args : expandingAsUnknown(args), spec.table);
  if ("unknown" in parsed) return refuse(`option ${parsed.unknown} is not on its list of read-only options`);
  if (parsed.dynamic && !spec.dynamicSafe) return refuse("an argument depends on an expansion and could be an option that writes or runs code");
  const operands = (spec.operands ?? allFiles)(parsed);
  if (operands.refuse) return refuse(operands.refuse);
  const attached = new Map<Word, string>();
  const optionFiles = parsed.optionPaths.map(({ text, word }) => {
    if (text !== undefined && text !== word.value) attached.set(word, text);
    return word;
  });
  const { paths, unverifiable } = pathsOf([...operands.paths, ...optionFiles], attached);
  return {
    readOnly: true,
    readsFiles: spec.readsFiles,
    paths: [...paths, ...(operands.extraPaths ?? [])],
    // dynamic operands of a program that reads files: which files cannot be known
    unverifiable: unverifiable || (spec.readsFiles && parsed.dynamic),
  };
}

export interface JudgeOptions {
  /** xargs appends arguments read from stdin: judged as unknown extra arguments. */
  extraArguments?: boolean;
}

const UNKNOWN_ARGUMENT: Word = { raw: "(arguments from xargs)", expands: false };

/** Whether a simple command (after wrappers were stripped) is on the read-only allowlist, and what it reads. */
export function judgeReadOnly(words: readonly Word[], options: JudgeOptions = {}): ReadOnlyVerdict {
  const name = words[0]?.value;
  const spec = lookup(name);
  if (!spec) return { readOnly: false, readsFiles: false, paths: [], unverifiable: false, reason: "it is not a read-only command" };
  const args = options.extraArguments ? [...words.slice(1), UNKNOWN_ARGUMENT] : words.slice(1);
  if (name === "find") return findVerdict(expandingAsUnknown(args));
  return judgeProgram(spec, args);
}
