import { Cron } from "croner";
import type { CiPipelineSchedule } from "../../db/schema";
import { pipelineStub } from "../shared/ci/coordinator";
import { withDb, type Database } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import { buildPipeline, persistPipeline, PipelineCreationError, projectFacts, userFacts } from "../shared/ci/create";
import * as q from "./queries";

/**
 * The next run of a cron line in a time zone (Gitlab::Ci::CronParser), or null when either is invalid.
 * Differs from GitLab: GitLab also rounds the time up to its schedule worker's own cron; ours runs
 * every five minutes and takes schedules whose time has passed, so the stored time is the cron's own.
 * Time zones are IANA names (GitLab also takes Rails names such as "Pacific Time (US & Canada)").
 */
export function nextRunAt(cron: string, timezone: string, from = new Date()): Date | null {
  if (!validTimezone(timezone)) return null;
  try {
    return new Cron(cron, { timezone, paused: true }).nextRun(from);
  } catch {
    return null;
  }
}

export function validCron(cron: string): boolean {
  try {
    // GitLab's parser (fugit) reads five-field cron lines; croner would also take seconds.
    if (cron.trim().split(/\s+/).length !== 5) return false;
    new Cron(cron, { paused: true });
    return true;
  } catch {
    return false;
  }
}

export function validTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: timezone });
    return timezone.trim() !== "";
  } catch {
    return false;
  }
}

/** Ci::PipelineSchedule validations, with GitLab's messages (CronValidator's leading space included). */
export function scheduleErrors(v: { description: string; ref: string; cron: string; cronTimezone: string }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (attr: string, text: string) => (errors[attr] ??= []).push(text);
  if (v.cron.trim() === "") add("cron", "can't be blank");
  if (!validCron(v.cron)) add("cron", " is invalid syntax");
  if (v.cronTimezone.trim() === "") add("cron_timezone", "can't be blank");
  if (!validTimezone(v.cronTimezone)) add("cron_timezone", " is invalid syntax");
  if (v.ref.trim() === "") add("ref", "can't be blank");
  if (v.description.trim() === "") add("description", "can't be blank");
  return errors;
}

/**
 * Runs one schedule now (Ci::PipelineScheduleService / RunPipelineScheduleWorker): a pipeline with
 * source `schedule` as the schedule's owner, with its variables. Creation errors are dropped, as
 * GitLab's worker drops them; answers the new pipeline id or null.
 */
export async function runSchedule(env: Bindings, db: Database, schedule: CiPipelineSchedule, baseUrl: string): Promise<number | null> {
  const project = await projectFacts(db, schedule.projectId);
  if (!project || !schedule.ref) return null;
  const variables = (await q.scheduleVariablesOf(db, schedule.id)).map((v) => ({ key: v.key, value: v.value, variable_type: v.variableType }));
  const input = { project, ref: schedule.ref, source: "schedule" as const, user: await userFacts(db, schedule.ownerId), variables, baseUrl, pipelineScheduleId: schedule.id };
  try {
    const created = await persistPipeline(db, input, await buildPipeline(db, input));
    await pipelineStub(env, created.id).process();
    return created.id;
  } catch (error) {
    if (error instanceof PipelineCreationError) return null;
    throw error;
  }
}

/** The cron trigger's part: every due schedule runs once and moves to its next time. */
export async function runDueSchedules(env: Bindings, now = new Date()): Promise<number[]> {
  const baseUrl = (env.EXTERNAL_URL ?? "http://localhost").replace(/\/+$/, "");
  return withDb(env, async (db) => {
    const due = await q.claimDueSchedules(db, now, (s) => nextRunAt(s.cron, s.cronTimezone, now));
    const ids: number[] = [];
    for (const schedule of due) {
      const id = await runSchedule(env, db, schedule, baseUrl);
      if (id !== null) ids.push(id);
    }
    return ids;
  });
}
