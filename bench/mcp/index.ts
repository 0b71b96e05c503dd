/**
 * MCP call throughput: one SDK Client reading the same file through `toolgate mcp serve`'s Read (the full
 * pipeline: schema, hooks, permission engine, readFileState) and through server-filesystem's read_text_file,
 * sequentially and 8 at a time, in one run: alternating short runs of each, paired for the ratio.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { pairedRatios, reportRow } from "../report.js";

const SECONDS_PER_RUN = 1.5;
const ROUNDS = 7;
/** Both servers are long-lived: the JIT has compiled their hot paths before anything is timed. */
const WARMUP_CALLS = 300;
const PARALLEL = 8;

const require = createRequire(import.meta.url);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const filesystemServer = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist/index.js");
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bench-mcp-")));
const home = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bench-mcp-home-"));
const file = path.join(dir, "sample.ts");
fs.writeFileSync(file, Array.from({ length: 200 }, (_, i) => `export const value${i} = ${i} * 2; // line ${i + 1} of the sample file`).join("\n") + "\n");

async function connect(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: "toolgate-bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command, args, cwd: repoRoot, env: { PATH: process.env.PATH ?? "", TOOLGATE_HOME: home }, stderr: "ignore" }),
  );
  return client;
}

type Caller = (i: number) => Promise<CallToolResult>;

function check(result: CallToolResult, label: string): number {
  const text = result.content.map((b) => (b.type === "text" ? b.text : "")).join("");
  if (result.isError || !text.includes("line 150 of the sample file")) throw new Error(`${label} did not return the file: ${text.slice(0, 300)}`);
  return text.length;
}

/** Numbers every call of the run, so consecutive Reads never ask for the same window. */
let callNumber = 0;

async function warmUp(label: string, call: Caller): Promise<number> {
  let chars = 0;
  for (let i = 0; i < WARMUP_CALLS; i++) chars = check(await call(callNumber++), label);
  return chars;
}

async function measure(label: string, call: Caller, parallel: number): Promise<number> {
  let calls = 0;
  const deadline = performance.now() + SECONDS_PER_RUN * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (performance.now() < deadline) {
        calls++;
        check(await call(callNumber++), label);
      }
    }),
  );
  return calls / ((performance.now() - start) / 1000);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const toolgate = await connect(process.execPath, ["--import", "tsx", path.join(repoRoot, "src/cli/main.ts"), "mcp", "serve", "--cwd", dir]);
const filesystem = await connect(process.execPath, [filesystemServer, dir]);
try {
  // A different limit (always past the file's 200 lines) on every call, so toolgate's "unchanged since
  // last read" stub never stands in for the content, even with calls in flight side by side.
  const viaToolgate: Caller = (i) => toolgate.callTool({ name: "Read", arguments: { file_path: file, limit: 1000 + (i % 997) } }) as Promise<CallToolResult>;
  const viaFilesystem: Caller = () => filesystem.callTool({ name: "read_text_file", arguments: { path: file } }) as Promise<CallToolResult>;

  const toolgateChars = await warmUp("toolgate Read", viaToolgate);
  const filesystemChars = await warmUp("server-filesystem read_text_file", viaFilesystem);
  console.log(`response size: toolgate Read ${toolgateChars} chars (line-numbered), read_text_file ${filesystemChars} chars`);
  console.log(`\n${"in flight".padEnd(10)}${"toolgate Read".padStart(16)}${"fs read_text_file".padStart(20)}${"ratio".padStart(9)}${"spread".padStart(14)}`);
  for (const parallel of [1, PARALLEL]) {
    const ours: number[] = [];
    const peer: number[] = [];
    // Alternating runs: a noisy neighbour on the machine slows both sides of a pair alike.
    for (let round = 0; round < ROUNDS; round++) {
      ours.push(await measure("toolgate Read", viaToolgate, parallel));
      peer.push(await measure("server-filesystem read_text_file", viaFilesystem, parallel));
    }
    const { ratio, spread } = pairedRatios(ours, peer);
    const [t, f] = [median(ours), median(peer)];
    console.log(
      `${String(parallel).padEnd(10)}${`${t.toFixed(0)}/s`.padStart(16)}${`${f.toFixed(0)}/s`.padStart(20)}${`${ratio.toFixed(2)}x`.padStart(9)}${`${spread[0].toFixed(2)}-${spread[1].toFixed(2)}`.padStart(14)}`,
    );
    reportRow({
      what: `MCP Read calls/s, ${parallel} in flight`,
      peer: "server-filesystem read_text_file",
      ratio,
      spread,
      detail: `${t.toFixed(0)}/s vs ${f.toFixed(0)}/s, ${ROUNDS} paired runs of ${SECONDS_PER_RUN} s`,
      goal: "≥ 1.0×",
      higherIsBetter: true,
    });
  }
  console.log(`\nratio = toolgate calls per second / server-filesystem calls per second (same SDK client, same file, stdio); median of ${ROUNDS} paired runs.`);
} finally {
  await Promise.all([toolgate.close(), filesystem.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
}
