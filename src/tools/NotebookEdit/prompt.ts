export const NOTEBOOK_EDIT_DESCRIPTION = "Replace, insert or delete a cell of a Jupyter notebook (.ipynb).";

export const NOTEBOOK_EDIT_PROMPT = `Edits one cell of a Jupyter notebook (.ipynb).

- Read the notebook first: Read shows every cell with its id. cell_id is that id; "cell-N" (0-based position) also works.
- edit_mode "replace" (default) sets the cell's source to new_source. Replacing a code cell clears its outputs and execution count, since they no longer match the code. Give cell_type to turn the cell into a code or markdown cell at the same time.
- edit_mode "insert" adds a new cell with new_source after the cell cell_id names (at the top when cell_id is omitted). cell_type is required.
- edit_mode "delete" removes the cell cell_id names (new_source is ignored; pass an empty string).
- The notebook's JSON layout (indentation, key order, other cells) is kept. If the notebook changed since you read it, the edit is refused: Read it again.
- For other files use Edit.`;
