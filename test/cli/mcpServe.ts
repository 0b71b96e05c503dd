/** An MCP client connected over stdio to `toolgate mcp serve` (the real CLI) with a private data home. */
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { cliArgs, cliEnv, repoRoot } from "../cliCommand.js";

export async function connectToServe(cwd: string, home: string, args: string[] = [], extraEnv: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "toolgate-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [...cliArgs, "mcp", "serve", "--cwd", cwd, ...args],
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? "", ...cliEnv, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json"), ...extraEnv },
      stderr: "ignore",
    }),
  );
  return client;
}
