#!/usr/bin/env node
/**
 * Claude Code conformance probes: the same tool calls, scripted through the fake model, sent to toolgate and
 * to the real Claude Code CLI, and the tool_result each one returned to the model.
 *
 *   node scripts/conformance-probe.mjs            # record both, write test/fixtures/conformance/claude-code.json
 *   node scripts/conformance-probe.mjs --print    # record both and print them, write nothing
 *
 * All probes run in one session per CLI (one model turn per call, in order), each in its own folder of one
 * temporary project. test/sdk/conformance.test.ts replays the recording against toolgate's live results.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeModelServer } from "./fake-model.mjs";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const claudeCodeBinary = path.join(repoRoot, "node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude");
export const fixturePath = path.join(repoRoot, "test/fixtures/conformance/claude-code.json");

// Fixed mtimes (2021, 2022, 2023) so Glob's and Grep's order is the same in every run.
const YEAR = 365 * 24 * 3600;
const OLD = 1_609_459_200;

const lines = (n, make = (i) => `line ${i}`) => Array.from({ length: n }, (_, i) => make(i + 1)).join("\n") + "\n";

/**
 * One probe: files to create in its folder (`{text, mtime?}` or a string), calls that prepare the state
 * (`setup`, e.g. a Read before an Edit) and the call whose result is compared. `$P` in an input is the
 * probe's folder, absolute.
 */
