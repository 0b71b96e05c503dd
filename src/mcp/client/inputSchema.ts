import { z } from "zod";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { AnyObject, JSONSchema } from "../../core/Tool.js";

/**
 * The zod schema of an MCP tool: any object, checked against the server's JSON Schema with ajv (the SDK's
 * own validator). Problems become zod issues of the kinds the pipeline already words and coerces
 * (a "10" where a number is expected is fixed, not refused). A schema ajv cannot compile is not enforced:
 * the server stays the judge of its own input.
 */

type Issue = Parameters<z.core.$RefinementCtx["addIssue"]>[0];
type PathKey = string | number;

// verbose: errors carry their parentSchema, which names the type a missing property should have.
const ajv = new Ajv({ strict: false, allErrors: true, verbose: true, validateSchema: false, validateFormats: false, logger: false });

function compile(schema: JSONSchema): ValidateFunction | undefined {
  // Draft 2020-12 schemas validate the same for the keywords tools use; ajv's default class rejects the
  // $schema URI, and a top-level $id shared by two tools would be refused as a duplicate.
  const { $schema: _schema, $id: _id, ...rest } = schema;
  try {
    const validate = ajv.compile(rest);
    // ajv caches every compiled schema by object; list_changed refreshes bring new objects, so drop it from the
    // cache (the compiled function stays valid) rather than keep every schema of every refresh.
    ajv.removeSchema(rest);
    return validate;
  } catch {
    return undefined;
  }
}

function pointerToPath(pointer: string): PathKey[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part));
}

function valueAt(root: unknown, path: readonly PathKey[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PathKey, unknown>)[key];
  }
  return node;
}

function expectedName(type: unknown): string {
  const first = Array.isArray(type) ? type.find((t) => t !== "null") ?? type[0] : type;
  if (first === "integer") return "int";
  return typeof first === "string" ? first : "value";
}

function toIssue(error: ErrorObject, input: unknown): Issue {
  const path = pointerToPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required": {
      const missing = String(params.missingProperty);
      const property = (error.parentSchema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties?.[missing];
      // input: undefined (not absent) so zod does not fill in the parent object and the pipeline says "missing".
      return { code: "invalid_type", expected: expectedName(property?.type) as never, input: undefined, path: [...path, missing], message: `${missing} is required` };
    }
    case "type":
      return {
        code: "invalid_type",
        expected: expectedName(params.type) as never,
        input: valueAt(input, path),
        path,
        message: error.message ?? "wrong type",
      };
    case "additionalProperties":
      return { code: "unrecognized_keys", keys: [String(params.additionalProperty)], path, message: "unexpected parameter" };
    case "enum":
      return { code: "invalid_value", values: (params.allowedValues as never[]) ?? [], input: valueAt(input, path), path, message: error.message ?? "invalid value" };
    case "const":
      return { code: "invalid_value", values: [params.allowedValue as never], input: valueAt(input, path), path, message: error.message ?? "invalid value" };
    default:
      return { code: "custom", path, message: error.message ?? `fails the ${error.keyword} rule`, input: valueAt(input, path) };
  }
}

/** Ajv reports every failing branch of anyOf/oneOf; the branch summary says enough. */
function relevantErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const combinators = errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf").map((e) => e.schemaPath);
  return errors.filter((e) => !combinators.some((p) => e.schemaPath.startsWith(`${p}/`)));
}

export function createMcpInputSchema(jsonSchema: JSONSchema | undefined): z.ZodType<AnyObject, unknown> {
  const base = z.looseObject({});
  const validate = jsonSchema ? compile(jsonSchema) : undefined;
  if (!validate) return base;
  return base.superRefine((value, ctx) => {
    if (validate(value)) return;
    for (const error of relevantErrors(validate.errors ?? [])) ctx.addIssue(toIssue(error, value));
  });
}
