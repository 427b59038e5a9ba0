import { inArray, sql, type SQL } from "drizzle-orm";
import { notes } from "../../db/schema";
import { Access, Visibility } from "../kernel/access";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { cappedCount, type Page } from "../kernel/pagination";
import { authorizedProjectIds, projectAccessLevel } from "../kernel/visibility";
import { noteRow, selectNotes, type NoteRow } from "../shared/issuables/noteables";
import type { EventRow } from "../entities/events";
import { EVENT_ACTIONS, EVENT_TARGET_TYPES, type ListParams } from "./params";

/** Whose events (EventsFinder's `source`, or `scope=all`: every project the user is authorized on). */
export type EventSource =
  | { kind: "author"; userId: number }
  | { kind: "project"; projectId: number }
  | { kind: "authorized_projects"; userId: number };


const NOTE_TYPE_NAMES = new Set(["Note", "DiscussionNote", "DiffNote", "LegacyDiffNote"]);
const NOTE_TYPES = sql`('Note', 'DiscussionNote', 'DiffNote', 'LegacyDiffNote')`;

/**
 * Event#visible_to_user? as SQL over one row of `events e` joined below: the project must be readable
 * (EventsFinder#by_current_user_access), pushes need `download_code`, issues `read_issue` (with the
 * confidentiality rule), merge requests `read_merge_request`, notes `read_note` on their noteable (and
 * confidential notes reporters, their author or admins). A target that no longer exists hides its events.
 */
function visibleTo(actor: Actor | null): SQL {
  const targetExists = sql`(e.target_type IS NULL
    OR (e.target_type = 'Issue' AND ti.id IS NOT NULL)
    OR (e.target_type = 'MergeRequest' AND tm.id IS NOT NULL)
    OR (e.target_type IN ${NOTE_TYPES} AND tn.id IS NOT NULL))`;
  if (actor?.isAdmin) return targetExists;
  const min = actor && !actor.user.external ? Visibility.INTERNAL : Visibility.PUBLIC;
  const me = actor ? actor.user.id : null;
  const lvl = sql`acc.lvl`;
  const vis = sql`projects.visibility_level`;
  const readable = sql`(${vis} >= ${min} OR ${lvl} >= ${Access.GUEST})`;
  const code = sql`(${vis} >= ${min} OR ${lvl} >= ${Access.REPORTER})`;
  const issue = (i: string) => {
    const t = sql.raw(i);
    const own =
      me === null
        ? sql`false`
        : sql`(${t}.author_id = ${me} OR EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = ${t}.id AND ia.user_id = ${me}))`;
    return sql`(projects.issues_enabled AND ${readable} AND (NOT ${t}.confidential OR ${lvl} >= ${Access.REPORTER} OR ${own}))`;
  };
  const mergeRequest = (m: string) => {
    const t = sql.raw(m);
    const own = me === null ? sql`false` : sql`(${lvl} >= ${Access.GUEST} AND ${t}.author_id = ${me})`;
    return sql`(projects.merge_requests_enabled AND (${code} OR ${own}))`;
  };
  const snippet = sql`(projects.snippets_enabled AND ${readable} AND (${lvl} >= ${Access.GUEST} OR ns.visibility_level >= ${min}${
    me === null ? sql`` : sql` OR ns.author_id = ${me}`
  }))`;
  const noteReadable = sql`(NOT tn.confidential OR ${lvl} >= ${Access.REPORTER}${me === null ? sql`` : sql` OR tn.author_id = ${me}`})`;
  return sql`(${targetExists} AND CASE
    WHEN e.action = ${EVENT_ACTIONS.pushed} THEN ${readable} AND ${code}
    WHEN e.target_type IS NULL THEN ${readable}
    WHEN e.target_type = 'Issue' THEN ${issue("ti")}
    WHEN e.target_type = 'MergeRequest' THEN ${mergeRequest("tm")}
    ELSE ${noteReadable} AND CASE tn.noteable_type
      WHEN 'Issue' THEN ni.id IS NOT NULL AND ${issue("ni")}
      WHEN 'MergeRequest' THEN nm.id IS NOT NULL AND ${mergeRequest("nm")}
      WHEN 'Snippet' THEN ns.id IS NOT NULL AND ${snippet}
      WHEN 'Commit' THEN ${readable} AND ${code}
      ELSE false END
  END)`;
}

function sourceCondition(source: EventSource): SQL {
  if (source.kind === "author") return sql`e.author_id = ${source.userId}`;
  if (source.kind === "project") return sql`e.project_id = ${source.projectId}`;
  return sql`e.project_id IN ${authorizedProjectIds(source.userId)}`;
}

/** EventsFinder's filters: the declared list parameters (`event_filter_params`). */
function filterConditions(f: ListParams): SQL[] {
  const out: SQL[] = [];
  if (f.action) out.push(sql`e.action = ${EVENT_ACTIONS[f.action]}`);
  // Differs from GitLab: none. `note` matches plain comments only (target_type "Note"), as GitLab's
  // filter does; thread notes are "DiscussionNote" and diff notes "DiffNote".
  if (f.target_type) out.push(sql`e.target_type = ${EVENT_TARGET_TYPES[f.target_type]}`);
  if (f.before) out.push(sql`e.created_at < ${f.before}::date::timestamp AT TIME ZONE 'UTC'`);
  if (f.after) out.push(sql`e.created_at >= (${f.after}::date + 1)::timestamp AT TIME ZONE 'UTC'`);
  return out;
}

