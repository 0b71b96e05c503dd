/**
 * What the screen shows, built from the agent loop's events: finished items go to the scrollback once (they are
 * never drawn again), the live part (streaming text, calls still running) is all that redraws.
 */
import type { AgentEvent, UsageTotals } from "../agent/query.js";
import type { Message, TextBlock, ToolResultBlockParam, ToolUseBlock } from "../core/messages.js";
import { COMPACTION_HEAD, isPrompt, promptText } from "../agent/history.js";

/** A resumed session draws at most this many of its last messages. */
const REPLAY_MAX_MESSAGES = 200;
import type { ToolUseOutcome } from "../core/pipeline/status.js";
import { SANDBOX_AUTO_ALLOW_REASON } from "../sandbox/policy.js";
import type { RenderedResult } from "./toolRenderer.js";

export interface ToolCallView {
  toolUseID: string;
  name: string;
  /** The input so far: partial while the model streams it, whole once the call is complete. */
  input: Record<string, unknown>;
  complete: boolean;
  status: "streaming" | "queued" | "validating" | "awaiting_permission" | "running" | "done";
  progress: unknown[];
  result?: RenderedResult;
  /** The model turn the call belongs to; parallel uses of one tool are grouped within a turn. */
  turn: number;
  /** It runs only because the sandbox contains it (no rule allowed it): read-only, no network. */
  sandboxed?: boolean;
}

export type Item =
  | { kind: "user"; id: string; text: string }
  | { kind: "assistant"; id: string; text: string }
  | { kind: "tools"; id: string; calls: ToolCallView[]; expanded: boolean }
  | { kind: "notice"; id: string; level: "info" | "warning" | "error"; text: string };

/** An item before it gets its id (Omit over each member of the union). */
export type NewItem = Item extends infer T ? (T extends Item ? Omit<T, "id"> : never) : never;

/** The text of a tool_result for the user: text blocks joined, other blocks named. */
export function resultText(content: ToolResultBlockParam["content"]): string {
  if (typeof content === "string") return content;
  return content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");
}

const EMPTY_USAGE = (): UsageTotals => ({ inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, source: "api" });

export class ConversationView {
  /** Finished items, in order; only ever appended to (the scrollback cannot be redrawn). */
  readonly items: Item[] = [];
  /** The model's text still streaming. */
  liveText = "";
  /** Calls of the current turn that are not in the scrollback yet, in the order the model made them. */
  liveCalls: ToolCallView[] = [];
  /** Tokens the model produced in the current request (from its usage events, else estimated). */
  turnOutputTokens = 0;
  /** Context used by the last request: its input plus output tokens. */
  contextTokens = 0;
  readonly usage: UsageTotals = EMPTY_USAGE();
  /** Results drawn collapsed since the last Ctrl+O. */
  private collapsed: ToolCallView[] = [];
  private nextId = 0;
  private turnTextChars = 0;

  constructor(private readonly isTruncated: (call: ToolCallView) => boolean = () => false) {}

  private id(): string {
    return `i${this.nextId++}`;
  }

  add(item: NewItem): void {
    this.items.push({ ...item, id: this.id() } as Item);
  }

  /** The streamed text so far becomes a finished item (a tool call or the message's end follows it). */
  private flushText(): void {
    const text = this.liveText.trim();
    if (text) this.add({ kind: "assistant", text });
    this.liveText = "";
  }

  /** Calls whose turn is over and which are all done go to the scrollback, grouped as the model made them. */
  private flushCalls(): void {
    if (this.liveCalls.length === 0) return;
    this.add({ kind: "tools", calls: this.liveCalls, expanded: false });
    for (const call of this.liveCalls) if (call.result && this.isTruncated(call)) this.collapsed.push(call);
    this.liveCalls = [];
  }

  private call(toolUseID: string): ToolCallView | undefined {
    return this.liveCalls.find((c) => c.toolUseID === toolUseID);
  }

