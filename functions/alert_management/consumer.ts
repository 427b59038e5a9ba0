import { isDatabaseUnavailable, withDb } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import { processReceipts } from "./services";

type Body = { receiptId: number };

/**
 * The alerts queue consumer (docs/architecture.md, "Queues, crons and Durable Objects"): the whole batch in one transaction; when that
 * fails, each message on its own, so that one bad receipt is retried (with backoff) without holding
 * back the others. A consumer dying midway commits nothing: its messages are redelivered.
 */
export async function consumeAlerts(batch: MessageBatch<Body>, env: Bindings, _ctx: ExecutionContext): Promise<void> {
  await withDb(env, async (db) => {
    try {
      await processReceipts(db, batch.messages.map((m) => Number(m.body.receiptId)));
      batch.ackAll();
      return;
    } catch (error) {
      // Nothing to isolate when the database is away: the whole batch comes back later.
      if (isDatabaseUnavailable(error)) {
        console.error(`alerts: database unavailable, batch of ${batch.messages.length} retried`);
        return batch.retryAll({ delaySeconds: 5 });
      }
      if (batch.messages.length === 1) return retry(batch.messages[0], error);
    }
    for (const message of batch.messages) {
      try {
        await processReceipts(db, [Number(message.body.receiptId)]);
        message.ack();
      } catch (error) {
        retry(message, error);
      }
    }
  });
}

function retry(message: Message<Body>, error: unknown) {
  console.error(`alerts: receipt ${message.body?.receiptId} failed (attempt ${message.attempts}): ${error instanceof Error ? error.message : String(error)}`);
  message.retry({ delaySeconds: Math.min(60, 2 ** message.attempts) });
}

/** Receipts that failed every retry: logged and dropped; the receipt row stays unprocessed for inspection. */
export async function consumeDeadAlerts(batch: MessageBatch<Body>, _env: Bindings): Promise<void> {
  for (const message of batch.messages) {
    console.error(`alerts: receipt ${message.body?.receiptId} dead-lettered after ${message.attempts} attempts`);
    message.ack();
  }
}
