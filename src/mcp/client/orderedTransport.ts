import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { WrappedTransport } from "../wrappedTransport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";

/**
 * The SDK's Protocol runs notification handlers a microtask late but handles responses at once, so when a
 * server's last progress notification and its response arrive together, the response removes the progress
 * handler first and the notification is dropped. This wrapper delivers incoming messages in order and lets
 * the event loop turn after each notification, so its handler has run before the next message.
 */
export class OrderedTransport extends WrappedTransport {
  private readonly queue: Array<{ message: JSONRPCMessage; extra?: MessageExtraInfo }> = [];
  private waiting = false;

  constructor(inner: Transport) {
    super(inner);
    inner.onmessage = (message, extra) => {
      this.queue.push({ message, extra });
      if (!this.waiting) this.deliver();
    };
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => this.closeAfterDelivery();
  }

  /** Whatever arrived before the close is delivered first, so a final response is not lost. */
  private closeAfterDelivery(): void {
    if (this.waiting || this.queue.length > 0) setImmediate(() => this.closeAfterDelivery());
    else this.onclose?.();
  }

  private deliver(): void {
    this.waiting = false;
    while (this.queue.length > 0) {
      const { message, extra } = this.queue.shift()!;
      this.onmessage?.(message, extra);
      // Also when nothing is queued yet: a response parsed later in this same tick must wait too.
      if (!("id" in message) && "method" in message) {
        this.waiting = true;
        setImmediate(() => this.deliver());
        return;
      }
    }
  }
}
