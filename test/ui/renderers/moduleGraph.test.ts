/**
 * `exec`, `-p`, `mcp serve` and the library must never load React: a tool's renderer (`ui.tsx`) is reached only
 * through src/ui/renderers.ts. This walks the real import graph of the sources (static and dynamic imports, type-only
 * ones left out since they are erased) from those entry points.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const SRC = path.join(ROOT, "src");

/** Entry points that must stay free of the UI: the library, the tool set, and the headless CLI commands. */
const HEADLESS_ENTRIES = ["src/index.ts", "src/tools/index.ts", "src/cli/print.ts", "src/cli/commands.ts", "src/cli/exec.ts", "src/cli/mcp.ts", "src/cli/agentSetup.ts"];
const UI_PACKAGES = /^(react|react-dom|ink|ink-[\w-]+|marked|marked-terminal|cli-highlight)(\/|$)/;

/** Module specifiers a file loads at run time: `import … from`, `export … from`, side-effect imports, `import()`. */
export function runtimeImports(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const specifiers: string[] = [];
  const statement = /^\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+["']([^"']+)["']/gm;
  for (const m of code.matchAll(statement)) {
    if (m[2]) continue; // `import type` / `export type` are erased
    const clause = m[3].replace(/\s+/g, " ");
    // `import { type A, type B } from` is erased too
    if (/^\{[^}]*\}$/.test(clause) && clause.slice(1, -1).split(",").every((part) => part.trim() === "" || part.trim().startsWith("type "))) continue;
    specifiers.push(m[4]);
  }
  for (const m of code.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) specifiers.push(m[1]);
  for (const m of code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) specifiers.push(m[1]);
  return specifiers;
}

function resolveSource(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  const stem = base.replace(/\.(js|jsx|mjs)$/, "");
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, base, path.join(base, "index.ts")]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

interface Graph {
  files: Map<string, string | undefined>;
  packages: Map<string, string>;
}

/** Every source file and package reachable from the entries, each with the file that first imported it. */
function walk(entries: string[]): Graph {
  const files = new Map<string, string | undefined>();
  const packages = new Map<string, string>();
  const queue = entries.map((e) => path.join(ROOT, e));
  for (const entry of queue) files.set(entry, undefined);
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const specifier of runtimeImports(fs.readFileSync(file, "utf8"))) {
      if (specifier.startsWith(".")) {
        const target = resolveSource(file, specifier);
        if (target && !files.has(target)) {
          files.set(target, file);
          queue.push(target);
        }
      } else if (!specifier.startsWith("node:") && !packages.has(specifier)) {
        packages.set(specifier, file);
      }
    }
  }
  return { files, packages };
}

const rel = (file: string | undefined) => (file ? path.relative(ROOT, file) : "(entry)");

function isUiModule(file: string): boolean {
  const relative = path.relative(SRC, file);
  return relative.startsWith(`ui${path.sep}`) || /^tools[\\/][^\\/]+[\\/]ui\.tsx$/.test(relative);
}

describe("renderers stay out of the headless paths", () => {
  it("finds runtime imports and ignores type-only ones", () => {
    const source = [
      'import type { A } from "./a.js";',
      'import { type B, type C } from "./b.js";',
      'import { D, type E } from "./d.js";',
      'export type { F } from "./f.js";',
      'export { G } from "./g.js";',
      'import "./side.js";',
      "const x = await import(\"./lazy.js\");",
      '// import { H } from "./commented.js";',
    ].join("\n");
    expect(runtimeImports(source).sort()).toEqual(["./d.js", "./g.js", "./lazy.js", "./side.js"]);
  });

  it("reaches real modules from the entries (the walk is not empty)", () => {
    const { files } = walk(HEADLESS_ENTRIES);
    expect(files.has(path.join(SRC, "tools/Bash/run.ts"))).toBe(true);
    expect(files.has(path.join(SRC, "tools/Edit/index.ts"))).toBe(true);
    expect(files.size).toBeGreaterThan(100);
  });

  it("no UI module and no UI package is reachable from the library, the tools, exec, -p or mcp serve", () => {
    const { files, packages } = walk(HEADLESS_ENTRIES);
    const uiFiles = [...files].filter(([file]) => isUiModule(file)).map(([file, by]) => `${rel(file)} (imported by ${rel(by)})`);
    const uiPackages = [...packages].filter(([name]) => UI_PACKAGES.test(name)).map(([name, by]) => `${name} (imported by ${rel(by)})`);
    expect(uiFiles).toEqual([]);
    expect(uiPackages).toEqual([]);
  });

  it("the UI side does reach every renderer (so the check above could fail)", () => {
    const { files, packages } = walk(["src/ui/renderers.ts"]);
    expect(files.has(path.join(SRC, "tools/Bash/ui.tsx"))).toBe(true);
    expect(packages.has("ink")).toBe(true);
  });

  it("only src/ui/renderers.ts imports a tool's ui.tsx", () => {
    const importers: string[] = [];
    const visit = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) visit(full);
        else if (/\.tsx?$/.test(entry.name) && full !== path.join(SRC, "ui/renderers.ts")) {
          if (runtimeImports(fs.readFileSync(full, "utf8")).some((s) => /(^|\/)ui\.js$/.test(s))) importers.push(rel(full));
        }
      }
    };
    visit(SRC);
    expect(importers).toEqual([]);
  });
});

describe("renderers stay out of the headless paths, at run time", () => {
  it("loading the library, the tools, exec and -p resolves no React, Ink or renderer; loading a renderer does", async () => {
    const { execFileSync } = await import("node:child_process");
    const fixtures = path.join(ROOT, "test/ui/renderers/fixtures");
    const stdout = execFileSync(process.execPath, ["--import", "tsx", "--import", path.join(fixtures, "recordResolves.mjs"), path.join(fixtures, "headlessThenUi.ts")], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 120_000,
    });
    const line = stdout.split("\n").find((l) => l.startsWith("RESOLVED "));
    const urls: string[] = JSON.parse(line!.slice("RESOLVED ".length));
    const mark = urls.findIndex((u) => u.includes("HEADLESS-DONE"));
    expect(mark).toBeGreaterThan(100);
    const isUi = (u: string) => /\/node_modules\/(react|ink|marked|marked-terminal|cli-highlight)\//.test(u) || /\/src\/ui\//.test(u) || /\/src\/tools\/[^/]+\/ui\.tsx$/.test(u);
    expect(urls.slice(0, mark).filter(isUi)).toEqual([]);
    const after = urls.slice(mark).filter(isUi);
    expect(after.some((u) => u.endsWith("/src/tools/Bash/ui.tsx"))).toBe(true);
    expect(after.some((u) => u.includes("/node_modules/ink/"))).toBe(true);
  }, 150_000);
});
