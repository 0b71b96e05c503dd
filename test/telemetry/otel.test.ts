/**
 * OpenTelemetry end to end: a real `toolgate -p` run (Bash and Edit calls against the scripted model server)
 * exports OTLP/HTTP JSON to a loopback receiver. Asserts the events and metrics, that no path, command text,
 * file content or prompt text leaves the machine unless the user opted in, and that without the opt-in
 * variable nothing is sent at all.
 */
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { agentEnv, project, runCli, serveModel } from "../cli/agentRun.js";
import { connectToServe } from "../cli/mcpServe.js";

vi.setConfig({ testTimeout: 120_000 });

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
}

const receivers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A loopback OTLP/HTTP receiver: records every request and answers 200 with an empty JSON body. */
async function otlpReceiver() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let bytes = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") bytes = gunzipSync(bytes);
      const raw = bytes.toString("utf8");
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      received.push({ path: req.url ?? "", headers: req.headers, raw, body });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  receivers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, received };
}

type AnyValue = { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean };
const value = (v: AnyValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue;
const attrs = (list: Array<{ key: string; value: AnyValue }> = []) => Object.fromEntries(list.map((a) => [a.key, value(a.value)]));

function logEvents(received: Received[]) {
  return received
    .filter((r) => r.path === "/v1/logs")
    .flatMap((r) => r.body.resourceLogs.flatMap((rl: any) => rl.scopeLogs.flatMap((sl: any) => sl.logRecords.map((lr: any) => ({ resource: attrs(rl.resource.attributes), ...attrs(lr.attributes) })))));
}

/** The last exported value of each metric data point, by metric name (cumulative sums). */
function metricPoints(received: Received[]) {
  const points: Record<string, Array<{ attributes: Record<string, unknown>; value: number; resource: Record<string, unknown> }>> = {};
  for (const r of received.filter((r) => r.path === "/v1/metrics")) {
    for (const rm of r.body.resourceMetrics) {
      for (const sm of rm.scopeMetrics) {
        for (const m of sm.metrics) {
          points[m.name] = (m.sum?.dataPoints ?? []).map((p: any) => ({ attributes: attrs(p.attributes), value: p.asDouble ?? Number(p.asInt), resource: attrs(rm.resource.attributes) }));
        }
      }
    }
  }
  return points;
}

const SECRET_NAME = "secret-plan-7Q2.txt";
const SECRET_CONTENT = "confidential-content-ABC";
const SECRET_COMMAND = "sekrit-marker-QRS";
const PROMPT = "prompt-text-LMN please tidy up";

const script = {
  turns: [
    {
      content: [
        { type: "tool_use" as const, id: "t1", name: "Bash", input: { command: `echo ${SECRET_COMMAND}` } },
        { type: "tool_use" as const, id: "t2", name: "Read", input: { file_path: SECRET_NAME } },
      ],
      usage: { input_tokens: 1000, output_tokens: 50, cache_read_input_tokens: 200 },
    },
    {
      content: [
        { type: "tool_use" as const, id: "t3", name: "Edit", input: { file_path: SECRET_NAME, old_string: SECRET_CONTENT, new_string: `${SECRET_CONTENT}-edited\nsecond line` } },
        { type: "tool_use" as const, id: "t4", name: "Bash", input: { command: `touch ${SECRET_COMMAND}.flag` } },
        { type: "tool_use" as const, id: "t5", name: "Bash", input: { command: `git push ${SECRET_COMMAND}` } },
        { type: "tool_use" as const, id: "t6", name: "Read", input: { file_path: "does-not-exist-XYZ.txt" } },
      ],
      usage: { input_tokens: 1500, output_tokens: 80 },
    },
    { content: [{ type: "text" as const, text: "Tidied." }], usage: { input_tokens: 1700, output_tokens: 5 } },
  ],
};

function telemetryProject() {
  const dir = project({ [SECRET_NAME]: `${SECRET_CONTENT}\n`, ".toolgate/settings.local.json": JSON.stringify({ permissions: { allow: ["Bash(touch:*)"] } }) });
  return dir;
}

const args = (dir: string) => ["-p", PROMPT, "--cwd", dir, "--model", "claude-sonnet-4-5", "--permission-mode", "acceptEdits", "--output-format", "stream-json", "--no-sandbox", "--trust"];

describe("OpenTelemetry export", () => {
  it("a -p run exports its events and metrics over OTLP/HTTP, and nothing identifying leaves by default", async () => {
    const receiver = await otlpReceiver();
    const server = await serveModel(script);
    const dir = telemetryProject();
    const run = await runCli(args(dir), agentEnv(server, dir, { TOOLGATE_ENABLE_TELEMETRY: "1", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_HEADERS: "x-collector-token=tok123" }));
    expect(run.code).toBe(0);
    const sessionId = run.lines.at(-1)!.session_id;
    expect(fs.readFileSync(path.join(dir, SECRET_NAME), "utf8")).toContain("-edited");

    expect(receiver.received.map((r) => r.path).sort()).toEqual(expect.arrayContaining(["/v1/logs", "/v1/metrics"]));
    for (const r of receiver.received) {
      expect(r.headers["x-collector-token"]).toBe("tok123");
      expect(r.headers["content-type"]).toMatch(/application\/json/);
    }

    const events = logEvents(receiver.received);
    expect(events[0].resource).toMatchObject({ "service.name": "toolgate", "session.id": sessionId });
    expect(typeof events[0].resource["service.version"]).toBe("string");
    const named = (name: string) => events.filter((e) => e["event.name"] === name);
    expect(named("session_start")).toEqual([expect.objectContaining({ command: "agent", model: "claude-sonnet-4-5", provider: "anthropic", resumed: false, permission_mode: "acceptEdits", "session.id": sessionId })]);
    expect(named("user_prompt")).toEqual([expect.objectContaining({ prompt_length: PROMPT.length })]);
    expect(named("user_prompt")[0].prompt).toBeUndefined();

    const decisions = Object.fromEntries(named("tool_decision").map((e) => [e.tool_use_id, [e.tool_name, e.decision, e.source]]));
    expect(decisions).toEqual({
      t1: ["Bash", "accept", "config"],
      t2: ["Read", "accept", "config"],
      t3: ["Edit", "accept", "config"],
      t4: ["Bash", "accept", "user_permanent"],
      t5: ["Bash", "reject", "config"],
      // t6 failed validation (no such file) before any permission decision.
    });
    const results = Object.fromEntries(named("tool_result").map((e) => [e.tool_use_id, e]));
    expect(results.t1).toMatchObject({ tool_name: "Bash", outcome: "success", success: true });
    expect(typeof results.t1.duration_ms).toBe("number");
    expect(results.t3).toMatchObject({ tool_name: "Edit", outcome: "success" });
    expect(results.t5).toMatchObject({ tool_name: "Bash", outcome: "denied", success: false });
    expect(results.t6).toMatchObject({ tool_name: "Read", success: false });
    expect(results.t6.outcome).not.toBe("success");

    const requests = named("api_request");
    expect(requests).toHaveLength(3);
    expect(requests[0]).toMatchObject({ model: "claude-sonnet-4-5", input_tokens: 1000, output_tokens: 50, cache_read_tokens: 200, stop_reason: "tool_use" });
    // 1000 × $3 + 50 × $15 + 200 × $0.30 per million tokens
    expect(requests[0].cost_usd).toBeCloseTo(0.00381, 8);
    expect(requests[2]).toMatchObject({ stop_reason: "end_turn", output_tokens: 5 });

    const metrics = metricPoints(receiver.received);
    expect(metrics["toolgate.session.count"]).toEqual([expect.objectContaining({ value: 1 })]);
    expect(metrics["toolgate.session.count"][0].resource).toMatchObject({ "service.name": "toolgate", "session.id": sessionId });
    const byType = (name: string) => Object.fromEntries(metrics[name].map((p) => [p.attributes.type, p.value]));
    // The Edit replaced one line with two.
    expect(byType("toolgate.lines_of_code.count")).toEqual({ added: 2, removed: 1 });
    expect(byType("toolgate.token.usage")).toEqual({ input: 4200, output: 135, cacheRead: 200, cacheCreation: 0 });
    expect(metrics["toolgate.cost.usage"][0].value).toBeCloseTo((4200 * 3 + 135 * 15 + 200 * 0.3) / 1e6, 8);
    const decisionCounts = metrics["toolgate.tool.decision"].map((p) => [p.attributes.tool_name, p.attributes.decision, p.attributes.source, p.value]);
    expect(decisionCounts).toEqual(expect.arrayContaining([["Bash", "reject", "config", 1], ["Bash", "accept", "user_permanent", 1], ["Read", "accept", "config", 1]]));

    // Nothing identifying in any byte that was sent.
    const everything = receiver.received.map((r) => r.raw).join("\n");
    for (const secret of [dir, SECRET_NAME, "secret-plan", SECRET_CONTENT, SECRET_COMMAND, "git push", "echo ", "prompt-text-LMN", "does-not-exist", "Tidied."]) {
      expect(everything).not.toContain(secret);
    }
  });

  it("with the opt-ins, tool inputs and the prompt text are exported (so the check above can fail)", async () => {
    const receiver = await otlpReceiver();
    const server = await serveModel(script);
    const dir = telemetryProject();
    const env = agentEnv(server, dir, { TOOLGATE_ENABLE_TELEMETRY: "1", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, TOOLGATE_TELEMETRY_INCLUDE_INPUTS: "1", OTEL_LOG_USER_PROMPTS: "1" });
    const run = await runCli(args(dir), env);
    expect(run.code).toBe(0);
    const events = logEvents(receiver.received);
    expect(events.find((e) => e["event.name"] === "user_prompt")).toMatchObject({ prompt: PROMPT });
    const bash = events.find((e) => e["event.name"] === "tool_result" && e.tool_use_id === "t1");
    expect(String(bash?.tool_input)).toContain(SECRET_COMMAND);
  });

  it("signal-specific endpoints are honoured, and without TOOLGATE_ENABLE_TELEMETRY nothing is sent at all", async () => {
    const logs = await otlpReceiver();
    const metrics = await otlpReceiver();
    const server = await serveModel({ loop: true, turns: [{ content: [{ type: "text", text: "hi" }] }] });
    const dir = project();
    const split = await runCli(["-p", "hello", "--cwd", dir, "--no-sandbox"], agentEnv(server, dir, { TOOLGATE_ENABLE_TELEMETRY: "1", OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: `${logs.url}/custom/logs`, OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${metrics.url}/custom/metrics` }));
    expect(split).toMatchObject({ code: 0, stdout: "hi\n" });
    expect(new Set(logs.received.map((r) => r.path))).toEqual(new Set(["/custom/logs"]));
    expect(new Set(metrics.received.map((r) => r.path))).toEqual(new Set(["/custom/metrics"]));

    const off = await otlpReceiver();
    for (const enable of [undefined, "0"]) {
      const run = await runCli(["-p", "hello", "--cwd", dir, "--no-sandbox"], agentEnv(server, dir, { ...(enable === undefined ? {} : { TOOLGATE_ENABLE_TELEMETRY: enable }), OTEL_EXPORTER_OTLP_ENDPOINT: off.url, OTEL_METRIC_EXPORT_INTERVAL: "100" }));
      expect(run).toMatchObject({ code: 0, stdout: "hi\n" });
    }
    expect(off.received).toEqual([]);
  });

  it("exec exports its tool decisions and results, without the commands or paths", async () => {
    const receiver = await otlpReceiver();
    const dir = telemetryProject();
    const calls = [
      { type: "tool_use", id: "e1", name: "Read", input: { file_path: SECRET_NAME } },
      { type: "tool_use", id: "e2", name: "Bash", input: { command: `git push ${SECRET_COMMAND}` } },
      { type: "tool_use", id: "e3", name: `/tmp/${SECRET_COMMAND}`, input: {} },
    ];
    const stdin = `${calls.map((c) => JSON.stringify(c)).join("\n")}\n`;
    const run = await runCli(["exec", "--cwd", dir, "--no-sandbox"], agentEnv(undefined, dir, { TOOLGATE_ENABLE_TELEMETRY: "1", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }), stdin);
    expect(run.code).toBe(0);
    expect(run.lines).toHaveLength(3);
    const events = logEvents(receiver.received);
    expect(events.find((e) => e["event.name"] === "session_start")).toMatchObject({ command: "exec", resumed: false });
    const results = Object.fromEntries(events.filter((e) => e["event.name"] === "tool_result").map((e) => [e.tool_use_id, [e.tool_name, e.outcome]]));
    expect(results).toEqual({ e1: ["Read", "success"], e2: ["Bash", "denied"], e3: ["unknown", "unknown_tool"] });
    const everything = receiver.received.map((r) => r.raw).join("\n");
    for (const secret of [dir, SECRET_NAME, SECRET_CONTENT, SECRET_COMMAND, "git push"]) expect(everything).not.toContain(secret);
  });

  it("OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME join the resource; the session id and version stay toolgate's", async () => {
    const receiver = await otlpReceiver();
    const dir = project();
    const stdin = `${JSON.stringify({ type: "tool_use", id: "r1", name: "Glob", input: { pattern: "*.none" } })}\n`;
    const env = {
      TOOLGATE_ENABLE_TELEMETRY: "1",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_RESOURCE_ATTRIBUTES: "team=platform, deployment.environment=ci%2Cstaging,broken,=novalue,session.id=mine",
      OTEL_SERVICE_NAME: "agents-on-ci",
    };
    const run = await runCli(["exec", "--cwd", dir, "--no-sandbox"], agentEnv(undefined, dir, env), stdin);
    expect(run.code).toBe(0);
    const events = logEvents(receiver.received);
    expect(events.length).toBeGreaterThan(0);
    const resource = events[0].resource;
    expect(resource).toMatchObject({ team: "platform", "deployment.environment": "ci,staging", "service.name": "agents-on-ci" });
    expect(resource["session.id"]).not.toBe("mine");
    expect(typeof resource["service.version"]).toBe("string");
    expect(Object.keys(resource)).not.toContain("broken");
  });

  it("mcp serve exports each connection's tool events (and no paths) when its session closes", async () => {
    const receiver = await otlpReceiver();
    const dir = telemetryProject();
    const home = path.join(dir, ".home");
    fs.mkdirSync(home, { recursive: true });
    const client = await connectToServe(dir, home, [], { TOOLGATE_ENABLE_TELEMETRY: "1", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const read = await client.callTool({ name: "Read", arguments: { file_path: path.join(dir, SECRET_NAME) } });
    expect(read.isError).toBeFalsy();
    await client.close();
    const deadline = Date.now() + 30_000;
    while (!logEvents(receiver.received).some((e) => e["event.name"] === "tool_result") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const events = logEvents(receiver.received);
    expect(events.find((e) => e["event.name"] === "session_start")).toMatchObject({ command: "mcp serve" });
    expect(events.find((e) => e["event.name"] === "tool_result")).toMatchObject({ tool_name: "Read", outcome: "success" });
    const everything = receiver.received.map((r) => r.raw).join("\n");
    for (const secret of [dir, SECRET_NAME, SECRET_CONTENT]) expect(everything).not.toContain(secret);
  });

  it("an unreachable collector does not fail the run", async () => {
    const server = await serveModel({ loop: true, turns: [{ content: [{ type: "text", text: "still fine" }] }] });
    const dir = project();
    // Port 9 on loopback: nothing listens, connections are refused at once.
    const run = await runCli(["-p", "hello", "--cwd", dir, "--no-sandbox"], agentEnv(server, dir, { TOOLGATE_ENABLE_TELEMETRY: "1", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" }));
    expect(run).toMatchObject({ code: 0, stdout: "still fine\n" });
  });
});
