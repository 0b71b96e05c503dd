/**
 * From a command line to what the permission check judges: every simple command wherever it appears
 * (lists, pipelines, subshells, `$(…)`, backticks, `<(…)`, strings, here-documents, `bash -c` scripts,
 * `find -exec`), every file redirection, and the reasons the line cannot be judged part by part.
 * Pure: the AST in, plain data out.
 */
import { isBashParserLoaded, parseBash, type SyntaxNode } from "./parser.js";
import { canonicalText, rawText, wordFromNode, type Word, WORD_NODE_TYPES } from "./words.js";
import { isDangerousEnvName, isSafeEnvName, shellScriptOf, stripWrappers, type Assignment } from "./wrappers.js";
import { DIRECTORY_CHANGERS, judgeReadOnly, type PathArgument } from "./readOnly.js";
import { START, trackDirectories, type DirectoryState } from "./directories.js";

export type { PathArgument } from "./readOnly.js";
export type { DirectoryState } from "./directories.js";

export interface CommandPart {
  /** The command as written (assignments and wrappers included), for explanations. */
  display: string;
  /** Texts an allow rule must match: the command after env assignments and wrappers. */
  allowViews: string[];
  /** Texts a deny or ask rule may match: every stage of wrapper stripping, sudo removed, the program's basename. */
  denyViews: string[];
  /** Only deny and ask rules look at it: a `bash -c` whose script is judged as its own parts. */
  denyOnly: boolean;
  /** `xargs` appends arguments: exact rules cannot allow it, prefix and wildcard rules can. */
  openEnded: boolean;
  /** On the read-only allowlist. */
  readOnly: boolean;
  /** Reads the files named in its arguments. */
  readsFiles: boolean;
  /** Arguments that may be paths it reads (for readsFiles commands and directory changes). */
  pathArguments: PathArgument[];
  /** An argument depends on an expansion, so the files it reads cannot be known. */
  unverifiablePaths: boolean;
  /** Environment assignments known to change what runs (PATH, LD_PRELOAD, GIT_*…): allow rules must name them. */
  unsafeAssignments: string[];
  /** Changes the shell's directory (cd, pushd, popd). */
  changesDirectory: boolean;
  /** The words that run, after assignments and wrappers (for suggesting a rule). */
  words: Word[];
  /** The directories it may run in (`cd` chains from the shell's directory); undefined when unknown. */
  directories: DirectoryState;
  /** Why it is not read-only, when its program is on the allowlist but its arguments are not. */
  notReadOnlyReason?: string;
}

export interface RedirectPart {
  /** `>`, `>>`, `&>`, `&>>`, `>|`, `>&`, `<`. */
  operator: string;
  descriptor?: string;
  target: Word;
  access: "write" | "read";
  display: string;
  /** The directories it is opened in; undefined when unknown. */
  directories: DirectoryState;
}

export interface BashAnalysis {
  parts: CommandPart[];
  redirects: RedirectPart[];
  /** Why the command cannot be judged part by part; empty when it can. */
  complexity: string[];
  /** Directory changes in order: a literal target, or undefined when it cannot be known (`cd "$X"`, `cd -`, `popd`). */
  directoryChanges: Array<string | undefined>;
  /** The `bash -c` (and similar) scripts that were judged as parts: bash must accept their syntax too. */
  nestedScripts: string[];
}

const ANALYSIS_LIMITS = {
  /** AST nodes per command line. */
  maxNodes: 20_000,
  /** Nesting of the AST. */
  maxDepth: 200,
  /** Simple commands per command line. */
  maxParts: 256,
  /** `bash -c "bash -c '…'"` levels. */
  maxShellNesting: 4,
};

const ARITHMETIC_TEST_OPERATORS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
const DECLARATION_SAFE_FLAGS = /^[-+][aArxglutfFp]+$/;

interface Walk {
  analysis: BashAnalysis;
  shellDepth: number;
  nodes: number;
  /** The line may change directory somewhere: code that runs later (functions, traps) runs in an unknown directory. */
  mayChangeDirectory: boolean;
}

function addComplexity(walk: Walk, reason: string): void {
  if (!walk.analysis.complexity.includes(reason)) walk.analysis.complexity.push(reason);
}

function unique(values: string[]): string[] {
  return [...new Set(values.map((v) => v.trim()).filter(Boolean))];
}

