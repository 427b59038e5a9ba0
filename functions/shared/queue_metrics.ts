import { sql } from "drizzle-orm";
import { queueMetrics } from "../../db/schema";
import { withDb } from "../kernel/db";
import type { Bindings } from "../kernel/env";

/**
 * The queue consumers' own counters (`GET /sidekiq/*`): functions/queue.ts hands every batch through
 * `measured`, which counts what the consumer did with each message. Counted per queue of wrangler.toml:
 * - `enqueued`: messages delivered for the first time (attempt 1);
 * - `processed`: acknowledged messages (explicitly, or implicitly when the consumer returned);
 * - `retried`: messages sent back (`retry()`, or the whole batch when the consumer threw);
 * - `failed`: messages of batches whose consumer threw;
 * - `busy`: batches being consumed now; `latency_ms`: from the send of the oldest message of the last batch.
 * A dead-letter queue's messages are the dead jobs. Counting never fails a batch.
 */
export async function measured<T>(env: Bindings, batch: MessageBatch<T>, consume: (batch: MessageBatch<T>) => Promise<void>): Promise<void> {
  const outcome = new Map<string, "ack" | "retry">();
  const messages = batch.messages.map((m) => wrap(m, outcome));
  const wrapped: MessageBatch<T> = {
    queue: batch.queue,
    metadata: batch.metadata,
    messages,
    // The whole batch stays one call on the runtime's batch (its outcome reads `ackAll` as such).
    ackAll: () => {
      for (const m of batch.messages) outcome.set(m.id, "ack");
      batch.ackAll();
    },
    retryAll: (options) => {
      for (const m of batch.messages) outcome.set(m.id, "retry");
      batch.retryAll(options);
    },
  };
  const first = batch.messages.filter((m) => m.attempts <= 1).length;
  const oldest = Math.min(...batch.messages.map((m) => new Date(m.timestamp).getTime()));
  const latency = Number.isFinite(oldest) ? Math.max(0, Date.now() - oldest) : 0;
  await record(env, batch.queue, { enqueued: first, busy: 1, latencyMs: latency });
  let threw = false;
  try {
    await consume(wrapped);
  } catch (error) {
    threw = true;
    throw error;
  } finally {
    const retried = threw ? messages.length - [...outcome.values()].filter((o) => o === "ack").length : [...outcome.values()].filter((o) => o === "retry").length;
    const processed = messages.length - retried;
    const failed = threw ? retried : 0;
    await record(env, batch.queue, { processed, retried, failed, busy: -1 });
  }
}

function wrap<T>(m: Message<T>, outcome: Map<string, "ack" | "retry">): Message<T> {
  return {
    id: m.id,
    timestamp: m.timestamp,
    body: m.body,
    attempts: m.attempts,
    ack: () => {
      outcome.set(m.id, "ack");
      m.ack();
    },
    retry: (options?: QueueRetryOptions) => {
      outcome.set(m.id, "retry");
      m.retry(options);
    },
  } as Message<T>;
}

type Deltas = { enqueued?: number; processed?: number; retried?: number; failed?: number; busy: number; latencyMs?: number };

/** Adds the deltas to the queue's row (made on first use), on its own connection. */
async function record(env: Bindings, queue: string, d: Deltas): Promise<void> {
  await withDb(env, (db) =>
    db.execute(sql`INSERT INTO ${queueMetrics} (queue, enqueued, processed, retried, failed, busy, latency_ms, last_seen_at)
      VALUES (${queue}, ${d.enqueued ?? 0}, ${d.processed ?? 0}, ${d.retried ?? 0}, ${d.failed ?? 0}, ${Math.max(d.busy, 0)}, ${d.latencyMs ?? 0}, now())
      ON CONFLICT (queue) DO UPDATE SET
        enqueued = queue_metrics.enqueued + EXCLUDED.enqueued,
        processed = queue_metrics.processed + EXCLUDED.processed,
        retried = queue_metrics.retried + EXCLUDED.retried,
        failed = queue_metrics.failed + EXCLUDED.failed,
        busy = greatest(queue_metrics.busy + ${d.busy}, 0),
        latency_ms = ${d.latencyMs === undefined ? sql`queue_metrics.latency_ms` : sql`EXCLUDED.latency_ms`},
        last_seen_at = now()`),
  ).catch((error) => console.error(`queue metrics (${queue}):`, error));
}

/** The consumers of wrangler.toml: their queue, batch size (a process's `concurrency`) and dead-letter queue. */
export const QUEUE_CONSUMERS: readonly { queue: string; concurrency: number; deadLetter: string | null }[] = [
  { queue: "edgeforge-webhooks", concurrency: 10, deadLetter: null },
  { queue: "edgeforge-exports", concurrency: 1, deadLetter: "edgeforge-exports-dlq" },
  { queue: "edgeforge-exports-dlq", concurrency: 1, deadLetter: null },
  { queue: "edgeforge-alerts", concurrency: 50, deadLetter: "edgeforge-alerts-dlq" },
  { queue: "edgeforge-alerts-dlq", concurrency: 50, deadLetter: null },
  { queue: "edgeforge-registry", concurrency: 10, deadLetter: null },
  { queue: "edgeforge-mirrors", concurrency: 10, deadLetter: null },
];
