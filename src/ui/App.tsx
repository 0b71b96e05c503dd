/**
 * The interactive agent. Finished messages are printed once into the scrollback (Ink `Static`); only the live
 * region (streaming text, running calls, a dialog, the prompt, the status line) redraws, at most 20 times a
 * second and clipped to the terminal's height, so the screen neither flickers nor jumps.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Box, Static, Text, useApp, useInput, useStdout } from "ink";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { CanUseToolFn } from "../core/Tool.js";
import { prewarmWorkspaceSnapshots } from "../core/pipeline/workspaceTracking.js";
import type { Message, TextBlock, UserMessage } from "../core/messages.js";
import type { PermissionMode } from "../core/permissionTypes.js";
import { rewindFiles } from "../core/context.js";
import { query, type AgentEvent } from "../agent/query.js";
import { classifierMayDecide, type AutoModeClassifier } from "../agent/autoMode.js";
import { compactHistory, type CompactionState } from "../agent/compact.js";
import { estimateCostUSD } from "../agent/cost.js";
import { isPrompt, promptText, SHELL_CONTEXT_TAG } from "../agent/history.js";
import { attachMentionedFiles, attachMentionedResources } from "../agent/mentions.js";
import { loadOutputStyles, withOutputStyle, type OutputStyle } from "../agent/outputStyles.js";
import { readStatusLineSetting, type StatusLineInput } from "../agent/statusLine.js";
import { appendMemory, memoryTargets } from "../agent/memory.js";
import { localSettingsPath } from "../settings/load.js";
import { updateSettingsFile } from "../settings/write.js";
import { readPassEnv, withoutCredentials } from "../util/childEnv.js";
import { serverConnections } from "../mcp/client/sessionClients.js";
import { useStatusLineCommand } from "./useStatusLineCommand.js";
import { createIdleWatch, IDLE_PROMPT_MESSAGE, idleNotifyMs } from "./idleNotification.js";
import { runInTerminal } from "./terminalHandoff.js";
import { listSessions, type TranscriptWriter } from "../agent/transcript.js";
import type { Provider } from "../providers/index.js";
import type { Session } from "../session/index.js";
import { ConversationView, type Item } from "./viewModel.js";
import { ensureRenderer, isCallTruncated, ToolCall, ToolCalls } from "./ToolCall.js";
import { PromptInput } from "./PromptInput.js";
import { PromptHistory } from "./promptHistory.js";
import { PermissionDialog } from "./PermissionDialog.js";
import { QuestionDialog } from "./QuestionDialog.js";
import { answerPermission, answerQuestions, permissionChoices, questionsOf, type PermissionChoice, type PermissionRequest } from "./permissionAnswer.js";
import { StatusLine } from "./StatusLine.js";
import { Spinner } from "./Spinner.js";
import { Picker } from "./Picker.js";
import { commandMenu, runSlashCommand, type CommandHost } from "./slashCommands.js";
import type { RenderOptions } from "./toolRenderer.js";
import { Markdown } from "./components/Markdown.js";
import { wrapLine } from "./components/format.js";

/** Redraws of the live region per second, at most. */
export const MAX_FPS = 20;
/** Rows kept free below the live region's text (prompt, status line, spinner, margins). */
const RESERVED_ROWS = 10;
/** Two Esc presses this close together on an empty prompt open the rewind list. */
const DOUBLE_ESC_MS = 800;
/** Output of a `!command` kept for the model. */
const SHELL_OUTPUT_CHARS = 30_000;

export interface AppProps {
  session: Session;
  provider: Provider;
  /** A new provider for `/model NAME`. */
  switchModel(model: string): Provider;
  /** `--fallback-model`: tried in order for a request the model fails as overloaded or not found, for that prompt only. */
  fallbackProviders?: () => Provider[];
  system: string[];
  messages: Message[];
  transcript: TranscriptWriter;
  history: PromptHistory;
  listFiles(): Promise<readonly string[]>;
  contextWindow(model: string): number;
  compactionThreshold(model: string): number;
  classifier?: (provider: Provider) => AutoModeClassifier;
  /** Modes Shift+Tab cycles through. */
  modes: readonly PermissionMode[];
  initialPrompt?: string;
  /** Printed before anything else (warnings, a resumed session's repairs). */
  startupNotices: ReadonlyArray<{ level: "info" | "warning" | "error"; text: string }>;
  /** The user picked a session with /resume: the caller restarts the UI on it. */
  onResume(sessionId: string): void;
  /** `--resume` without an id: start with the session list open. */
  openResume?: boolean;
  /** Receives the dialog-backed canUseTool, for the session's own (subagents use it). */
  bindCanUseTool?(canUseTool: CanUseToolFn): void;
  /** The output style the system prompt was built with. */
  outputStyle: OutputStyle;
  /** toolgate's version, for the status line command. */
  version: string;
}