function basenameVariant(words: Word[]): Word[] | undefined {
  const name = words[0]?.value;
  if (!name || !name.includes("/") || name.endsWith("/")) return undefined;
  const base = name.slice(name.lastIndexOf("/") + 1);
  return [{ raw: base, value: base, expands: false }, ...words.slice(1)];
}

const views = (words: Word[]) => [canonicalText(words), rawText(words)];

/** Words in a node subtree that carry variables: arithmetic on them can run code hidden in their values. */
function containsVariableReference(node: SyntaxNode): boolean {
  const stack = [node];
  while (stack.length) {
    const current = stack.pop() as SyntaxNode;
    if (["variable_name", "word", "simple_expansion", "expansion", "special_variable_name"].includes(current.type)) return true;
    for (const child of current.children) if (child) stack.push(child);
  }
  return false;
}

/** The literal directory a cd, pushd or popd moves to; undefined when it cannot be known. */
function directoryTarget(words: Word[]): string | undefined {
  const name = words[0].value;
  if (name === "popd") return undefined;
  const args = words.slice(1).filter((w) => !(w.value && /^-[LPe@]+$/.test(w.value)));
  const target = args[0];
  if (!target) return name === "pushd" ? undefined : "~";
  if (target.value === undefined || target.value === "-" || (target.expands && !/^~(\/|$)/.test(target.value))) return undefined;
  if (target.value.startsWith("~") && !/^~(\/|$)/.test(target.value)) return undefined;
  return target.value;
}

/** Judge one simple command given as words, recursing into `bash -c` scripts and `find -exec`. */
function addCommand(walk: Walk, words: Word[], assignments: Assignment[], directories: DirectoryState): void {
  const analysis = walk.analysis;
  if (analysis.parts.length >= ANALYSIS_LIMITS.maxParts) {
    addComplexity(walk, `it has more than ${ANALYSIS_LIMITS.maxParts} commands`);
    return;
  }
  const stripped = stripWrappers(words, assignments);
  const forDeny = stripWrappers(words, assignments, true);
  if (stripped.complex) addComplexity(walk, stripped.complex);
  const final = stripped.words;
  const display = rawText([...assignments.map((a) => ({ raw: a.raw, expands: false })), ...words]);

  const denyViews = [
    ...[...stripped.stages, ...forDeny.stages].flatMap(views),
    ...views(final),
    ...views(forDeny.words),
    ...[basenameVariant(final), basenameVariant(forDeny.words)].flatMap((w) => (w ? views(w) : [])),
  ];
  const unsafeAssignments = stripped.assignments.filter((a) => isDangerousEnvName(a.name)).map((a) => a.name);
  const allSafe = stripped.assignments.every((a) => isSafeEnvName(a.name));
  // with assignments that can change what runs, an allow rule has to name them
  const allowViews = unsafeAssignments.length
    ? [display, `${stripped.assignments.map((a) => a.raw).join(" ")} ${canonicalText(final)}`]
    : views(final);
  const part: CommandPart = {
    display,
    allowViews: unique(allowViews),
    denyViews: unique(denyViews),
    denyOnly: false,
    openEnded: stripped.appendsArgs,
    readOnly: false,
    readsFiles: false,
    pathArguments: [],
    unverifiablePaths: false,
    unsafeAssignments,
    changesDirectory: false,
    words: unsafeAssignments.length ? words : final,
    directories,
  };
  analysis.parts.push(part);

  const name = final[0]?.value;
  if (name === undefined) {
    addComplexity(walk, "the program to run is not a literal name");
    return;
  }
  if (final[0].expands && name !== "[") {
    addComplexity(walk, "the program name is a pattern the shell expands");
    return;
  }
  if (name === "eval") {
    addComplexity(walk, "eval runs a string as code");
    // never allowed part by part, but what it would run is still matched against deny rules
    const args = final.slice(1);
    if (args.every((w) => w.value !== undefined)) analyzeScript(walk, args.map((w) => w.value).join(" "), undefined);
    return;
  }
  if (name === "source" || name === ".") addComplexity(walk, `${name} runs a script file whose contents cannot be checked`);

  if (name === "trap" && final.length >= 3) {
    // the handler is code that runs later in this shell: its commands are parts too
    const handler = final[1];
    if (handler.value === undefined) addComplexity(walk, "the code given to trap is not a literal");
    // it runs at exit or on a signal, wherever the shell is by then
    else if (handler.value !== "-" && handler.value !== "") analyzeScript(walk, handler.value, walk.mayChangeDirectory ? undefined : directories);
  }

  // `sudo sh -c '…'`: the script still runs; its parts make the verdict stricter, never looser
  const denyShell = forDeny.wrappers.some((w) => w === "sudo" || w === "doas") ? shellScriptOf(forDeny.words) : undefined;
  if (denyShell && "script" in denyShell && denyShell.script.value !== undefined) analyzeScript(walk, denyShell.script.value, directories);

  const shell = shellScriptOf(final);
  if (shell) {
    if ("complex" in shell) {
      addComplexity(walk, shell.complex);
      return;
    }
    if (shell.script.value === undefined) {
      addComplexity(walk, `the script given to ${name} -c is not a literal`);
      return;
    }
    if (stripped.pastesInput) {
      addComplexity(walk, "xargs -I pastes its input into a shell script");
      return;
    }
    part.denyOnly = true;
    analyzeScript(walk, shell.script.value, directories);
    return;
  }

  if (name === "find" || name === "fd") addExecutedCommands(walk, final, directories);

  // `xargs -a FILE` reads FILE like `< FILE`
  for (const file of stripped.argumentFiles) {
    walk.analysis.redirects.push({ operator: "<", target: file, access: "read", display: `xargs -a ${file.raw}`, directories });
  }

  // xargs appends arguments read from stdin: the program is judged as if it had unknown ones
  const verdict = judgeReadOnly(final, { extraArguments: stripped.appendsArgs });
  part.readOnly = verdict.readOnly && allSafe;
  part.readsFiles = verdict.readsFiles;
  if (!verdict.readOnly && verdict.reason) part.notReadOnlyReason = verdict.reason;
  if (verdict.readsFiles) {
    part.pathArguments = verdict.paths;
    part.unverifiablePaths = verdict.unverifiable;
  }
  if (DIRECTORY_CHANGERS.has(name)) {
    part.changesDirectory = true;
    const target = directoryTarget(final);
    analysis.directoryChanges.push(target);
    part.pathArguments = target ? [{ path: target, pattern: false }] : [];
    part.unverifiablePaths = target === undefined;
  }
}

