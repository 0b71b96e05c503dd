export const MULTI_EDIT_DESCRIPTION = "Make several replacements in one file at once, all or nothing.";

export const MULTI_EDIT_PROMPT = `Makes several edits to one file in a single step. Prefer it over repeated Edit calls on the same file.

- edits is a list of {old_string, new_string, replace_all?}, each working exactly like Edit (same matching rules, same refusals).
- The edits apply in order, each to the result of the ones before it, so a later old_string must match the text as earlier edits left it.
- All or nothing: if any edit fails (no match, several matches without replace_all, ...), nothing is written, and the error names the failing edit and why. Fix it and send the whole list again.
- Read the file first. To create a file, give the first edit an empty old_string and the file's content as new_string; later edits then apply to that content.
- The file keeps its line endings and encoding. Notebooks (.ipynb) are edited with NotebookEdit.`;