interface PendingAsk {
  request: PermissionRequest;
  choices: PermissionChoice[];
  /** AskUserQuestion's questions: the picker is shown instead of the permission dialog. */
  questions?: ReturnType<typeof questionsOf>;
  resolve(answer: { choice: PermissionChoice; feedback?: string; answers?: Record<string, string> }): void;
}

type Overlay = { kind: "rewind" } | { kind: "resume" } | { kind: "outputStyle" } | { kind: "memory"; note: string } | { kind: "memoryEdit" } | { kind: "editing" } | undefined;

function StaticItem({ item, options }: { item: Item; options: RenderOptions }) {
  switch (item.kind) {
    case "user":
      return (
        <Box marginTop={1}>
          <Box flexShrink={0}>
            <Text dimColor>{"> "}</Text>
          </Box>
          <Text>{item.text}</Text>
        </Box>
      );
    case "assistant":
      // finished text is printed once, so it can be drawn as markdown; the live region streams it plain
      return (
        <Box marginTop={1}>
          <Markdown columns={options.columns}>{item.text}</Markdown>
        </Box>
      );
    case "tools":
      return (
        <Box marginTop={1} flexDirection="column">
          <ToolCalls calls={item.calls} options={{ ...options, expanded: options.expanded || item.expanded }} />
        </Box>
      );
    case "notice":
      return (
        <Text color={item.level === "error" ? "red" : item.level === "warning" ? "yellow" : undefined} dimColor={item.level === "info"}>
          {item.text}
        </Text>
      );
  }
}

/**
 * The last `rows` rows of `text` wrapped at `columns` (a long answer streams without pushing the prompt off
 * screen). Lines break at spaces where there are any, as Ink would; only a word longer than a row is split.
 */
export function clipToRows(text: string, rows: number, columns: number): string {
  const out: string[] = [];
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0 && out.length < rows; i--) {
    const wrapped = wrapLine(lines[i]!, columns);
    out.unshift(...wrapped.slice(Math.max(0, wrapped.length - (rows - out.length))));
  }
  return out.join("\n");
}

