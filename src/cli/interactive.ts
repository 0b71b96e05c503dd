/**
 * `toolgate` without -p: the interactive terminal UI. Loaded only for this command (it brings React and Ink);
 * the session is set up as for `-p` (agentSetup.ts), with the UI's dialog answering what asks.
 */
import { createElement } from "react";
import { render } from "ink";
import { createSession, inspectFolderTrust, type Session } from "../session/index.js";
import { addTrustedFolder, summarizeIgnored, type IgnoredSetting } from "../trust/index.js";
import { TrustDialog, type TrustAnswer } from "../ui/TrustDialog.js";
import { getToolgateHome } from "../util/home.js";
import type { CanUseToolFn, SessionEndReason } from "../core/Tool.js";
import type { PermissionMode } from "../core/permissionTypes.js";
import { createAutoModeClassifier } from "../agent/autoMode.js";
import { compactionThreshold } from "../agent/compact.js";
import { getModelInfo, readModelOverrides, PROVIDER_NAMES, type ProviderName } from "../providers/index.js";
import { onSignals, signalExitCode, TERMINATION_SIGNALS } from "../core/termination.js";
import { stopTrackedTrees } from "../util/processTree.js";
import { loadBashImplementation } from "../tools/Bash/tool.js";
import { App } from "../ui/App.js";
import { PromptHistory, historyFile } from "../ui/promptHistory.js";
import { listProjectFiles } from "../ui/fileMentions.js";
import { TypeAhead } from "../ui/typeAhead.js";
import { UsageError } from "./errors.js";
import { packageVersion } from "./version.js";
import { fallbackProviders, findResumedSession, prepareAgent, startAgentSession, type AgentFlags } from "./agentSetup.js";
import type { Telemetry } from "../telemetry/index.js";
import { pluginDirsFromFlags, sessionOptionsFromFlags, type SessionFlags } from "./flags.js";

export interface InteractiveFlags extends SessionFlags, AgentFlags {
  pluginDir?: string[];
  pluginDirNoMcp?: string[];
}

/** Modes Shift+Tab cycles through; the riskier ones only when the session was started in them. */
export function modeCycle(start: PermissionMode): PermissionMode[] {
  const modes: PermissionMode[] = ["default", "acceptEdits", "plan"];
  if (!modes.includes(start)) modes.push(start);
  return modes;
}

export const NOT_A_TERMINAL =
  "toolgate: the interactive UI needs a terminal (stdin and stdout must be TTYs). To run without one, use -p: toolgate -p \"your prompt\" (the prompt may also come on stdin).\n";

/** Errors a read or write gets once the terminal is gone. */
const TERMINAL_GONE = new Set(["EIO", "EPIPE", "ENOTCONN", "ENXIO"]);

/** Calls `gone` when stdin or stdout fails because the terminal went away; other errors stay errors. */
function onTerminalGone(gone: () => void): () => void {
  const listener = (err: NodeJS.ErrnoException) => {
    if (!TERMINAL_GONE.has(err.code ?? "")) throw err;
    gone();
  };
  process.stdout.on("error", listener);
  process.stdin.on("error", listener);
  return () => {
    process.stdout.off("error", listener);
    process.stdin.off("error", listener);
  };
}

/** The trust question, on its own screen before the session starts; Ctrl-C is "quit". */
async function askTrust(folder: string, items: readonly IgnoredSetting[]): Promise<TrustAnswer> {
  let answer: TrustAnswer = "quit";
  const instance = render(
    createElement(TrustDialog, {
      folder,
      items,
      onAnswer: (value: TrustAnswer) => {
        answer = value;
        instance.unmount();
      },
    }),
  );
  await instance.waitUntilExit();
  return answer;
}

export async function interactiveCommand(promptArg: string | undefined, flags: InteractiveFlags): Promise<number> {
  const typeAhead = new TypeAhead();
  try {
    return await runInteractive(promptArg, flags, typeAhead);
  } finally {
    await typeAhead.drop();
  }
}

