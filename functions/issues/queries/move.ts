import { sql } from "drizzle-orm";
import type { ProjectWithAccess } from "../../kernel/abilities";
import type { Executor } from "../../kernel/db";

/**
 * Reads of Issues::MoveService / CloneService (Issuable::Clone::AttributesRewriter): in the target
 * project, the labels with the titles of the issue's labels (the project's and its groups',
 * LabelsFinder with `include_ancestor_groups`) and the milestone with the title of its milestone
 * (the project's, else its groups'); the discussion ids of the issue's notes, which the copy renames.
 * One statement.
 */
export async function loadCloneContext(
  db: Executor,
  issueId: number,
  target: ProjectWithAccess,
  ask: { labelTitles: string[]; milestoneTitle: string | null },
): Promise<{ labelIds: number[]; milestoneId: number | null; discussionIds: string[] }> {
  const groupIds = target.namespace.type === "Group" ? target.namespace.traversalIds : [];
  const result = await db.execute<{ label_ids: number[] | null; milestone_id: number | null; discussion_ids: string[] | null }>(sql`
    SELECT
      (SELECT array_agg(DISTINCT l.id) FROM labels l
        WHERE (l.project_id = ${target.id}::int OR l.group_id = ANY(${sql.param(groupIds)}::int[]))
          AND l.title = ANY(${sql.param(ask.labelTitles)}::text[])) AS label_ids,
      (SELECT m.id FROM milestones m
        WHERE (m.project_id = ${target.id}::int OR m.group_id = ANY(${sql.param(groupIds)}::int[])) AND m.title = ${ask.milestoneTitle}::text
        ORDER BY m.project_id NULLS LAST, m.id LIMIT 1) AS milestone_id,
      (SELECT array_agg(d ORDER BY first_id) FROM (SELECT n.discussion_id AS d, min(n.id) AS first_id FROM notes n
        WHERE n.noteable_type = 'Issue' AND n.noteable_id = ${issueId}::int GROUP BY n.discussion_id) x) AS discussion_ids`);
  const row = result.rows[0];
  return {
    labelIds: (row?.label_ids ?? []).map(Number),
    milestoneId: row?.milestone_id == null ? null : Number(row.milestone_id),
    discussionIds: row?.discussion_ids ?? [],
  };
}

/** The iid the new issue of a move or clone was given. */
export async function issueIidById(db: Executor, id: number): Promise<number | null> {
  const result = await db.execute<{ iid: number }>(sql`SELECT iid FROM issues WHERE id = ${id}::int`);
  return result.rows[0] ? Number(result.rows[0].iid) : null;
}
