/**
 * Files that run code or configure tools when they change, wherever they are: a write to one is always
 * confirmed by the file tools (even in bypassPermissions), and the sandbox keeps them read-only. One list, so
 * the two can never disagree.
 */
export const SAFETY_FILE_NAMES: readonly string[] = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".zlogout",
  ".gitconfig",
  ".gitmodules",
  ".ripgreprc",
  ".mcp.json",
];

/**
 * Folders whose content configures tools (or toolgate itself), or, for `.git`, makes git run programs
 * (hooks, fsmonitor, filters, `commondir`, alternates): the file tools confirm every write into one, and the
 * sandbox keeps them read-only, `.git` as a whole.
 */
export const SAFETY_DIRECTORY_NAMES: readonly string[] = [".git", ".toolgate", ".claude", ".vscode", ".idea"];