async function runInteractive(promptArg: string | undefined, flags: InteractiveFlags, typeAhead: TypeAhead): Promise<number> {
  if (flags.provider !== undefined && !PROVIDER_NAMES.includes(flags.provider as ProviderName)) throw new UsageError(`--provider must be one of ${PROVIDER_NAMES.join(", ")}, got ${JSON.stringify(flags.provider)}`);
  if (flags.baseUrl !== undefined && !URL.canParse(flags.baseUrl)) throw new UsageError(`--base-url needs a URL such as http://127.0.0.1:11434/v1, got ${JSON.stringify(flags.baseUrl)}`);
  // Degrading to plain text would be `-p` without its flags: refusing says exactly what to run instead.
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    process.stderr.write(NOT_A_TERMINAL);
    return 2;
  }
  // What is typed from here on is kept raw for the UI (typeAhead.ts).
  typeAhead.hold();
  void loadBashImplementation().catch(() => undefined);
  const sessionOptions = { ...sessionOptionsFromFlags(flags), pluginDirs: pluginDirsFromFlags(flags, process.cwd()) };
  // A folder that ships hooks, servers, allow rules… is asked about once, before any of it runs.
  const folder = inspectFolderTrust(sessionOptions);
  let trustNotice: string | undefined;
  if (!folder.trust.trusted && folder.untrusted.length > 0) {
    await typeAhead.toQuestion();
    const answer = await askTrust(folder.trust.folder, folder.untrusted);
    typeAhead.hold();
    if (answer === "quit") return 0;
    if (answer === "trust") {
      try {
        addTrustedFolder(sessionOptions.home ?? getToolgateHome(), folder.trust.folder);
      } catch (err) {
        // Trusted for this run even when it cannot be remembered.
        sessionOptions.trust = true;
        trustNotice = `could not remember the trust (${(err as Error).message}); the folder is trusted for this session only`;
      }
    } else {
      trustNotice = `this folder is not trusted: ignored ${summarizeIgnored(folder.untrusted)} (toolgate trust add, or /exit and answer again next start)`;
    }
  }
  let current: InteractiveFlags = flags;
  let firstPrompt = promptArg;
  for (;;) {
    const resumed = findResumedSession(current, sessionOptions, { canPick: true });
    let telemetry: Telemetry | undefined;
    // The dialog is the App's; the session's own canUseTool (handed to subagents) forwards to it.
    let answer: CanUseToolFn | undefined;
    const canUseTool: CanUseToolFn = (...args) => (answer ? answer(...args) : Promise.resolve(args[5].behavior === "ask" ? { behavior: "deny", message: "The UI is not ready to ask.", decisionReason: { type: "other", reason: "no UI" } } : args[5]));
    const session = await createSession({ ...sessionOptions, mcpConfigFiles: flags.mcpConfig ?? [], interactive: true, canUseTool, ...(resumed ? { sessionId: resumed.sessionId } : {}) });
    let resumeNext: string | undefined;
    try {
      if (session.fatalErrors.length > 0) {
        for (const error of session.fatalErrors) process.stderr.write(`toolgate: refusing to run tools: ${error}\n`);
        return 2;
      }
      const prepared = await prepareAgent(session, current);
      const { provider, system: baseSystem, merged, cwd } = prepared;
      telemetry = prepared.telemetry;
      const notices: Array<{ level: "info" | "warning" | "error"; text: string }> = [...session.warnings, ...prepared.notices].map((w) => ({ level: "warning" as const, text: `warning: ${w}` }));
      if (trustNotice) notices.unshift({ level: "info", text: trustNotice });
      const { system, messages, transcript } = await startAgentSession(session, { provider, system: baseSystem, cwd, resumed, report: (line) => notices.push({ level: "warning", text: line }) });
      if (resumed) notices.push({ level: "info", text: `resumed session ${resumed.sessionId} (${messages.length} messages)` });
      const overrides = readModelOverrides(merged);
      const startMode = session.context.getAppState().toolPermissionContext.mode;

      // A signal, or the terminal gone (its window closed, ssh dropped: writes fail with EIO before SIGHUP
      // arrives): stop what the session started, then end.
      let ending = false;
      const end = (signal: NodeJS.Signals) => {
        if (ending) return;
        ending = true;
        // SessionEnd first (each hook bounded by its timeout), unless the terminal is gone and nobody can wait.
        const hooks = signal === "SIGHUP" ? Promise.resolve() : endSession(session, "other");
        void hooks.finally(() => Promise.allSettled([session.close(), stopTrackedTrees(), telemetry?.shutdown()]).finally(() => process.exit(signalExitCode(signal))));
      };
      const offTermination = onSignals(TERMINATION_SIGNALS, end);
      const offStreams = onTerminalGone(() => end("SIGHUP"));
      try {
        await typeAhead.toReader();
        const instance = render(
          createElement(App, {
            session,
            provider,
            switchModel: prepared.switchModel,
            ...(current.fallbackModel ? { fallbackProviders: fallbackProviders(prepared, current.fallbackModel) } : {}),
            system,
            messages,
            transcript,
            history: new PromptHistory(historyFile(session.context.paths.home, cwd)),
            listFiles: (() => {
              let files: Promise<string[]> | undefined;
              return () => (files ??= listProjectFiles(cwd));
            })(),
            contextWindow: (model: string) => getModelInfo(model, overrides).contextWindow,
            compactionThreshold: (model: string) => compactionThreshold(getModelInfo(model, overrides)),
            classifier: startMode === "auto" ? createAutoModeClassifier : undefined,
            modes: modeCycle(startMode),
            initialPrompt: firstPrompt,
            openResume: current.resume === true,
            startupNotices: notices,
            outputStyle: prepared.outputStyle,
            version: packageVersion(),
            bindCanUseTool: (fn: CanUseToolFn) => {
              answer = fn;
            },
            onResume: (id: string) => {
              resumeNext = id;
            },
          }),
          { exitOnCtrlC: false, maxFps: 20 },
        );
        await instance.waitUntilExit();
        // /exit, Ctrl-D, Ctrl-C at an empty prompt: the person left from the prompt. Switching sessions (/resume) is another reason.
        await endSession(session, resumeNext ? "other" : "prompt_input_exit");
      } finally {
        offTermination();
        offStreams();
      }
    } finally {
      await session.close();
      await telemetry?.shutdown();
    }
    if (!resumeNext) return 0;
    current = { ...current, continue: false, resume: resumeNext };
    firstPrompt = undefined;
    typeAhead.hold();
  }
}

/** SessionEnd hooks, once; their problems go to stderr (the UI is gone). Never throws. */
async function endSession(session: Session, reason: SessionEndReason): Promise<void> {
  const outcome = await session.context.hookRunner?.sessionEnd?.({ context: session.context, reason });
  for (const notice of outcome?.notices ?? []) process.stderr.write(`[toolgate] ${notice.hookEvent} hook ${notice.level}: ${notice.message}\n`);
}
