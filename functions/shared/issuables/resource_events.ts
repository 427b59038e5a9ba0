import { sql, type SQL } from "drizzle-orm";

/**
 * Resource events (app/models/resource_label_event.rb, resource_milestone_event.rb,
 * resource_state_event.rb; written by ResourceEvents::ChangeLabelsService, ChangeMilestoneService,
 * ChangeStateService): the one place that INSERTs them. Each function returns a CTE for the caller's
 * write statement; `rows` is a SELECT over the caller's CTEs giving the columns named below.
 */

export type EventTarget = "Issue" | "MergeRequest";

/** The issuable's column in the event tables: fixed identifiers, never caller input. */
const COLUMN: Record<EventTarget, ReturnType<typeof sql.identifier>> = { Issue: sql.identifier("issue_id"), MergeRequest: sql.identifier("merge_request_id") };

/** Label events also have epics (`resource_label_events.epic_id`). */
const LABEL_COLUMN: Record<EventTarget | "Epic", ReturnType<typeof sql.identifier>> = { ...COLUMN, Epic: sql.identifier("epic_id") };

/** `rows`: (action 'add'|'remove', target_id, label_id). */
export function labelEventsCte(name: string, target: EventTarget | "Epic", rows: SQL, userId: number, at: SQL = sql`now()`): SQL {
  return sql`${sql.identifier(name)} AS (INSERT INTO resource_label_events (action, ${LABEL_COLUMN[target]}, label_id, user_id, created_at)
    SELECT r.action, r.target_id, r.label_id, ${userId}::int, ${at} FROM (${rows}) AS r(action, target_id, label_id))`;
}

/** `rows`: (action 'add'|'remove', target_id, milestone_id, state, the caller's choice of the milestone's or the issuable's). */
export function milestoneEventsCte(name: string, target: EventTarget, rows: SQL, userId: number, at: SQL = sql`now()`): SQL {
  return sql`${sql.identifier(name)} AS (INSERT INTO resource_milestone_events (action, ${COLUMN[target]}, milestone_id, user_id, state, created_at)
    SELECT r.action, r.target_id, r.milestone_id, ${userId}::int, r.state, ${at} FROM (${rows}) AS r(action, target_id, milestone_id, state))`;
}

/** State events also have epics (`resource_state_events.epic_id`, GitLab 15.4). */
const STATE_COLUMN: Record<EventTarget | "Epic", ReturnType<typeof sql.identifier>> = { ...COLUMN, Epic: sql.identifier("epic_id") };

/** `rows`: (state 'closed'|'reopened'|…, target_id); `sourceMergeRequestId`: the merge request that closed an issue. */
export function stateEventsCte(name: string, target: EventTarget | "Epic", rows: SQL, userId: number, at: SQL = sql`now()`, sourceMergeRequestId: number | null = null): SQL {
  return sql`${sql.identifier(name)} AS (INSERT INTO resource_state_events (state, ${STATE_COLUMN[target]}, user_id, created_at, source_merge_request_id)
    SELECT r.state, r.target_id, ${userId}::int, ${at}, ${sourceMergeRequestId}::int FROM (${rows}) AS r(state, target_id))`;
}
