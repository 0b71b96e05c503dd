import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelScript, type FakeModelServer } from "../../scripts/fake-model.mjs";
import { tempDir } from "../helpers.js";
import { fleetCli, fleetEnv, processAlive, promptOf, startRedis, startWorker, stopProcess, until, writeTasks, type RedisServer, type WorkerProcess } from "./fleetHarness.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function model(script: FakeModelScript): Promise<FakeModelServer> {
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

/** A redis-server, a directory for the test's files, and the environment its workers and CLIs share. */
async function fleetSetup(): Promise<{ redis: RedisServer; dir: string; env: NodeJS.ProcessEnv }> {
  const redis = await startRedis();
  cleanups.push(() => redis.stop());
  const dir = tempDir("toolgate-fleet-");
  return { redis, dir, env: fleetEnv(path.join(dir, ".home")) };
}

async function submit(file: string, redisUrl: string, env: NodeJS.ProcessEnv): Promise<void> {
  expect((await fleetCli(["submit", file, "--redis", redisUrl], env)).code).toBe(0);
}

const completed = (queue: Queue, count: number) =>
  until(async () => ((await queue.getJobCounts("completed")).completed === count ? true : undefined), `${count} completed tasks`);

/** A model turn whose answer is held until the test creates `release`. */
const heldTurn = (text: string, release: string) => ({ content: [{ type: "text" as const, text }], steps: [{ after: 0, waitForFile: release, timeoutMs: 120_000 }] });

const fastTurns: FakeModelScript = { turns: [{ content: [{ type: "text", text: "done" }] }], loop: true };

function workers(count: number, url: string, env: NodeJS.ProcessEnv, extra: string[] = []): WorkerProcess[] {
  const list = Array.from({ length: count }, () => startWorker(url, env, extra));
  cleanups.push(() => Promise.all(list.map((w) => stopProcess(w.child, "SIGKILL"))));
  return list;
}

// .ci/run installs Debian's redis-server; elsewhere, without it, these tests say why they were skipped.
const redisServerInstalled = spawnSync("redis-server", ["--version"]).status === 0;
if (!redisServerInstalled) console.warn("skipping the fleet tests: redis-server is not installed (apt-get install redis-server)");

