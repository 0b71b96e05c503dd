/** The Agent SDK's includeHookEvents and fallbackModel options reaching toolgate through the real SDK. */
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { query, type Options, type SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { call, closeServers, collect, project, results, sdkOptions, serve, text } from "./helpers.js";

vi.setConfig({ testTimeout: 120_000 });
afterEach(closeServers);

type System = Extract<SDKMessage, { type: "system" }> & Record<string, unknown>;
const systems = (messages: SDKMessage[]) => messages.filter((m): m is System => m.type === "system");

describe("hook events and the fallback model under the Agent SDK", () => {
  it("includeHookEvents: a PreToolUse callback's run arrives as hook_started and hook_response messages", async () => {
    const dir = project({ "notes.txt": "ship it\n" });
    const server = await serve({ turns: [call("toolu_read", "Read", { file_path: path.join(dir, "notes.txt") }), text("read it")] });
    const seen: string[] = [];
    const hooks: Options["hooks"] = { PreToolUse: [{ matcher: "Read", hooks: [async (input) => (seen.push("tool_name" in input ? input.tool_name : ""), {})] }] };
    const messages = await collect(query({ prompt: "read notes", options: sdkOptions(dir, server, { includeHookEvents: true, hooks }) }));
    expect(seen).toEqual(["Read"]);
    const started = systems(messages).find((m) => m.subtype === "hook_started");
    const response = systems(messages).find((m) => m.subtype === "hook_response");
    expect(started).toMatchObject({ hook_name: "PreToolUse:Read", hook_event: "PreToolUse" });
    expect(response).toMatchObject({ hook_id: started!.hook_id, hook_event: "PreToolUse", exit_code: 0, outcome: "success" });
    expect(results(messages)[0].result).toBe("read it");

    const quiet = await collect(query({ prompt: "read notes", options: sdkOptions(dir, await serve({ turns: [call("toolu_read", "Read", { file_path: path.join(dir, "notes.txt") }), text("read it")] }), { hooks }) }));
    expect(systems(quiet).filter((m) => String(m.subtype).startsWith("hook_"))).toEqual([]);
  });

  it("fallbackModel: a 529 from the main model is answered by the fallback model", async () => {
    const dir = project();
    const server = await serve({ turns: [{ status: 529 }, text("from the backup")] });
    const messages = await collect(query({ prompt: "hi", options: sdkOptions(dir, server, { model: "primary-model", fallbackModel: "backup-model" }, { TOOLGATE_MAX_RETRIES: "0" }) }));
    expect(results(messages)[0]).toMatchObject({ subtype: "success", result: "from the backup" });
    expect(server.requests().map((r) => (r.body as { model: string }).model)).toEqual(["primary-model", "backup-model"]);
    expect(systems(messages).find((m) => m.subtype === "informational" && "from_model" in m)).toMatchObject({ level: "warning", content: expect.stringContaining("backup-model"), from_model: "primary-model", to_model: "backup-model" });
  });

  it("fallbackModel as the SDK documents it: a comma-separated list, tried in order", async () => {
    const dir = project();
    const server = await serve({ turns: [{ status: 529 }, { status: 529 }, text("from the second backup")] });
    const messages = await collect(query({ prompt: "hi", options: sdkOptions(dir, server, { model: "primary-model", fallbackModel: "backup-one,backup-two" }, { TOOLGATE_MAX_RETRIES: "0" }) }));
    expect(results(messages)[0]).toMatchObject({ subtype: "success", result: "from the second backup" });
    expect(server.requests().map((r) => (r.body as { model: string }).model)).toEqual(["primary-model", "backup-one", "backup-two"]);
  });
});
