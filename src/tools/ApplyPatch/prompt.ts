export const APPLY_PATCH_DESCRIPTION = "Apply a patch in the apply_patch format: add, update, move and delete files, all or nothing.";

export const APPLY_PATCH_PROMPT = `Edits files with a patch. Put the whole patch in "input":

*** Begin Patch
*** Add File: docs/hello.txt
+Hello
+world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-    print("Hi")
+    print("Hello")
*** Delete File: old/obsolete.txt
*** End Patch

- Add File: every line of the new file starts with "+". The file must not exist yet.
- Update File: one or more hunks. A hunk starts with "@@", optionally followed by a line of the file to find first (such as the enclosing function or class); the hunk then matches after it. Hunk lines start with " " (unchanged context), "-" (removed) or "+" (added). Give about 3 lines of context around each change so it matches only one place. "*** End of File" after a hunk pins it to the end of the file. "*** Move to:" renames the file (to a path that does not exist yet).
- Delete File: nothing follows.
- Paths are relative to the working directory (absolute paths also work).

Rules:
- Read a file before you update or delete it; if it changed since, read it again.
- Hunks are matched exactly, then ignoring whitespace at line ends, then ignoring indentation and spacing, and only where exactly one place matches; otherwise the patch is refused and the error says which hunk and why.
- All or nothing: if any part fails (a hunk that does not match, a denied path, a failed write), no file is changed. Fix that part and send the whole patch again.
- Line endings and encodings of existing files are kept; every change is checkpointed and can be rewound.`;
