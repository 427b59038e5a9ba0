import { consumeAlerts, consumeDeadAlerts } from "./alert_management/consumer";
import { consumeWebhooks, type WebhookMessage } from "./shared/webhooks";
import { consumeMirrors, type MirrorMessage } from "./shared/remote_mirrors";
import { consumeDeadExports, consumeExports, type ExportMessage } from "./project_export/consumer";
import { consumeDeadImports, consumeImports, type ImportMessage } from "./project_import/consumer";
import { consumeDeadGroupJobs, consumeGroupExports, consumeGroupJobs, type GroupTransferMessage } from "./group_export/consumer";
import { runGroupImport } from "./group_import/services";
import { consumeRegistry, type RegistryMessage } from "./container_registry/consumer";
import type { Bindings } from "./kernel/env";
import { useBlobBucket } from "./shared/git";
import { measured } from "./shared/queue_metrics";
import { consumePages } from "./pages/consumer";

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
    case "edgeforge-mirrors":
      return consumeMirrors(batch as MessageBatch<MirrorMessage>, env);
    case "edgeforge-alerts":
      return consumeAlerts(batch as MessageBatch<{ receiptId: number }>, env, ctx);
    case "edgeforge-alerts-dlq":
      return consumeDeadAlerts(batch as MessageBatch<{ receiptId: number }>, env);
    case "edgeforge-registry":
      return consumeRegistry(batch as MessageBatch<RegistryMessage>, env);
    case "edgeforge-exports": {
      // One queue for exports and imports (docs/architecture.md, "Queues, crons and Durable Objects"), told apart by `kind`.
      const { imports, exports, groupExports, groupImports } = byKind(batch as MessageBatch<ExportMessage>);
      await consumeImports(imports, env);
      await consumeGroupExports(groupExports, env);
      await consumeGroupJobs(groupImports, env, (db, id) => runGroupImport(db, env, id));
      if (exports.messages.length) await consumeExports(exports, env);
      return;
    }
    case "edgeforge-exports-dlq": {
      const { imports, exports, groupExports, groupImports } = byKind(batch as MessageBatch<ExportMessage>);
      await consumeDeadImports(imports, env);
      await consumeDeadGroupJobs([...groupExports, ...groupImports], env);
      if (exports.messages.length) await consumeDeadExports(exports, env);
      return;
    }
    case "edgeforge-pages":
      return consumePages(batch as MessageBatch<{ jobId: number }>, env);
    default:
      console.error(`queue: no consumer for ${batch.queue}`);
      batch.retryAll();
  }
}

/** The project import and group messages, and the batch as the project export consumer reads it without them. */
function byKind(batch: MessageBatch<ExportMessage>) {
  const kind = (m: Message<ExportMessage>) => (m.body as { kind?: string } | null)?.kind;
  const imports = batch.messages.filter((m) => kind(m) === "import") as unknown as Message<ImportMessage>[];
  const groupExports = batch.messages.filter((m) => kind(m) === "group_export") as unknown as Message<GroupTransferMessage>[];
  const groupImports = batch.messages.filter((m) => kind(m) === "group_import") as unknown as Message<GroupTransferMessage>[];
  const rest = batch.messages.filter((m) => !["import", "group_export", "group_import"].includes(kind(m) ?? ""));
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
  return { imports, exports, groupExports, groupImports };
}
