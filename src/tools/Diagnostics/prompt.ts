export const DIAGNOSTICS_TOOL_NAME = "Diagnostics";

export const DIAGNOSTICS_DESCRIPTION = "Errors and warnings a language server reports for a file, or for every file it has open.";

export const DIAGNOSTICS_PROMPT = `Asks the configured language servers (settings: lsp) what is wrong with code: type errors, unresolved names, syntax errors, warnings.

- With file_path: that file's current diagnostics. The file is opened in its language server first, so the first call for a project can take a few seconds while the server starts.
- Without file_path: the last known diagnostics of every file the language servers have open in this session (the files edited or checked so far), not a scan of the whole project.
- Each line reads path:line:col severity message [code]; lines and columns start at 1.
- Edit, MultiEdit and Write already append the errors an edit introduced to their result, so you do not need to call this after every edit. Use it to check a file before changing it, or to re-check after changes made another way (Bash, a formatter).`;
