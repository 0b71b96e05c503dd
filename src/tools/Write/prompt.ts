export const WRITE_DESCRIPTION = "Write a whole file: create it, or replace all of its content.";

export const WRITE_PROMPT = `Writes content to a file, replacing everything in it.

- A new file needs no read; missing parent directories are created.
- An existing file must have been read in full in this session first (every line shown), and must not have changed since; otherwise Write refuses so it cannot destroy content you have not seen. Read it (with a large enough limit) and retry.
- For changes to part of a file, Edit or MultiEdit are safer and cheaper: they send only the change.
- The file keeps its encoding (UTF-8, UTF-8 with BOM, UTF-16) and its CRLF line endings if it had them.
- The write is atomic: other programs see either the old file or the new one, never half of it.`;
