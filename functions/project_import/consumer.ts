import { isDatabaseUnavailable, withDb } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import * as q from "./queries";
import { runImport } from "./services";

/** An import message on `edgeforge-exports` (the export-import queue; functions/queue.ts routes it here). */
export type ImportMessage = { kind: "import"; id: number };

/**
 * The import half of the export-import queue consumer. Idempotent as the export's: the job row is the
 * state and its lease decides who works on it, so a redelivered message changes nothing and a consumer
 * that died mid-import is taken over once its lease passes (the takeover starts the relations over).
 * An error retries with backoff; after the queue's retries the dead-letter consumer marks the job failed.
 */
export async function consumeImports(messages: readonly Message<ImportMessage>[], env: Bindings): Promise<void> {
  for (const message of messages) {
    try {
      await withDb(env, (db) => runImport(db, env, Number(message.body.id)));
      message.ack();
    } catch (error) {
      // Drizzle's message is the statement; the database's reason is its `cause`.
      const cause = (error as { cause?: unknown } | null)?.cause;
      const text = `${error instanceof Error ? error.message : String(error)}${cause instanceof Error ? ` (${cause.message})` : ""}`;
      console.error(`imports: job ${message.body?.id} failed (attempt ${message.attempts}): ${text}`);
      message.retry({ delaySeconds: isDatabaseUnavailable(error) ? 5 : Math.min(300, 2 ** message.attempts * 5) });
    }
  }
}

/** Import jobs whose message failed every retry: marked failed, so `import_status` says so. */
export async function consumeDeadImports(messages: readonly Message<ImportMessage>[], env: Bindings): Promise<void> {
  if (messages.length === 0) return;
  await withDb(env, async (db) => {
    for (const message of messages) {
      await q.failImportJob(db, Number(message.body.id), `The import failed after ${message.attempts} attempts`);
      message.ack();
    }
  });
}
