export const EDIT_DESCRIPTION = "Replace text in a file: old_string becomes new_string.";

export const EDIT_PROMPT = `Changes a file by replacing old_string with new_string.

Before editing:
- Read the file in this session first. A window (offset/limit) is enough; Edit checks the whole file anyway.
- Copy old_string from what Read showed, without the line-number prefix: each Read line is "N<tab>text", and only the text after the tab is in the file.

How matching works:
- old_string must match exactly one place unless replace_all is true. If it matches several, include a few surrounding lines to make it unique, or set replace_all to change every occurrence (useful for renames).
- If there is no exact match, Edit retries while treating curly and straight quotes, Unicode dashes and spaces as equal (your new text then follows the file's quote style), then ignoring whitespace at line ends, then allowing the whole block's indentation to be shifted (new_string is re-indented by the same amount unless it is already indented for the file), then treating tabs and spaces (and runs of them inside lines) as equal, then reading escapes such as \\n, \\t and \\" written literally as the characters they stand for (or the reverse), then allowing each indentation level to differ. The looser ones only apply when exactly one place matches. The result says which one matched.
- When nothing matches, the error shows the closest part of the file with line numbers and its first differing line; fix old_string from that and retry.

Behaviour worth knowing:
- Keep indentation exactly as the file has it. Line endings are handled for you: the file keeps CRLF or LF, and its encoding (UTF-8, UTF-8 with BOM, UTF-16) is preserved.
- new_string is inserted literally ($& and similar are not special).
- An empty new_string deletes old_string; when old_string is whole lines, their line break goes too.
- An empty old_string creates a new file containing new_string (refused if the file exists with content).
- If the file changed since you read it (someone else edited it), the edit is refused: Read it again and redo the edit. A touch that leaves the content identical is fine.
- After a successful edit you can edit the same file again without re-reading it.
- For several changes to one file, MultiEdit applies them all at once or none. Notebooks (.ipynb) are edited with NotebookEdit.`;
