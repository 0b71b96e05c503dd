import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * An MCP transport whose far end is a server inside the program driving toolgate (the Agent SDK's
 * `createSdkMcpServer`). Each JSON-RPC message is handed to `deliver`, which sends it over that program's
 * control channel (`mcp_message`) and resolves with the server's answer, if the message had one.
 */
export class ControlChannelTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;

  constructor(private readonly deliver: (message: JSONRPCMessage) => Promise<JSONRPCMessage | undefined>) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error("the connection to the controlling program's MCP server is closed");
    // The answer comes back on its own time; a failure is an error answer to that request, so nothing waits forever.
    void this.deliver(message).then(
      (answer) => {
        if (answer && !this.closed) this.onmessage?.(answer);
      },
      (err: unknown) => {
        if (this.closed) return;
        const id = (message as { id?: string | number }).id;
        const text = err instanceof Error ? err.message : String(err);
        if (id !== undefined && "method" in message) this.onmessage?.({ jsonrpc: "2.0", id, error: { code: -32603, message: `the controlling program did not answer: ${text}` } });
        else this.onerror?.(err instanceof Error ? err : new Error(text));
      },
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
