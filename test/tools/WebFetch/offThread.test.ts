/**
 * Page conversion in a worker thread, from the build (only the compiled module has its worker script beside
 * it; from the TypeScript sources pages are converted on the main thread, and this file is skipped, saying so).
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { builtIsFresh, repoRoot } from "../../cliCommand.js";
import { convertBody } from "../../../src/tools/WebFetch/convert.js";

type OffThread = typeof import("../../../src/tools/WebFetch/convertOffThread.js");

if (!builtIsFresh) console.warn("skipping the worker-thread conversion tests: dist/ is older than src/ (run npm run build)");

function bigPage(chars: number): Buffer {
  const para = "<p>Some <b>bold</b> text with a <a href='/x'>link</a> and more words to fill the line.</p>\n";
  let body = "";
  while (body.length < chars) body += `<h2>Section</h2>${para.repeat(20)}`;
  return Buffer.from(`<html><head><title>Big</title></head><body><article>${body}</article></body></html>`);
}

describe.skipIf(!builtIsFresh)("WebFetch conversion off the main thread (the build)", () => {
  const load = () => import(pathToFileURL(path.join(repoRoot, "dist/tools/WebFetch/convertOffThread.js")).href) as Promise<OffThread>;

  it("converts as the main thread would, while this thread's event loop keeps running", async () => {
    const { convertBodyOffThread, convertsOffThread } = await load();
    expect(convertsOffThread).toBe(true);
    const page = bigPage(800_000);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const converted = await convertBodyOffThread(page, "text/html", "https://example.test/", new AbortController().signal);
    clearInterval(timer);
    console.log(`[measure] ${ticks} timer ticks of 10 ms during the off-thread conversion`);
    // On the main thread the conversion is one synchronous stretch of seconds: the only ticks are those of the
    // module loading before it (12 measured). Here the loop runs all along.
    expect(ticks).toBeGreaterThan(60);
    expect(converted).toEqual(await convertBody(page, "text/html", "https://example.test/"));
  });

  it("an interrupted conversion ends at once, a queued one too, and the next page gets a new thread", async () => {
    const { convertBodyOffThread } = await load();
    const busy = new AbortController();
    const queued = new AbortController();
    const first = convertBodyOffThread(bigPage(1_500_000), "text/html", "https://example.test/a", busy.signal);
    const second = convertBodyOffThread(bigPage(1_500_000), "text/html", "https://example.test/b", queued.signal);
    await new Promise((r) => setTimeout(r, 200));
    queued.abort();
    busy.abort();
    await expect(first).rejects.toThrow("The conversion was interrupted.");
    await expect(second).rejects.toThrow("The conversion was interrupted.");
    const next = await convertBodyOffThread(Buffer.from("<html><body><article><h1>Hi</h1><p>small page, long enough to be an article for readability to keep.</p></article></body></html>"), "text/html", "https://example.test/c", new AbortController().signal);
    expect(next.kind).toBe("html");
    expect(JSON.stringify(next)).toContain("small page");
  });

  it("the thread never holds the process open: after a page, and after an interrupt while it was starting", () => {
    const module = pathToFileURL(path.join(repoRoot, "dist/tools/WebFetch/convertOffThread.js")).href;
    const page = "Buffer.from('<html><body><article><p>' + 'words '.repeat(50000) + '</p></article></body></html>')";
    for (const script of [
      `const m = await import(${JSON.stringify(module)}); const r = await m.convertBodyOffThread(${page}, "text/html", "https://e.test/", new AbortController().signal); console.log(r.kind);`,
      `const m = await import(${JSON.stringify(module)}); const c = new AbortController(); const p = m.convertBodyOffThread(${page}, "text/html", "https://e.test/", c.signal); c.abort(); console.log(await p.catch((e) => e.message));`,
    ]) {
      // A process kept alive by an idle thread would be killed at the timeout (status null).
      const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000 });
      expect(run.status).toBe(0);
      expect(run.stdout.trim()).toMatch(/^(html|The conversion was interrupted\.)$/);
    }
  });

  it("text bodies are handled here without a thread", async () => {
    const { convertBodyOffThread } = await load();
    expect(await convertBodyOffThread(Buffer.from('{"a":1}'), "application/json", "https://example.test/j", new AbortController().signal)).toEqual({ kind: "text", content: '{"a":1}' });
  });
});
