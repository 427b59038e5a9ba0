import { eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { epics, namespaces, users } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import type { EpicRow } from "../../entities/epics";
import type { LabelBasicRow } from "../../entities/labels";

/**
 * Every relation the epic entity shows (author, group path, parent, votes, labels, inherited dates),
 * selected in one statement for any number of epics: the epics domain and group to-dos read epics so.
 */
const parent = alias(epics, "parent_epic");

const votes = (name: string) =>
  sql<number>`(SELECT count(*) FROM award_emoji a WHERE a.awardable_type = 'Epic' AND a.awardable_id = ${epics.id} AND a.name = ${name})::int`;

/** The epic's labels as LabelBasic rows, by title (one correlated subquery, no query per epic). */
const epicLabels = sql<LabelBasicRow[]>`(SELECT coalesce(json_agg(json_build_object('id', l.id, 'title', l.title, 'color', l.color, 'description', l.description) ORDER BY l.title, l.id), '[]'::json)
  FROM label_links ll JOIN labels l ON l.id = ll.label_id WHERE ll.target_type = 'Epic' AND ll.target_id = ${epics.id})`;

/**
 * Dates inherited from milestones and child epics (Epics::Strategies::StartDateInheritedStrategy and
 * DueDateInheritedStrategy), computed when read instead of stored: the walk goes down the epic's subtree
 * through epics whose date is not fixed; a fixed child gives its fixed date, an unfixed one the
 * milestones of its issues and, below it, its children's. Returns
 * [start from own milestones, start inherited, due from own milestones, due inherited] (ISO dates or null).
 * It reads the epic as `epics` (the table's own name): a caller selecting from `epics` gets that epic's.
 */
export const inheritedDates = sql<(string | null)[]>`(WITH RECURSIVE walk(id, depth, via_start, via_due, start_fixed, due_fixed, start_date, due_date) AS (
    SELECT e.id, 0, true, true, e.start_date_is_fixed, e.due_date_is_fixed, e.start_date, e.due_date FROM epics e WHERE e.id = ${epics.id}
    UNION ALL
    SELECT c.id, w.depth + 1, w.via_start AND (w.depth = 0 OR NOT w.start_fixed), w.via_due AND (w.depth = 0 OR NOT w.due_fixed),
           c.start_date_is_fixed, c.due_date_is_fixed, c.start_date, c.due_date
    FROM epics c JOIN walk w ON c.parent_id = w.id
    WHERE w.depth < 10 AND ((w.via_start AND (w.depth = 0 OR NOT w.start_fixed)) OR (w.via_due AND (w.depth = 0 OR NOT w.due_fixed)))
  ), ms AS (
    SELECT w.depth, w.via_start AND (w.depth = 0 OR NOT w.start_fixed) AS s, w.via_due AND (w.depth = 0 OR NOT w.due_fixed) AS d,
           m.start_date, m.due_date
    FROM walk w JOIN epic_issues ei ON ei.epic_id = w.id JOIN issues i ON i.id = ei.issue_id JOIN milestones m ON m.id = i.milestone_id
  )
  SELECT ARRAY[
    (SELECT min(ms.start_date) FROM ms WHERE ms.depth = 0)::text,
    LEAST((SELECT min(ms.start_date) FROM ms WHERE ms.s), (SELECT min(w.start_date) FROM walk w WHERE w.depth > 0 AND w.via_start AND w.start_fixed))::text,
    (SELECT max(ms.due_date) FROM ms WHERE ms.depth = 0)::text,
    GREATEST((SELECT max(ms.due_date) FROM ms WHERE ms.d), (SELECT max(w.due_date) FROM walk w WHERE w.depth > 0 AND w.via_due AND w.due_fixed))::text
  ])`;

export const selectEpics = (db: Executor) =>
  db
    .select({
      epic: epics,
      groupFullPath: namespaces.fullPath,
      author: { id: users.id, username: users.username, name: users.name, state: users.state, avatarUrl: users.avatarUrl, email: users.email },
      parentIid: parent.iid,
      parentGroupId: parent.groupId,
      upvotes: votes("thumbsup"),
      downvotes: votes("thumbsdown"),
      labels: epicLabels,
      dates: inheritedDates,
    })
    .from(epics)
    .innerJoin(namespaces, eq(namespaces.id, epics.groupId))
    .leftJoin(users, eq(users.id, epics.authorId))
    .leftJoin(parent, eq(parent.id, epics.parentId));

type Selected = Awaited<ReturnType<ReturnType<typeof selectEpics>["execute"]>>[number];

export function toEpicRow(r: Selected): EpicRow {
  const author = r.author && r.author.id !== null ? (r.author as EpicRow["author"]) : null;
  return Object.assign({}, r.epic, {
    author,
    groupFullPath: r.groupFullPath,
    parentIid: r.parentIid,
    parentGroupId: r.parentGroupId,
    upvotes: Number(r.upvotes),
    downvotes: Number(r.downvotes),
    labels: r.labels.map((l) => ({ id: Number(l.id), title: l.title, color: l.color, description: l.description })),
    startDateFromMilestones: r.dates[0],
    startDateInherited: r.dates[1],
    dueDateFromMilestones: r.dates[2],
    dueDateInherited: r.dates[3],
  });
}

/** The epics with these ids (any order), as the entity shows them. */
export async function loadEpicRows(db: Executor, ids: number[]): Promise<EpicRow[]> {
  if (ids.length === 0) return [];
  const rows = await selectEpics(db).where(sql`${epics.id} = ANY(${sql.param(ids)}::int[])`);
  return rows.map(toEpicRow);
}
