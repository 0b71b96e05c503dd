/**
 * The worker thread WebFetch converts pages in (see convertOffThread.ts): one job at a time, answered in
 * order. Its own errors come back as messages; the thread stays up for the next page.
 */
import { parentPort } from "node:worker_threads";
import { convertBody } from "./convert.js";

interface ConvertJob {
  body: Uint8Array;
  contentType: string;
  url: string;
}

parentPort?.on("message", (job: ConvertJob) => {
  convertBody(Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength), job.contentType, job.url).then(
    (result) => parentPort?.postMessage({ result }),
    (err: unknown) => parentPort?.postMessage({ error: err instanceof Error ? err.message : String(err) }),
  );
});
