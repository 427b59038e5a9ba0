import { consumeAlerts, consumeDeadAlerts } from "./alert_management/consumer";
import { consumeWebhooks, type WebhookMessage } from "./shared/webhooks";
import { consumeDeadExports, consumeExports, type ExportMessage } from "./project_export/consumer";
import { consumeDeadImports, consumeImports, type ImportMessage } from "./project_import/consumer";
import type { Bindings } from "./kernel/env";
import { useBlobBucket } from "./shared/git";
import { measured } from "./shared/queue_metrics";

/**
 * Queue dispatch (docs/architecture.md, "Queues, crons and Durable Objects"): one consumer per queue of wrangler.toml, chosen by
 * `batch.queue`. Keep it a small switch; each consumer acks or retries its own messages.
 */
export async function queue(batch: MessageBatch, env: Bindings, ctx: ExecutionContext): Promise<void> {
  // Every batch is counted for `GET /sidekiq/*` (shared/queue_metrics.ts).
  return measured(env, batch, (counted) => dispatch(counted, env, ctx));
}

async function dispatch(batch: MessageBatch, env: Bindings, ctx: ExecutionContext): Promise<void> {
  // Exports and imports read and write git objects, large blobs in R2 (shared/git/store/blobs.ts).
  useBlobBucket(env.BLOBS);
  switch (batch.queue) {
    case "edgeforge-webhooks":
      return consumeWebhooks(batch as MessageBatch<WebhookMessage>, env);
    case "edgeforge-alerts":
      return consumeAlerts(batch as MessageBatch<{ receiptId: number }>, env, ctx);
    case "edgeforge-alerts-dlq":
      return consumeDeadAlerts(batch as MessageBatch<{ receiptId: number }>, env);
    case "edgeforge-exports": {
      // One queue for exports and imports (docs/architecture.md, "Queues, crons and Durable Objects"), told apart by `kind`.
      const { imports, exports } = byKind(batch as MessageBatch<ExportMessage>);
      await consumeImports(imports, env);
      if (exports.messages.length) await consumeExports(exports, env);
      return;
    }
    case "edgeforge-exports-dlq": {
      const { imports, exports } = byKind(batch as MessageBatch<ExportMessage>);
      await consumeDeadImports(imports, env);
      if (exports.messages.length) await consumeDeadExports(exports, env);
      return;
    }
    default:
      console.error(`queue: no consumer for ${batch.queue}`);
      batch.retryAll();
  }
}

/** The import messages, and the batch as the export consumer reads it without them. */
function byKind(batch: MessageBatch<ExportMessage>) {
  const imports = batch.messages.filter((m) => m.body?.kind === "import") as unknown as Message<ImportMessage>[];
  const rest = batch.messages.filter((m) => m.body?.kind !== "import");
  const exports: MessageBatch<ExportMessage> =
    rest.length === batch.messages.length
      ? batch
      : {
          queue: batch.queue,
          metadata: batch.metadata,
          messages: rest,
          ackAll: () => rest.forEach((m) => m.ack()),
          retryAll: (options) => rest.forEach((m) => m.retry(options)),
        };
  return { imports, exports };
}
