import type { Bindings } from "../kernel/env";
import { consumeAlerts, consumeDeadAlerts } from "../alert_management/consumer";

/**
 * The Worker's `queue()` (ARCHITECTURE.md §11): each batch goes to the consumer of its queue
 * (wrangler.toml `[[queues.consumers]]`). Consumers ack or retry each message themselves; a batch of an
 * unknown queue is retried rather than lost.
 */
export async function queue(batch: MessageBatch, env: Bindings, ctx: ExecutionContext): Promise<void> {
  switch (batch.queue) {
    case "edgeforge-alerts":
      return consumeAlerts(batch as MessageBatch<{ receiptId: number }>, env, ctx);
    case "edgeforge-alerts-dlq":
      return consumeDeadAlerts(batch as MessageBatch<{ receiptId: number }>, env);
    default:
      batch.retryAll();
  }
}
