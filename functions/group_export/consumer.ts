import { isDatabaseUnavailable, withDb, type Database } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import { endGroupTransferJob } from "../shared/transfer_jobs";
import { runGroupExport } from "./services";

/** A group export or import message on `edgeforge-exports` (functions/queue.ts routes them here and to group_import). */
export type GroupTransferMessage = { kind: "group_export" | "group_import"; id: number };

/**
 * Runs each message's job with `run`: idempotent as the project consumers (the job row is the state and
 * its lease decides who works on it). An error retries with backoff; the dead-letter consumer marks it failed.
 */
export async function consumeGroupJobs(
  messages: readonly Message<GroupTransferMessage>[],
  env: Bindings,
  run: (db: Database, jobId: number) => Promise<unknown>,
): Promise<void> {
  for (const message of messages) {
    try {
      await withDb(env, (db) => run(db, Number(message.body.id)));
      message.ack();
    } catch (error) {
      const cause = (error as { cause?: unknown } | null)?.cause;
      const text = `${error instanceof Error ? error.message : String(error)}${cause instanceof Error ? ` (${cause.message})` : ""}`;
      console.error(`${message.body.kind}: job ${message.body.id} failed (attempt ${message.attempts}): ${text}`);
      message.retry({ delaySeconds: isDatabaseUnavailable(error) ? 5 : Math.min(300, 2 ** message.attempts * 5) });
    }
  }
}

export async function consumeGroupExports(messages: readonly Message<GroupTransferMessage>[], env: Bindings): Promise<void> {
  await consumeGroupJobs(messages, env, (db, id) => runGroupExport(db, env, id));
}

/** Group jobs whose message failed every retry: marked failed. */
export async function consumeDeadGroupJobs(messages: readonly Message<GroupTransferMessage>[], env: Bindings): Promise<void> {
  if (messages.length === 0) return;
  await withDb(env, async (db) => {
    for (const message of messages) {
      await endGroupTransferJob(db, Number(message.body.id), { error: `The ${message.body.kind === "group_export" ? "export" : "import"} failed after ${message.attempts} attempts` });
      message.ack();
    }
  });
}
