/**
 * Speculative tool calls: while the model still streams a tool_use's input, a call whose input is already
 * settled (parseSettledJsonPrefix), whose tool says it is speculation-safe, read-only and concurrency-safe for
 * it, that no PreToolUse hook matches and that the permission rules allow without asking, starts early. Its
 * context records instead of changing the session (read state, shell cwd). When the block is complete the
 * real call goes through the whole pipeline as always; at the moment it would call its tool it claims the
 * speculative run, which is used only if the tool finds the inputs equivalent and the verdict is the same.
 * Otherwise the run is cancelled and thrown away, and the call runs. A speculative run never produces a
 * result of its own: the real call's pipeline gives the one tool_result.
 */
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import type {
  AnyObject,
  AnyTool,
  CanUseToolFn,
  SpeculationClaim,
  SpeculationReport,
  SpeculativeCalls,
  SpeculativeRun,
  ToolResult,
  ToolUseContext,
} from "../Tool.js";
import type { AssistantMessage } from "../messages.js";
import type { PermissionDecision } from "../permissionTypes.js";
import { findToolByName, getCurrentTools } from "../registry.js";
import { parseToolInput } from "../validation.js";
import { decideWithoutRules } from "../permissionOrder.js";
import { AbortError } from "../errors.js";
import { createFileStateOverlay, type FileStateOverlay } from "../fileStateCache.js";
import { parseSettledJsonPrefix } from "../../providers/partialJson.js";

/** Inputs longer than this are not parsed while they stream (each delta would rescan the whole prefix). */
export const MAX_SPECULATED_INPUT_CHARS = 16_384;
/** Runs per block at most: each newer settled prefix that the tool finds different may start one more. */
export const MAX_SPECULATIONS_PER_BLOCK = 3;

/** `speculativeToolCalls` in settings.json: false turns speculation off (default on). */
export const speculationSettingsSection = {
  key: "speculativeToolCalls",
  schema: z.boolean(),
};

export function speculationEnabled(settings: Readonly<Record<string, unknown>>): boolean {
  return settings.speculativeToolCalls !== false;
}

export interface ToolSpeculatorOptions {
  /** The context the executor runs this message's calls with. */
  context: ToolUseContext;
  /** The turn's signal: aborting it cancels every speculative run. */
  signal: AbortSignal;
  assistantMessage: AssistantMessage;
  /** A speculative run started (its tool was called). */
  onStart?(info: { toolUseID: string; toolName: string }): void;
  /** What became of a run (also sent to telemetry). */
  onReport?(report: SpeculationReport): void;
}

export interface ToolSpeculator extends SpeculativeCalls {
  blockStarted(id: string, name: string): void;
  /** The block's input so far. */
  inputDelta(id: string, partialJson: string): void;
  /** The block is complete (call this before the executor gets it). */
  blockCompleted(id: string, input: Record<string, unknown>): void;
  /** The block will not run (its input did not parse, or the loop refused it). */
  blockFailed(id: string): void;
  /** The block's real call has its result. */
  resultArrived(id: string): void;
  /** The model's message ended (also cut short): runs of blocks that never completed are thrown away. */
  messageEnded(): void;
  /** The message's calls are over: every run not claimed is thrown away; nothing new starts. */
  dispose(): void;
  /** Resolves once no pre-check (parse, validation, permission) is in flight: what was going to start has started. */
  whenIdle(): Promise<void>;
}

interface Prediction {
  tool: AnyTool;
  input: AnyObject;
  observable: AnyObject;
  prepared: unknown;
  decision: PermissionDecision;
}

interface Speculation extends Prediction {
  controller: AbortController;
  overlay: FileStateOverlay;
  startedAt: number;
  settledAt?: number;
  state: "running" | "claimed" | "dropped";
  result: Promise<ToolResult<unknown>>;
  progress: unknown[];
  listener?: (data: unknown) => void;
  /** Hands what the run recorded (read state, shell cwd) to the session; later changes then pass straight through. */
  commit?: () => void;
}

interface Block {
  id: string;
  name: string;
  /** Known once its block is complete: whether it only reads and may run beside others. */
  readsOnly?: boolean;
  completeAt?: number;
  failed: boolean;
  resultDone: boolean;
  /** Never speculate (a writer before it, hooks for its tool, a tool that does not allow it). */
  never: boolean;
  partialJson?: string;
  /** The last settled prefix tried, so a delta that settles nothing new costs no check. */
  tried?: string;
  attempts: number;
  checking: boolean;
  spec?: Speculation;
}

/** The tool's own equivalence, else deep equality, on the observable inputs. */
export function inputsEquivalent(tool: AnyTool, predicted: AnyObject, actual: AnyObject): boolean {
  try {
    return tool.inputsEquivalent ? Boolean(tool.inputsEquivalent(predicted, actual)) : isDeepStrictEqual(predicted, actual);
  } catch {
    return false;
  }
}

