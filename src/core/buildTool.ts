import type { z } from "zod";
import type { AnyObject, Tool } from "./Tool.js";
import type { PermissionResult } from "./permissionTypes.js";

type DefaultedKeys =
  | "isEnabled"
  | "isConcurrencySafe"
  | "isReadOnly"
  | "isDestructive"
  | "checkPermissions"
  | "toAutoClassifierInput"
  | "userFacingName";

/** What a tool author writes: the Tool minus the members buildTool can default; the schema may be lazy. */
export type ToolDef<Input extends AnyObject = AnyObject, Output = unknown, Progress = unknown> = Omit<
  Tool<Input, Output, Progress>,
  DefaultedKeys | "inputSchema"
> &
  Partial<Pick<Tool<Input, Output, Progress>, DefaultedKeys>> & {
    inputSchema: z.ZodType<Input, unknown> | (() => z.ZodType<Input, unknown>);
  };

/**
 * Turn a definition into a Tool. Defaults are fail-closed: a tool is neither read-only nor safe to run
 * in parallel nor destructive-free unless it says so; its own permission check has no objection and
 * leaves the decision to the rule engine.
 */
export function buildTool<Input extends AnyObject, Output, Progress = unknown>(
  def: ToolDef<Input, Output, Progress>,
): Tool<Input, Output, Progress> {
  const { inputSchema, ...rest } = def;
  const tool = {
    isEnabled: () => true,
    isConcurrencySafe: () => false,
    isReadOnly: () => false,
    isDestructive: () => false,
    checkPermissions: async (input: Input): Promise<PermissionResult> => ({
      behavior: "allow",
      updatedInput: input,
    }),
    toAutoClassifierInput: () => "",
    userFacingName: () => def.name,
    ...rest,
  } as Omit<Tool<Input, Output, Progress>, "inputSchema">;

  let schema: z.ZodType<Input, unknown> | undefined = typeof inputSchema === "function" ? undefined : inputSchema;
  Object.defineProperty(tool, "inputSchema", {
    enumerable: true,
    get: () => (schema ??= (inputSchema as () => z.ZodType<Input, unknown>)()),
  });
  return tool as Tool<Input, Output, Progress>;
}