export const probes = [
  { id: "read-small", title: "Read a small file", files: { "small.txt": "alpha\nbeta\ngamma\n" }, call: ["Read", { file_path: "$P/small.txt" }] },
  { id: "read-empty", title: "Read an empty file", files: { "empty.txt": "" }, call: ["Read", { file_path: "$P/empty.txt" }] },
  { id: "read-missing", title: "Read a missing file", files: { "present.txt": "x\n" }, call: ["Read", { file_path: "$P/absent.txt" }] },
  { id: "read-window", title: "Read with offset and limit", files: { "fifty.txt": lines(50) }, call: ["Read", { file_path: "$P/fifty.txt", offset: 10, limit: 5 }] },
  { id: "read-past-end", title: "Read with an offset past the end", files: { "three.txt": "a\nb\nc\n" }, call: ["Read", { file_path: "$P/three.txt", offset: 10 }] },
  { id: "read-long-file", title: "Read a 3000-line file (over the default window)", files: { "long.txt": lines(3000) }, call: ["Read", { file_path: "$P/long.txt" }] },
  { id: "read-over-size", title: "Read a 400 KB file without a window", files: { "big.txt": lines(4000, (i) => `${i} ${"x".repeat(95)}`) }, call: ["Read", { file_path: "$P/big.txt" }] },
  { id: "read-over-size-window", title: "Read a window of the 400 KB file", files: { "big.txt": lines(4000, (i) => `${i} ${"x".repeat(95)}`) }, call: ["Read", { file_path: "$P/big.txt", offset: 100, limit: 3 }] },
  { id: "read-long-line", title: "Read a file with a 3000-character line", files: { "wide.txt": "short\n" + "y".repeat(3000) + "\n" }, call: ["Read", { file_path: "$P/wide.txt" }] },
  { id: "read-directory", title: "Read a directory", files: { "sub/inner.txt": "x\n" }, call: ["Read", { file_path: "$P/sub" }] },
  { id: "read-binary", title: "Read a binary file", files: { "blob.bin": "\u0000\u0001\u0002binary\u0000data" }, call: ["Read", { file_path: "$P/blob.bin" }] },
  { id: "read-relative", title: "Read a relative path", files: { "rel.txt": "relative\n" }, call: ["Read", { file_path: "read-relative/rel.txt" }] },
  { id: "edit-success", title: "Edit after a Read", files: { "code.js": "const a = 1;\nconst b = 2;\nconst c = 3;\n" }, setup: [["Read", { file_path: "$P/code.js" }]], call: ["Edit", { file_path: "$P/code.js", old_string: "const b = 2;", new_string: "const b = 20;" }] },
  { id: "edit-replace-all", title: "Edit with replace_all", files: { "rep.txt": "foo\nbar\nfoo\n" }, setup: [["Read", { file_path: "$P/rep.txt" }]], call: ["Edit", { file_path: "$P/rep.txt", old_string: "foo", new_string: "baz", replace_all: true }] },
  { id: "edit-no-match", title: "Edit whose old_string is not in the file", files: { "code.js": "const a = 1;\n" }, setup: [["Read", { file_path: "$P/code.js" }]], call: ["Edit", { file_path: "$P/code.js", old_string: "const z = 9;", new_string: "const z = 10;" }] },
  { id: "edit-several-matches", title: "Edit with several matches, no replace_all", files: { "dup.txt": "same\nother\nsame\n" }, setup: [["Read", { file_path: "$P/dup.txt" }]], call: ["Edit", { file_path: "$P/dup.txt", old_string: "same", new_string: "diff" }] },
  { id: "edit-unread", title: "Edit a file not read in the session", files: { "unread.txt": "hello\n" }, call: ["Edit", { file_path: "$P/unread.txt", old_string: "hello", new_string: "bye" }] },
  { id: "edit-same-strings", title: "Edit with old_string equal to new_string", files: { "same.txt": "hello\n" }, setup: [["Read", { file_path: "$P/same.txt" }]], call: ["Edit", { file_path: "$P/same.txt", old_string: "hello", new_string: "hello" }] },
  { id: "edit-missing-file", title: "Edit a missing file", files: {}, call: ["Edit", { file_path: "$P/nothing.txt", old_string: "a", new_string: "b" }] },
  { id: "write-new", title: "Write a new file", files: {}, call: ["Write", { file_path: "$P/new.txt", content: "fresh\n" }] },
  { id: "write-existing-read", title: "Write over a file read in full", files: { "over.txt": "old\n" }, setup: [["Read", { file_path: "$P/over.txt" }]], call: ["Write", { file_path: "$P/over.txt", content: "new\n" }] },
  { id: "write-existing-unread", title: "Write over a file not read", files: { "keep.txt": "precious\n" }, call: ["Write", { file_path: "$P/keep.txt", content: "clobber\n" }] },
  {
    id: "glob-mtime",
    title: "Glob over files of different mtimes",
    files: { "b-middle.txt": { text: "b\n", mtime: OLD + YEAR }, "a-newest.txt": { text: "a\n", mtime: OLD + 2 * YEAR }, "c-oldest.txt": { text: "c\n", mtime: OLD } },
    call: ["Glob", { pattern: "*.txt", path: "$P" }],
  },
  { id: "glob-none", title: "Glob with no match", files: { "only.md": "x\n" }, call: ["Glob", { pattern: "*.rs", path: "$P" }] },
  {
    id: "grep-files",
    title: "Grep, files_with_matches (the default)",
    files: { "old.txt": { text: "needle\n", mtime: OLD }, "new.txt": { text: "a needle\n", mtime: OLD + 2 * YEAR }, "mid.txt": { text: "needle too\n", mtime: OLD + YEAR }, "none.txt": "hay\n" },
    call: ["Grep", { pattern: "needle", path: "$P" }],
  },
  { id: "grep-content", title: "Grep, content with line numbers", files: { "src.txt": "one\nneedle two\nthree\nneedle four\n" }, call: ["Grep", { pattern: "needle", path: "$P", output_mode: "content", "-n": true }] },
  { id: "grep-count", title: "Grep, count", files: { "src.txt": "needle\nneedle\nhay\n" }, call: ["Grep", { pattern: "needle", path: "$P", output_mode: "count" }] },
  { id: "grep-none", title: "Grep with no match", files: { "src.txt": "hay\n" }, call: ["Grep", { pattern: "needle", path: "$P" }] },
  { id: "bash-success", title: "Bash, exit 0", files: {}, call: ["Bash", { command: "echo hello; echo warn >&2", description: "Say hello" }] },
  { id: "bash-silent", title: "Bash, exit 0 with no output", files: {}, call: ["Bash", { command: "true", description: "Do nothing" }] },
  { id: "bash-exit", title: "Bash, non-zero exit", files: {}, call: ["Bash", { command: "echo out; echo err >&2; exit 3", description: "Fail" }] },
  { id: "bash-grep-miss", title: "Bash, grep finding nothing (exit 1)", files: { "f.txt": "hay\n" }, call: ["Bash", { command: "grep needle $P/f.txt", description: "Search" }] },
  { id: "bash-large", title: "Bash, ~110 KB of output", files: {}, call: ["Bash", { command: "seq 1 20000", description: "Count" }] },
  { id: "bash-timeout", title: "Bash, timeout", files: {}, call: ["Bash", { command: "echo started; sleep 30", timeout: 1500, description: "Sleep" }] },
  { id: "unknown-tool", title: "A tool that does not exist", files: {}, call: ["Frobnicate", { thing: 1 }] },
  { id: "invalid-missing-field", title: "Input missing a required field", files: {}, call: ["Read", { offset: 1 }] },
  { id: "invalid-wrong-type", title: "Input with a field of the wrong type", files: {}, call: ["Bash", { command: 42 }] },
];

