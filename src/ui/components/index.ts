/** Pure terminal components (props in, nothing read from the session) shared by tool renderers and the UI. */
export { colorEnabled, styles, tint } from "./color.js";
export { CollapsedText, COLLAPSED_LINES, HiddenLinesNote, collapseLines, isTextTruncated } from "./CollapsedText.js";
export { Diff, COLLAPSED_DIFF_LINES, describeDiffStats, diffStats, isDiffTruncated, type DiffStats } from "./Diff.js";
export { Markdown, renderMarkdown } from "./Markdown.js";
export { ResultGutter, ToolUseLine, resultColumns, type ToolUseStatus } from "./ToolUseLine.js";
export { ResultText, ToolError, ToolRejected, errorText, groupStatus, renderError, statusOf, type GroupStatus } from "./ToolMessages.js";
export { compactJson, contentText, displayPath, formatBytes, formatDuration, linesOf, num, oneLine, plural, str, terminalSafe, wrapLine } from "./format.js";
export { FileChangeResult, ProposedChange, RejectedChange, addedHunks, isFileChangeTruncated, proposedHunks } from "./FileChange.js";
export { ArgumentList } from "./ArgumentList.js";
export { SearchGroup, searchRenderer } from "./SearchGroup.js";
