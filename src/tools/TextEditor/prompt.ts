export const TEXT_EDITOR_TOOL_NAME = "str_replace_based_edit_tool";

export const TEXT_EDITOR_DESCRIPTION = "View, create and edit text files: view, create, str_replace, insert, undo_edit.";

export const TEXT_EDITOR_PROMPT = `A text editor for files, one command per call.

Commands:
- view: show a file with line numbers ("N<tab>text"; only the text after the tab is in the file), or list a directory two levels deep (hidden entries left out). view_range [start, end] shows lines start to end (1-based; end -1 means to the end of the file).
- create: make a new file with file_text (parent directories are created). It never overwrites: for an existing file, use str_replace or insert.
- str_replace: replace old_str with new_str (empty or omitted new_str deletes old_str). old_str must match exactly one place; include surrounding lines to make it unique. If there is no exact match, quotes and dashes, whitespace at line ends, tabs versus spaces and indentation are tolerated when exactly one place matches; the result says so.
- insert: insert new_str after line insert_line (0 puts it at the top of the file).
- undo_edit: revert the last create, str_replace or insert this tool made to the file, one step per call.

Rules:
- view a file (or part of it) before changing it; if it changed since, view it again.
- Paths may be absolute or relative to the working directory.
- Line endings and encodings are kept. Edits are atomic and can be rewound.`;
