import { isDatabaseUnavailable, withDb } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import * as q from "./queries";
import { runExport } from "./services";

/** The message shape of `EXPORTS_QUEUE` (kernel/env.ts); `import` messages go to project_import/consumer.ts. */
export type ExportMessage = { kind: "export" | "import"; id: number };

/**
 * The export-import queue consumer (`edgeforge-exports`, max_batch_size 1). Idempotent: the job row is
 * the state, and its lease decides who works on it, so a redelivered message changes nothing and a
 * consumer that died mid-export is taken over once its lease has passed. An error retries with backoff;
 * after the queue's retries the dead-letter consumer marks the job failed.
 */
export async function consumeExports(batch: MessageBatch<ExportMessage>, env: Bindings): Promise<void> {
  for (const message of batch.messages) {
    if (message.body?.kind !== "export") {
      console.error(`exports: no consumer for ${JSON.stringify(message.body)}`);
      message.ack();
      continue;
    }
    try {
      await withDb(env, (db) => runExport(db, env, Number(message.body.id)));
      message.ack();
    } catch (error) {
      // Drizzle's message is the statement; the database's reason is its `cause`.
      const cause = (error as { cause?: unknown } | null)?.cause;
      const text = `${error instanceof Error ? error.message : String(error)}${cause instanceof Error ? ` (${cause.message})` : ""}`;
      console.error(`exports: job ${message.body?.id} failed (attempt ${message.attempts}): ${text}`);
      message.retry({ delaySeconds: isDatabaseUnavailable(error) ? 5 : Math.min(300, 2 ** message.attempts * 5) });
    }
  }
}

/** Jobs whose message failed every retry: marked failed, so the status says so. */
export async function consumeDeadExports(batch: MessageBatch<ExportMessage>, env: Bindings): Promise<void> {
  await withDb(env, async (db) => {
    for (const message of batch.messages) {
      await q.failJob(db, Number(message.body.id), `The export failed after ${message.attempts} attempts`);
      message.ack();
    }
  });
}
