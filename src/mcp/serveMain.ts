/**
 * Stand-alone entry of `toolgate mcp serve` until the CLI wires it:
 * `node --import tsx src/mcp/serveMain.ts [--cwd DIR] [--settings FILE] [--permission-mode MODE]
 *  [--allowedTools R] [--disallowedTools R] [--add-dir DIR] [--http PORT]`.
 */
import { parseArgs } from "node:util";
import { PERMISSION_MODES, type PermissionMode } from "../core/permissionTypes.js";
import { getBuiltinTools } from "../tools/index.js";
import { runMcpServe } from "./cli.js";
import { createMcpSessionFactory } from "./session.js";

const { values } = parseArgs({
  options: {
    cwd: { type: "string" },
    settings: { type: "string" },
    "permission-mode": { type: "string" },
    allowedTools: { type: "string", multiple: true },
    disallowedTools: { type: "string", multiple: true },
    "add-dir": { type: "string", multiple: true },
    http: { type: "string" },
  },
  strict: true,
});

const mode = values["permission-mode"];
if (mode !== undefined && !PERMISSION_MODES.includes(mode as PermissionMode)) {
  process.stderr.write(`toolgate mcp serve: unknown permission mode ${mode} (expected ${PERMISSION_MODES.join(", ")})\n`);
  process.exit(2);
}

// ToolSearch only matters to a model with deferred tools; an MCP client sees every served tool already.
const tools = getBuiltinTools().filter((t) => t.name !== "ToolSearch");
process.exitCode = await runMcpServe({
  tools,
  createSession: createMcpSessionFactory({
    tools,
    cwd: values.cwd ?? process.cwd(),
    settingsFile: values.settings,
    mode: mode as PermissionMode | undefined,
    allowedTools: values.allowedTools,
    disallowedTools: values.disallowedTools,
    addDirs: values["add-dir"],
  }),
  http: values.http === undefined ? undefined : Number(values.http),
});