/** `find … -exec cmd {} ;` and `fd -x cmd`: the command they run is a part of its own. */
function addExecutedCommands(walk: Walk, words: Word[], directories: DirectoryState): void {
  const actions = words[0].value === "find" ? ["-exec", "-execdir", "-ok", "-okdir"] : ["-x", "--exec", "-X", "--exec-batch"];
  for (let i = 1; i < words.length; i++) {
    if (!actions.includes(words[i].value ?? "")) continue;
    // -execdir runs in the directory of each file found
    const runsIn = /dir$/.test(words[i].value ?? "") ? undefined : directories;
    let end = i + 1;
    while (end < words.length && words[end].value !== ";" && words[end].value !== "+") end++;
    const executed = words.slice(i + 1, end);
    if (executed.length) {
      const shell = shellScriptOf(executed);
      if (shell && "script" in shell && shell.script.value?.includes("{}")) {
        addComplexity(walk, `${words[0].value} pastes file names into a shell script`);
      }
      addCommand(walk, executed, [], runsIn);
    }
    i = end;
  }
}

function analyzeScript(walk: Walk, script: string, directories: DirectoryState): void {
  if (walk.shellDepth >= ANALYSIS_LIMITS.maxShellNesting) {
    addComplexity(walk, "shells are nested too deeply");
    return;
  }
  const tree = parseBash(script);
  if (!tree) {
    addComplexity(walk, "a nested script is too long to check");
    return;
  }
  walk.analysis.nestedScripts.push(script);
  try {
    walk.shellDepth++;
    visitTree(walk, tree.rootNode, directories);
  } finally {
    walk.shellDepth--;
    tree.delete();
  }
}

