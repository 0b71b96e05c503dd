import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { freePort, tempDir } from "../helpers.js";
import { TOOLGATE_SERVE_FIXTURE, TSX_IMPORT, repoRoot } from "./helpers.js";

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close().catch(() => undefined)));
});

interface Connected {
  client: Client;
  project: string;
  elicitations: ElicitRequest["params"][];
}

/** toolgate's server spawned over stdio (the fixture entry), driven by the SDK's own Client. */
async function connect(options: { args?: string[]; elicit?: "accept" | "decline" | "cancel"; project?: string } = {}): Promise<Connected> {
  const project = options.project ?? tempDir("toolgate-serve-project-");
  const home = tempDir("toolgate-serve-home-");
  const elicitations: ElicitRequest["params"][] = [];
  const client = new Client({ name: "test-client", version: "1.0.0" }, { capabilities: options.elicit ? { elicitation: {} } : {} });
  if (options.elicit) {
    const action = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitations.push(request.params);
      return action === "accept" ? { action, content: {} } : { action };
    });
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...TSX_IMPORT, TOOLGATE_SERVE_FIXTURE, "--cwd", project, ...(options.args ?? [])],
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? "", TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") },
    stderr: "pipe",
  });
  await client.connect(transport);
  open.push(() => client.close());
  return { client, project, elicitations };
}

const call = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const text = (result: CallToolResult) => result.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");

describe("toolgate mcp serve over stdio", () => {
  it("lists the tools with their JSON Schemas and annotations", async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    const greet = tools.find((t) => t.name === "Greet")!;
    expect(greet.description).toBe("Greets someone by name.");
    expect(greet.inputSchema).toEqual({
      type: "object",
      properties: { name: { type: "string", description: "Who to greet" }, times: { type: "integer", minimum: 1, default: 1, maximum: Number.MAX_SAFE_INTEGER } },
      required: ["name"],
      additionalProperties: false,
    });
    expect(greet.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    const guarded = tools.find((t) => t.name === "Guarded")!;
    expect(guarded.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["Greet", "Guarded", "Count"]));
  });

  it("runs an allowed call through the pipeline (with string-to-number coercion)", async () => {
    const { client } = await connect();
    const result = await call(client, "Greet", { name: "Ada", times: "2" });
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe("Hello, Ada! Hello, Ada!");
  });

  it("a bad argument is an isError result naming the parameter", async () => {
    const { client } = await connect();
    const missing = await call(client, "Greet", {});
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain("InputValidationError: Greet was called with invalid input");
    expect(text(missing)).toContain("name: required parameter is missing");
    const extra = await call(client, "Greet", { name: "x", colour: "red" });
    expect(extra.isError).toBe(true);
    expect(text(extra)).toContain("colour: unexpected parameter");
    const unknown = await call(client, "NoSuchTool", {});
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain("No such tool available: NoSuchTool");
  });

  it("without elicitation, what would ask is denied with the reason and the rule that would allow it", async () => {
    const { client } = await connect();
    const result = await call(client, "Guarded", { value: "v" });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("Guarded needs approval.");
    expect(text(result)).toContain('--allowedTools "Guarded"');
    expect(text(result)).not.toContain("guarded ran");
  });

  it("a deny rule from the flags denies even a tool that allows itself", async () => {
    const { client } = await connect({ args: ["--disallowedTools", "Greet"] });
    const result = await call(client, "Greet", { name: "x" });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("denied by rule");
  });

  it("an allow rule lets the asking tool run", async () => {
    const { client } = await connect({ args: ["--allowedTools", "Guarded"] });
    const result = await call(client, "Guarded", { value: "ok" });
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe("guarded ran with ok");
  });

  it("with elicitation, an ask goes to the client's user: accept runs the call", async () => {
    const { client, elicitations } = await connect({ elicit: "accept" });
    const result = await call(client, "Guarded", { value: "approved" });
    expect(text(result)).toBe("guarded ran with approved");
    expect(elicitations).toHaveLength(1);
    expect(elicitations[0].message).toContain("toolgate asks permission to run Guarded");
    expect(elicitations[0].message).toContain('"value": "approved"');
    // Tools that allow themselves do not ask.
    await call(client, "Greet", { name: "x" });
    expect(elicitations).toHaveLength(1);
  });

  it("with elicitation, decline and cancel deny the call", async () => {
    const declined = await connect({ elicit: "decline" });
    const result = await call(declined.client, "Guarded", { value: "no" });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("The user declined permission for this Guarded call");
    const cancelled = await connect({ elicit: "cancel" });
    expect(text(await call(cancelled.client, "Guarded", { value: "no" }))).toContain("The user dismissed permission");
  });

  it("forwards tool progress as notifications/progress when the client asks for it", async () => {
    const { client } = await connect();
    const seen: number[] = [];
    const result = (await client.callTool({ name: "Count", arguments: { to: 4 } }, undefined, { onprogress: (p) => seen.push(p.progress) })) as CallToolResult;
    expect(text(result)).toBe("counted to 4");
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });

  it("a request the client cancels is cancelled in the pipeline, and the connection goes on", async () => {
    const { client, project } = await connect();
    const marker = path.join(project, "marker.txt");
    const controller = new AbortController();
    const pending = client.callTool({ name: "Wait", arguments: { ms: 60_000, marker } }, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    await expect(pending).rejects.toThrow();
    await expect.poll(() => (fs.existsSync(marker) ? fs.readFileSync(marker, "utf8") : ""), { timeout: 10_000 }).toBe("aborted");
    // Wait is not concurrency-safe: had it kept running, this call would queue behind it.
    expect(text(await call(client, "Greet", { name: "after" }))).toBe("Hello, after!");
  });

  it("runs a real built-in (Glob) with the session's working directory", async () => {
    const project = tempDir("toolgate-serve-glob-");
    fs.writeFileSync(path.join(project, "a.txt"), "a");
    fs.writeFileSync(path.join(project, "b.md"), "b");
    const { client } = await connect({ project });
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "Glob")?.annotations?.readOnlyHint).toBe(true);
    const result = await call(client, "Glob", { pattern: "*.txt" });
    expect(result.isError).toBeUndefined();
    expect(text(result)).toContain("a.txt");
    expect(text(result)).not.toContain("b.md");
  });

  it("keeps one session per connection: Read then Edit works, Edit without Read is refused", async () => {
    const project = tempDir("toolgate-serve-edit-");
    const file = path.join(project, "greeting.txt");
    fs.writeFileSync(file, "hello world\n");
    const { client } = await connect({ project, args: ["--permission-mode", "acceptEdits"] });

    const blind = await call(client, "Edit", { file_path: file, old_string: "world", new_string: "there" });
    expect(blind.isError).toBe(true);
    expect(text(blind).toLowerCase()).toContain("read");
    expect(fs.readFileSync(file, "utf8")).toBe("hello world\n");

    const read = await call(client, "Read", { file_path: file });
    expect(read.isError).toBeUndefined();
    expect(text(read)).toContain("hello world");
    const edit = await call(client, "Edit", { file_path: file, old_string: "world", new_string: "there" });
    expect(edit.isError).toBeUndefined();
    expect(fs.readFileSync(file, "utf8")).toBe("hello there\n");

    // Another connection is another session: it has read nothing.
    const other = await connect({ project, args: ["--permission-mode", "acceptEdits"] });
    const second = await call(other.client, "Edit", { file_path: file, old_string: "there", new_string: "again" });
    expect(second.isError).toBe(true);
    expect(fs.readFileSync(file, "utf8")).toBe("hello there\n");
  });
});

