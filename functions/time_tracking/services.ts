import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../kernel/db";
import { validation } from "../kernel/errors";
import { systemNotesCte } from "../shared/issuables/system_notes";
import { humanDuration, type TimeTracked } from "../entities/time_tracking";

/**
 * Time tracking writes (app/models/concerns/time_trackable.rb through Issues::UpdateService and
 * MergeRequests::UpdateService, with the system notes of SystemNotes::TimeTrackingService). Each
 * change is ONE statement whose CTEs update the issuable, append the timelog and write the system note:
 * a single statement is one transaction, and it keeps a request at three statements (project, issuable,
 * write) where BEGIN/COMMIT and three separate writes would take seven.
 */

export type TimeTarget = { type: "Issue" | "MergeRequest"; id: number; projectId: number };

const MAX_INT = 2147483647;

/** Table and timelog column of each issuable type: fixed identifiers, never caller input. */
const TABLES = {
  Issue: { table: sql.identifier("issues"), timelogColumn: sql.identifier("issue_id") },
  MergeRequest: { table: sql.identifier("merge_requests"), timelogColumn: sql.identifier("merge_request_id") },
} as const;

/** The CTE that writes the system note when `condition` (over the `upd` row) holds. */
function systemNote(target: TimeTarget, authorId: number, body: string, condition: SQL = sql`true`): SQL {
  return systemNotesCte("note", [{ noteableType: target.type, noteableId: target.id, projectId: target.projectId, body }], {
    authorId,
    from: sql`upd`,
    where: condition,
  });
}

type StatsRow = { time_estimate: number; total_time_spent: number };

const stats = (row: StatsRow): TimeTracked => ({ timeEstimate: Number(row.time_estimate), totalTimeSpent: Number(row.total_time_spent) });

/**
 * `time_estimate` / `reset_time_estimate`: sets the estimate; when it changed, the issuable is touched and
 * gets the note "changed time estimate to 1w" (or "removed time estimate" for 0).
 */
export async function setTimeEstimate(db: Executor, target: TimeTarget, authorId: number, seconds: number): Promise<TimeTracked> {
  const { table } = TABLES[target.type];
  const estimate = Math.max(-MAX_INT, Math.min(MAX_INT, seconds));
  const body = estimate === 0 ? "removed time estimate" : `changed time estimate to ${humanDuration(estimate)}`;
  const result = await db.execute<StatsRow>(sql`
    WITH old AS (SELECT id, time_estimate FROM ${table} WHERE id = ${target.id}::int FOR UPDATE),
    upd AS (
      UPDATE ${table} AS t SET time_estimate = ${estimate}::int,
        updated_at = CASE WHEN old.time_estimate = ${estimate}::int THEN t.updated_at ELSE now() END
      FROM old WHERE t.id = old.id
      RETURNING t.time_estimate, t.total_time_spent, old.time_estimate AS previous),
    ${systemNote(target, authorId, body, sql`upd.previous <> upd.time_estimate`)}
    SELECT time_estimate, total_time_spent FROM upd`);
  return stats(result.rows[0]);
}

/**
 * `add_spent_time`: appends a timelog and moves the total by `seconds` (negative subtracts). The total
 * may not go below zero: then nothing is written and the answer is GitLab's validation error.
 */
export async function addSpentTime(
  db: Executor,
  target: TimeTarget,
  userId: number,
  seconds: number,
  summary: string | null,
): Promise<TimeTracked> {
  const { table, timelogColumn } = TABLES[target.type];
  // Differs from GitLab: a total beyond the integer column's range is clamped instead of failing with a 500.
  const spent = Math.max(-MAX_INT, Math.min(MAX_INT, seconds));
  const action = spent > 0 ? "added" : "subtracted";
  const body = `${action} ${humanDuration(Math.abs(spent))} of time spent`;
  const result = await db.execute<StatsRow>(sql`
    WITH upd AS (
      UPDATE ${table} SET total_time_spent = LEAST(total_time_spent::bigint + ${spent}::int, ${MAX_INT}::int), updated_at = now()
      WHERE id = ${target.id}::int AND total_time_spent::bigint + ${spent}::int >= 0
      RETURNING id, time_estimate, total_time_spent),
    log AS (
      INSERT INTO timelogs (time_spent, user_id, ${timelogColumn}, spent_at, summary)
      SELECT ${spent}::int, ${userId}::int, upd.id, now(), ${summary}::text FROM upd),
    ${systemNote(target, userId, body)}
    SELECT time_estimate, total_time_spent FROM upd`);
  if (result.rows.length === 0) throw validation({ base: ["Time to subtract exceeds the total time spent"] });
  return stats(result.rows[0]);
}

/** `reset_spent_time`: a timelog of minus the total (GitLab's way to reset), the total 0, "removed time spent". */
export async function resetSpentTime(db: Executor, target: TimeTarget, userId: number): Promise<TimeTracked> {
  const { table, timelogColumn } = TABLES[target.type];
  const result = await db.execute<StatsRow>(sql`
    WITH old AS (SELECT id, total_time_spent FROM ${table} WHERE id = ${target.id}::int FOR UPDATE),
    upd AS (
      UPDATE ${table} AS t SET total_time_spent = 0, updated_at = now()
      FROM old WHERE t.id = old.id
      RETURNING t.id, t.time_estimate, t.total_time_spent, old.total_time_spent AS previous),
    log AS (
      INSERT INTO timelogs (time_spent, user_id, ${timelogColumn}, spent_at)
      SELECT -upd.previous, ${userId}::int, upd.id, now() FROM upd),
    ${systemNote(target, userId, "removed time spent")}
    SELECT time_estimate, total_time_spent FROM upd`);
  return stats(result.rows[0]);
}
