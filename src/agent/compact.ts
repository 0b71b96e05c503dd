/**
 * Compaction: when the next request would not fit the model's window (minus room for its answer and a margin),
 * the older part of the conversation is replaced. First the cheap step: old large tool outputs are cleared.
 * If that is not enough, a model call (no tools) summarises the older part; the new history is the summary,
 * every user message's text verbatim, the files read most recently (current contents, within a budget), and
 * the most recent turns verbatim. The project instructions stay in the system prompt.
 */
import fs from "node:fs";
import type { ToolUseContext } from "../core/Tool.js";
import type { Message, TextBlock, ToolResultBlockParam, UserMessage } from "../core/messages.js";
import { formatError } from "../core/errors.js";
import { COMPACTION_HEAD, isPrompt, promptText, textOf } from "./history.js";
import { compactedTodoList } from "./todos.js";
import { formatSkillListing } from "../tools/Skill/catalog.js";
import { countContextTokens, estimateTokens, MessageAssembler, type ModelInfo, type Provider, type Usage } from "../providers/index.js";

/** At most this many characters of skills found during the session go into a compaction's summary message. */
const DISCOVERED_SKILLS_BUDGET_CHARS = 2_000;
/** Room kept free besides the answer's: estimates are rough and the system prompt and tools also count. */
export const COMPACTION_MARGIN_TOKENS = 2_000;
/** Share of the threshold the recent turns kept verbatim may use (the last prompt's turn is always kept). */
export const RECENT_SHARE = 0.25;
/** Tool outputs longer than this, older than the recent tail, are cleared first. */
export const CLEARABLE_RESULT_CHARS = 2_000;
export const MAX_FAILED_COMPACTIONS = 3;
const REINJECT_FILES = 5;
const REINJECT_CHARS = 40_000;
const CLEARED_TEXT = "[This older tool output was cleared to save context. Run the tool again if you need it.]";

const SUMMARY_PROMPT = `You summarise the earlier part of a conversation between a user and a coding agent, so the agent can continue the work without it. Write a dense summary with these headings:
1. The user's requests and intent (all of them, in order, with exact wording where it matters).
2. Key decisions, constraints and corrections the user gave.
3. Files read or changed, and what matters about them (paths, functions, the state they are in).
4. Commands run and their important results (test failures, errors, outputs).
5. Work done, work pending, and the exact next step.
Do not call tools. Do not add anything that did not happen.`;

export interface CompactionState {
  /** Usage reported for the last request and how many messages it covered (for the token count). */
  lastUsage?: { usage: Usage; messageCount: number };
  failures: number;
}

export function compactionThreshold(model: ModelInfo): number {
  return Math.max(1_000, model.contextWindow - model.maxOutputTokens - COMPACTION_MARGIN_TOKENS);
}

export interface CompactionOutcome {
  kind: "cleared" | "summarised" | "failed";
  tokensBefore: number;
  tokensAfter: number;
  /** Why it failed, or what was done, in one sentence for the user. */
  message: string;
}

/**
 * Where the recent tail kept verbatim starts: always at a user prompt (not a tool result, so no call is split
 * from its result). It holds the last prompt and what followed, plus earlier turns while they fit `budget` tokens.
 */
function tailStart(messages: readonly Message[], budget: number): number {
  let start = messages.length;
  let tokens = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    tokens += countContextTokens([messages[i]]).tokens;
    if (!isPrompt(messages[i])) continue;
    if (start < messages.length && tokens > budget) break;
    start = i;
  }
  if (start > 0 && start < messages.length) return start;
  // One long turn (a single prompt, many tool calls): split it at one of the model's messages instead.
  tokens = 0;
  let split = 0;
  for (let i = messages.length - 1; i > 0; i--) {
    tokens += countContextTokens([messages[i]]).tokens;
    if (messages[i].role !== "assistant") continue;
    if (split && tokens > budget) break;
    split = i;
  }
  return split;
}

/** The cheap step: clears large tool outputs older than the recent tail. Returns how many were cleared. */
export function clearOldToolOutputs(messages: Message[], budget: number): number {
  const end = tailStart(messages, budget);
  let cleared = 0;
  for (let i = 0; i < end; i++) {
    const message = messages[i];
    if (message.role !== "user" || typeof message.content === "string") continue;
    let changed = false;
    const content = message.content.map((block): (typeof message.content)[number] => {
      if (block.type !== "tool_result") return block;
      const size = typeof block.content === "string" ? block.content.length : JSON.stringify(block.content).length;
      if (size <= CLEARABLE_RESULT_CHARS || block.content === CLEARED_TEXT) return block;
      changed = true;
      cleared++;
      return { ...block, content: CLEARED_TEXT };
    });
    if (changed) messages[i] = { role: "user", content };
  }
  return cleared;
}

function recentFiles(context: ToolUseContext): string {
  const states = context.readFileState
    .keys()
    .map((file) => ({ file, state: context.readFileState.get(file) }))
    .filter((e) => e.state)
    .sort((a, b) => b.state!.timestamp - a.state!.timestamp)
    .slice(0, REINJECT_FILES);
  let budget = REINJECT_CHARS;
  const parts: string[] = [];
  for (const { file } of states) {
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    if (budget <= 0) break;
    const shown = text.length > budget ? `${text.slice(0, budget)}\n[cut; read the file for the rest]` : text;
    budget -= shown.length;
    parts.push(`Current contents of ${file} (read earlier in this session):\n${shown}`);
  }
  return parts.join("\n\n");
}

/**
 * Compacts `messages` in place. Clearing comes first; a summary only when clearing is not enough (or `force`,
 * for /compact). Never throws: a failure leaves the history as it was and says why.
 */