describe("toolgate mcp serve --http", () => {
  async function startHttp(): Promise<{ port: number }> {
    const port = await freePort();
    const project = tempDir("toolgate-serve-http-");
    const home = tempDir("toolgate-serve-home-");
    const child = spawn(process.execPath, [...TSX_IMPORT, TOOLGATE_SERVE_FIXTURE, "--cwd", project, "--http", String(port)], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? "", TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") },
      stdio: ["ignore", "ignore", "pipe"],
    });
    open.push(
      () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGTERM");
        }),
    );
    await new Promise<void>((resolve, reject) => {
      let err = "";
      child.stderr!.on("data", (chunk: Buffer) => {
        err += chunk.toString();
        if (err.includes("listening on")) resolve();
      });
      child.once("exit", (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    return { port };
  }

  it("serves streamable HTTP on 127.0.0.1 with a session per client", async () => {
    const { port } = await startHttp();
    const clients = await Promise.all(
      [1, 2].map(async () => {
        const client = new Client({ name: "http-client", version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
        open.unshift(() => client.close());
        return client;
      }),
    );
    const { tools } = await clients[0].listTools();
    expect(tools.map((t) => t.name)).toContain("Greet");
    expect(text(await call(clients[1], "Greet", { name: "HTTP" }))).toBe("Hello, HTTP!");
    const denied = await call(clients[0], "Guarded", { value: "x" });
    expect(denied.isError).toBe(true);
  });

  it("refuses requests whose Host is not the loopback address (DNS rebinding)", async () => {
    const { port } = await startHttp();
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: { host: `evil.example:${port}`, "content-type": "application/json", accept: "application/json, text/event-stream" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } }));
    });
    expect(status).toBe(403);
  });
});