function commandWords(node: SyntaxNode): { words: Word[]; assignments: Assignment[] } {
  const words: Word[] = [];
  const assignments: Assignment[] = [];
  const extra: Word[] = [];
  const takeExtraDestinations = (redirect: SyntaxNode) => {
    if (redirect.type !== "file_redirect") return;
    const destinations = redirect.childrenForFieldName("destination");
    for (const d of destinations.slice(1)) extra.push(wordFromNode(d));
  };
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (!child) continue;
    const field = node.fieldNameForChild(i);
    if (child.type === "variable_assignment" && words.length === 0) {
      const name = child.childForFieldName("name");
      assignments.push({ name: name?.type === "variable_name" ? name.text : "(subscript)", raw: child.text });
    } else if (field === "name") {
      const inner = child.firstChild;
      if (inner) words.push(wordFromNode(inner));
    } else if (field === "argument" && WORD_NODE_TYPES.has(child.type)) {
      words.push(wordFromNode(child));
    } else if (field === "argument") {
      words.push({ raw: child.text, expands: false });
    } else if (child.type === "file_redirect") {
      takeExtraDestinations(child);
    }
  }
  const parent = node.parent;
  if (parent?.type === "redirected_statement" && parent.childForFieldName("body")?.id === node.id) {
    for (const redirect of parent.childrenForFieldName("redirect")) takeExtraDestinations(redirect);
  }
  return { words: [...words, ...extra], assignments };
}

function addDeclaration(walk: Walk, node: SyntaxNode): void {
  const words: Word[] = [];
  let safe = true;
  for (const child of node.children) {
    if (!child) continue;
    if (child.type === "variable_assignment") {
      const name = child.childForFieldName("name");
      if (name?.type !== "variable_name" || !isSafeEnvName(name.text)) safe = false;
      words.push({ raw: child.text, expands: false });
    } else if (child.type === "variable_name") {
      if (!isSafeEnvName(child.text)) safe = false;
      words.push({ raw: child.text, value: child.text, expands: false });
    } else if (WORD_NODE_TYPES.has(child.type)) {
      const word = wordFromNode(child);
      if (word.value === undefined || !DECLARATION_SAFE_FLAGS.test(word.value)) safe = false;
      words.push(word);
    } else if (!child.isNamed) {
      words.push({ raw: child.text, value: child.text, expands: false });
    }
  }
  const display = rawText(words);
  addAssignmentPart(walk, display, words, safe ? undefined : display);
}

function addBareAssignment(walk: Walk, node: SyntaxNode, loopVariable?: string): void {
  const name = node.childForFieldName(loopVariable ? "variable" : "name");
  const safe = name?.type === "variable_name" && isSafeEnvName(name.text);
  const display = loopVariable ? `for ${loopVariable} in …` : node.text;
  addAssignmentPart(walk, display, [{ raw: display, expands: false }], safe ? undefined : (name?.text ?? display));
}

/**
 * A part that runs no program (a declaration, an assignment, a loop variable): rules match its text as
 * written, and it is read-only unless it sets a variable that can change what runs (`unsafe`).
 */
function addAssignmentPart(walk: Walk, display: string, words: Word[], unsafe: string | undefined): void {
  walk.analysis.parts.push({
    display,
    allowViews: [display],
    denyViews: [display],
    denyOnly: false,
    openEnded: false,
    readOnly: unsafe === undefined,
    readsFiles: false,
    pathArguments: [],
    unverifiablePaths: false,
    unsafeAssignments: unsafe === undefined ? [] : [unsafe],
    changesDirectory: false,
    words,
    directories: START,
  });
}

function addRedirect(walk: Walk, node: SyntaxNode, directories: DirectoryState): void {
  const destination = node.childForFieldName("destination");
  const descriptor = node.childForFieldName("descriptor")?.text;
  const operator = node.children.find((c) => c && !c.isNamed && /[<>]/.test(c.type))?.type ?? ">";
  if (!destination) return;
  if (destination.type === "process_substitution") return; // its command is a part of its own
  const target = wordFromNode(destination);
  // `>&2`, `2>&1`, `<&0`, `>&-`: duplicating or closing a descriptor opens no file
  if ((operator === ">&" || operator === "<&") && target.value !== undefined && /^(\d+|-)$/.test(target.value)) return;
  const access = operator.startsWith("<") && operator !== "<>" ? "read" : "write";
  walk.analysis.redirects.push({ operator, descriptor, target, access, display: `${descriptor ?? ""}${operator} ${target.raw}`, directories });
}

