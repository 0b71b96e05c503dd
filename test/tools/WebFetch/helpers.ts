/** Shared by the WebFetch tests: a real local HTTP server and calls through the real pipeline. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import type { AnyTool, CanUseToolFn, ModelAccess, ToolUseContext } from "../../../src/core/Tool.js";
import type { ToolPermissionContext } from "../../../src/core/permissionTypes.js";
import { runToolUse, type ToolResultUpdate } from "../../../src/core/pipeline/index.js";
import { createToolUseContext } from "../../../src/core/context.js";
import { hasPermissionsToUseTool, parsePermissionRule } from "../../../src/permissions/index.js";
import { WebFetchTool } from "../../../src/tools/WebFetch/index.js";
import { approveAll, assistantMessage, tempDir } from "../../helpers.js";

export interface TestServer {
  url: string;
  port: number;
  /** Requests per path. */
  hits: Map<string, number>;
  /** Sockets the server saw close before it finished a response. */
  closedEarly: () => number;
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, server: TestServer) => void;

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

/**
 * A node:http server answering by path; `routes` may also take a catch-all "*". On 127.0.0.1 and a free port
 * unless `at` names another loopback address (127.0.0.2, …) or port.
 */
export async function startServer(routes: Record<string, Handler>, at: { host?: string; port?: number } = {}): Promise<TestServer> {
  const hits = new Map<string, number>();
  let closedEarly = 0;
  let api!: TestServer;
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    res.on("close", () => {
      if (!res.writableFinished) closedEarly++;
    });
    const handler = routes[path] ?? routes["*"];
    if (!handler) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
      return;
    }
    handler(req, res, api);
  });
  servers.push(server);
  const host = at.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(at.port ?? 0, host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  api = {
    url: `http://${host}:${port}`,
    port,
    hits,
    closedEarly: () => closedEarly,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return api;
}

export interface WebSessionOptions {
  allow?: string[];
  deny?: string[];
  settings?: Record<string, unknown>;
  models?: ModelAccess;
  abortController?: AbortController;
  tools?: AnyTool[];
}

export function webSession(options: WebSessionOptions = {}): ToolUseContext {
  const cwd = tempDir("toolgate-web-");
  const rules = [
    ...(options.deny ?? []).map((text) => ({ source: "session" as const, ruleBehavior: "deny" as const, ruleValue: parsePermissionRule(text) })),
    ...(options.allow ?? []).map((text) => ({ source: "session" as const, ruleBehavior: "allow" as const, ruleValue: parsePermissionRule(text) })),
  ];
  const permissionContext: ToolPermissionContext = { mode: "default", cwd, additionalWorkingDirectories: [], rules, shouldAvoidPermissionPrompts: false };
  return createToolUseContext({
    tools: options.tools ?? ([WebFetchTool] as AnyTool[]),
    cwd,
    home: tempDir("toolgate-home-"),
    settings: options.settings,
    permissionContext,
    permissionDecider: hasPermissionsToUseTool,
    abortController: options.abortController,
    models: options.models,
  });
}

export interface Run {
  result: ToolResultUpdate;
  text: string;
  isError: boolean;
}

let nextId = 0;

/** One tool_use through runToolUse; exactly one result is required. */
export async function run(context: ToolUseContext, name: string, input: unknown, canUseTool: CanUseToolFn = approveAll): Promise<Run> {
  const toolUse = { type: "tool_use" as const, id: `toolu_web_${nextId++}`, name, input };
  const results: ToolResultUpdate[] = [];
  for await (const update of runToolUse(toolUse, assistantMessage(), canUseTool, context)) {
    if (update.type !== "progress") results.push(update);
  }
  if (results.length !== 1) throw new Error(`expected one result, got ${results.length}`);
  const content = results[0].block.content;
  const text = typeof content === "string" ? content : content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
  return { result: results[0], text, isError: results[0].block.is_error === true };
}

/** Resolves when `predicate` holds, polling; for waiting on a server-side event, never for timing. */
export async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 10));
}