/** The real call was allowed for the same reason and judged the same file. */
function sameVerdict(predicted: PermissionDecision, actual: PermissionDecision | undefined): boolean {
  return (
    actual?.behavior === "allow" &&
    isDeepStrictEqual(predicted.decisionReason, actual.decisionReason) &&
    isDeepStrictEqual(predicted.checkedPath, actual.checkedPath)
  );
}

function readsOnly(tool: AnyTool, input: AnyObject): boolean {
  try {
    return Boolean(tool.isReadOnly(input)) && Boolean(tool.isConcurrencySafe(input));
  } catch {
    return false;
  }
}

const neverAsk: CanUseToolFn = async (tool) => ({ behavior: "deny", message: `A speculative ${tool.name} call cannot ask for permission.` });

export function createToolSpeculator(options: ToolSpeculatorOptions): ToolSpeculator {
  const { context, signal } = options;
  const blocks = new Map<string, Block>();
  const order: Block[] = [];
  let disposed = false;
  const checks = new Set<Promise<void>>();

  const report = (block: Block, spec: Speculation, outcome: SpeculationReport["outcome"]) => {
    const now = performance.now();
    const end = block.completeAt ?? now;
    const entry: SpeculationReport = {
      toolName: spec.tool.name,
      toolUseID: block.id,
      outcome,
      readyAtBlockEnd: outcome === "hit" && spec.settledAt !== undefined && spec.settledAt <= end,
      headStartMs: Math.max(0, end - spec.startedAt),
      wastedMs: outcome === "hit" ? 0 : (spec.settledAt ?? now) - spec.startedAt,
    };
    try {
      context.telemetry?.speculation?.(entry);
    } catch {
      // telemetry is best effort
    }
    options.onReport?.(entry);
  };

  const drop = (block: Block, outcome: "miss" | "discarded") => {
    const spec = block.spec;
    if (!spec || spec.state !== "running") return;
    spec.state = "dropped";
    spec.controller.abort(new AbortError("This speculative call was discarded."));
    report(block, spec, outcome);
  };

  /** Every block before this one is settled and changed nothing the speculative run could see. */
  const earlierSettled = (block: Block): "yes" | "not yet" | "never" => {
    for (const earlier of order) {
      if (earlier === block) return "yes";
      if (earlier.failed) continue;
      if (earlier.completeAt === undefined) return "not yet";
      if (!earlier.readsOnly) return "never";
      if (!earlier.resultDone) return "not yet";
    }
    return "never";
  };

  const predict = async (block: Block, value: Record<string, unknown>): Promise<Prediction | undefined> => {
    const tool = findToolByName(getCurrentTools(context), block.name);
    if (!tool || !tool.isSpeculationSafe || !tool.isEnabled()) {
      block.never = true;
      return undefined;
    }
    // Hooks have side effects of their own: a tool any PreToolUse hook matches is never speculated.
    if (context.hookRunner && context.hookRunner.hasToolHooks?.("PreToolUse", tool) !== false) {
      block.never = true;
      return undefined;
    }
    const parsed = parseToolInput(tool.inputSchema, value);
    if (!parsed.success) return undefined;
    const input = parsed.data as AnyObject;
    const observable = { ...input };
    tool.backfillObservableInput?.(observable, context);
    const validation = tool.validateInput ? await tool.validateInput(input, context) : { result: true as const };
    if (!validation.result) return undefined;
    if (!readsOnly(tool, input) || !tool.isSpeculationSafe(input)) return undefined;
    const decision = await (context.permissionDecider
      ? context.permissionDecider(tool, observable, context, { toolUseID: block.id })
      : decideWithoutRules(tool, observable, context, undefined));
    // Only a plain allow: an ask is never started early, and neither is an input the permission step would change.
    if (decision.behavior !== "allow" || (decision.updatedInput && !isDeepStrictEqual(decision.updatedInput, observable))) return undefined;
    return { tool, input, observable, prepared: validation.prepared, decision };
  };

  const start = (block: Block, prediction: Prediction) => {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    const overlay = createFileStateOverlay(context.readFileState);
    let cwd: string | undefined;
    const spec: Speculation = {
      ...prediction,
      controller,
      overlay,
      startedAt: performance.now(),
      state: "running",
      progress: [],
      result: undefined as unknown as Promise<ToolResult<unknown>>,
    };
    const specContext: ToolUseContext = Object.assign({}, context, {
      abortController: controller,
      readFileState: overlay,
      getCwd: () => (spec.state !== "claimed" && cwd !== undefined ? cwd : context.getCwd()),
      setCwd: (dir: string) => {
        if (spec.state === "claimed") context.setCwd(dir);
        else cwd = dir;
      },
      toolUseID: block.id,
      validated: prediction.prepared,
      permissionDecision: prediction.decision,
      telemetry: undefined,
      speculativeCalls: undefined,
    });
    spec.commit = () => {
      overlay.commit();
      if (cwd !== undefined) context.setCwd(cwd);
    };
    spec.result = Promise.resolve()
      .then(() =>
        prediction.tool.call(prediction.input, specContext, neverAsk, options.assistantMessage, (update) => {
          if (spec.state === "dropped") return;
          if (spec.listener) spec.listener(update.data);
          else spec.progress.push(update.data);
        }),
      )
      .finally(() => {
        spec.settledAt = performance.now();
        signal.removeEventListener("abort", onAbort);
      });
    // A dropped run's failure is nobody's result.
    spec.result.catch(() => undefined);
    block.spec = spec;
    block.attempts++;
    options.onStart?.({ toolUseID: block.id, toolName: prediction.tool.name });
  };

  const consider = (block: Block) => {
    if (disposed || signal.aborted || block.never || block.checking || block.completeAt !== undefined) return;
    if (block.attempts >= MAX_SPECULATIONS_PER_BLOCK || block.partialJson === undefined || block.partialJson.length > MAX_SPECULATED_INPUT_CHARS) return;
    // One run at a time per block: a newer prefix waits for the running one to settle.
    if (block.spec?.state === "running" && block.spec.settledAt === undefined) return;
    const value = parseSettledJsonPrefix(block.partialJson);
    if (!value) return;
    const key = JSON.stringify(value);
    if (key === block.tried) return;
    const ready = earlierSettled(block);
    if (ready === "never") {
      block.never = true;
      return;
    }
    if (ready === "not yet") return;
    block.tried = key;
    block.checking = true;
    const check: Promise<void> = predict(block, value)
      .then((prediction) => {
        block.checking = false;
        if (!prediction || disposed || signal.aborted || block.completeAt !== undefined) return;
        const running = block.spec?.state === "running" ? block.spec : undefined;
        if (running && inputsEquivalent(prediction.tool, running.observable, prediction.observable)) return;
        if (running) drop(block, "miss");
        start(block, prediction);
      })
      .catch(() => {
        block.checking = false;
      })
      .finally(() => {
        checks.delete(check);
        consider(block);
      });
    checks.add(check);
  };

  const considerLater = () => {
    for (const block of order) if (block.completeAt === undefined) consider(block);
  };

  const dispose = () => {
    disposed = true;
    for (const block of order) drop(block, "discarded");
  };
  if (signal.aborted) disposed = true;
  else signal.addEventListener("abort", dispose, { once: true });

  return {
    blockStarted(id, name) {
      if (blocks.has(id)) return;
      const block: Block = { id, name, failed: false, resultDone: false, never: false, attempts: 0, checking: false };
      blocks.set(id, block);
      order.push(block);
    },
    inputDelta(id, partialJson) {
      const block = blocks.get(id);
      if (!block) return;
      block.partialJson = partialJson;
      consider(block);
    },
    blockCompleted(id, input) {
      const block = blocks.get(id);
      if (!block) return;
      block.completeAt = performance.now();
      const tool = findToolByName(getCurrentTools(context), block.name);
      const parsed = tool ? parseToolInput(tool.inputSchema, input) : undefined;
      block.readsOnly = Boolean(tool && parsed?.success && readsOnly(tool, parsed.data as AnyObject));
    },
    blockFailed(id) {
      const block = blocks.get(id);
      if (!block) return;
      block.failed = true;
      block.completeAt ??= performance.now();
      drop(block, "discarded");
      considerLater();
    },
    resultArrived(id) {
      const block = blocks.get(id);
      if (!block) return;
      block.resultDone = true;
      // The real call ended without claiming the run (refused, cancelled): it is thrown away.
      drop(block, "discarded");
      considerLater();
    },
    claim(call: SpeculationClaim): SpeculativeRun | undefined {
      const block = blocks.get(call.toolUseID);
      const spec = block?.spec;
      if (!block || !spec || spec.state !== "running") return undefined;
      if (spec.tool !== call.tool || !inputsEquivalent(spec.tool, spec.observable, call.observable) || !sameVerdict(spec.decision, call.decision)) {
        drop(block, "miss");
        return undefined;
      }
      spec.state = "claimed";
      spec.commit?.();
      report(block, spec, "hit");
      return {
        result: spec.result,
        onProgress(listener) {
          for (const data of spec.progress.splice(0)) listener(data);
          spec.listener = listener;
        },
        abort: (reason) => spec.controller.abort(reason),
      };
    },
    messageEnded() {
      // Every block is complete now or never will be: nothing new may start.
      disposed = true;
      for (const block of order) if (block.completeAt === undefined) drop(block, "discarded");
    },
    dispose: () => {
      signal.removeEventListener("abort", dispose);
      dispose();
    },
    async whenIdle() {
      while (checks.size) await Promise.allSettled([...checks]);
    },
  };
}
