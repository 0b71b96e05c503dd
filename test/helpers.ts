import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { createToolUseContext, type CreateToolUseContextOptions } from "../src/core/context.js";
import type { CanUseToolFn, ToolUseContext } from "../src/core/Tool.js";
import type { AssistantMessage } from "../src/core/messages.js";

const createdDirs: string[] = [];
// Each test file gets its own copy of this module, so this runs once per file, after its last test.
// (A process "exit" handler would not: vitest's fork workers are stopped without one.)
afterAll(() => {
  for (const dir of createdDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh temp directory (realpath), removed after the test file that made it. */
export function tempDir(prefix = "toolgate-test-"): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  createdDirs.push(dir);
  return dir;
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A context whose data home is a temp dir, so tests never touch ~/.toolgate. */
export function testContext(options: Partial<CreateToolUseContextOptions> & Pick<CreateToolUseContextOptions, "tools">): ToolUseContext {
  return createToolUseContext({ home: tempDir("toolgate-home-"), cwd: options.cwd ?? tempDir("toolgate-cwd-"), ...options });
}

export const assistantMessage = (id = "msg_test"): AssistantMessage => ({ role: "assistant", id, content: [] });

/** canUseTool that approves every ask (an interactive user saying yes). */
export const approveAll: CanUseToolFn = async () => ({ behavior: "allow" });
/** canUseTool that rejects every ask. */
export const rejectAll: CanUseToolFn = async () => ({ behavior: "deny", message: "The user rejected this call." });
