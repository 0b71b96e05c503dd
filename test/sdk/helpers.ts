/** What the Agent SDK tests share: a project, the scripted model, and the SDK's options that point at toolgate. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import type { Options, SDKMessage, SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
import { startFakeModelServer, type FakeModelScript, type FakeModelServer } from "../../scripts/fake-model.mjs";
import { builtIsFresh, cliEnv, repoRoot } from "../cliCommand.js";

const require = createRequire(import.meta.url);
export const EVERYTHING_SERVER = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");

const servers: FakeModelServer[] = [];
/** For afterEach: stops every model server a test started. */
export async function closeServers(): Promise<void> {
  await Promise.all(servers.splice(0).map((s) => s.close()));
}

export function project(files: Record<string, string> = {}): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-sdk-")));
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  fs.mkdirSync(path.join(dir, ".home"));
  return dir;
}

export async function serve(script: FakeModelScript): Promise<FakeModelServer> {
  const server = await startFakeModelServer({ script });
  servers.push(server);
  return server;
}

/** The SDK's options that point it at toolgate, the project and the scripted model. */
export function sdkOptions(dir: string, server: FakeModelServer, extra: Partial<Options> = {}, env: Record<string, string> = {}): Options {
  const stderr: string[] = [];
  return {
    cwd: dir,
    ...(builtIsFresh
      ? { pathToClaudeCodeExecutable: path.join(repoRoot, "dist/cli/main.js") }
      : { pathToClaudeCodeExecutable: path.join(repoRoot, "src/cli/main.ts"), executable: "node", executableArgs: ["--import", pathToFileURL(path.join(repoRoot, "node_modules/tsx/dist/loader.mjs")).href] }),
    env: { ...process.env, ...cliEnv, TOOLGATE_HOME: path.join(dir, ".home"), ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url, OPENAI_API_KEY: "", ...env },
    stderr: (data) => stderr.push(data),
    ...extra,
  };
}

export async function collect(messages: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const m of messages) out.push(m);
  return out;
}

/** The result messages, read as plain objects (the success and error variants carry different fields). */
export const results = (messages: SDKMessage[]) => messages.filter((m) => m.type === "result") as unknown as Array<Record<string, any>>;
export const text = (turn: string) => ({ content: [{ type: "text" as const, text: turn }] });
export const call = (id: string, name: string, input: Record<string, unknown>) => ({ content: [{ type: "tool_use" as const, id, name, input }] });

/** A prompt stream the test feeds: push a user message, end when done. */
export function promptStream() {
  const queue: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  return {
    push(content: SDKUserMessage["message"]["content"], uuid?: string) {
      queue.push({ type: "user", message: { role: "user", content }, parent_tool_use_id: null, session_id: "", ...(uuid ? { uuid } : {}) } as SDKUserMessage);
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (queue.length) yield queue.shift()!;
        else if (ended) return;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

/** The text of what the model was sent in request `n` (system prompt and messages). */
export function sent(server: FakeModelServer, n: number): string {
  return JSON.stringify(server.requests()[n]?.body ?? {});
}

export function toolResults(server: FakeModelServer, n: number): Array<{ tool_use_id: string; content: unknown; is_error?: boolean }> {
  const body = server.requests()[n]?.body as { messages: Array<{ role: string; content: unknown }> };
  return body.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<Record<string, any>>).filter((b) => b.type === "tool_result") : [])) as never;
}

export const resultText = (r: { content: unknown }) => (typeof r.content === "string" ? r.content : JSON.stringify(r.content));

