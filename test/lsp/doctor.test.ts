import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lspCheck } from "../../src/cli/doctor.js";
import type { Session } from "../../src/session/index.js";
import { BIN, openSession, project } from "./support.js";

const sessions: Session[] = [];
afterAll(async () => {
  for (const s of sessions.splice(0)) await s.close();
});

async function check(settings: Record<string, unknown>) {
  const session = await openSession(project({}), settings);
  sessions.push(session);
  return lspCheck.run({ session, options: {}, mcpConfig: { servers: [], errors: [] }, connect: false, env: session.context.env } as never);
}

describe("toolgate doctor: language servers", () => {
  it("says when none is configured", async () => {
    expect(await check({})).toEqual({ status: "ok", lines: ["none configured (settings: lsp); edits are not checked by a language server"] });
  });

  it("shows where each server's program is found, and warns about one that is not, without starting anything", async () => {
    const result = await check({
      lsp: {
        typescript: { command: ["typescript-language-server", "--stdio"], extensions: [".ts", ".tsx"] },
        ghost: { command: ["no-such-language-server-xyz"], extensions: [".gh"] },
      },
    });
    expect(result).toEqual({
      status: "warn",
      lines: [
        `typescript (.ts, .tsx): typescript-language-server --stdio — found at ${path.join(BIN, "typescript-language-server")}`,
        "ghost (.gh): no-such-language-server-xyz — ! program not found in node_modules/.bin or on PATH",
      ],
    });
    expect(sessions.at(-1)!.context.lsp!.status().map((s) => s.state)).toEqual(["not started", "not started"]);
  });
});
