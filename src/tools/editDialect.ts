/**
 * Which edit tools the model is offered: models edit best with the tools they were trained on. All of them are
 * registered built-ins (`toolgate exec` and `mcp serve` offer every one); an agent session offers one dialect.
 */
import { z } from "zod";
import type { Tools, ToolUseContext } from "../core/Tool.js";

export const EDIT_DIALECTS = ["auto", "toolgate", "anthropic", "openai"] as const;
export type EditDialect = (typeof EDIT_DIALECTS)[number];
export type ResolvedEditDialect = Exclude<EditDialect, "auto">;

/** `editTools` in settings.json. */
export const editToolsSettingsSection = {
  key: "editTools",
  schema: z.enum(EDIT_DIALECTS),
};

/** The edit tools of each dialect; Write stays in all of them for whole-file rewrites. */
export const DIALECT_TOOLS: Readonly<Record<ResolvedEditDialect, readonly string[]>> = {
  toolgate: ["Edit", "MultiEdit", "Write"],
  anthropic: ["str_replace_based_edit_tool", "Write"],
  openai: ["apply_patch", "Write"],
};

const ALL_DIALECT_TOOLS = new Set(Object.values(DIALECT_TOOLS).flat());

export function readEditDialect(settings: Readonly<Record<string, unknown>>): EditDialect {
  const parsed = editToolsSettingsSection.schema.safeParse(settings.editTools);
  return parsed.success ? parsed.data : "auto";
}

/**
 * OpenAI models trained on the apply_patch format: GPT-4.1 and later, the o3/o4 reasoning models, codex models.
 * An OpenAI-compatible endpoint often serves other models (local ones, other vendors'), which keep the Edit family.
 */
const APPLY_PATCH_MODELS = /^(?:openai\/)?(?:gpt-4\.1|gpt-5|o3|o4|codex|gpt-[^-]*-?codex)/i;

/**
 * `auto`: Claude models work best with the Edit family (the tools of Claude Code, which toolgate's mirror);
 * OpenAI models trained on apply_patch get apply_patch (either OpenAI API); any other model the Edit family.
 */
export function resolveEditDialect(dialect: EditDialect, provider: string, model: string): ResolvedEditDialect {
  if (dialect !== "auto") return dialect;
  return (provider === "openai" || provider === "openai-responses") && APPLY_PATCH_MODELS.test(model) ? "openai" : "toolgate";
}

/** The tools with the other dialects' edit tools left out; every other tool (Read, NotebookEdit, MCP tools) stays. */
export function filterEditTools(tools: Tools, dialect: ResolvedEditDialect): Tools {
  const keep = new Set(DIALECT_TOOLS[dialect]);
  return tools.filter((tool) => !ALL_DIALECT_TOOLS.has(tool.name) || keep.has(tool.name));
}

/** Offer only `dialect`'s edit tools in this session, also among the tools MCP refreshes bring. */
export function applyEditDialect(context: ToolUseContext, dialect: ResolvedEditDialect): void {
  const options = context.options;
  options.tools = filterEditTools(options.tools, dialect);
  const refresh = options.refreshTools;
  if (refresh) options.refreshTools = () => filterEditTools(refresh(), dialect);
}

/** How the system prompt names the file tools of a dialect. */
export function describeFileTools(dialect: ResolvedEditDialect): string {
  const names = ["Read", ...DIALECT_TOOLS[dialect], "Glob"];
  return `${names.join(", ")} and Grep`;
}