describe.skipIf(!redisServerInstalled)("toolgate fleet", () => {
  it("refuses a file with a bad line, naming it, and queues nothing; a resubmit queues nothing twice", async () => {
    const { redis, dir, env } = await fleetSetup();
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

    const good = writeTasks(dir, [{ cwd: dir, prompt: "one" }, { id: "named", cwd: ".", prompt: "two" }]);
    const first = await fleetCli(["submit", good, "--redis", redis.url, "--json"], env);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).queued).toHaveLength(2);
    const again = await fleetCli(["submit", good, "--redis", redis.url, "--json"], env);
    expect(JSON.parse(again.stdout)).toEqual({ queued: [], existing: JSON.parse(first.stdout).queued });
    expect(JSON.parse((await fleetCli(["status", "--redis", redis.url, "--json"], env)).stdout).waiting).toBe(2);
    // a relative cwd is the task file's directory
    expect((await queueOf(redis.url).getJob("named"))!.data.task.cwd).toBe(dir);

    const cancelled = await fleetCli(["cancel", "--redis", redis.url, "--json"], env);
    expect(JSON.parse(cancelled.stdout).removed.sort()).toEqual(JSON.parse(first.stdout).queued.sort());
    expect(JSON.parse((await fleetCli(["status", "--redis", redis.url, "--json"], env)).stdout).waiting).toBe(0);
  });

  it("runs 20 tasks on 3 workers, one killed with SIGKILL mid-task: each task completes exactly once", async () => {
    const { redis, dir, env } = await fleetSetup();
    const release = path.join(dir, "release-slow-task");
    const fast = await model(fastTurns);
    // The slow task's answer is held until the test creates `release`, so the kill lands while it runs.
    const slow = await model({ turns: [heldTurn("slow done", release)], loop: true });
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
    await completed(queue, 20);
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

  it("--rate holds across workers: no window of the limit's duration starts more tasks than allowed", async () => {
    const { redis, dir, env } = await fleetSetup();
    const fast = await model(fastTurns);
    const file = writeTasks(dir, Array.from({ length: 12 }, (_, i) => task(dir, fast, `rated task ${i + 1}`)));
    await submit(file, redis.url, env);
    const max = 3;
    const durationMs = 2_000;
    // 3 workers with 2 slots each could start 6 at once: the limit is what holds them back
    workers(3, redis.url, env, ["--concurrency", "2", "--rate", `${max}/${durationMs}ms`]);
    const queue = queueOf(redis.url);
    await completed(queue, 12);
    const starts = (await queue.getJobs(["completed"], 0, -1)).map((job) => job.processedOn!).sort((a, b) => a - b);
    expect(starts).toHaveLength(12);
    // BullMQ's window opens with the first start after the previous one closed.
    const windows: number[] = [];
    for (let i = 0; i < starts.length; ) {
      const end = starts[i]! + durationMs;
      let count = 0;
      while (i < starts.length && starts[i]! < end) {
        count++;
        i++;
      }
      windows.push(count);
    }
    expect(Math.max(...windows)).toBeLessThanOrEqual(Math.floor(max * 1.1));
    expect(windows.length).toBeGreaterThanOrEqual(Math.ceil(12 / max));
  }, 180_000);

  it("a session that ends on the provider's 429 pauses every worker, and its task runs again without using an attempt", async () => {
    const { redis, dir, env: shared } = await fleetSetup();
    const env = { ...shared, TOOLGATE_MAX_RETRIES: "0" };
    const limited = await model({ turns: [{ status: 429 }, { content: [{ type: "text", text: "done after the wait" }] }] });
    const fast = await model(fastTurns);
    const file = writeTasks(dir, [task(dir, limited, "limited task", { id: "limited" }), ...Array.from({ length: 4 }, (_, i) => task(dir, fast, `other task ${i + 1}`))]);
    await submit(file, redis.url, env);
    const waitMs = 3_000;
    const [first] = workers(1, redis.url, env, ["--rate-limit-wait", String(waitMs)]);
    const noted = await first!.waitFor((e) => e.event === "rate_limited", "the 429 to be noted");
    expect(noted).toMatchObject({ job: "limited", retry_after_ms: waitMs });
    const [second] = workers(1, redis.url, env, ["--rate-limit-wait", String(waitMs)]);
    const queue = queueOf(redis.url);
    await completed(queue, 5);
    const jobs = await queue.getJobs(["completed"], 0, -1);
    // no worker, not even one started after the 429, took a task while the limit lasted
    for (const job of jobs) expect(job.processedOn! <= noted.at || job.processedOn! >= noted.at + waitMs * 0.9).toBe(true);
    const retried = jobs.find((job) => job.id === "limited")!;
    expect(retried.returnvalue.text).toBe("done after the wait");
    expect(retried.attemptsMade).toBeLessThanOrEqual(1);
    expect(limited.requests()).toHaveLength(2);
    expect(second!.events.some((e) => e.event === "ready")).toBe(true);
  }, 180_000);

  it("the queue pauses for as long as the provider's retry-after asked, not --rate-limit-wait", async () => {
    const { redis, dir, env: shared } = await fleetSetup();
    const env = { ...shared, TOOLGATE_MAX_RETRIES: "0" };
    const limited = await model({ turns: [{ status: 429, headers: { "retry-after": "2" } }, { content: [{ type: "text", text: "done after the asked wait" }] }] });
    const file = writeTasks(dir, [task(dir, limited, "limited task", { id: "asked" })]);
    await submit(file, redis.url, env);
    const [worker] = workers(1, redis.url, env, ["--rate-limit-wait", "600000"]);
    const noted = await worker!.waitFor((e) => e.event === "rate_limited", "the 429 to be noted");
    expect(noted).toMatchObject({ job: "asked", retry_after_ms: 2_000 });
    const queue = queueOf(redis.url);
    await completed(queue, 1);
    const [job] = await queue.getJobs(["completed"], 0, -1);
    expect(job!.returnvalue.text).toBe("done after the asked wait");
    expect(job!.processedOn!).toBeGreaterThanOrEqual(noted.at + 2_000 * 0.9);
  }, 180_000);

  it("clean removes finished tasks (completed, failed or both; --older-than spares recent ones); waiting ones stay and a cleaned task can be queued again", async () => {
    const { redis, dir, env } = await fleetSetup();
    const fast = await model(fastTurns);
    const file = writeTasks(dir, [task(dir, fast, "works", { id: "ok" }), task(path.join(dir, "missing"), fast, "fails", { id: "bad" })]);
    await submit(file, redis.url, env);
    workers(1, redis.url, env);
    const queue = queueOf(redis.url);
    await until(async () => {
      const counts = await queue.getJobCounts("completed", "failed");
      return counts.completed === 1 && counts.failed === 1 ? true : undefined;
    }, "one completed and one failed task");
    fs.mkdirSync(path.join(dir, "later"));
    const later = writeTasks(path.join(dir, "later"), [task(dir, fast, "not yet", { id: "later" })]);
    // no worker for this queue: it waits
    expect((await fleetCli(["submit", later, "--redis", redis.url, "--queue", "other"], env)).code).toBe(0);

    const spared = await fleetCli(["clean", "--redis", redis.url, "--older-than", "1h", "--json"], env);
    expect(JSON.parse(spared.stdout)).toEqual({ completed: [], failed: [] });
    const failed = await fleetCli(["clean", "--redis", redis.url, "--failed"], env);
    expect(failed.stdout).toBe("removed 1 failed task\n");
    expect(await queue.getJob("bad")).toBeUndefined();
    expect((await queue.getJob("ok"))?.returnvalue?.text).toBe("done");
    const rest = await fleetCli(["clean", "--redis", redis.url, "--json"], env);
    expect(JSON.parse(rest.stdout)).toEqual({ completed: ["ok"], failed: [] });
    expect((await fleetCli(["results", "--redis", redis.url], env)).stdout).toBe("");
    expect(JSON.parse((await fleetCli(["status", "--redis", redis.url, "--queue", "other", "--json"], env)).stdout).waiting).toBe(1);
    // the id is free again
    const again = await fleetCli(["submit", file, "--redis", redis.url, "--json"], env);
    expect(JSON.parse(again.stdout).queued.sort()).toEqual(["bad", "ok"]);
    expect((await fleetCli(["clean", "--redis", redis.url, "--older-than", "soon"], env)).stderr).toContain("--older-than soon: expected a duration such as 30s, 15m, 2h or 7d");
  }, 180_000);

  it("loses no task when redis-server restarts mid-run on the same append-only dir", async () => {
    const { redis, dir, env } = await fleetSetup();
    const release = path.join(dir, "release");
    const fast = await model(fastTurns);
    const held = await model({ turns: [heldTurn("held done", release)] });
    const prompts = Array.from({ length: 9 }, (_, i) => `task ${i + 1}`);
    const file = writeTasks(dir, [task(dir, held, "held task", { id: "held" }), ...prompts.map((prompt) => task(dir, fast, prompt))]);
    await submit(file, redis.url, env);
    const fleet = workers(2, redis.url, env);
    await until(() => held.requests().length === 1 || undefined, "the held task to be running");
    await until(() => (fleet.flatMap((w) => w.events).filter((e) => e.event === "completed").length >= 2 ? true : undefined), "two completed tasks");
    await redis.stop();
    await redis.start();
    fs.writeFileSync(release, "");
    const queue = queueOf(redis.url);
    await completed(queue, 10);
    expect(await queue.getJobCounts("waiting", "active", "failed")).toEqual({ waiting: 0, active: 0, failed: 0 });
    for (const prompt of prompts) expect(fast.requests().filter((r) => promptOf(r.body) === prompt)).toHaveLength(1);
    expect(held.requests()).toHaveLength(1);
    expect((await queue.getJob("held"))!.returnvalue.text).toBe("held done");
  }, 180_000);

  it("SIGTERM: the worker takes no new task, finishes the running one, and leaves no session process", async () => {
    const { redis, dir, env } = await fleetSetup();
    const release = path.join(dir, "release");
    const fast = await model(fastTurns);
    const held = await model({ turns: [heldTurn("held done", release)] });
    const file = writeTasks(dir, [task(dir, held, "held task", { id: "held" }), task(dir, fast, "later task", { id: "later" })]);
    await submit(file, redis.url, env);
    const [worker] = workers(1, redis.url, env);
    const session = await worker!.waitFor((e) => e.event === "session" && e.job === "held", "the held task's session");
    await until(() => held.requests().length === 1 || undefined, "the held task's model request");
    worker!.child.kill("SIGTERM");
    await worker!.waitFor((e) => e.event === "stopping", "the worker to stop taking tasks");
    fs.writeFileSync(release, "");
    expect(await worker!.exited).toBe(0);
    expect(processAlive(session.pid)).toBe(false);
    const queue = queueOf(redis.url);
    expect((await queue.getJob("held"))!.finishedOn).toBeDefined();
    expect(await (await queue.getJob("later"))!.getState()).toBe("waiting");
    expect(fast.requests()).toHaveLength(0);

    // a second SIGTERM puts the running task back instead of waiting for it
    const release2 = path.join(dir, "release-2");
    held.setScript({ turns: [heldTurn("again", release2)], loop: true });
    const file2 = writeTasks(dir, [task(dir, held, "held again", { id: "held-2" })]);
    await submit(file2, redis.url, env);
    const [next] = workers(1, redis.url, env);
    await until(() => held.requests().length === 1 || undefined, "held-2's model request");
    const heldSession = await next!.waitFor((e) => e.event === "session" && e.job === "held-2", "held-2's session");
    next!.child.kill("SIGTERM");
    await next!.waitFor((e) => e.event === "stopping", "stopping");
    next!.child.kill("SIGTERM");
    await next!.waitFor((e) => e.event === "put_back", "held-2 to be put back");
    expect(await next!.exited).toBe(0);
    expect(processAlive(heldSession.pid)).toBe(false);
    expect(await (await queue.getJob("held-2"))!.getState()).toBe("waiting");
  }, 180_000);

  it("a repo task runs in a fresh checkout whose own allow rules apply only when the task says trust", async () => {
    const { redis, dir, env } = await fleetSetup();
    const repo = path.join(dir, "repo");
    fs.mkdirSync(path.join(repo, ".toolgate"), { recursive: true });
    fs.writeFileSync(path.join(repo, ".toolgate/settings.json"), JSON.stringify({ permissions: { allow: ["Write"] } }));
    fs.writeFileSync(path.join(repo, "notes.txt"), "from the repo\n");
    const git = (...args: string[]) => spawnSync("git", args, { cwd: repo, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
    git("init", "-q", "-b", "main");
    git("add", "-A");
    expect(git("commit", "-qm", "init").status).toBe(0);
    // each task: one Write the repository's rule would allow, then the final answer
    const writer = await model({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_w", name: "Write", input: { file_path: "out.txt", content: "written\n" } }] },
        { content: [{ type: "text", text: "finished" }] },
      ],
      loop: true,
    });
    const file = writeTasks(dir, [
      task(dir, writer, "untrusted", { id: "untrusted", cwd: undefined, repo, ref: "main" }),
      task(dir, writer, "trusted", { id: "trusted", cwd: undefined, repo, ref: "main", trust: true }),
    ]);
    await submit(file, redis.url, env);
    const workDir = path.join(dir, "work");
    workers(1, redis.url, env, ["--work-dir", workDir]);
    const queue = queueOf(redis.url);
    await completed(queue, 2);
    const untrusted = (await queue.getJob("untrusted"))!.returnvalue;
    const trusted = (await queue.getJob("trusted"))!.returnvalue;
    expect(untrusted.cwd).toBe(path.join(workDir, "untrusted"));
    expect(fs.readFileSync(path.join(untrusted.cwd, "notes.txt"), "utf8")).toBe("from the repo\n");
    expect(untrusted.permissionDenials).toHaveLength(1);
    expect(fs.existsSync(path.join(untrusted.cwd, "out.txt"))).toBe(false);
    expect(trusted.permissionDenials).toHaveLength(0);
    expect(fs.readFileSync(path.join(trusted.cwd, "out.txt"), "utf8")).toBe("written\n");
    expect(trusted.changes.length).toBeGreaterThan(0);
    expect((await queue.getJob("trusted"))!.progress).toMatchObject({ attempt: 1, toolCalls: 1, lastTool: "Write", turns: 2 });
  }, 180_000);
});
