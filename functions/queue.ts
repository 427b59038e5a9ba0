import { consumeAlerts, consumeDeadAlerts } from "./alert_management/consumer";
import { consumeWebhooks, type WebhookMessage } from "./shared/webhooks";
import { consumeDeadExports, consumeExports, type ExportMessage } from "./project_export/consumer";
import type { Bindings } from "./kernel/env";

/**
 * Queue dispatch (ARCHITECTURE.md §11): one consumer per queue of wrangler.toml, chosen by
 * `batch.queue`. Keep it a small switch; each consumer acks or retries its own messages.
 */
export async function queue(batch: MessageBatch, env: Bindings, ctx: ExecutionContext): Promise<void> {
  switch (batch.queue) {
    case "edgeforge-webhooks":
      return consumeWebhooks(batch as MessageBatch<WebhookMessage>, env);
    case "edgeforge-alerts":
      return consumeAlerts(batch as MessageBatch<{ receiptId: number }>, env, ctx);
    case "edgeforge-alerts-dlq":
      return consumeDeadAlerts(batch as MessageBatch<{ receiptId: number }>, env);
    case "edgeforge-exports":
      return consumeExports(batch as MessageBatch<ExportMessage>, env);
    case "edgeforge-exports-dlq":
      return consumeDeadExports(batch as MessageBatch<ExportMessage>, env);
    default:
      console.error(`queue: no consumer for ${batch.queue}`);
      batch.retryAll();
  }
}