  apply(event: AgentEvent): void {
    switch (event.type) {
      case "stream": {
        const e = event.event;
        if (e.type === "message_start") {
          this.turnOutputTokens = 0;
          this.turnTextChars = 0;
        } else if (e.type === "text_delta") {
          // Text after a turn's calls starts a new block: the calls go first, in their order.
          if (this.liveCalls.length && this.liveCalls.every((c) => c.status === "done")) this.flushCalls();
          this.liveText += e.text;
          this.turnTextChars += e.text.length;
          this.turnOutputTokens = Math.max(this.turnOutputTokens, Math.ceil(this.turnTextChars / 4));
        } else if (e.type === "tool_call_start") {
          this.flushText();
          this.liveCalls.push({ toolUseID: e.id, name: e.name, input: {}, complete: false, status: "streaming", progress: [], turn: event.turn });
        } else if (e.type === "tool_input_delta") {
          const call = this.call(e.id);
          const partial = e.partial;
          if (call && !call.complete && partial && typeof partial === "object" && !Array.isArray(partial)) call.input = partial as Record<string, unknown>;
        } else if (e.type === "tool_call_complete") {
          const call = this.call(e.id);
          if (call) {
            call.input = e.input;
            call.complete = true;
            if (call.status === "streaming") call.status = "queued";
          }
        } else if (e.type === "tool_call_error") {
          const call = this.call(e.id);
          if (call) {
            call.complete = true;
            call.status = "done";
            call.result = { content: e.message, isError: true, outcome: "invalid_input" };
          }
        } else if (e.type === "usage") {
          this.turnOutputTokens = e.usage.output;
          this.contextTokens = (e.usage.context ?? e.usage.input + e.usage.cacheRead + e.usage.cacheWrite) + e.usage.output;
        }
        break;
      }
      case "assistant":
        this.flushText();
        break;
      case "tool": {
        const update = event.update;
        const call = this.call(update.toolUseID);
        if (!call) break;
        if (update.type === "status") {
          if (update.status !== "done") call.status = update.status;
          const reason = update.status === "running" ? update.decision?.decisionReason : undefined;
          if (reason?.type === "other" && reason.reason === SANDBOX_AUTO_ALLOW_REASON) call.sandboxed = true;
        } else if (update.type === "progress") {
          call.progress.push(update.data);
          // Only the recent progress is drawn; a chatty tool must not grow memory without bound.
          if (call.progress.length > 50) call.progress.splice(0, call.progress.length - 50);
        } else if (update.type === "result") {
          call.status = "done";
          call.result = {
            output: update.output,
            content: update.block.content,
            isError: update.block.is_error === true,
            outcome: update.outcome as ToolUseOutcome,
            durationMs: update.durationMs,
          };
        }
        break;
      }
      case "user":
        // The tool results went back to the model: this turn's calls are finished whatever their state.
        if (Array.isArray(event.message.content) && event.message.content.some((b) => b.type === "tool_result")) {
          for (const block of event.message.content) {
            if (block.type !== "tool_result") continue;
            const call = this.call(block.tool_use_id);
            if (call && !call.result) {
              call.status = "done";
              call.result = { content: block.content, isError: block.is_error === true, outcome: block.is_error ? "cancelled" : "success" };
            }
          }
          this.flushCalls();
        }
        break;
      case "notice":
        this.add({ kind: "notice", level: event.level, text: event.message });
        break;
      case "prompt_refused":
        this.add({ kind: "notice", level: "warning", text: "The model server refused this prompt, so it was not kept in the conversation; its text is back in the input to change and send again." });
        break;
      case "history_repaired":
        this.add({ kind: "notice", level: "warning", text: `history repaired: ${event.problems.join("; ")}` });
        break;
      case "compact_boundary":
        this.add({ kind: "notice", level: event.outcome.kind === "failed" ? "warning" : "info", text: `compaction (${event.trigger}): ${event.outcome.message}, ${event.outcome.tokensBefore} → ${event.outcome.tokensAfter} tokens` });
        break;
      case "result": {
        this.flushText();
        this.flushCalls();
        const u = event.result.usage;
        this.usage.inputTokens += u.inputTokens;
        this.usage.outputTokens += u.outputTokens;
        this.usage.cacheReadInputTokens += u.cacheReadInputTokens;
        this.usage.cacheCreationInputTokens += u.cacheCreationInputTokens;
        if (u.source === "estimate") this.usage.source = "estimate";
        const r = event.result;
        if (r.reason === "aborted") this.add({ kind: "notice", level: "warning", text: "Interrupted. Tell the model what to do instead." });
        else if (r.reason !== "completed") this.add({ kind: "notice", level: "error", text: r.error ?? `stopped: ${r.reason}` });
        break;
      }
    }
  }

  /**
   * A resumed conversation, drawn as it went: the prompts, the model's text, and its calls with their results
   * (as the model got them). A compaction's summary is one line, not the summary.
   */
  replay(history: readonly Message[], maxMessages = REPLAY_MAX_MESSAGES): void {
    // A long session is shown from a prompt among its last messages; the model still has all of it.
    let start = 0;
    if (history.length > maxMessages) {
      start = history.findIndex((m, i) => i >= history.length - maxMessages && isPrompt(m));
      if (start < 0) start = history.length - maxMessages;
      this.add({ kind: "notice", level: "info", text: `(${start} earlier messages of this session are not shown)` });
    }
    const messages = history.slice(start);
    messages.forEach((message, index) => {
      if (message.role === "user") {
        const text = promptText(message);
        if (text === undefined) return;
        if (text.startsWith(COMPACTION_HEAD)) this.add({ kind: "notice", level: "info", text: "(the conversation before this point was compacted into a summary)" });
        else this.add({ kind: "user", text });
        return;
      }
      const next = messages[index + 1];
      const results = new Map<string, ToolResultBlockParam>();
      if (next?.role === "user" && typeof next.content !== "string") for (const b of next.content) if (b.type === "tool_result") results.set(b.tool_use_id, b);
      for (const part of message.content) {
        // The open member of the union (thinking and other blocks) makes the type checks explicit here.
        const block = part as TextBlock | ToolUseBlock | { type: "other" };
        if (block.type === "text" && typeof block.text === "string" && block.text.trim()) {
          this.flushCalls();
          this.add({ kind: "assistant", text: block.text.trim() });
        } else if (block.type === "tool_use" && typeof block.id === "string" && typeof block.name === "string") {
          const result = results.get(block.id);
          this.liveCalls.push({
            toolUseID: block.id,
            name: block.name,
            input: (block.input ?? {}) as Record<string, unknown>,
            complete: true,
            status: "done",
            progress: [],
            turn: index,
            ...(result ? { result: { content: result.content, isError: result.is_error === true, outcome: result.is_error ? "tool_error" : "success" } } : {}),
          });
        }
      }
      this.flushCalls();
    });
  }

  /** Ctrl+O: the results drawn collapsed since the last time, printed again whole. Returns how many. */
  expandCollapsed(): number {
    const calls = this.collapsed;
    this.collapsed = [];
    if (calls.length) this.add({ kind: "tools", calls, expanded: true });
    return calls.length;
  }
}
