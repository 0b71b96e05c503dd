import fs from "node:fs";
import path from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelServer } from "../../scripts/fake-model.mjs";
import { tempDir } from "../helpers.js";
import { fleetCli, fleetEnv, processAlive, promptOf, startRedis, startWorker, stopProcess, until, writeTasks, type WorkerProcess } from "./fleetHarness.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function model(script: Parameters<typeof startFakeModelServer>[0]["script"]): Promise<FakeModelServer> {
  const server = await startFakeModelServer({ script });
  cleanups.push(() => server.close());
  return server;
}

function queueOf(url: string, name = "toolgate"): Queue {
  const connection = new Redis(url, { maxRetriesPerRequest: null });
  connection.on("error", () => undefined);
  const queue = new Queue(name, { connection });
  cleanups.push(async () => {
    await queue.close();
    connection.disconnect();
  });
  return queue;
}

/** A task that talks to `server` (each task names its model server in its settings). */
const task = (dir: string, server: FakeModelServer, prompt: string, extra: Record<string, unknown> = {}) => ({
  cwd: dir,
  prompt,
  settings: { provider: { baseURL: server.url } },
  ...extra,
});

const fastTurns = { turns: [{ content: [{ type: "text", text: "done" }] }], loop: true };

function workers(count: number, url: string, env: NodeJS.ProcessEnv, extra: string[] = []): WorkerProcess[] {
  const list = Array.from({ length: count }, () => startWorker(url, env, extra));
  cleanups.push(() => Promise.all(list.map((w) => stopProcess(w.child, "SIGKILL"))));
  return list;
}

describe("toolgate fleet", () => {
  it("refuses a file with a bad line, naming it, and queues nothing; a resubmit queues nothing twice", async () => {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const dir = tempDir("toolgate-fleet-");
    const env = fleetEnv(path.join(dir, ".home"));
    const bad = writeTasks(dir, [
      { cwd: dir, prompt: "one" },
      { cwd: dir, prompt: "two", maxTurns: 0 },
      "{not json",
      { cwd: dir, repo: "https://example.invalid/r.git", ref: "main", prompt: "four" },
      { cwd: dir, prompt: "five", colour: "blue" },
    ]);
    const refused = await fleetCli(["submit", bad, "--redis", redis.url], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("none was queued");
    expect(refused.stderr).toMatch(/line 2: maxTurns/);
    expect(refused.stderr).toMatch(/line 3: not JSON/);
    expect(refused.stderr).toMatch(/line 4: give cwd or repo, not both/);
    expect(refused.stderr).toMatch(/line 5: .*colour/);
    expect(refused.stderr).not.toMatch(/line 1:/);
    const status = await fleetCli(["status", "--redis", redis.url, "--json"], env);
    expect(status.code).toBe(0);
    expect(Object.values(JSON.parse(status.stdout)).every((n) => n === 0)).toBe(true);

    const good = writeTasks(dir, [{ cwd: dir, prompt: "one" }, { id: "named", cwd: dir, prompt: "two" }]);
    const first = await fleetCli(["submit", good, "--redis", redis.url, "--json"], env);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).queued).toHaveLength(2);
    const again = await fleetCli(["submit", good, "--redis", redis.url, "--json"], env);
    expect(JSON.parse(again.stdout)).toEqual({ queued: [], existing: JSON.parse(first.stdout).queued });
    expect(JSON.parse((await fleetCli(["status", "--redis", redis.url, "--json"], env)).stdout).waiting).toBe(2);

    const cancelled = await fleetCli(["cancel", "--redis", redis.url, "--json"], env);
    expect(JSON.parse(cancelled.stdout).removed.sort()).toEqual(JSON.parse(first.stdout).queued.sort());
    expect(JSON.parse((await fleetCli(["status", "--redis", redis.url, "--json"], env)).stdout).waiting).toBe(0);
  });

  it("runs 20 tasks on 3 workers, one killed with SIGKILL mid-task: each task completes exactly once", async () => {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const dir = tempDir("toolgate-fleet-");
    const env = fleetEnv(path.join(dir, ".home"));
    const release = path.join(dir, "release-slow-task");
    const fast = await model(fastTurns);
    // The slow task's answer is held until the test creates `release`, so the kill lands while it runs.
    const slow = await model({
      turns: [{ content: [{ type: "text", text: "slow done" }], steps: [{ after: 0, waitForFile: release, timeoutMs: 120_000 }] }],
      loop: true,
    });
    const prompts = Array.from({ length: 19 }, (_, i) => `fast task ${i + 1}`);
    const file = writeTasks(dir, [task(dir, slow, "slow task", { id: "slow" }), ...prompts.map((prompt) => task(dir, fast, prompt))]);
    const submitted = await fleetCli(["submit", file, "--redis", redis.url, "--json"], env);
    expect(submitted.code).toBe(0);
    const ids: string[] = JSON.parse(submitted.stdout).queued;
    expect(ids).toHaveLength(20);

    const fleet = workers(3, redis.url, env, ["--lock-duration", "2000"]);
    await until(() => slow.requests().length >= 1 || undefined, "the slow task's first model request");
    const holder = await until(() => fleet.find((w) => w.events.some((e) => e.event === "active" && e.job === "slow")), "the worker running the slow task");
    const session = await holder.waitFor((e) => e.event === "session" && e.job === "slow", "the slow task's session");
    holder.child.kill("SIGKILL");
    await holder.exited;
    // The session process of the dead worker stops by itself (its lifeline closed): nothing runs unseen.
    await until(() => !processAlive(session.pid) || undefined, `session ${session.pid} to stop`);

    const others = fleet.filter((w) => w !== holder);
    await until(() => others.some((w) => w.events.some((e) => e.event === "active" && e.job === "slow")) || undefined, "another worker to take the slow task");
    await until(() => slow.requests().length >= 2 || undefined, "the retried slow task's model request");
    fs.writeFileSync(release, "");

    const queue = queueOf(redis.url);
    await until(async () => ((await queue.getJobCounts("completed")).completed === 20 ? true : undefined), "20 completed tasks");
    const counts = await queue.getJobCounts("waiting", "active", "delayed", "failed", "completed");
    expect(counts).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0, completed: 20 });

    // Every job completed once, by a live worker, and the model answered each task's final turn once.
    const completions = fleet.flatMap((w) => w.events.filter((e) => e.event === "completed").map((e) => e.job));
    expect(completions.sort()).toEqual([...ids].sort());
    for (const prompt of prompts) expect(fast.requests().filter((r) => promptOf(r.body) === prompt)).toHaveLength(1);
    expect(fast.requests()).toHaveLength(19);
    // two requests for the slow task: the killed attempt's (never answered) and the retry's
    expect(slow.requests().map((r) => promptOf(r.body))).toEqual(["slow task", "slow task"]);

    const results = await fleetCli(["results", "--redis", redis.url, "--json"], env);
    const records = results.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(records).toHaveLength(20);
    for (const record of records) {
      expect(record.state).toBe("completed");
      expect(record.result.subtype).toBe("success");
      expect(record.result.text).toBe(record.prompt === "slow task" ? "slow done" : "done");
      expect(record.result.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(fs.existsSync(record.result.transcriptPath)).toBe(true);
    }
    const slowRecord = records.find((r) => r.id === "slow");
    expect(slowRecord.result.attempt).toBe(2);
    expect(slowRecord.worker).not.toContain(`:${holder.pid}`);
  }, 240_000);
});
