import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lspCheck } from "../../src/cli/doctor.js";
import type { Session } from "../../src/session/index.js";
import { BIN, openSession, project } from "./support.js";

const sessions: Session[] = [];
afterAll(async () => {
  for (const s of sessions.splice(0)) await s.close();
});

async function check(settings: Record<string, unknown>, files: Record<string, string> = {}, trust?: boolean) {
  const session = await openSession(project(files), settings, { trust });
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
        "ghost (.gh): no-such-language-server-xyz — ! program not found on PATH",
      ],
    });
    expect(sessions.at(-1)!.context.lsp!.status().map((s) => s.state)).toEqual(["not started", "not started"]);
  });

  it("an untrusted folder's own node_modules/.bin program is named as passed over, and why", async () => {
    const settings = { lsp: { typescript: { command: ["typescript-language-server", "--stdio"], extensions: [".ts"] } } };
    const files = { "node_modules/.bin/typescript-language-server": "#!/bin/sh\n" };
    const untrusted = await check(settings, files);
    const planted = path.join(sessions.at(-1)!.context.getCwd(), "node_modules", ".bin", "typescript-language-server");
    expect(untrusted.lines).toEqual([
      `typescript (.ts): typescript-language-server --stdio — found at ${path.join(BIN, "typescript-language-server")}; ${planted} in the project was not used because the folder is not trusted: a language server runs outside the sandbox (pass --trust or run toolgate trust add)`,
    ]);
    const trusted = await check(settings, files, true);
    expect(trusted.lines[0]).toMatch(/found at .*\/node_modules\/\.bin\/typescript-language-server$/);
    expect(trusted.lines[0]).not.toContain(BIN);
  });
});
