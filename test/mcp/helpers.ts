import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ScopedMcpServerConfig, McpStdioServerConfig } from "../../src/mcp/client/config.js";
import type { CanUseToolFn, ToolUseContext } from "../../src/core/Tool.js";
import type { ToolUseBlock } from "../../src/core/messages.js";
import { runToolUse, type ProgressUpdate, type ToolResultUpdate } from "../../src/core/pipeline/index.js";
import { assistantMessage, freePort } from "../helpers.js";

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, "../..");

export const EVERYTHING_SERVER = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");
export const FILESYSTEM_SERVER = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist/index.js");
export const DYNAMIC_SERVER = path.join(here, "fixtures/dynamicServer.ts");
export const TOOLGATE_SERVE_FIXTURE = path.join(here, "fixtures/serveToolgate.ts");
/** `node --import tsx` resolved from the repo, so fixtures written in TypeScript run as real processes. */
export const TSX_IMPORT = ["--import", "tsx"];

export function stdioServer(name: string, config: Partial<McpStdioServerConfig> & Pick<McpStdioServerConfig, "command">): ScopedMcpServerConfig {
  return { name, source: "test", config: { type: "stdio", args: [], env: {}, ...config } };
}

export const everything = (name = "everything", extra: Partial<McpStdioServerConfig> = {}) =>
  stdioServer(name, { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"], ...extra });

export const dynamic = (name = "dyn") => stdioServer(name, { command: process.execPath, args: [...TSX_IMPORT, DYNAMIC_SERVER], cwd: repoRoot });

export interface RunResult {
  progress: ProgressUpdate[];
  result: ToolResultUpdate;
}

export async function runOne(
  name: string,
  input: unknown,
  context: ToolUseContext,
  canUseTool: CanUseToolFn,
  onProgress?: (p: ProgressUpdate) => void,
): Promise<RunResult> {
  const toolUse: ToolUseBlock = { type: "tool_use", id: `toolu_${Math.random().toString(36).slice(2)}`, name, input };
  const progress: ProgressUpdate[] = [];
  let result: ToolResultUpdate | undefined;
  for await (const update of runToolUse(toolUse, assistantMessage(), canUseTool, context)) {
    if (update.type === "progress") {
      progress.push(update);
      onProgress?.(update);
    } else result = update;
  }
  if (!result) throw new Error("no result");
  return { progress, result };
}

/** The text of a tool_result's content. */
export function resultText(result: ToolResultUpdate): string {
  const content = result.block.content;
  return typeof content === "string" ? content : content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");
}

/** Start server-everything's HTTP flavour (`streamableHttp` or `sse`) and wait until it listens. */
export async function startEverythingHttp(mode: "streamableHttp" | "sse"): Promise<{ port: number; child: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_SERVER, mode], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
  await new Promise<void>((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening|running/i.test(output)) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`server-everything ${mode} exited with ${code}: ${output}`)));
    setTimeout(() => reject(new Error(`server-everything ${mode} did not start: ${output}`)), 15_000).unref();
  });
  return {
    port,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}