function writeProbeFiles(root) {
  for (const probe of probes) {
    const dir = path.join(root, probe.id);
    fs.mkdirSync(dir, { recursive: true });
    for (const [name, spec] of Object.entries(probe.files)) {
      const file = path.join(dir, name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const { text, mtime } = typeof spec === "string" ? { text: spec } : spec;
      fs.writeFileSync(file, text);
      if (mtime) fs.utimesSync(file, mtime, mtime);
    }
  }
}

const fill = (value, dir) => JSON.parse(JSON.stringify(value).replaceAll("$P", dir));

/** The model's turns: every setup call and probe call, one per turn, then a last answer. */
function scriptFor(root) {
  const turns = [];
  for (const probe of probes) {
    const dir = path.join(root, probe.id);
    const calls = [...(probe.setup ?? []), probe.call];
    calls.forEach(([name, input], i) => {
      const id = i === calls.length - 1 ? `toolu_${probe.id}` : `toolu_${probe.id}_setup${i}`;
      turns.push({ content: [{ type: "tool_use", id, name, input: fill(input, dir) }] });
    });
  }
  turns.push({ content: [{ type: "text", text: "Done." }] });
  return { turns };
}

/** The tool_result each probe's call got, as the model received it in the next request. */
function resultsFrom(requests) {
  const found = new Map();
  for (const request of requests) {
    for (const message of request.body?.messages ?? []) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content) if (block.type === "tool_result" && !found.has(block.tool_use_id)) found.set(block.tool_use_id, block);
    }
  }
  return found;
}

/** Paths and ids that differ between runs become placeholders. */
function normalize(value, root, home) {
  let text = JSON.stringify(value);
  for (const [from, to] of [
    [root, "<project>"],
    [home, "<home>"],
    [path.basename(path.dirname(root)), "<run>"],
  ])
    text = text.replaceAll(from, to);
  text = text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>");
  return JSON.parse(text);
}

function run(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs every probe through one CLI session and returns `{id: {content, is_error}}`.
 * `cli` is "toolgate" (with `toolgateArgs`, node's arguments before the CLI's own) or "claude-code".
 */
export async function recordSession(cli, { toolgateArgs = [path.join(repoRoot, "dist/cli/main.js")], env = {} } = {}) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `conformance-${cli}-`)));
  const root = path.join(base, "project");
  const home = path.join(base, "home");
  fs.mkdirSync(home, { recursive: true });
  writeProbeFiles(root);
  const server = await startFakeModelServer({ script: scriptFor(root) });
  try {
    const common = { ...process.env, ...env, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-conformance", OPENAI_API_KEY: "", OPENAI_BASE_URL: "" };
    const outcome =
      cli === "claude-code"
        ? await run(claudeCodeBinary, ["-p", "Run the probes.", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions", "--tools", "Read,Edit,Write,Glob,Grep,Bash"], {
            cwd: root,
            env: { ...common, HOME: home, IS_SANDBOX: "1", DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
          })
        : await run(process.execPath, [...toolgateArgs, "-p", "Run the probes.", "--output-format", "stream-json", "--permission-mode", "bypassPermissions"], {
            cwd: root,
            env: { ...common, TOOLGATE_HOME: home, HOME: home, TOOLGATE_PROVIDER: "" },
          });
    const results = resultsFrom(server.requests());
    const out = {};
    for (const probe of probes) {
      const block = results.get(`toolu_${probe.id}`);
      out[probe.id] = block ? normalize({ content: block.content, is_error: block.is_error === true }, root, home) : { missing: true };
    }
    const version = cli === "claude-code" ? (outcome.stdout.match(/"claude_code_version":"([^"]+)"/)?.[1] ?? "unknown") : undefined;
    return { results: out, version, exitCode: outcome.code, stderr: outcome.stderr.slice(-2000), root, home };
  } finally {
    await server.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
}

async function main() {
  const printOnly = process.argv.includes("--print");
  const [claude, toolgate] = await Promise.all([recordSession("claude-code"), recordSession("toolgate")]);
  const recording = {
    claudeCode: { version: claude.version, recordedWith: `${path.relative(repoRoot, claudeCodeBinary)} -p --dangerously-skip-permissions --tools Read,Edit,Write,Glob,Grep,Bash`, recordedAt: new Date().toISOString().slice(0, 10) },
    probes: probes.map((p) => ({ id: p.id, title: p.title, call: { name: p.call[0], input: p.call[1] }, claudeCode: claude.results[p.id] })),
  };
  if (printOnly) {
    for (const p of probes) console.log(JSON.stringify({ id: p.id, claudeCode: claude.results[p.id], toolgate: toolgate.results[p.id] }));
    return;
  }
  fs.mkdirSync(path.dirname(fixturePath), { recursive: true });
  fs.writeFileSync(fixturePath, JSON.stringify(recording, null, 2) + "\n");
  fs.writeFileSync(path.join(os.tmpdir(), "conformance-toolgate.json"), JSON.stringify(toolgate.results, null, 2) + "\n");
  console.log(`wrote ${path.relative(repoRoot, fixturePath)} (Claude Code ${claude.version}); toolgate's results in ${path.join(os.tmpdir(), "conformance-toolgate.json")}`);
  if (claude.exitCode !== 0) console.error(`claude exited ${claude.exitCode}: ${claude.stderr}`);
  if (toolgate.exitCode !== 0) console.error(`toolgate exited ${toolgate.exitCode}: ${toolgate.stderr}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