/** Ink lays the screen out again when the terminal is resized, but widths computed in render need a new render. */
function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const [size, setSize] = useState({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  useEffect(() => {
    const onResize = () => setSize({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
    stdout.on("resize", onResize);
    return () => {
      stdout.off("resize", onResize);
    };
  }, [stdout]);
  return size;
}

export function App(props: AppProps) {
  const { session, messages, transcript } = props;
  const context = session.context;
  const { exit } = useApp();
  const { columns, rows } = useTerminalSize();
  const view = useMemo(() => new ConversationView(isCallTruncated), []);
  const provider = useRef(props.provider);
  const compaction = useRef<CompactionState>({ failures: 0 });
  const [, setFrame] = useState(0);
  type Running = { controller: AbortController; startedAt: number; label: string; interrupted?: boolean };
  const [running, setRunningState] = useState<Running | undefined>();
  // The ref is what key handlers and submit read: a second Enter before the next render must queue, not start a run.
  const setRunning = (value: Running | undefined) => {
    runningRef.current = value;
    setRunningState(value);
  };
  const [asks, setAsks] = useState<PendingAsk[]>([]);
  const [overlay, setOverlay] = useState<Overlay>(props.openResume ? { kind: "resume" } : undefined);
  const [input, setInput] = useState({ key: 0, initial: "" });
  const [hint, setHint] = useState<string | undefined>();
  // A task a command started that does not hold the prompt (an MCP login); Esc aborts it.
  const background = useRef<{ controller: AbortController; label: string } | undefined>(undefined);
  // Leaving the UI ends it too: a login's loopback listener would otherwise keep the process waiting.
  useEffect(() => () => background.current?.controller.abort(), []);
  const [expanded, setExpanded] = useState(false);
  const [now, setNow] = useState(Date.now());
  const promptText_ = useRef("");
  const lastEsc = useRef(0);
  const startedAt = useRef(Date.now());
  const queue = useRef<string[]>([]);
  const shellContext = useRef<string[]>([]);
  const runningRef = useRef<typeof running>(undefined);
  // `/output-style` changes the system prompt for the next requests.
  const system = useRef(props.system);
  const [outputStyle, setOutputStyleState] = useState(props.outputStyle);

  // Every change to the view asks for a redraw; they are merged so the live region redraws at most MAX_FPS times a second.
  const timer = useRef<NodeJS.Timeout | undefined>(undefined);
  const redraw = useCallback(() => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      setFrame((f) => f + 1);
    }, 1000 / MAX_FPS);
  }, []);
  useEffect(() => () => clearTimeout(timer.current), []);

  const print = useCallback(
    (text: string, level: "info" | "warning" | "error" = "info") => {
      view.add({ kind: "notice", level, text });
      redraw();
    },
    [view, redraw],
  );

  const printHookNotices = useCallback(
    (outcome: { notices: ReadonlyArray<{ hookEvent: string; level: string; message: string }> }) => {
      for (const notice of outcome.notices) print(`${notice.hookEvent} hook ${notice.level}: ${notice.message}`, notice.level === "info" ? "info" : "warning");
    },
    [print],
  );

  /** Notification hooks (a desktop ping) run beside what waits for the person, never delaying it. */
  const notify = useCallback(
    (message: string, notificationType: "permission_prompt" | "idle_prompt") => {
      void context.hookRunner?.notification?.({ context, message, notificationType }).then(printHookNotices);
    },
    [printHookNotices],
  );

  const idle = useMemo(() => createIdleWatch(idleNotifyMs(context.env), () => notify(IDLE_PROMPT_MESSAGE, "idle_prompt")), []);
  useEffect(() => () => idle.dispose(), []);
  useEffect(() => idle.setBusy(running !== undefined || asks.length > 0 || overlay !== undefined), [running, asks.length, overlay]);

  useEffect(() => {
    // A resumed session shows its conversation first, as it went.
    view.replay(messages);
    for (const notice of props.startupNotices) view.add({ kind: "notice", level: notice.level, text: notice.text });
    redraw();
  }, []);

  // The spinner's clock ticks only while the model works.
  useEffect(() => {
    if (!running) return;
    const tick = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(tick);
  }, [running]);

  const mode = context.getAppState().toolPermissionContext.mode;
  const setMode = (next: PermissionMode) => {
    context.setAppState((prev) => ({ ...prev, toolPermissionContext: { ...prev.toolPermissionContext, mode: next } }));
    setFrame((f) => f + 1);
  };

  /** The user answers "ask" in the dialog; auto mode's classifier answers first what it may. */
  const canUseTool: CanUseToolFn = useCallback(
    async (tool, input, callContext, _message, toolUseID, decision) => {
      if (decision.behavior !== "ask") return decision;
      let classifierNote: string | undefined;
      if (props.classifier && callContext.getAppState().toolPermissionContext.mode === "auto" && classifierMayDecide(decision)) {
        const verdict = await props.classifier(provider.current).classify({ tool, input, decision, context: callContext, messages });
        if (verdict.behavior === "allow") {
          print(`auto mode allowed ${tool.name}: ${verdict.reason}`);
          return { behavior: "allow", updatedInput: input, decisionReason: { type: "other", reason: `auto mode: ${verdict.reason}` } };
        }
        // A person is here: what the classifier would deny is asked instead.
        classifierNote = `auto mode would deny this: ${verdict.reason}`;
      }
      // the dialog draws the call with its tool's renderer (a call from an @mention never streamed, so it may not be loaded yet)
      await ensureRenderer(tool.name);
      const request: PermissionRequest = { tool, input, toolUseID, decision, ...(classifierNote ? { classifierNote } : {}) };
      const choices = permissionChoices(decision, { cwd: context.getAppState().toolPermissionContext.cwd, home: context.paths.home }, tool.name);
      const signal = callContext.abortController.signal;
      const questions = questionsOf(request);
      notify(`toolgate needs your permission to use ${tool.name}`, "permission_prompt");
      const answer = await new Promise<{ choice: PermissionChoice; feedback?: string; answers?: Record<string, string> }>((resolve) => {
        const deny = choices.find((c) => c.kind === "deny")!;
        const ask: PendingAsk = { request, choices, resolve, ...(questions ? { questions } : {}) };
        const onAbort = () => {
          setAsks((list) => list.filter((a) => a !== ask));
          resolve({ choice: deny });
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
        ask.resolve = (a) => {
          signal.removeEventListener("abort", onAbort);
          resolve(a);
        };
        setAsks((list) => [...list, ask]);
      });
      if (questions) return answerQuestions(request, signal.aborted ? undefined : answer.answers);
      const outcome = answerPermission(request, answer.choice, callContext, answer.feedback);
      if (outcome.notice) print(outcome.notice.text, outcome.notice.level);
      return outcome.decision;
    },
    [props.classifier, messages, print, notify],
  );

  useEffect(() => props.bindCanUseTool?.(canUseTool), [canUseTool]);

  const answer = (ask: PendingAsk, choice: PermissionChoice, feedback?: string, answers?: Record<string, string>) => {
    setAsks((list) => list.filter((a) => a !== ask));
    ask.resolve({ choice, ...(feedback !== undefined ? { feedback } : {}), ...(answers ? { answers } : {}) });
  };

  const record = (event: AgentEvent) => {
    if (event.type === "assistant" || event.type === "user") transcript.append(event.message);
    else if (event.type === "history_repaired") transcript.repaired(event.problems);
    else if (event.type === "prompt_refused") transcript.refused(event.reason);
    else if (event.type === "compact_boundary" && event.messages) transcript.compacted({ trigger: event.trigger, kind: event.outcome.kind, tokensBefore: event.outcome.tokensBefore, tokensAfter: event.outcome.tokensAfter }, event.messages);
    else if (event.type === "result") transcript.result({ reason: event.result.reason, turns: event.result.turns, durationMs: event.result.durationMs });
  };

  const runPrompt = async (text: string, options: { shown?: boolean } = {}) => {
    const controller = new AbortController();
    setRunning({ controller, startedAt: Date.now(), label: "Working" });
    // While the model thinks, the files are read once for undo, so a first Bash call does not wait for it.
    prewarmWorkspaceSnapshots(context);
    if (!options.shown) view.add({ kind: "user", text });
    redraw();
    // What `!command` printed goes with this prompt, before it.
    const extra = shellContext.current.splice(0);
    try {
      // `@path`: the file goes with the prompt, read through Read (so its rules and hooks decide).
      const attached = await attachMentionedFiles(text, context, canUseTool);
      // `@server:uri`: an MCP resource, read through ReadMcpResourceTool.
      const resources = await attachMentionedResources(text, context, canUseTool);
      for (const note of [...attached.notes, ...resources.notes]) view.add({ kind: "notice", level: note.level, text: note.text });
      const before = [...extra.map((t): TextBlock => ({ type: "text", text: t })), ...attached.blocks, ...resources.blocks];
      const prompt: string | Exclude<UserMessage["content"], string> = before.length ? [...before, { type: "text", text }] : text;
      redraw();
      const model = provider.current.model;
      for await (const event of query(prompt, {
        provider: provider.current,
        context,
        canUseTool,
        system: system.current,
        messages,
        signal: controller.signal,
        compaction: { threshold: props.compactionThreshold(model), state: compaction.current },
        ...fallbacksFor(model),
      })) {
        if (event.type === "stream" && event.event.type === "tool_call_start") await ensureRenderer(event.event.name);
        record(event);
        view.apply(event);
        // A refused prompt is not in the conversation any more: give its text back to edit, unless a new one is being typed.
        if (event.type === "prompt_refused" && !promptText_.current) {
          promptText_.current = text;
          setInput((i) => ({ key: i.key + 1, initial: text }));
        }
        redraw();
      }
    } catch (err) {
      print(`toolgate failed: ${err instanceof Error ? err.message : String(err)}`, "error");
    } finally {
      idle.turnEnded();
      setRunning(undefined);
      redraw();
    }
  };

  const runShell = async (command: string) => {
    const controller = new AbortController();
    setRunning({ controller, startedAt: Date.now(), label: `Running ${command}` });
    view.add({ kind: "user", text: `!${command}` });
    redraw();
    const output = await new Promise<{ text: string; code: number | null }>((resolve) => {
      const child = spawn(process.env.SHELL || "/bin/sh", ["-c", command], { cwd: context.getCwd(), env: context.env, stdio: ["ignore", "pipe", "pipe"], signal: controller.signal });
      let text = "";
      const add = (chunk: Buffer) => {
        if (text.length < SHELL_OUTPUT_CHARS) text += chunk.toString("utf8");
      };
      child.stdout.on("data", add);
      child.stderr.on("data", add);
      child.on("error", (err) => resolve({ text: text + (controller.signal.aborted ? "\n(interrupted)" : `\n${err.message}`), code: null }));
      child.on("close", (code) => resolve({ text, code }));
    });
    const body = output.text.length > SHELL_OUTPUT_CHARS ? `${output.text.slice(0, SHELL_OUTPUT_CHARS)}\n… (cut)` : output.text;
    view.add({ kind: "notice", level: output.code === 0 ? "info" : "warning", text: `${body.replace(/\n$/, "") || "(no output)"}\n(exit ${output.code ?? "?"})` });
    shellContext.current.push(`<${SHELL_CONTEXT_TAG}>\nThe user ran a shell command themselves:\n<command>${command}</command>\n<output exit_code="${output.code ?? "?"}">\n${body}\n</output>\n</${SHELL_CONTEXT_TAG}>`);
    setRunning(undefined);
    redraw();
  };

  /** `--fallback-model`: each prompt starts on the session's model; the fallbacks are the other models, in order. */
  const fallbacksFor = (model: string): { fallbackProviders?: Provider[] } => {
    const fallbacks = props.fallbackProviders?.().filter((p) => p.model !== model);
    return fallbacks?.length ? { fallbackProviders: fallbacks } : {};
  };

  const setModel = (model: string) => {
    try {
      provider.current = props.switchModel(model);
      print(`model: ${provider.current.model}`);
    } catch (err) {
      print(`/model: ${err instanceof Error ? err.message : String(err)}`, "error");
    }
  };

  const styleLocations = { cwd: context.getAppState().toolPermissionContext.cwd, home: context.paths.home, userHome: context.env.HOME };
  const setOutputStyle = (name: string) => {
    const styles = loadOutputStyles(styleLocations);
    const style = styles.find(name);
    if (!style) {
      print(`/output-style: there is no output style ${JSON.stringify(name)}; there are ${styles.styles.map((s) => s.name).join(", ")}`, "error");
      return;
    }
    system.current = withOutputStyle(system.current, style);
    setOutputStyleState(style);
    const file = localSettingsPath(styleLocations.cwd);
    try {
      updateSettingsFile(file, (raw) => {
        raw.outputStyle = style.name;
      });
      print(`output style: ${style.name} (from the next request; saved to ${file})`);
    } catch (err) {
      print(`output style: ${style.name} for this session; not saved: ${(err as Error).message}`, "warning");
    }
  };

  /** The person's editor on `file`; the editor has the terminal until it exits, the session goes on meanwhile. */
  const editFile = async (file: string) => {
    const editor = context.env.VISUAL || context.env.EDITOR || "vi";
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
    } catch {
      // the editor says what is wrong with the folder
    }
    setOverlay({ kind: "editing" });
    const outcome = await runInTerminal("/bin/sh", ["-c", `${editor} "$1"`, "sh", file], { cwd: styleLocations.cwd, env: context.env });
    setOverlay(undefined);
    if (outcome.ok) print(`edited ${file}`);
    else if ("error" in outcome) print(`/memory: could not start the editor: ${outcome.error.message}`, "error");
    // the shell's answer for a command it cannot find or run
    else if (outcome.code === 127 || outcome.code === 126) print(`/memory: could not start the editor ${JSON.stringify(editor)} (exit ${outcome.code}; set $VISUAL or $EDITOR to an editor on your PATH)`, "error");
    else print(`/memory: ${editor} ${outcome.code !== null ? `exited with ${outcome.code}` : `was ended by ${outcome.signal}`}; ${file} may not be saved`, "warning");
  };

  const host: CommandHost = {
    session,
    cwd: context.getAppState().toolPermissionContext.cwd,
    home: context.paths.home,
    model: () => provider.current.model,
    setModel,
    usage: () => view.usage,
    print,
    clearConversation: () => {
      // /clear ends the conversation as far as hooks go (Claude Code's SessionEnd reason "clear").
      void context.hookRunner?.sessionEnd?.({ context, reason: "clear" }).then(printHookNotices);
      messages.splice(0);
      transcript.compacted({ trigger: "clear", kind: "cleared", tokensBefore: view.contextTokens, tokensAfter: 0 }, []);
      view.contextTokens = 0;
      print("── conversation cleared ──");
    },
    compact: async (focus) => {
      const controller = new AbortController();
      setRunning({ controller, startedAt: Date.now(), label: "Compacting" });
      const outcome = await compactHistory({ messages, provider: provider.current, context, system: system.current, threshold: props.compactionThreshold(provider.current.model), state: compaction.current, force: true, focus, signal: controller.signal, trigger: "manual" });
      if (outcome.kind !== "failed") transcript.compacted({ trigger: "manual", kind: outcome.kind, tokensBefore: outcome.tokensBefore, tokensAfter: outcome.tokensAfter }, messages);
      view.contextTokens = outcome.tokensAfter;
      print(`compaction: ${outcome.message} (${outcome.tokensBefore} → ${outcome.tokensAfter} tokens)`, outcome.kind === "failed" ? "warning" : "info");
      setRunning(undefined);
    },
    openRewind: () => setOverlay({ kind: "rewind" }),
    openResume: () => setOverlay({ kind: "resume" }),
    outputStyle: () => outputStyle.name,
    setOutputStyle,
    openOutputStyles: () => setOverlay({ kind: "outputStyle" }),
    openMemory: () => setOverlay({ kind: "memoryEdit" }),
    exit: () => exit(),
    // The command's line is on screen already (its heading); the prompt it expands to is not shown again.
    send: (prompt) => void runPrompt(prompt, { shown: true }),
    runInBackground: (label, task) => {
      // one at a time: a new one replaces the one under way
      background.current?.controller.abort();
      const entry = { controller: new AbortController(), label };
      background.current = entry;
      setHint(label);
      void task(entry.controller.signal)
        .catch((err) => print(`${label}: ${err instanceof Error ? err.message : String(err)}`, "error"))
        .finally(() => {
          if (background.current !== entry) return;
          background.current = undefined;
          setHint((h) => (h === label ? undefined : h));
        });
    },
  };

  // Read once: the menu is a hint; a command file added later still runs when typed.
  const [menuCommands] = useState(() => commandMenu(host));

  const submit = async (text: string) => {
    if (runningRef.current) {
      queue.current.push(text);
      print(`queued: ${text.length > 60 ? `${text.slice(0, 59)}…` : text}`);
      return;
    }
    const trimmed = text.trim();
    if (trimmed.startsWith("/")) {
      // The command line heads its output, as a prompt heads the answer.
      view.add({ kind: "user", text: trimmed });
      redraw();
      try {
        if (!(await runSlashCommand(host, trimmed))) print(`unknown command ${trimmed.split(/\s/)[0]} (see /help)`, "warning");
      } catch (err) {
        print(`${trimmed.split(/\s/)[0]}: ${err instanceof Error ? err.message : String(err)}`, "error");
      }
      return;
    }
    if (trimmed.startsWith("!") && trimmed.length > 1) return runShell(trimmed.slice(1).trim());
    // `# note`: saved to a memory file the person picks; the model does not get it.
    if (trimmed.startsWith("#") && trimmed.replace(/^#+/, "").trim()) {
      view.add({ kind: "user", text: trimmed });
      redraw();
      setOverlay({ kind: "memory", note: trimmed });
      return;
    }
    await runPrompt(text);
  };

  // The next queued prompt starts when the previous one is done.
  useEffect(() => {
    if (running || queue.current.length === 0) return;
    void submit(queue.current.shift()!);
  }, [running]);

  useEffect(() => {
    if (props.initialPrompt?.trim()) void submit(props.initialPrompt);
  }, []);

  const rewindTo = (index: number) => {
    setOverlay(undefined);
    const target = messages[index];
    const text = target ? (promptText(target) ?? "") : "";
    const checkpoints = new Set(context.fileHistory.messageIds());
    const firstChanged = messages.slice(index).find((m) => m.role === "assistant" && m.id && checkpoints.has(m.id));
    let restored = "";
    if (firstChanged?.role === "assistant" && firstChanged.id) {
      const result = rewindFiles(context, firstChanged.id);
      restored = `; restored ${result.restored.length + result.deleted.length} file(s)${result.errors.length ? `, ${result.errors.length} could not be restored: ${result.errors.map((e) => `${e.filePath}: ${e.message}`).join("; ")}` : ""}`;
    }
    messages.splice(index);
    transcript.compacted({ trigger: "rewind", kind: "rewind", tokensBefore: view.contextTokens, tokensAfter: 0 }, messages);
    print(`── rewound to before: ${text.split("\n")[0]}${restored} ──`);
    setInput((i) => ({ key: i.key + 1, initial: text }));
  };

  useInput((key, k) => {
    idle.keyTyped();
    const ask = asks[0];
    if (k.ctrl && key === "c") {
      if (ask || runningRef.current) {
        for (const a of asks) answer(a, a.choices.find((c) => c.kind === "deny")!);
        runningRef.current?.controller.abort();
        return;
      }
      if (promptText_.current) {
        setInput((i) => ({ key: i.key + 1, initial: "" }));
        promptText_.current = "";
        return;
      }
      exit();
      return;
    }
    if (k.ctrl && key === "d" && !promptText_.current && !runningRef.current) return exit();
    if (k.ctrl && key === "o") {
      const next = !expanded;
      setExpanded(next);
      if (next) view.expandCollapsed();
      setHint(next ? "results shown whole (ctrl+o to collapse)" : undefined);
      redraw();
      return;
    }
    if (ask || overlay) return;
    if (k.tab && k.shift) {
      const i = props.modes.indexOf(mode);
      setMode(props.modes[(i + 1) % props.modes.length] ?? "default");
      return;
    }
    if (k.escape) {
      if (runningRef.current) {
        // The prompt is back at once; the loop still ends every call with its result, then prints what happened.
        runningRef.current.controller.abort();
        setRunning({ ...runningRef.current, interrupted: true });
        return;
      }
      if (background.current) {
        background.current.controller.abort();
        return;
      }
      if (promptText_.current) return;
      const at = Date.now();
      if (at - lastEsc.current < DOUBLE_ESC_MS) {
        lastEsc.current = 0;
        setHint(undefined);
        setOverlay({ kind: "rewind" });
      } else {
        lastEsc.current = at;
        setHint("esc again to rewind");
      }
    }
  });

  const options: RenderOptions = { columns, expanded, verbose: false, cwd: context.getCwd() };
  const ask = asks[0];
  const liveRows = Math.max(3, rows - RESERVED_ROWS);
  const contextPercent = view.contextTokens ? (view.contextTokens / props.contextWindow(provider.current.model)) * 100 : undefined;
  const cost = estimateCostUSD(provider.current.model, view.usage);

  const statusLineSetting = useMemo(() => readStatusLineSetting(context.options.settings), []);
  const statusLineEnv = useMemo(() => withoutCredentials(context.env, readPassEnv(context.options.settings)), []);
  const statusLineInput = (): StatusLineInput => {
    const cwd = context.getCwd();
    return {
      hook_event_name: "Status",
      session_id: context.sessionId,
      transcript_path: transcript.path,
      cwd,
      model: { id: provider.current.model, display_name: provider.current.model },
      workspace: { current_dir: cwd, project_dir: host.cwd },
      version: props.version,
      output_style: { name: outputStyle.name },
      permission_mode: mode,
      ...(cost !== undefined ? { cost: { total_cost_usd: cost, total_duration_ms: Date.now() - startedAt.current } } : {}),
    };
  };
  const statusLine = useStatusLineCommand(statusLineSetting, statusLineInput, `${provider.current.model}|${mode}|${outputStyle.name}|${view.items.length}|${running ? "busy" : "idle"}`, { cwd: host.cwd, env: statusLineEnv });

  const memoryEntries = () => memoryTargets(host.cwd, host.home).map((t) => ({ label: t.label, value: t.file }));
  const styleList = overlay?.kind === "outputStyle" ? loadOutputStyles(styleLocations).styles : [];
  const saveMemory = (note: string, file: string) => {
    setOverlay(undefined);
    try {
      const bullet = appendMemory(file, note);
      print(`saved to ${file}: ${bullet}`);
    } catch (err) {
      print(`could not save to ${file}: ${(err as Error).message}`, "error");
    }
  };

  const rewindEntries = messages.flatMap((m, i) => (isPrompt(m) ? [{ label: (promptText(m) ?? "").split("\n")[0] || "(empty)", value: i }] : [])).reverse();

  return (
    <>
      <Static items={[...view.items]}>
        {(item) => (
          // Static lays its items out of the flow, where nothing bounds their width: without this, text wraps wider than the terminal
          <Box key={item.id} width={columns} flexDirection="column">
            <StaticItem item={item} options={options} />
          </Box>
        )}
      </Static>
      <Box flexDirection="column">
        {view.liveText ? <Text>{clipToRows(view.liveText, liveRows, columns)}</Text> : null}
        {view.liveCalls
          .filter((call) => call.toolUseID !== ask?.request.toolUseID)
          .slice(-3)
          .map((call) => (
            <ToolCall key={call.toolUseID} call={call} options={options} />
          ))}
        {running && !ask && !running.interrupted ? <Spinner startedAt={running.startedAt} now={now} tokens={view.turnOutputTokens} label={running.label} /> : null}
        {running?.interrupted ? <Text dimColor>interrupting: stopping the running tools…</Text> : null}
        {ask?.questions ? (
          <QuestionDialog
            key={ask.request.toolUseID}
            questions={ask.questions}
            onAnswer={(answers) => answer(ask, ask.choices[0]!, undefined, answers)}
            onDecline={() => answer(ask, ask.choices.find((c) => c.kind === "deny")!)}
          />
        ) : ask ? (
          <PermissionDialog
            key={ask.request.toolUseID}
            request={ask.request}
            choices={ask.choices}
            mode={mode}
            options={options}
            rows={rows}
            onAnswer={(choice, feedback) => answer(ask, choice, feedback)}
          />
        ) : null}
        {overlay?.kind === "rewind" ? (
          <Picker title="Rewind: the conversation goes back to before this prompt, and files to how they were then" entries={rewindEntries} onPick={rewindTo} onCancel={() => setOverlay(undefined)} />
        ) : null}
        {overlay?.kind === "resume" ? (
          <Picker
            title="Resume a session of this project"
            entries={listSessions(context.paths.home, host.cwd)
              .filter((s) => s.sessionId !== context.sessionId)
              .map((s) => ({ label: `${s.modifiedAt.slice(0, 16).replace("T", " ")}  ${s.turns} turns  ${s.lastPrompt.split("\n")[0]}`, value: s.sessionId }))}
            onPick={(id) => {
              setOverlay(undefined);
              props.onResume(id);
              exit();
            }}
            onCancel={() => setOverlay(undefined)}
          />
        ) : null}
        {overlay?.kind === "outputStyle" ? (
          <Picker
            title={`Output style (now: ${outputStyle.name}); saved for this project, for you (.toolgate/settings.local.json)`}
            entries={styleList.map((s) => ({ label: `${s.name}${s.source === "builtin" ? "" : ` (${s.source})`}${s.description ? ` · ${s.description}` : ""}`, value: s.name }))}
            initial={Math.max(0, styleList.findIndex((s) => s.name === outputStyle.name))}
            onPick={(name) => {
              setOverlay(undefined);
              setOutputStyle(name);
            }}
            onCancel={() => setOverlay(undefined)}
          />
        ) : null}
        {overlay?.kind === "memory" ? (
          <Picker title="Save this note to which memory?" entries={memoryEntries()} onPick={(file) => saveMemory(overlay.note, file)} onCancel={() => {
            setOverlay(undefined);
            print("note not saved");
          }} />
        ) : null}
        {overlay?.kind === "memoryEdit" ? (
          <Picker
            title={`Open which memory file in ${context.env.VISUAL || context.env.EDITOR || "vi"}?`}
            entries={memoryEntries()}
            onPick={(file) => void editFile(file)}
            onCancel={() => setOverlay(undefined)}
          />
        ) : null}
        {/* Hidden (its text kept) while a dialog or list is open, so the live region fits the screen. */}
        <Box display={ask || overlay ? "none" : "flex"} flexDirection="column">
        <PromptInput
          key={input.key}
          initial={input.initial}
          history={props.history}
          listFiles={props.listFiles}
          listResources={() => serverConnections(context.options.mcpClients).flatMap((c) => (c.status === "connected" ? c.resources.map((r) => `${c.name}:${r.uri}`) : []))}
          commands={menuCommands}
          isActive={!ask && !overlay}
          onSubmit={(text) => void submit(text)}
          onChange={(text) => {
            promptText_.current = text;
            if (text) setHint((h) => (h === "esc again to rewind" ? undefined : h));
          }}
          placeholder={running && !running.interrupted ? "type to queue a prompt" : "ask anything · /help for commands"}
        />
        </Box>
        {statusLine.error ? (
          <Text color="yellow" dimColor wrap="truncate-end">
            {statusLine.error}
          </Text>
        ) : statusLine.line ? (
          <Box paddingLeft={statusLineSetting?.padding ?? 0}>
            <Text wrap="truncate-end">{statusLine.line}</Text>
          </Box>
        ) : null}
        <StatusLine model={provider.current.model} mode={mode} contextPercent={contextPercent} costUSD={cost} pendingApproval={asks.length > 0} hint={hint} />
      </Box>
    </>
  );
}
