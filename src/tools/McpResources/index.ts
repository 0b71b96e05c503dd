/**
 * MCP resources as two tools, the names Claude Code gives them: ListMcpResourcesTool lists what the session's
 * servers offer, ReadMcpResourceTool reads one by URI. Resources are read-only by the protocol's design, so
 * neither asks; they exist only in sessions with MCP servers, and reach the servers through the session's
 * connections (context.options.mcpClients), loaded with the MCP client itself.
 */
import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import type { ToolUseContext, ValidationResult } from "../../core/Tool.js";
import type { ToolResultContentBlock } from "../../core/messages.js";
import type { McpServerConnection } from "../../mcp/client/connection.js";
import { serverConnections } from "../../mcp/client/sessionClients.js";
import { mapContentBlock } from "../../mcp/client/toolResult.js";

export const LIST_MCP_RESOURCES_TOOL_NAME = "ListMcpResourcesTool";
export const READ_MCP_RESOURCE_TOOL_NAME = "ReadMcpResourceTool";

function resourceClients(context: ToolUseContext): McpServerConnection[] {
  return serverConnections(context.options.mcpClients);
}

/** validateInput of both tools: the server must be one of the session's. */
function knownServer(server: string, context: ToolUseContext): ValidationResult {
  const clients = resourceClients(context);
  if (clients.some((c) => c.name === server)) return { result: true };
  const names = clients.length ? clients.map((c) => `"${c.name}"`).join(", ") : "(none)";
  return { result: false, message: `There is no MCP server named "${server}". Configured servers: ${names}.`, errorCode: 1 };
}

const listInputSchema = () =>
  z.strictObject({
    server: z.string().optional().describe("Only this server's resources (its name as configured); all servers when omitted"),
  });
export type ListMcpResourcesInput = z.infer<ReturnType<typeof listInputSchema>>;

export interface ListedResource {
  server: string;
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
}

export interface ListMcpResourcesOutput {
  resources: ListedResource[];
  /** Servers that could not be asked, with the reason. */
  unavailable: Array<{ server: string; reason: string }>;
}

export const ListMcpResourcesTool = buildTool<ListMcpResourcesInput, ListMcpResourcesOutput>({
  name: LIST_MCP_RESOURCES_TOOL_NAME,
  searchHint: "mcp resources list server documents data",
  maxResultSizeChars: 50_000,
  inputSchema: listInputSchema,
  description: () => "List the resources (documents, data, files) the session's MCP servers offer.",
  prompt: () =>
    [
      "Lists the resources that the connected MCP servers make available: each with its server, URI, name, type and description.",
      "Read one with ReadMcpResourceTool, giving the server and the URI exactly as listed here. Pass `server` to list a single server's resources.",
    ].join("\n"),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  checkPermissions: async (input) => ({ behavior: "allow", updatedInput: input }),
  toAutoClassifierInput: (input) => input.server ?? "",
  validateInput: async (input, context) => (input.server === undefined ? { result: true } : knownServer(input.server, context)),
  async call(input, context) {
    const clients = resourceClients(context).filter((c) => input.server === undefined || c.name === input.server);
    const resources: ListedResource[] = [];
    const unavailable: ListMcpResourcesOutput["unavailable"] = [];
    for (const client of clients) {
      // a server that went away is asked to come back: connect() never throws
      if (client.status !== "connected") await client.connect();
      if (client.status !== "connected") {
        unavailable.push({ server: client.name, reason: client.error ?? client.status });
        continue;
      }
      await client.refreshCatalog();
      for (const r of client.resources) {
        resources.push({ server: client.name, uri: r.uri, name: r.name, ...(r.description ? { description: r.description } : {}), ...(r.mimeType ? { mimeType: r.mimeType } : {}) });
      }
    }
    return { data: { resources, unavailable } };
  },
  mapToolResultToToolResultBlockParam(output, toolUseID) {
    const lines: string[] = [];
    if (output.resources.length === 0) lines.push("No MCP server offers any resources.");
    for (const r of output.resources) {
      const details = [r.mimeType, r.description].filter(Boolean).join("; ");
      lines.push(`- server "${r.server}": ${r.uri} (${r.name})${details ? ` ${details}` : ""}`);
    }
    for (const u of output.unavailable) lines.push(`Server "${u.server}" could not be asked: ${u.reason}`);
    return { type: "tool_result", tool_use_id: toolUseID, content: lines.join("\n") };
  },
});

const readInputSchema = () =>
  z.strictObject({
    server: z.string().describe("The MCP server's name, as ListMcpResourcesTool lists it"),
    uri: z.string().min(1).describe("The resource's URI, exactly as listed"),
  });
export type ReadMcpResourceInput = z.infer<ReturnType<typeof readInputSchema>>;

export interface ReadMcpResourceOutput {
  server: string;
  uri: string;
  content: ToolResultContentBlock[];
}

export const ReadMcpResourceTool = buildTool<ReadMcpResourceInput, ReadMcpResourceOutput>({
  name: READ_MCP_RESOURCE_TOOL_NAME,
  searchHint: "mcp resource read uri server document",
  maxResultSizeChars: 100_000,
  inputSchema: readInputSchema,
  description: () => "Read one resource of an MCP server by its URI.",
  prompt: () =>
    [
      "Reads a resource from one of the connected MCP servers and returns its content: text as text, images as images, other binary content described.",
      "Give the server's name and the resource URI exactly as ListMcpResourcesTool listed them.",
    ].join("\n"),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  checkPermissions: async (input) => ({ behavior: "allow", updatedInput: input }),
  toAutoClassifierInput: (input) => `${input.server} ${input.uri}`,
  validateInput: async (input, context) => knownServer(input.server, context),
  async call(input, context) {
    const client = resourceClients(context).find((c) => c.name === input.server);
    if (!client) throw new Error(`There is no MCP server named "${input.server}".`);
    const result = await client.readResource(input.uri, context.abortController.signal);
    const content = result.contents.map((resource) => mapContentBlock({ type: "resource", resource }));
    return { data: { server: client.name, uri: input.uri, content } };
  },
  mapToolResultToToolResultBlockParam(output, toolUseID) {
    const content = output.content.length ? output.content : [{ type: "text" as const, text: `The resource ${output.uri} of server "${output.server}" is empty.` }];
    return { type: "tool_result", tool_use_id: toolUseID, content };
  },
});
