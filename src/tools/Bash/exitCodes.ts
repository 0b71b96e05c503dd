/**
 * What an exit code means. Non-zero is an error, except exit 1 of programs that use it for an ordinary
 * answer (grep: no match, diff: files differ, test: false), judged on the command whose status the whole
 * line returns: the last simple command of the last pipeline.
 */
import os from "node:os";
import { parseBash, type SyntaxNode } from "../../shell/parser.js";
import { wordFromNode, type Word } from "../../shell/words.js";
import { stripWrappers } from "../../shell/wrappers.js";

const EXIT_ONE_MEANINGS: Record<string, string> = {
  grep: "no matches were found",
  egrep: "no matches were found",
  fgrep: "no matches were found",
  rg: "no matches were found",
  find: "find could not read some paths",
  diff: "the inputs differ",
  cmp: "the inputs differ",
  test: "the condition is false",
  "[": "the condition is false",
  "[[": "the condition is false",
};

function lastStatement(node: SyntaxNode): SyntaxNode | undefined {
  const named = node.namedChildren.filter((c): c is SyntaxNode => c !== null && c.type !== "comment");
  return named[named.length - 1];
}

/** The program whose exit status the command line returns, or undefined when that is not a simple command. */
export function statusCommandName(command: string): string | undefined {
  const tree = parseBash(command);
  if (!tree) return undefined;
  try {
    let node = lastStatement(tree.rootNode);
    for (let guard = 0; node && guard < 64; guard++) {
      switch (node.type) {
        case "redirected_statement":
          node = node.childForFieldName("body") ?? undefined;
          continue;
        case "list":
        case "pipeline":
        case "subshell":
        case "compound_statement":
          node = lastStatement(node);
          continue;
        case "test_command":
          return node.firstChild?.type === "[[" ? "[[" : "[";
        case "command": {
          const words: Word[] = [];
          const name = node.childForFieldName("name")?.firstChild;
          if (!name) return undefined;
          words.push(wordFromNode(name));
          for (const arg of node.childrenForFieldName("argument")) words.push(wordFromNode(arg));
          const program = stripWrappers(words, []).words[0]?.value;
          return program?.slice(program.lastIndexOf("/") + 1);
        }
        default:
          return undefined;
      }
    }
    return undefined;
  } finally {
    tree.delete();
  }
}

export interface ExitInterpretation {
  isError: boolean;
  /** Said to the model beside the output: what a benign non-zero code means, or which signal killed it. */
  note?: string;
}

const SIGNAL_NAMES = new Map(Object.entries(os.constants.signals).map(([name, number]) => [number, name]));

export function interpretExitCode(command: string, exitCode: number): ExitInterpretation {
  if (exitCode === 0) return { isError: false };
  if (exitCode === 1) {
    const program = statusCommandName(command);
    const meaning = program ? EXIT_ONE_MEANINGS[program] : undefined;
    if (meaning) return { isError: false, note: `(exit code 1: ${meaning})` };
  }
  if (exitCode > 128 && SIGNAL_NAMES.has(exitCode - 128)) {
    return { isError: true, note: `(a process was killed by ${SIGNAL_NAMES.get(exitCode - 128)})` };
  }
  return { isError: true };
}
