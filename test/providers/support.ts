import { afterEach } from "vitest";
import { startFakeModelServer, type FakeModelScript, type FakeModelServer } from "../../scripts/fake-model.mjs";
import { assembleMessage, createAnthropicProvider, createOpenAIProvider, type Provider, type ProviderEvent, type ProviderRequest, type RetryOptions } from "../../src/providers/index.js";

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

export async function serve(script: FakeModelScript): Promise<FakeModelServer> {
  const server = await startFakeModelServer({ script });
  servers.push(server);
  return server;
}

/** Retries without real waiting, so failure tests stay fast. */
export const FAST_RETRY: RetryOptions = { baseDelayMs: 1, maxDelayMs: 5, maxRetries: 3, stallMs: 5_000 };

export function anthropicAt(server: FakeModelServer, retry: RetryOptions = FAST_RETRY): Provider {
  return createAnthropicProvider({ model: "claude-sonnet-4-5", apiKey: "test-key", baseURL: server.url, retry });
}

export function openaiAt(server: FakeModelServer, retry: RetryOptions = FAST_RETRY): Provider {
  return createOpenAIProvider({ model: "gpt-4o", apiKey: "test-key", baseURL: `${server.url}/v1`, retry });
}

export const BOTH = [
  ["anthropic", anthropicAt],
  ["openai", openaiAt],
] as const;

export const REQUEST: ProviderRequest = {
  model: "claude-sonnet-4-5",
  system: "You are a test.",
  messages: [{ role: "user", content: "hello" }],
  maxTokens: 1024,
};

export async function collect(stream: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

export async function run(provider: Provider, request: Partial<ProviderRequest> = {}, signal?: AbortSignal) {
  const events = await collect(provider.stream({ ...REQUEST, model: provider.model, ...request }, signal));
  return { events, ...(await assembleMessage(events)) };
}

export const types = (events: ProviderEvent[]) => events.map((e) => e.type);
