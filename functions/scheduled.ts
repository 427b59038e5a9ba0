import { refreshBillableMembers } from "./billable_members/services";
import { runDueSchedules } from "./pipeline_schedules/services";
import { autoStopEnvironments } from "./environments/services";
import { sweepStep } from "./shared/ci/create";
import { pipelineStub } from "./shared/ci/coordinator";
import { withDb } from "./kernel/db";
import type { Bindings } from "./kernel/env";
import { useBlobBucket } from "./shared/git";

/**
 * Cron dispatch (docs/architecture.md, "Queues, crons and Durable Objects"): `0 12 * * *` refreshes the billable-member snapshots and the
 * license's seat figures; `*\/5 * * * *` runs the CI sweep, pipeline schedules and environments' auto stop. Each task is idempotent and bounded.
 */
export async function scheduled(controller: ScheduledController, env: Bindings, ctx: ExecutionContext): Promise<void> {
  // Scheduled pipelines read `.gitlab-ci.yml` from the git store (large blobs in R2).
  useBlobBucket(env.BLOBS);
  if (controller.cron === "0 12 * * *") ctx.waitUntil(withDb(env, (db) => refreshBillableMembers(db, new Date(controller.scheduledTime))));
  if (controller.cron === "*/5 * * * *") {
    ctx.waitUntil(ciSweep(env));
    // Pipeline schedules whose next run has passed (Ci::PipelineScheduleWorker).
    ctx.waitUntil(runDueSchedules(env));
    // Environments whose `auto_stop_in` has passed (Environments::AutoStopCronWorker).
    ctx.waitUntil(withDb(env, (db) => autoStopEnvironments(env, db)));
  }
}

/** The stuck-job sweep (docs/ci.md, "The pipeline coordinator"): failures and re-processing go through each pipeline's object. */
export async function ciSweep(env: Bindings): Promise<void> {
  const baseUrl = (env.EXTERNAL_URL ?? "http://localhost").replace(/\/+$/, "");
  const step = await withDb(env, (db) => sweepStep(db, baseUrl));
  for (const id of step.pushed) await pipelineStub(env, id).process();
  for (const job of step.dropped) await pipelineStub(env, job.pipelineId).finishJob(job.id, { state: "failed", failureReason: job.reason, exitCode: null });
  for (const id of step.unprocessed) await pipelineStub(env, id).process();
}
