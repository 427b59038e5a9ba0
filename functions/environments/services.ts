import type { Database } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import { pipelineStub } from "../shared/ci/coordinator";
import * as q from "./queries";
import type { Environment } from "./queries";

/**
 * Environments::StopService (app/services/environments/stop_service.rb, Environment#stop_with_actions!):
 * `force` stops at once; otherwise an available environment whose last deployment's pipeline has manual
 * `on_stop` jobs becomes `stopping` and those jobs are played (their success stops it, through the
 * `ci_builds` trigger of migration 0051), and one without becomes `stopped`. Anything else is left as is.
 * Jobs are played by their pipeline's coordinator, the one writer of job statuses.
 */
export async function stopEnvironment(env: Bindings, db: Database, environment: Environment, userId: number | null, force = false): Promise<Environment> {
  if (force) return environment.state === "stopped" ? environment : ((await q.markStopping(db, environment.id, environment.state, "stopped")) ?? environment);
  if (environment.state !== "available") return environment;
  const actions = await q.stopActions(db, environment.id);
  const stopped = await q.markStopping(db, environment.id, "available", actions.length ? "stopping" : "stopped");
  if (!stopped) return environment;
  for (const action of actions) await pipelineStub(env, action.pipelineId).playJob(action.id, userId ?? action.userId);
  return (await q.findEnvironment(db, environment.projectId, environment.id)) ?? stopped;
}

/**
 * Environments::AutoStopCronWorker: available environments whose `auto_stop_at` has passed are stopped
 * with their actions, played as the stop job's own user (the `*\/5` cron, functions/scheduled.ts).
 * Bounded per run; returns the ids it stopped or started stopping.
 */
export async function autoStopEnvironments(env: Bindings, db: Database, limit = 100): Promise<number[]> {
  const due = await q.dueForAutoStop(db, limit);
  const done: number[] = [];
  for (const environment of due) {
    const after = await stopEnvironment(env, db, environment, null);
    if (after.state !== environment.state) done.push(environment.id);
  }
  return done;
}

/** Environments::StopStaleService: every stale environment of the project, stopped with its actions. */
export async function stopStaleEnvironments(env: Bindings, db: Database, projectId: number, before: Date, userId: number): Promise<void> {
  for (const environment of await q.staleEnvironments(db, projectId, before)) await stopEnvironment(env, db, environment, userId);
}
