// The registry's background work: the cron claims due cleanup policies and queues one message per
// project (`edgeforge-registry`, ids only), whose consumer runs the policy (ContainerExpirationPolicyWorker
// and CleanupContainerRepositoryWorker of GitLab); and the cron's sweep of abandoned upload sessions.
import { withDb } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import { runExpirationPolicy } from "./cleanup";
import * as q from "./queries";
import { removeParts } from "./services";

export type RegistryMessage = { kind: "cleanup_policy"; projectId: number };

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

/** Runs each message's policy; a failure retries that message alone, with backoff. */
export async function consumeRegistry(batch: MessageBatch<RegistryMessage>, env: Bindings): Promise<void> {
  await withDb(env, async (db) => {
    for (const message of batch.messages) {
      try {
        if (message.body?.kind === "cleanup_policy") await runExpirationPolicy(db, Number(message.body.projectId));
        message.ack();
      } catch (error) {
        console.error(`registry: cleanup of project ${message.body?.projectId} failed (attempt ${message.attempts}): ${error instanceof Error ? error.message : String(error)}`);
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
