/**
 * The recorded-traffic corpus (test/fixtures/recorded/, see SOURCES.md there) and a loopback server that plays it
 * back byte for byte: each POST, whatever its path, gets the next recording's status, content type and body,
 * written whole or cut into pieces of `chunkBytes` bytes, each flushed before the next is written.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

export const RECORDED_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/recorded");

export type RecordedApi = "anthropic-messages" | "openai-chat" | "openai-responses";

/** `sse` is wire text; `json` one document; `json-lines` one SSE data payload per line, its framing stripped by the source. */
export type BodyFormat = "sse" | "json" | "json-lines";

export interface Recording {
  /** Path under test/fixtures/recorded/, e.g. `deepseek/deepseek-tool-call.chunks.json`. */
  file: string;
  source: { repo: string; path: string; commit: string; license: string; interaction?: number; fidelity: "exact" | "reserialized" | "framing-stripped" | "pretty-printed" };
  api: RecordedApi;
  server: string;
  model: string;
  request: unknown;
  requestOmitted?: string;
  response: { status: number; headers: Record<string, string>; bodyFormat: BodyFormat; body: string };
  tags: string[];
  notes?: string;
}

let cache: Recording[] | undefined;

function readAll(): Recording[] {
  if (cache) return cache;
  const out: Recording[] = [];
  for (const dir of fs.readdirSync(RECORDED_DIR, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const name of fs.readdirSync(path.join(RECORDED_DIR, dir.name)).sort()) {
      if (!name.endsWith(".json")) continue;
      const file = `${dir.name}/${name}`;
      out.push({ file, ...(JSON.parse(fs.readFileSync(path.join(RECORDED_DIR, file), "utf8")) as Omit<Recording, "file">) });
    }
  }
  cache = out.sort((a, b) => a.file.localeCompare(b.file));
  return cache;
}

/** Every recording (sorted by file), or those the filter keeps. */
export function loadRecordings(filter?: (recording: Recording) => boolean): Recording[] {
  const all = readAll();
  return filter ? all.filter(filter) : [...all];
}

/**
 * The bytes the server sends. Recorded SSE and JSON go as they are; a json-lines body gets the framing its API
 * uses: `event: <type>` (Anthropic and Responses events carry their type) and `data: <line>`, a blank line after each.
 */
export function wireBytes(recording: Recording): Buffer {
  const { bodyFormat, body } = recording.response;
  if (bodyFormat !== "json-lines") return Buffer.from(body, "utf8");
  const named = recording.api !== "openai-chat";
  const framed = body
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const type = named ? (JSON.parse(line) as { type?: unknown }).type : undefined;
      return `${typeof type === "string" ? `event: ${type}\n` : ""}data: ${line}\n\n`;
    })
    .join("");
  return Buffer.from(framed, "utf8");
}

export interface ReplayOptions {
  /** Write the body in pieces of this many bytes, each flushed before the next; whole when absent. */
  chunkBytes?: number;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
}

export interface ReplayServer {
  url: string;
  /** Every request received, in order. */
  readonly requests: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * Serves the recordings in order, one per POST; once all were served, the last one again (so a retried error
 * recording answers each retry the same way).
 */
export async function startReplayServer(recordings: Recording | readonly Recording[], options: ReplayOptions = {}): Promise<ReplayServer> {
  const queue = Array.isArray(recordings) ? [...recordings] : [recordings as Recording];
  if (queue.length === 0) throw new Error("startReplayServer needs at least one recording");
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<import("node:net").Socket>();
  let served = 0;

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const text = Buffer.concat(parts).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      requests.push({ method: req.method ?? "", path: req.url ?? "", body });
      if (req.method !== "POST") {
        res.writeHead(404, { "content-type": "text/plain" }).end("replay server: POST only");
        return;
      }
      const recording = queue[Math.min(served++, queue.length - 1)];
      play(res, recording, options.chunkBytes).catch(() => res.destroy());
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function play(res: http.ServerResponse, recording: Recording, chunkBytes: number | undefined): Promise<void> {
  const bytes = wireBytes(recording);
  res.writeHead(recording.response.status, recording.response.headers);
  if (!chunkBytes || chunkBytes >= bytes.length) {
    res.end(bytes);
    return;
  }
  // Headers go out on their own first, so even the first piece of the body arrives apart.
  res.flushHeaders();
  for (let at = 0; at < bytes.length; at += chunkBytes) {
    if (res.destroyed) return;
    await new Promise<void>((resolve, reject) => {
      res.write(bytes.subarray(at, at + chunkBytes), (err) => (err ? reject(err) : resolve()));
    });
  }
  await new Promise<void>((resolve) => res.end(resolve));
}
