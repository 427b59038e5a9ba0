import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../../kernel/db";
import { milestoneJson, type IssueLabel, type IssueMilestone, type IssueUser } from "../../shared/issuables/issue_preload";
import { cappedCount, type Page } from "../../kernel/pagination";

/**
 * Resource events of an issue or a merge request (lib/api/resource_label_events.rb, resource_state_events.rb,
 * resource_milestone_events.rb): oldest first, with their user and label or milestone in the same
 * statement.
 */

type EventBase = { id: number; user: IssueUser | null; createdAt: string; resourceType: "Issue" | "MergeRequest"; resourceId: number };

/** The eventable whose events are read: an issue or a merge request, by its global id. */
export type Eventable = { type: "Issue" | "MergeRequest"; id: number };

const ownedBy = (e: Eventable) => (e.type === "Issue" ? sql`e.issue_id = ${e.id}` : sql`e.merge_request_id = ${e.id}`);
export type LabelEventRow = EventBase & { action: string; label: IssueLabel | null };
export type StateEventRow = EventBase & { state: string };
export type MilestoneEventRow = EventBase & { action: string; state: string; milestone: IssueMilestone | null };

const user = sql.raw(`(SELECT json_build_object('id', u.id, 'username', u.username, 'name', u.name, 'state', u.state,
  'avatarUrl', u.avatar_url, 'email', u.email) FROM users u WHERE u.id = e.user_id)`);

const KINDS = {
  label: {
    table: sql.raw("resource_label_events"),
    extra: sql.raw(`e.action, (SELECT json_build_object('id', l.id, 'title', l.title, 'color', l.color, 'description', l.description,
      'projectId', l.project_id, 'groupId', l.group_id, 'priority', l.priority) FROM labels l WHERE l.id = e.label_id) AS label`),
  },
  state: { table: sql.raw("resource_state_events"), extra: sql.raw("e.state") },
  milestone: {
    table: sql.raw("resource_milestone_events"),
    extra: sql`e.action, e.state, (SELECT ${milestoneJson("m")} FROM milestones m WHERE m.id = e.milestone_id) AS milestone`,
  },
} as const;

export type EventKind = keyof typeof KINDS;
type RowOf<K extends EventKind> = K extends "label" ? LabelEventRow : K extends "state" ? StateEventRow : MilestoneEventRow;

function select(kind: EventKind, where: SQL): SQL {
  const k = KINDS[kind];
  return sql`SELECT e.id, CASE WHEN e.issue_id IS NOT NULL THEN 'Issue' ELSE 'MergeRequest' END AS "resourceType",
    COALESCE(e.issue_id, e.merge_request_id) AS "resourceId", e.created_at AS "createdAt", ${user} AS user, ${k.extra}
    FROM ${k.table} e WHERE ${where}`;
}

export async function listEvents<K extends EventKind>(db: Executor, kind: K, eventable: Eventable, page: Page): Promise<{ rows: RowOf<K>[]; total: number }> {
  const where = ownedBy(eventable);
  const rows = await db.execute<RowOf<K>>(sql`${select(kind, where)} ORDER BY e.created_at ASC, e.id ASC LIMIT ${page.limit} OFFSET ${page.offset}`);
  const total = await cappedCount(db, { limit: (n: number) => sql`SELECT 1 FROM ${KINDS[kind].table} e WHERE ${where} LIMIT ${n}` }, page);
  return { rows: rows.rows as RowOf<K>[], total };
}

/** `eventable.resource_*_events.find(id)`; null when missing (`404 Not found`). */
export async function findEvent<K extends EventKind>(db: Executor, kind: K, eventable: Eventable, id: number): Promise<RowOf<K> | null> {
  const rows = await db.execute<RowOf<K>>(select(kind, sql`${ownedBy(eventable)} AND e.id = ${id}`));
  return (rows.rows[0] as RowOf<K> | undefined) ?? null;
}
