/**
 * The permission vocabulary shared by the core pipeline, the permission engine (src/permissions)
 * and every tool's own checkPermissions. Only types live here; the engine implements them.
 */

export const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** Rule sources, lowest precedence first. */
export const PERMISSION_RULE_SOURCES = [
  "userSettings",
  "projectSettings",
  "localSettings",
  "flagSettings",
  "policySettings",
  "cliArg",
  "session",
] as const;
export type PermissionRuleSource = (typeof PERMISSION_RULE_SOURCES)[number];

export type PermissionBehavior = "allow" | "deny" | "ask";

/** `Tool` or `Tool(content)`, parsed. */
export interface PermissionRuleValue {
  toolName: string;
  ruleContent?: string;
}

export interface PermissionRule {
  source: PermissionRuleSource;
  ruleBehavior: PermissionBehavior;
  ruleValue: PermissionRuleValue;
  /** The settings file the rule came from, when it came from one. */
  file?: string;
  /** Directory that `/x` file patterns are relative to (the settings file's project root). */
  root?: string;
}

/** Settings destinations a rule can be remembered in. */
export type PermissionUpdateDestination = "session" | "localSettings" | "projectSettings" | "userSettings";

export type PermissionUpdate =
  | {
      type: "addRules";
      behavior: PermissionBehavior;
      rules: PermissionRuleValue[];
      destination: PermissionUpdateDestination;
    }
  | {
      type: "addDirectories";
      directories: string[];
      destination: PermissionUpdateDestination;
    }
  | {
      type: "setMode";
      mode: PermissionMode;
      destination: "session";
    };

export interface WorkingDirectory {
  path: string;
  source: PermissionRuleSource | "cwd";
  file?: string;
}

export interface ToolPermissionContext {
  mode: PermissionMode;
  /** The session's project directory: the first working directory and the root of `./x` patterns. */
  cwd: string;
  /** Directories besides cwd where reads are allowed (and writes in acceptEdits). */
  additionalWorkingDirectories: WorkingDirectory[];
  /** Every loaded rule, from every source. */
  rules: PermissionRule[];
  /** The session cannot prompt a human: what would ask is denied. */
  shouldAvoidPermissionPrompts: boolean;
}

export type PermissionDecisionReason =
  | { type: "rule"; rule: PermissionRule; matched?: string }
  | { type: "mode"; mode: PermissionMode }
  | { type: "workingDirectory"; path: string; inside: boolean; directory?: string }
  | { type: "safetyCheck"; path?: string; reason: string }
  | { type: "subcommands"; parts: Array<{ command: string; result: PermissionResult }>; decidingPart?: string }
  | { type: "hook"; hookEvent: string; command?: string; reason?: string; file?: string }
  | { type: "tool"; reason: string }
  /** The call needs the person's own answer (a question to them): always asked, and no rule, mode or classifier answers it. */
  | { type: "userInput"; reason: string }
  | { type: "nonInteractive"; reason: string }
  | { type: "other"; reason: string };

/**
 * The file a path verdict judged, as it was when it was judged: the tool opens this real path and checks it
 * is still that file (and not one a symlink swapped in since), so check and use are the same file.
 */
export interface CheckedPath {
  /** The absolute path the tool was given. */
  path: string;
  /** Its real path (every symlink resolved, also a dangling one), which the rules judged. */
  realPath: string;
  /** Device and inode of the file there when it was judged; absent when none existed. */
  identity?: string;
}

export interface PermissionAllowDecision<Input = Record<string, unknown>> {
  behavior: "allow";
  updatedInput?: Input;
  decisionReason?: PermissionDecisionReason;
  checkedPath?: CheckedPath;
}

export interface PermissionDenyDecision {
  behavior: "deny";
  message: string;
  decisionReason?: PermissionDecisionReason;
  /** Rules that would have allowed the call (shown when a non-interactive session denies an ask). */
  suggestions?: PermissionUpdate[];
  checkedPath?: CheckedPath;
}

export interface PermissionAskDecision<Input = Record<string, unknown>> {
  behavior: "ask";
  message: string;
  decisionReason?: PermissionDecisionReason;
  /** Rules the user may remember so the same call is not asked again. */
  suggestions?: PermissionUpdate[];
  updatedInput?: Input;
  checkedPath?: CheckedPath;
}

/** A tool's own verdict: `passthrough` means "no opinion, let the rule engine decide (ask by default)". */
export interface PermissionPassthroughResult {
  behavior: "passthrough";
  message: string;
  decisionReason?: PermissionDecisionReason;
  suggestions?: PermissionUpdate[];
  checkedPath?: CheckedPath;
}

export type PermissionDecision<Input = Record<string, unknown>> =
  | PermissionAllowDecision<Input>
  | PermissionDenyDecision
  | PermissionAskDecision<Input>;

export type PermissionResult<Input = Record<string, unknown>> = PermissionDecision<Input> | PermissionPassthroughResult;