function checkHeredoc(walk: Walk, node: SyntaxNode): void {
  const start = node.children.find((c) => c?.type === "heredoc_start");
  const quoted = start ? /['"\\]/.test(start.text) : false;
  if (quoted) return;
  const body = node.children.find((c) => c?.type === "heredoc_body");
  if (!body) return;
  if (body.descendantsOfType("command_substitution").length > 0 || /`|\$\(/.test(body.text)) {
    addComplexity(walk, "a here-document runs command substitutions");
  }
}

function checkExpansion(walk: Walk, node: SyntaxNode): void {
  const children = node.children.filter((c): c is SyntaxNode => c !== null);
  if (children[1]?.type === "!") addComplexity(walk, "indirect expansion ${!…} can run code hidden in a variable");
  if (children.some((c) => c.type === "@")) addComplexity(walk, "parameter transformation ${…@…} can run code hidden in a variable");
  const subscript = children.find((c) => c.type === "subscript");
  if (subscript) checkSubscript(walk, subscript);
}

function checkSubscript(walk: Walk, node: SyntaxNode): void {
  const index = node.childForFieldName("index");
  if (index && index.type !== "number" && containsVariableReference(index)) {
    addComplexity(walk, "an array index evaluates variables arithmetically, which can run code hidden in them");
  }
}

function checkArithmetic(walk: Walk, node: SyntaxNode): void {
  if (containsVariableReference(node)) addComplexity(walk, "arithmetic on variables can run code hidden in their values");
}

const INTEGER = /^[+-]?\d+$/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `[[ … ]]` evaluates the operands of -eq, -lt… arithmetically and the name after -v/-R as a variable,
 * array subscript included: `[[ 'a[$(cmd)]' -eq 1 ]]` and `[[ -v 'a[$(cmd)]' ]]` run cmd. Only literal
 * integers and plain names are judged.
 */
function checkTestCommand(walk: Walk, node: SyntaxNode): void {
  const bracket = node.firstChild?.type;
  if (bracket !== "[[" && bracket !== "[") return;
  if (bracket === "[") {
    // `[ $a 'x[$(cmd)]' ]`: an expansion may turn into -v, and the next word's subscript is then evaluated
    const dynamic = node.descendantsOfType(["simple_expansion", "expansion", "command_substitution"]).length > 0;
    if (dynamic && node.descendantsOfType(["word", "raw_string", "string"]).some((w) => w.text.includes("["))) {
      addComplexity(walk, "[ … ] with an expansion and a subscript: bash may evaluate the subscript, which can run code");
    }
  }
  const staticText = (n: SyntaxNode | null) => (n && WORD_NODE_TYPES.has(n.type) ? wordFromNode(n).value : undefined);
  for (const op of node.descendantsOfType("test_operator")) {
    const parent = op.parent;
    if (!parent) continue;
    const operands = parent.namedChildren.filter((c): c is SyntaxNode => c !== null && c.id !== op.id);
    if (bracket === "[[" && ARITHMETIC_TEST_OPERATORS.has(op.text) && parent.type === "binary_expression") {
      if (!operands.every((o) => INTEGER.test(staticText(o) ?? ""))) {
        addComplexity(walk, "[[ … -eq … ]] evaluates its operands arithmetically, which can run code hidden in them");
      }
    } else if ((op.text === "-v" || op.text === "-R") && parent.type === "unary_expression") {
      if (!operands.every((o) => VARIABLE_NAME.test(staticText(o) ?? ""))) {
        addComplexity(walk, `[[ ${op.text} … ]] evaluates the array subscript of the name it tests, which can run code`);
      }
    }
  }
}

/** Where a variable_assignment is not a statement of its own: a command's prefix, a declaration, a C-style for header. */
const NON_STATEMENT_ASSIGNMENT_PARENTS = new Set(["command", "declaration_command", "c_style_for_statement"]);

/** A simple command's directory change: its target (undefined when unknown), or null when it changes none. */
function directoryChangeOf(node: SyntaxNode): string | undefined | null {
  const { words, assignments } = commandWords(node);
  if (!words.length) return null;
  const final = stripWrappers(words, assignments).words;
  const name = final[0]?.value;
  return name !== undefined && DIRECTORY_CHANGERS.has(name) ? directoryTarget(final) : null;
}

function visitTree(walk: Walk, root: SyntaxNode, start: DirectoryState): void {
  const states = trackDirectories(root, start, { changeOf: directoryChangeOf, mayChangeDirectory: walk.mayChangeDirectory });
  const stateOf = (node: SyntaxNode) => (states.has(node.id) ? states.get(node.id) : start);
  const stack: Array<{ node: SyntaxNode; depth: number }> = [{ node: root, depth: 0 }];
  while (stack.length) {
    const { node, depth } = stack.pop() as { node: SyntaxNode; depth: number };
    if (++walk.nodes > ANALYSIS_LIMITS.maxNodes) {
      addComplexity(walk, "it is too large to check");
      return;
    }
    if (depth > ANALYSIS_LIMITS.maxDepth) {
      addComplexity(walk, "it is nested too deeply to check");
      continue;
    }
    if (node.isMissing) addComplexity(walk, "it is incomplete (bash would not parse it the same way)");
    if (node.type === "ERROR") addComplexity(walk, "it contains syntax that cannot be parsed");
    switch (node.type) {
      case "comment":
        continue;
      case "command": {
        const { words, assignments } = commandWords(node);
        if (words.length) addCommand(walk, words, assignments, stateOf(node));
        else for (const child of node.children) if (child?.type === "variable_assignment") addBareAssignment(walk, child);
        break;
      }
      case "declaration_command":
      case "unset_command":
        addDeclaration(walk, node);
        break;
      case "variable_assignment":
        if (!node.parent || !NON_STATEMENT_ASSIGNMENT_PARENTS.has(node.parent.type)) addBareAssignment(walk, node);
        break;
      case "for_statement": {
        // `for PATH in /tmp; do …` assigns the loop variable like `PATH=/tmp`
        const variable = node.childForFieldName("variable");
        if (variable && !isSafeEnvName(variable.text)) addBareAssignment(walk, node, variable.text);
        break;
      }
      case "file_redirect":
        addRedirect(walk, node, stateOf(node));
        break;
      case "heredoc_redirect":
        checkHeredoc(walk, node);
        break;
      case "expansion":
        checkExpansion(walk, node);
        break;
      case "subscript":
        checkSubscript(walk, node);
        break;
      case "arithmetic_expansion":
      case "c_style_for_statement":
        checkArithmetic(walk, node);
        break;
      case "compound_statement":
        if (node.firstChild?.type === "((") checkArithmetic(walk, node);
        break;
      case "test_command":
        checkTestCommand(walk, node);
        break;
    }
    const children = node.children;
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child) stack.push({ node: child, depth: depth + 1 });
    }
  }
}

const CACHE_SIZE = 256;
const cache = new Map<string, BashAnalysis>();

/**
 * Analyse a command line (memoised: isConcurrencySafe, isReadOnly and checkPermissions all ask about the
 * same command). Never throws; a line that cannot be parsed comes back with a complexity reason (and
 * whatever parts could still be seen, so deny rules can match them). The result must not be mutated.
 */
export function analyzeCommand(command: string): BashAnalysis {
  // before the parser is loaded every line is "too complex"; that answer must not outlive the loading
  if (!isBashParserLoaded()) return analyzeCommandUncached(command);
  const cached = cache.get(command);
  if (cached) return cached;
  const analysis = analyzeCommandUncached(command);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(command, analysis);
  return analysis;
}

/** Forget memoised analyses (benchmarks measure the cold path). */
export function clearAnalysisCache(): void {
  cache.clear();
}

function analyzeCommandUncached(command: string): BashAnalysis {
  const analysis: BashAnalysis = { parts: [], redirects: [], complexity: [], directoryChanges: [], nestedScripts: [] };
  // over-approximated from the text: a word cd, pushd or popd anywhere
  const walk: Walk = { analysis, shellDepth: 0, nodes: 0, mayChangeDirectory: /(^|[^\w-])(cd|pushd|popd)($|[^\w-])/.test(command) };
  const tree = parseBash(command);
  if (!tree) {
    addComplexity(walk, "the bash parser is unavailable or the command is too long to check");
    return analysis;
  }
  try {
    if (tree.rootNode.descendantCount > ANALYSIS_LIMITS.maxNodes) addComplexity(walk, "it is too large to check");
    else visitTree(walk, tree.rootNode, START);
  } finally {
    tree.delete();
  }
  return analysis;
}
