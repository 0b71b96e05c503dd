/**
 * Page conversion off the main thread. HTML → markdown is synchronous and takes about 2.5 ms per KB (a 2 MB page
 * about 5 s): on the main thread it would freeze the UI, Esc, and every other call of the session. A worker
 * thread converts instead, started on the first page and kept (unreferenced, so it never holds the process
 * open); an interrupted conversion terminates it, and the next page starts a new one. Jobs run one at a time.
 *
 * The worker needs its compiled script beside this module (the build, and the bundle, have it); run from the
 * TypeScript sources there is none, and pages are converted on the main thread as before.
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import type { Worker } from "node:worker_threads";
import { classifyBody, convertBody, type ConvertedPage } from "./convert.js";

type Converted = ConvertedPage | { kind: "binary"; mediaType: string };

interface Job {
  body: Buffer;
  contentType: string;
  url: string;
  signal: AbortSignal;
  resolve(value: Converted): void;
  reject(err: Error): void;
  cleanup(): void;
}

const WORKER_FILE = (() => {
  try {
    const file = fileURLToPath(new URL("./convertWorker.js", import.meta.url));
    return fs.existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
})();

/** Whether pages are converted in a worker thread here (false when running from the TypeScript sources). */
export const convertsOffThread = WORKER_FILE !== undefined;

let worker: Worker | undefined;
let running: Job | undefined;
const queue: Job[] = [];

function settle(job: Job, outcome: { result?: Converted; error?: string | Error }): void {
  job.cleanup();
  if (outcome.result) job.resolve(outcome.result);
  else job.reject(outcome.error instanceof Error ? outcome.error : new Error(outcome.error ?? "the conversion failed"));
}

async function startWorker(): Promise<Worker> {
  const { Worker } = await import("node:worker_threads");
  // Plain Node: the parent's own flags (--input-type, a loader) could stop a thread that only needs its file.
  const started = new Worker(WORKER_FILE as string, { execArgv: [] });
  started.on("message", (message: { result?: Converted; error?: string }) => {
    // A thread stopped for an interrupted page may still deliver its answer: it belongs to no job now.
    if (worker !== started) return;
    const job = running;
    running = undefined;
    if (job) settle(job, message);
    void pump();
  });
  const lost = (err: Error) => {
    if (worker !== started) return;
    worker = undefined;
    const job = running;
    running = undefined;
    if (job) settle(job, { error: err });
    void pump();
  };
  started.on("error", lost);
  started.on("exit", (code) => lost(new Error(`the page conversion thread exited (code ${code})`)));
  return started;
}

let starting: Promise<Worker> | undefined;

async function pump(): Promise<void> {
  if (running) return;
  const job = queue.shift();
  if (!job) {
    worker?.unref();
    return;
  }
  running = job;
  try {
    worker ??= await (starting ??= startWorker().finally(() => (starting = undefined)));
  } catch (err) {
    running = undefined;
    settle(job, { error: err instanceof Error ? err : new Error(String(err)) });
    void pump();
    return;
  }
  if (running !== job) {
    // Interrupted while the thread started: it takes the next job, or is let go (unreferenced).
    void pump();
    return;
  }
  worker.ref();
  worker.postMessage({ body: new Uint8Array(job.body), contentType: job.contentType, url: job.url });
}

/** convertBody in the worker thread (or here, without one); `signal` interrupts it at once. */
export function convertBodyOffThread(body: Buffer, contentType: string, url: string, signal: AbortSignal): Promise<Converted> {
  // Text and binary bodies take no time to handle; only HTML is worth a thread.
  if (!WORKER_FILE || classifyBody(contentType, body) !== "html") return convertBody(body, contentType, url);
  return new Promise<Converted>((resolve, reject) => {
    if (signal.aborted) return reject(new Error("The conversion was interrupted."));
    const onAbort = () => {
      if (running === job) {
        // The thread is busy with this page: stop it; the next page gets a new one.
        const busy = worker;
        worker = undefined;
        running = undefined;
        void busy?.terminate();
      } else {
        const at = queue.indexOf(job);
        if (at >= 0) queue.splice(at, 1);
      }
      settle(job, { error: new Error("The conversion was interrupted.") });
      void pump();
    };
    const job: Job = { body, contentType, url, signal, resolve, reject, cleanup: () => signal.removeEventListener("abort", onAbort) };
    signal.addEventListener("abort", onAbort, { once: true });
    queue.push(job);
    void pump();
  });
}
