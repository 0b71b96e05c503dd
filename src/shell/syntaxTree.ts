/**
 * The parts of a tree-sitter syntax tree that the Bash matcher reads, declared here instead of re-exporting
 * web-tree-sitter's classes: those declarations need @types/emscripten, so any public type that mentioned
 * them would break consumers compiling toolgate's declarations with `skipLibCheck: false`.
 * web-tree-sitter's Node and Tree satisfy these interfaces structurally.
 */
export interface SyntaxNode {
  readonly id: number;
  readonly type: string;
  readonly text: string;
  readonly startIndex: number;
  readonly endIndex: number;
  readonly isNamed: boolean;
  readonly isMissing: boolean;
  readonly hasError: boolean;
  readonly parent: SyntaxNode | null;
  readonly children: SyntaxNode[];
  readonly namedChildren: SyntaxNode[];
  readonly childCount: number;
  readonly namedChildCount: number;
  readonly descendantCount: number;
  readonly firstChild: SyntaxNode | null;
  readonly lastChild: SyntaxNode | null;
  readonly nextSibling: SyntaxNode | null;
  readonly previousSibling: SyntaxNode | null;
  readonly nextNamedSibling: SyntaxNode | null;
  readonly previousNamedSibling: SyntaxNode | null;
  child(index: number): SyntaxNode | null;
  namedChild(index: number): SyntaxNode | null;
  childForFieldName(fieldName: string): SyntaxNode | null;
  childrenForFieldName(fieldName: string): SyntaxNode[];
  fieldNameForChild(index: number): string | null;
  descendantsOfType(types: string | string[]): SyntaxNode[];
}

export interface SyntaxTree {
  readonly rootNode: SyntaxNode;
  /** Frees the tree's wasm memory; the caller of parseBash must call it. */
  delete(): void;
}
