/**
 * The apply_patch format (src/tools/ApplyPatch/parse.ts) as a Lark grammar, for the Responses API's custom tools:
 * the model writes the patch as plain text, constrained to this shape, instead of a JSON string with every line
 * escaped. Stricter than the parser (every hunk opens with "@@", no blank lines between files), so whatever it
 * admits, the parser accepts. Checked with Lark's own Earley and LALR parsers.
 */
export const APPLY_PATCH_LARK_GRAMMAR = String.raw`start: "*** Begin Patch" NL file_op+ "*** End Patch" NL?

file_op: add_file | delete_file | update_file

add_file: "*** Add File: " TEXT NL added_line*
delete_file: "*** Delete File: " TEXT NL
update_file: "*** Update File: " TEXT NL move_to? hunk+

move_to: "*** Move to: " TEXT NL
hunk: hunk_header hunk_line+ end_of_file?
hunk_header: "@@" NL | "@@ " TEXT NL
end_of_file: "*** End of File" NL

added_line: "+" TEXT? NL
hunk_line: (" " | "-" | "+") TEXT? NL

TEXT: /[^\r\n]+/
NL: /\r?\n/
`;
