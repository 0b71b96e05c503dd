/**
 * MCP prompts as slash commands, named as Claude Code names them: `/mcp__<server>__<prompt> arg1 arg2`. The
 * words after the name fill the prompt's arguments in the order the server declared them (quote a value that
 * has spaces; the last argument takes the rest of the line); what the server returns becomes the prompt sent.
 */
import type { McpClientInfo } from "../../core/Tool.js";
import { normalizeNameForMcp } from "../../core/registry.js";
import { serverConnections } from "./sessionClients.js";
import { mapContentBlock } from "./toolResult.js";

export interface McpPromptCommand {
  /** What the user types after `/`. */
  name: string;
  server: string;
  prompt: string;
  description: string;
  /** `<city> [state]`: required arguments in angle brackets, optional ones in square brackets. */
  argumentHint: string;
  arguments: ReadonlyArray<{ name: string; required: boolean }>;
}

/** Every connected server's prompts as commands. */
export function mcpPromptCommands(clients: readonly McpClientInfo[] | undefined): McpPromptCommand[] {
  return serverConnections(clients).flatMap((client) =>
    client.status !== "connected"
      ? []
      : client.prompts.map((p) => {
          const args = (p.arguments ?? []).map((a) => ({ name: a.name, required: a.required === true }));
          return {
            name: `mcp__${normalizeNameForMcp(client.name)}__${normalizeNameForMcp(p.name)}`,
            server: client.name,
            prompt: p.name,
            description: p.description ?? p.title ?? `MCP prompt ${p.name} of server ${client.name}`,
            argumentHint: args.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(" "),
            arguments: args,
          };
        }),
  );
}

/** Words of a line, with "double" or 'single' quotes keeping spaces in one word. */
export function splitArguments(text: string): string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const match of text.matchAll(pattern)) words.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, "$1") : (match[2] ?? match[3]));
  return words;
}

export type McpPromptExpansion = { kind: "none" } | { kind: "prompt"; text: string; command: McpPromptCommand } | { kind: "error"; message: string };

/**
 * `/mcp__server__prompt args` → the prompt text the server gives for those arguments. `none` when the line is
 * not an MCP prompt command; `error` (for the person, never sent to the model) when arguments are missing or
 * the server fails.
 */
export async function expandMcpPrompt(line: string, clients: readonly McpClientInfo[] | undefined, signal: AbortSignal): Promise<McpPromptExpansion> {
  const match = /^\/(mcp__\S+)(?:\s+([\s\S]*))?$/.exec(line.trim());
  if (!match) return { kind: "none" };
  const command = mcpPromptCommands(clients).find((c) => c.name === match[1]);
  if (!command) return { kind: "none" };
  const words = splitArguments(match[2] ?? "");
  const values: Record<string, string> = {};
  command.arguments.forEach((arg, index) => {
    const last = index === command.arguments.length - 1;
    const value = last ? words.slice(index).join(" ") : words[index];
    if (value !== undefined && value !== "") values[arg.name] = value;
  });
  const missing = command.arguments.filter((a) => a.required && values[a.name] === undefined).map((a) => a.name);
  if (missing.length) {
    return { kind: "error", message: `/${command.name} needs ${missing.map((m) => `<${m}>`).join(" ")}: usage /${command.name} ${command.argumentHint}` };
  }
  const client = serverConnections(clients).find((c) => c.name === command.server);
  if (!client) return { kind: "error", message: `The MCP server ${command.server} is gone.` };
  try {
    const result = await client.getPrompt(command.prompt, values, signal);
    const parts = result.messages.map((m) => {
      const block = mapContentBlock(m.content);
      const text = block.type === "text" ? block.text : `[${block.type} from the prompt, not included]`;
      return result.messages.length > 1 && m.role === "assistant" ? `(assistant) ${text}` : text;
    });
    return { kind: "prompt", text: parts.join("\n\n"), command };
  } catch (err) {
    return { kind: "error", message: err instanceof Error ? err.message : String(err) };
  }
}
