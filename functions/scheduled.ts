import { refreshBillableMembers } from "./billable_members/services";
import { scheduleCleanupPolicies, scheduleGarbageCollection, sweepAbandonedUploads } from "./container_registry/consumer";
import { syncAllGroups } from "./ldap_group_links/services";
import { runDueSchedules } from "./pipeline_schedules/services";
import { autoStopEnvironments } from "./environments/services";
import { sweepStep } from "./shared/ci/create";
import { pipelineStub } from "./shared/ci/coordinator";
import { withDb } from "./kernel/db";
import type { Bindings } from "./kernel/env";
import { useBlobBucket } from "./shared/git";

/**
 * Cron dispatch (docs/architecture.md, "Queues, crons and Durable Objects"): `0 12 * * *` refreshes the billable-member snapshots and the
 * license's seat figures and sweeps the registry's abandoned uploads; `*\/5 * * * *` runs the CI sweep, pipeline schedules,
 * environments' auto stop, container cleanup policies, the registry's garbage collection and, once an hour, the LDAP group sync. Each task is idempotent and bounded.
 */
export async function scheduled(controller: ScheduledController, env: Bindings, ctx: ExecutionContext): Promise<void> {
  // Scheduled pipelines read `.gitlab-ci.yml` from the git store (large blobs in R2).
  useBlobBucket(env.BLOBS);
  if (controller.cron === "0 12 * * *") ctx.waitUntil(withDb(env, (db) => refreshBillableMembers(db, new Date(controller.scheduledTime))));
  if (controller.cron === "*/5 * * * *") {
    ctx.waitUntil(ciSweep(env));
    // Pipeline schedules whose next run has passed (Ci::PipelineScheduleWorker).
    ctx.waitUntil(runDueSchedules(env));
    // Container cleanup policies that are due (ContainerExpirationPolicyWorker), run through the registry queue.
    ctx.waitUntil(scheduleCleanupPolicies(env, new Date(controller.scheduledTime)));
    // The registry's online garbage collection: a sweep of the reviews that are due, run through the registry queue.
    ctx.waitUntil(scheduleGarbageCollection(env));
    // The LDAP group sync, hourly (GitLab's `ldap_group_sync_worker_cron`, "0 * * * *"): the first run of each hour.
    if (new Date(controller.scheduledTime).getUTCMinutes() < 5) ctx.waitUntil(syncAllGroups(env));
    // Environments whose `auto_stop_in` has passed (Environments::AutoStopCronWorker).
    ctx.waitUntil(withDb(env, (db) => autoStopEnvironments(env, db)));
  }
  // Upload sessions of the registry left unfinished for a week (the distribution registry's upload purging).
  if (controller.cron === "0 12 * * *") ctx.waitUntil(sweepAbandonedUploads(env, new Date(controller.scheduledTime)));
}

/** The stuck-job sweep (docs/ci.md, "The pipeline coordinator"): failures and re-processing go through each pipeline's object. */
export async function ciSweep(env: Bindings): Promise<void> {
  const baseUrl = (env.EXTERNAL_URL ?? "http://localhost").replace(/\/+$/, "");
  const step = await withDb(env, (db) => sweepStep(db, baseUrl));
  for (const id of step.pushed) await pipelineStub(env, id).process();
  for (const job of step.dropped) await pipelineStub(env, job.pipelineId).finishJob(job.id, { state: "failed", failureReason: job.reason, exitCode: null });
  for (const id of step.unprocessed) await pipelineStub(env, id).process();
}