/** Skills the catalog knows that the system prompt does not list (found during the session), as a listing. */
function skillsOutsideSystemPrompt(context: ToolUseContext, system: readonly string[]): string | undefined {
  const known = context.skills?.list() ?? [];
  if (!known.length) return undefined;
  const prompt = system.join("\n");
  const missing = known.filter((skill) => !prompt.includes(`\n- ${skill.name}: `));
  const listing = formatSkillListing(missing, DISCOVERED_SKILLS_BUDGET_CHARS);
  return listing && `Skills found during this session (beyond the system prompt's list):\n${listing}`;
}

export async function compactHistory(args: {
  messages: Message[];
  provider: Provider;
  context: ToolUseContext;
  system: readonly string[];
  threshold: number;
  state: CompactionState;
  force?: boolean;
  focus?: string;
  signal?: AbortSignal;
  /** For PreCompact hooks: /compact (or the control request) is manual, the loop's own compaction auto. Default: manual when forced. */
  trigger?: "manual" | "auto";
}): Promise<CompactionOutcome> {
  const { messages } = args;
  const tokensBefore = countContextTokens(messages, args.state.lastUsage).tokens;
  const trigger = args.trigger ?? (args.force ? "manual" : "auto");
  const hooks = await args.context.hookRunner?.preCompact?.({ context: args.context, trigger, customInstructions: args.focus ?? "" });
  // Claude Code lets a PreCompact hook stop a compaction the user asked for; the loop's own goes on (the request must fit).
  if (hooks?.block && trigger === "manual") {
    return { kind: "failed", tokensBefore, tokensAfter: tokensBefore, message: `a PreCompact hook blocked the compaction: ${hooks.block.reason}` };
  }
  // What the user should hear from the hooks rides on the outcome's one-sentence message.
  const hookNote = [
    ...(hooks?.block ? [`a PreCompact hook asked to block it (${hooks.block.reason}), but an automatic compaction must go on`] : []),
    ...(hooks?.notices ?? []).filter((n) => n.level !== "info").map((n) => n.message),
  ].join("; ");
  const withNote = (outcome: CompactionOutcome): CompactionOutcome => (hookNote ? { ...outcome, message: `${outcome.message} (${hookNote})` } : outcome);
  if (!args.force) {
    const cleared = clearOldToolOutputs(messages, args.threshold * RECENT_SHARE);
    const afterClearing = countContextTokens(messages).tokens;
    if (cleared > 0 && afterClearing < args.threshold) {
      args.state.lastUsage = undefined;
      return withNote({ kind: "cleared", tokensBefore, tokensAfter: afterClearing, message: `cleared ${cleared} old tool output(s)` });
    }
  }
  const start = tailStart(messages, args.threshold * RECENT_SHARE);
  const older = messages.slice(0, start);
  if (older.length === 0) return withNote({ kind: "failed", tokensBefore, tokensAfter: tokensBefore, message: "nothing older than the recent turns to summarise" });
  const assembler = new MessageAssembler();
  try {
    const instruction = `Summarise the conversation above as instructed.${args.focus ? ` Focus on: ${args.focus}` : ""}`;
    for await (const event of args.provider.stream(
      {
        model: args.provider.model,
        system: SUMMARY_PROMPT,
        // The older part must end with a user message for the summary request; an assistant ending gets one added.
        messages: [...older, { role: "user", content: [{ type: "text", text: instruction }] }],
        maxTokens: 4_096,
      },
      args.signal,
    )) {
      assembler.push(event);
    }
  } catch (err) {
    assembler.push({ type: "error", error: { kind: "unknown", retryable: false, message: formatError(err) } });
  }
  const summary = textOf(assembler.message().content).trim();
  if (!assembler.stop?.complete || !summary) {
    const why = assembler.errors.at(-1)?.message ?? "the model gave no summary";
    return withNote({ kind: "failed", tokensBefore, tokensAfter: tokensBefore, message: `compaction failed: ${why}` });
  }
  const requests = older.flatMap((m) => {
    const text = promptText(m);
    return text?.trim() ? [text] : [];
  });
  const files = recentFiles(args.context);
  // The task list lives in TodoWrite calls that are about to be summarised away: it is kept here instead.
  const todos = args.context.todos?.get() ?? [];
  // Skills found near edited files were announced in write results that are summarised away too.
  const skills = skillsOutsideSystemPrompt(args.context, args.system);
  const head: UserMessage = {
    role: "user",
    content: [
      { type: "text", text: `${COMPACTION_HEAD} the earlier conversation is summarised below, and the most recent turns follow verbatim.\n\n<summary>\n${summary}\n</summary>` },
      ...(requests.length ? [{ type: "text" as const, text: `Everything the user asked earlier, verbatim:\n${requests.map((r, i) => `${i + 1}. ${r}`).join("\n")}` }] : []),
      ...(files ? [{ type: "text" as const, text: files }] : []),
      ...(todos.length ? [{ type: "text" as const, text: compactedTodoList(todos) }] : []),
      ...(skills ? [{ type: "text" as const, text: skills }] : []),
    ],
  };
  const tail = messages.slice(start);
  // Roles must alternate: a tail that starts with the model's message follows the summary directly.
  const bridge: Message[] = tail[0]?.role === "assistant" ? [] : [{ role: "assistant", content: [{ type: "text", text: "Understood. I will continue from the summary." }] }];
  messages.splice(0, messages.length, head, ...bridge, ...tail);
  args.state.lastUsage = undefined;
  const tokensAfter = countContextTokens(messages).tokens + estimateTokens(args.system.join("\n"));
  return withNote({ kind: "summarised", tokensBefore, tokensAfter, message: `summarised ${older.length} older message(s)` });
}
