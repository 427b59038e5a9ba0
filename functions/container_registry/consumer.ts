// The registry's background work: the cron claims due cleanup policies and queues one message per
// project (`edgeforge-registry`, ids only), whose consumer runs the policy (ContainerExpirationPolicyWorker
// and CleanupContainerRepositoryWorker of GitLab); the cron queues the garbage collector's sweep on the
// same queue (gc.ts); and the cron's sweep of abandoned upload sessions.
import { withDb } from "../kernel/db";
import type { Bindings, RegistryMessage } from "../kernel/env";
import { runExpirationPolicy } from "./cleanup";
import { sweepRegistry } from "./gc";
import * as q from "./queries";
import { removeParts } from "./services";

export type { RegistryMessage };

/** Policies claimed per cron run (GitLab's worker also caps each run); the rest wait for the next one. */
const CLAIM_LIMIT = 200;

/**
 * Claims the enabled policies due at `now` (their `next_run_at` moves on in the same statement, so two
 * crons never queue one twice) and queues them. Returns the projects queued.
 */
export async function scheduleCleanupPolicies(env: Bindings, now = new Date()): Promise<number[]> {
  const projectIds = await withDb(env, (db) => q.claimDuePolicies(db, now, CLAIM_LIMIT));
  for (let i = 0; i < projectIds.length; i += 100)
    await env.REGISTRY_QUEUE.sendBatch(projectIds.slice(i, i + 100).map((projectId) => ({ body: { kind: "cleanup_policy", projectId } as RegistryMessage })));
  return projectIds;
}

/** Queues one garbage collection sweep (the `*\/5` cron); its consumer queues the next while reviews are due. */
export async function scheduleGarbageCollection(env: Bindings): Promise<void> {
  await env.REGISTRY_QUEUE.send({ kind: "garbage_collect" });
}

/**
 * Runs each message: a project's policy, or a garbage collection sweep (which queues one more sweep when it
 * took as many reviews as it may, so a backlog drains without waiting for the cron). A failure retries that
 * message alone, with backoff.
 */
export async function consumeRegistry(batch: MessageBatch<RegistryMessage>, env: Bindings): Promise<void> {
  await withDb(env, async (db) => {
    for (const message of batch.messages) {
      const body = message.body;
      try {
        if (body?.kind === "cleanup_policy") await runExpirationPolicy(db, Number(body.projectId));
        if (body?.kind === "garbage_collect" && (await sweepRegistry(env)).full) await scheduleGarbageCollection(env);
        message.ack();
      } catch (error) {
        const what = body?.kind === "cleanup_policy" ? `cleanup of project ${body.projectId}` : (body?.kind ?? "message");
        console.error(`registry: ${what} failed (attempt ${message.attempts}): ${error instanceof Error ? error.message : String(error)}`);
        message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts * 5) });
      }
    }
  });
}

/**
 * How long an upload session may stay unfinished before the sweep aborts it: the distribution
 * registry's `uploadpurging` default age (168h). A client that pushes takes seconds to minutes.
 */
export const ABANDONED_UPLOAD_MS = 7 * 24 * 3600 * 1000;
const SWEEP_LIMIT = 500;

/**
 * Aborts upload sessions started more than ABANDONED_UPLOAD_MS before `now`: their rows are taken (and
 * deleted) in one statement, then their parts are removed from R2. Returns the sessions aborted.
 */
export async function sweepAbandonedUploads(env: Bindings, now = new Date()): Promise<string[]> {
  const taken = await withDb(env, (db) => q.takeAbandonedUploads(db, new Date(now.getTime() - ABANDONED_UPLOAD_MS), SWEEP_LIMIT));
  for (const upload of taken) await removeParts(env.BLOBS, upload.uuid, upload.parts.length);
  return taken.map((u) => u.uuid);
}
