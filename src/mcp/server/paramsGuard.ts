import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { WrappedTransport } from "../wrappedTransport.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";

interface Issue {
  path: readonly PropertyKey[];
  message: string;
}
type RequestSchema = { safeParse(value: unknown): { success: true } | { success: false; error: { issues: readonly Issue[] } } };

/** The requests toolgate's server answers; any other method gets the SDK's own "Method not found". */
const SCHEMAS: Record<string, RequestSchema> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  "tools/list": ListToolsRequestSchema,
  "tools/call": CallToolRequestSchema,
};

const MAX_ISSUES = 3;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A tools/call whose params the schema surely accepts: a string name, object arguments (or none), and no
 * `_meta` or `task` (those are left to the schema). Most calls look like this, and the SDK parses every
 * request with the same schema again, so the guard's own parse is skipped for them.
 */
function plainToolCall(params: unknown): boolean {
  return (
    isObject(params) &&
    typeof params.name === "string" &&
    (params.arguments === undefined || isObject(params.arguments)) &&
    params._meta === undefined &&
    params.task === undefined
  );
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

function formatIssues(issues: readonly Issue[]): string {
  const shown = issues.slice(0, MAX_ISSUES).map((i) => `${i.path.map(String).join(".") || "(request)"}: ${i.message}`);
  return shown.join("; ") + (issues.length > MAX_ISSUES ? `; and ${issues.length - MAX_ISSUES} more` : "");
}

/**
 * The SDK answers a request whose params do not fit its schema with an internal error whose message is the
 * raw validation dump. This wrapper checks the params of the requests toolgate serves before the SDK sees
 * them: a tools/call whose `arguments` is not an object is an `isError` result the model can read; any
 * other malformed params get a one-line JSON-RPC invalid-params error.
 */
export class ParamsGuardTransport extends WrappedTransport {
  constructor(inner: Transport) {
    super(inner);
    const previousClose = inner.onclose;
    const previousError = inner.onerror;
    inner.onmessage = (message, extra) => {
      if (!this.refuse(message)) this.onmessage?.(message, extra);
    };
    inner.onclose = () => {
      previousClose?.();
      this.onclose?.();
    };
    inner.onerror = (error) => {
      previousError?.(error);
      this.onerror?.(error);
    };
  }

  /** Answers a malformed request itself; true when it did. */
  private refuse(message: JSONRPCMessage): boolean {
    if (!("method" in message) || !("id" in message)) return false;
    if (message.method === "tools/call" && plainToolCall(message.params)) return false;
    const schema = SCHEMAS[message.method];
    const parsed = schema?.safeParse(message);
    if (!parsed || parsed.success) return false;
    const { id } = message;
    const params = message.params as Record<string, unknown> | undefined;
    const onlyArguments = parsed.error.issues.every((i) => i.path[0] === "params" && i.path[1] === "arguments");
    const reply: JSONRPCMessage =
      message.method === "tools/call" && onlyArguments && typeof params?.name === "string"
        ? {
            jsonrpc: "2.0",
            id,
            result: {
              content: [{ type: "text", text: `The arguments of ${params.name} must be a JSON object (use {} for none); got ${describeValue(params.arguments)}.` }],
              isError: true,
            },
          }
        : { jsonrpc: "2.0", id, error: { code: ErrorCode.InvalidParams, message: `Invalid params for ${message.method}: ${formatIssues(parsed.error.issues)}` } };
    this.inner.send(reply, { relatedRequestId: id }).catch((err: unknown) => this.onerror?.(err instanceof Error ? err : new Error(String(err))));
    return true;
  }
}
