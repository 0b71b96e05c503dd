/**
 * Random read-only tool calls over a fixture tree, streamed by the scripted model with random chunking, run
 * through the real loop with speculation on or off. Shared by the comparison test and bench/speculation.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FakeModelScript } from "../../scripts/fake-model.mjs";
import { startFakeModelServer } from "../../scripts/fake-model.mjs";
import { query } from "../../src/agent/query.js";
import { createAnthropicProvider } from "../../src/providers/index.js";
import { createSession } from "../../src/session/index.js";
import type { SpeculationReport } from "../../src/core/Tool.js";
import type { Message, ToolResultBlockParam } from "../../src/core/messages.js";

/** A small seeded generator (mulberry32), so a failing comparison can be replayed. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["alpha", "beta", "gamma", "delta", "needle", "Export", "const", "TODO"];

/** The fixture tree: a few dozen small files in nested folders, with mtimes spread so Glob's order is fixed. */
export function makeFixtureTree(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-spec-tree-")));
  const next = random(7);
  let time = Date.now() / 1000 - 10_000;
  for (const folder of ["src", "src/util", "docs", "test"]) {
    fs.mkdirSync(path.join(dir, folder), { recursive: true });
    for (let i = 0; i < 6; i++) {
      const ext = folder === "docs" ? "md" : "ts";
      const lines = Array.from({ length: 3 + Math.floor(next() * 12) }, (_, n) => `${WORDS[Math.floor(next() * WORDS.length)]} line ${n + 1} of ${folder}/${i}`);
      const file = path.join(dir, folder, `f${i}.${ext}`);
      fs.writeFileSync(file, `${lines.join("\n")}\n`);
      fs.utimesSync(file, time, time);
      time += 7;
    }
  }
  return dir;
}

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)];
}

function shuffled<T>(next: () => number, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

const FILES = ["src/f0.ts", "src/f3.ts", "src/util/f1.ts", "docs/f2.md", "test/f5.ts", "docs/missing.md"];

/** One random read-only call's input; keys in random order (so some speculations start before optional keys arrive). */
function randomCall(next: () => number, dir: string): { name: string; input: Record<string, unknown> } {
  const kind = pick(next, ["Read", "Read", "Grep", "Glob", "Bash"]);
  const entries: Array<[string, unknown]> = [];
  if (kind === "Read") {
    const file = pick(next, FILES);
    entries.push(["file_path", next() < 0.5 ? file : path.join(dir, file)]);
    if (next() < 0.4) entries.push(["offset", pick(next, [1, 2, 4, -3])]);
    if (next() < 0.4) entries.push(["limit", pick(next, [1, 3, 50])]);
  } else if (kind === "Grep") {
    entries.push(["pattern", pick(next, WORDS)]);
    if (next() < 0.5) entries.push(["path", pick(next, ["src", "docs", "test", "."])]);
    if (next() < 0.3) entries.push(["glob", pick(next, ["*.ts", "*.md"])]);
    if (next() < 0.5) entries.push(["output_mode", pick(next, ["content", "count", "files_with_matches"])]);
    if (next() < 0.3) entries.push(["-i", true]);
  } else if (kind === "Glob") {
    entries.push(["pattern", pick(next, ["**/*.ts", "*.md", "**/f1.*", "src/*"])]);
    if (next() < 0.4) entries.push(["path", pick(next, ["src", "docs", dir])]);
  } else {
    entries.push(["command", pick(next, ["ls", "ls src", "cat src/f0.ts", "wc -l docs/f2.md", "head -n 3 test/f5.ts"])]);
    if (next() < 0.5) entries.push(["description", "look around"]);
  }
  return { name: kind, input: Object.fromEntries(shuffled(next, entries)) };
}

/** Cut the JSON into 1–`maxParts` pieces at random places. */
function randomParts(next: () => number, json: string, maxParts: number): string[] {
  const count = 1 + Math.floor(next() * maxParts);
  const cuts = [...new Set(Array.from({ length: count - 1 }, () => 1 + Math.floor(next() * (json.length - 1))))].sort((a, b) => a - b);
  const parts: string[] = [];
  let from = 0;
  for (const cut of [...cuts, json.length]) {
    parts.push(json.slice(from, cut));
    from = cut;
  }
  return parts;
}

export interface WorkloadOptions {
  seed: number;
  calls: number;
  dir: string;
  /** Pause before each delta (ms), or a range picked per turn. */
  delayMs: number | [number, number];
  maxParts: number;
}

export function makeScript(options: WorkloadOptions): FakeModelScript {
  const next = random(options.seed);
  const turns: FakeModelScript["turns"] = [];
  let made = 0;
  while (made < options.calls) {
    const count = Math.min(options.calls - made, 1 + Math.floor(next() * 3));
    const content = Array.from({ length: count }, () => {
      const call = randomCall(next, options.dir);
      const json = JSON.stringify(call.input);
      return { type: "tool_use" as const, id: `toolu_${made++}`, name: call.name, input: call.input, inputParts: randomParts(next, json, options.maxParts) };
    });
    const delayMs = typeof options.delayMs === "number" ? options.delayMs : options.delayMs[0] + Math.floor(next() * (options.delayMs[1] - options.delayMs[0] + 1));
    turns.push({ content, delayMs } as never);
  }
  turns.push({ content: [{ type: "text", text: "done" }] });
  return { turns };
}

export interface WorkloadRun {
  /** tool_use id → its tool_result as the model got it. */
  results: Map<string, ToolResultBlockParam>;
  /** Per call: ms from its block's end to its result. */
  latencies: number[];
  reports: SpeculationReport[];
}

export async function runWorkload(script: FakeModelScript, dir: string, speculation: boolean): Promise<WorkloadRun> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-spec-home-"));
  const server = await startFakeModelServer({ script });
  const session = await createSession({ cwd: dir, home, sandbox: false, trust: true, settingsFile: JSON.stringify({ speculativeToolCalls: speculation }), env: { ...process.env, TOOLGATE_HOME: home } });
  const provider = createAnthropicProvider({ model: "claude-sonnet-4-5", apiKey: "k", baseURL: server.url });
  const messages: Message[] = [];
  const blockEnd = new Map<string, number>();
  const latencies: number[] = [];
  const reports: SpeculationReport[] = [];
  try {
    for await (const event of query("look around", { provider, context: session.context, canUseTool: session.canUseTool, system: ["bench"], messages })) {
      if (event.type === "stream" && event.event.type === "tool_call_complete") blockEnd.set(event.event.id, performance.now());
      if (event.type === "tool" && event.update.type === "result") {
        const end = blockEnd.get(event.update.toolUseID);
        if (end !== undefined) latencies.push(performance.now() - end);
      }
      if (event.type === "speculation" && event.phase === "settled") reports.push(event);
      if (event.type === "result" && event.result.reason !== "completed") throw new Error(`the loop stopped: ${event.result.reason} ${event.result.error ?? ""}`);
    }
  } finally {
    await session.close();
    await server.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
  const results = new Map<string, ToolResultBlockParam>();
  for (const message of messages) {
    if (message.role !== "user" || typeof message.content === "string") continue;
    for (const block of message.content) if (block.type === "tool_result") results.set(block.tool_use_id, block);
  }
  return { results, latencies, reports };
}

/** The ids whose results differ between two runs (also a call missing from either). */
export function differences(a: WorkloadRun, b: WorkloadRun): string[] {
  const ids = new Set([...a.results.keys(), ...b.results.keys()]);
  return [...ids].filter((id) => JSON.stringify(a.results.get(id)) !== JSON.stringify(b.results.get(id)));
}
