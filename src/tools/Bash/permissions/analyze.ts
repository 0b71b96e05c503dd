/**
 * From a command line to what the permission check judges: every simple command wherever it appears
 * (lists, pipelines, subshells, `$(…)`, backticks, `<(…)`, strings, here-documents, `bash -c` scripts,
 * `find -exec`), every file redirection, and the reasons the line cannot be judged part by part.
 * Pure: the AST in, plain data out.
 */
import { parseBash, type SyntaxNode } from "./parser.js";
import { canonicalText, rawText, wordFromNode, type Word, WORD_NODE_TYPES } from "./words.js";
import { isDangerousEnvName, isSafeEnvName, shellScriptOf, stripWrappers, type Assignment } from "./wrappers.js";
import { DIRECTORY_CHANGERS, judgeReadOnly } from "./readOnly.js";

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
}

export interface PathArgument {
  path: string;
  /** Unquoted glob syntax: the shell expands it to the files it matches. */
  pattern: boolean;
}

export interface RedirectPart {
  /** `>`, `>>`, `&>`, `&>>`, `>|`, `>&`, `<`. */
  operator: string;
  descriptor?: string;
  target: Word;
  access: "write" | "read";
  display: string;
}

export interface BashAnalysis {
  parts: CommandPart[];
  redirects: RedirectPart[];
  /** Why the command cannot be judged part by part; empty when it can. */
  complexity: string[];
  /** Directory changes in order: a literal target, or undefined when it cannot be known (`cd "$X"`, `cd -`, `popd`). */
  directoryChanges: Array<string | undefined>;
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

function pathArgumentsOf(words: Word[]): { paths: PathArgument[]; unverifiable: boolean } {
  const paths: PathArgument[] = [];
  let unverifiable = false;
  let endOfOptions = false;
  for (const word of words.slice(1)) {
    if (word.value === undefined) {
      unverifiable = true;
      continue;
    }
    const text = word.value;
    if (!endOfOptions && text === "--") {
      endOfOptions = true;
      continue;
    }
    let candidate: string | undefined;
    if (!endOfOptions && text.startsWith("-") && text !== "-") {
      const eq = text.indexOf("=");
      const attached = eq > 0 ? text.slice(eq + 1) : !text.startsWith("--") ? text.slice(2) : "";
      if (/^[/~]|(^|\/)\.\.(\/|$)/.test(attached)) candidate = attached;
    } else {
      candidate = text;
    }
    if (candidate === undefined || candidate === "-") continue;
    if (word.expands && /[{}]/.test(candidate)) unverifiable = true;
    else paths.push({ path: candidate, pattern: word.expands && /[*?[]/.test(candidate) });
  }
  return { paths, unverifiable };
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
function addCommand(walk: Walk, words: Word[], assignments: Assignment[]): void {
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
    if (args.every((w) => w.value !== undefined)) analyzeScript(walk, args.map((w) => w.value).join(" "));
    return;
  }
  if (name === "source" || name === ".") addComplexity(walk, `${name} runs a script file whose contents cannot be checked`);

  if (name === "trap" && final.length >= 3) {
    // the handler is code that runs later in this shell: its commands are parts too
    const handler = final[1];
    if (handler.value === undefined) addComplexity(walk, "the code given to trap is not a literal");
    else if (handler.value !== "-" && handler.value !== "") analyzeScript(walk, handler.value);
  }

  // `sudo sh -c '…'`: the script still runs; its parts make the verdict stricter, never looser
  const denyShell = forDeny.wrappers.some((w) => w === "sudo" || w === "doas") ? shellScriptOf(forDeny.words) : undefined;
  if (denyShell && "script" in denyShell && denyShell.script.value !== undefined) analyzeScript(walk, denyShell.script.value);

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
    analyzeScript(walk, shell.script.value);
    return;
  }

  if (name === "find" || name === "fd") addExecutedCommands(walk, final);

  const verdict = judgeReadOnly(final);
  part.readOnly = verdict.readOnly && allSafe;
  part.readsFiles = verdict.readsFiles;
  if (verdict.readsFiles) {
    const { paths, unverifiable } = pathArgumentsOf(final);
    part.pathArguments = paths;
    part.unverifiablePaths = unverifiable;
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
function addExecutedCommands(walk: Walk, words: Word[]): void {
  const actions = words[0].value === "find" ? ["-exec", "-execdir", "-ok", "-okdir"] : ["-x", "--exec", "-X", "--exec-batch"];
  for (let i = 1; i < words.length; i++) {
    if (!actions.includes(words[i].value ?? "")) continue;
    let end = i + 1;
    while (end < words.length && words[end].value !== ";" && words[end].value !== "+") end++;
    const executed = words.slice(i + 1, end);
    if (executed.length) {
      const shell = shellScriptOf(executed);
      if (shell && "script" in shell && shell.script.value?.includes("{}")) {
        addComplexity(walk, `${words[0].value} pastes file names into a shell script`);
      }
      addCommand(walk, executed, []);
    }
    i = end;
  }
}

function analyzeScript(walk: Walk, script: string): void {
  if (walk.shellDepth >= ANALYSIS_LIMITS.maxShellNesting) {
    addComplexity(walk, "shells are nested too deeply");
    return;
  }
  const tree = parseBash(script);
  if (!tree) {
    addComplexity(walk, "a nested script is too long to check");
    return;
  }
  try {
    walk.shellDepth++;
    visitTree(walk, tree.rootNode);
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
  });
}

function addRedirect(walk: Walk, node: SyntaxNode): void {
  const destination = node.childForFieldName("destination");
  const descriptor = node.childForFieldName("descriptor")?.text;
  const operator = node.children.find((c) => c && !c.isNamed && /[<>]/.test(c.type))?.type ?? ">";
  if (!destination) return;
  if (destination.type === "process_substitution") return; // its command is a part of its own
  const target = wordFromNode(destination);
  // `>&2`, `2>&1`, `<&0`, `>&-`: duplicating or closing a descriptor opens no file
  if ((operator === ">&" || operator === "<&") && target.value !== undefined && /^(\d+|-)$/.test(target.value)) return;
  const access = operator.startsWith("<") && operator !== "<>" ? "read" : "write";
  walk.analysis.redirects.push({ operator, descriptor, target, access, display: `${descriptor ?? ""}${operator} ${target.raw}` });
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

function checkTestCommand(walk: Walk, node: SyntaxNode): void {
  if (node.firstChild?.type !== "[[") return;
  const operators = node.descendantsOfType("test_operator");
  if (operators.some((op) => ARITHMETIC_TEST_OPERATORS.has(op.text)) && containsVariableReference(node)) {
    addComplexity(walk, "[[ … -eq … ]] evaluates variables arithmetically, which can run code hidden in them");
  }
}

/** Where a variable_assignment is not a statement of its own: a command's prefix, a declaration, a C-style for header. */
const NON_STATEMENT_ASSIGNMENT_PARENTS = new Set(["command", "declaration_command", "c_style_for_statement"]);

function visitTree(walk: Walk, root: SyntaxNode): void {
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
        if (words.length) addCommand(walk, words, assignments);
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
        addRedirect(walk, node);
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
  const analysis: BashAnalysis = { parts: [], redirects: [], complexity: [], directoryChanges: [] };
  const walk: Walk = { analysis, shellDepth: 0, nodes: 0 };
  const tree = parseBash(command);
  if (!tree) {
    addComplexity(walk, "the bash parser is unavailable or the command is too long to check");
    return analysis;
  }
  try {
    if (tree.rootNode.descendantCount > ANALYSIS_LIMITS.maxNodes) addComplexity(walk, "it is too large to check");
    else visitTree(walk, tree.rootNode);
  } finally {
    tree.delete();
  }
  return analysis;
}
