import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsc = path.join(repoRoot, "node_modules/typescript/bin/tsc");
// Inside the repo's node_modules so the declarations resolve zod, the MCP SDK, … as an installed package would.
const work = fs.mkdtempSync(path.join(repoRoot, "node_modules/.cache-toolgate-dts-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe("the published declarations", () => {
  it("compile in a consumer with skipLibCheck: false (no internal dependency types leak out)", () => {
    const emit = spawnSync(process.execPath, [tsc, "-p", path.join(repoRoot, "tsconfig.build.json"), "--emitDeclarationOnly", "--declarationMap", "false", "--sourceMap", "false", "--outDir", path.join(work, "dist")], {
      encoding: "utf8",
    });
    expect(emit.stdout + emit.stderr).toBe("");
    fs.writeFileSync(
      path.join(work, "consumer.ts"),
      [
        'import { createSession, runToolsToMessage, analyzeCommand, type Tool, type PermissionDecision } from "./dist/index.js";',
        "export type Uses = [Tool, PermissionDecision];",
        "export const api = { createSession, runToolsToMessage, analyzeCommand };",
        "",
      ].join("\n"),
    );
    fs.writeFileSync(
      path.join(work, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: false, noEmit: true, types: ["node"] },
        files: ["consumer.ts"],
      }),
    );
    const check = spawnSync(process.execPath, [tsc, "-p", work], { encoding: "utf8" });
    expect(check.stdout + check.stderr).toBe("");
    expect(check.status).toBe(0);
  }, 120_000);
});
