// Module hooks for trace.ts: one line per loaded module to $TOOLGATE_TRACE_LOG (ms since the process started, URL, bytes).
import fs from "node:fs";

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  const log = process.env.TOOLGATE_TRACE_LOG;
  if (log) fs.appendFileSync(log, `${performance.now().toFixed(1)}\t${url}\t${result.source?.length ?? 0}\n`);
  return result;
}