/** FROM and WHERE of the events list: the joins the visibility rule and the entity read. */
function fromWhere(actor: Actor | null, source: EventSource, filters: ListParams, joins: SQL = sql``): SQL {
  const conds = [sourceCondition(source), ...filterConditions(filters), visibleTo(actor)];
  return sql`FROM events e
    JOIN projects ON projects.id = e.project_id
    JOIN namespaces ON namespaces.id = projects.namespace_id
    CROSS JOIN LATERAL (SELECT ${projectAccessLevel(actor && !actor.isAdmin ? actor.user.id : null)} AS lvl) acc
    LEFT JOIN issues ti ON e.target_type = 'Issue' AND ti.id = e.target_id
    LEFT JOIN merge_requests tm ON e.target_type = 'MergeRequest' AND tm.id = e.target_id
    LEFT JOIN notes tn ON e.target_type IN ${NOTE_TYPES} AND tn.id = e.target_id
    LEFT JOIN issues ni ON tn.noteable_type = 'Issue' AND ni.id = tn.noteable_id
    LEFT JOIN merge_requests nm ON tn.noteable_type = 'MergeRequest' AND nm.id = tn.noteable_id
    LEFT JOIN snippets ns ON tn.noteable_type = 'Snippet' AND ns.id = tn.noteable_id
    ${joins}
    WHERE ${sql.join(conds, sql` AND `)}`;
}

type Raw = Record<string, unknown>;
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/**
 * EventsFinder#execute: the source's events the actor may see, filtered, newest (or oldest) id first,
 * one page, with author, push payload and target iid/title in the same statement; note events' notes
 * in a second one (selectNotes, with their authors).
 */
export async function listEvents(db: Executor, actor: Actor | null, source: EventSource, filters: ListParams, page: Page) {
  const body = fromWhere(actor, source, filters);
  const order = filters.sort === "asc" ? sql`ASC` : sql`DESC`;
  const result = await db.execute<Raw>(sql`SELECT e.id, e.project_id, e.action, e.target_type, e.target_id, e.created_at,
      CASE e.target_type WHEN 'Issue' THEN ti.iid WHEN 'MergeRequest' THEN tm.iid END AS target_iid,
      CASE e.target_type WHEN 'Issue' THEN ti.title WHEN 'MergeRequest' THEN tm.title END AS target_title,
      CASE tn.noteable_type WHEN 'Issue' THEN ni.iid WHEN 'MergeRequest' THEN nm.iid END AS noteable_iid,
      u.id AS author_id, u.username AS author_username, u.name AS author_name, u.state AS author_state,
      u.avatar_url AS author_avatar_url, u.email AS author_email,
      pp.commit_count, pp.action AS push_action, pp.ref_type, pp.commit_from, pp.commit_to, pp.ref, pp.commit_title, pp.ref_count
    ${fromWhere(actor, source, filters, sql`JOIN users u ON u.id = e.author_id LEFT JOIN push_event_payloads pp ON pp.event_id = e.id`)}
    ORDER BY e.id ${order}
    LIMIT ${page.limit} OFFSET ${page.offset}`);
  const noteIds = result.rows.filter((r) => r.target_type !== null && NOTE_TYPE_NAMES.has(String(r.target_type))).map((r) => Number(r.target_id));
  const notesById = new Map<number, NoteRow>();
  if (noteIds.length) {
    const found = await selectNotes(db).where(inArray(notes.id, noteIds));
    for (const row of found) notesById.set(row.note.id, noteRow(row));
  }
  const rows: EventRow[] = result.rows.map((r) => ({
    id: Number(r.id),
    projectId: num(r.project_id),
    action: Number(r.action),
    targetType: (r.target_type as string | null) ?? null,
    targetId: num(r.target_id),
    targetIid: num(r.target_iid),
    targetTitle: (r.target_title as string | null) ?? null,
    createdAt: r.created_at as Date | string,
    author: {
      id: Number(r.author_id),
      username: String(r.author_username),
      name: String(r.author_name),
      state: String(r.author_state),
      avatarUrl: (r.author_avatar_url as string | null) ?? null,
      email: String(r.author_email),
    },
    pushData:
      r.push_action === null || r.push_action === undefined
        ? null
        : {
            commitCount: Number(r.commit_count),
            action: Number(r.push_action),
            refType: Number(r.ref_type),
            commitFrom: (r.commit_from as string | null) ?? null,
            commitTo: (r.commit_to as string | null) ?? null,
            ref: (r.ref as string | null) ?? null,
            commitTitle: (r.commit_title as string | null) ?? null,
            refCount: num(r.ref_count),
          },
    note: r.target_id !== null && NOTE_TYPE_NAMES.has(String(r.target_type)) ? (notesById.get(Number(r.target_id)) ?? null) : null,
    noteableIid: num(r.noteable_iid),
  }));
  const counted = { limit: (n: number) => sql`SELECT 1 ${body} LIMIT ${n}` };
  const total = rows.length < page.limit && page.offset === 0 ? rows.length : await cappedCount(db, counted, page);
  return { rows, total };
}
