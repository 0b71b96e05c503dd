/** Types for scripts/fake-model.mjs (see README "Scripted model server" for the script format). */
export interface FakeModelScript {
  turns: FakeModelTurn[];
  /** Start again from the first turn when the last one was played (for long scripted sessions). */
  loop?: boolean;
}

export type FakeModelBlock =
  | { type: "text"; text: string; chunks?: number }
  | { type: "thinking"; thinking: string; signature?: string; chunks?: number }
  | { type: "redacted_thinking"; data?: string }
  | { type: "tool_use"; id: string; name: string; input?: unknown; rawInput?: string; chunks?: number };

export interface FakeModelStep {
  /** Run after this many content blocks were sent (0 = before the first). */
  after?: number;
  delayMs?: number;
  stallMs?: number;
  waitForFile?: string;
  timeoutMs?: number;
  error?: { type?: string; message?: string; code?: string };
  /** The response fails here: response.failed on the Responses API, an error event elsewhere. */
  failed?: { code?: string; message?: string };
  drop?: boolean;
}

export interface FakeModelTurn {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  responseDelayMs?: number;
  id?: string;
  content?: FakeModelBlock[];
  stop_reason?: "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal" | string;
  usage?: { input_tokens?: number; output_tokens?: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number };
  chunks?: number;
  delayMs?: number;
  steps?: FakeModelStep[];
  openai?: { argumentsAsObject?: boolean; omitIds?: boolean; oneChunk?: boolean; finishReason?: string | null; reasoningField?: string };
  /** Responses API: `json` answers with the whole response object even when the request asked for a stream. */
  responses?: { json?: boolean };
}

export interface RecordedRequest {
  protocol: "anthropic" | "openai" | "openai-responses";
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** Index of the turn that answered it, -1 when the script had none left. */
  turn: number;
  receivedAt: number;
}

export interface FakeModelServer {
  port: number;
  url: string;
  requests(): RecordedRequest[];
  played(): number;
  setScript(script: FakeModelScript): void;
  close(): Promise<void>;
}

export function startFakeModelServer(options: { script: FakeModelScript; port?: number; host?: string }): Promise<FakeModelServer>;
