import { sql } from "drizzle-orm";
import type { Executor } from "../kernel/db";
import { systemNotesCte } from "../shared/issuables/system_notes";

/**
 * Issue link writes (app/services/issue_links/create_service.rb, destroy_service.rb over
 * IssuableLinks::*Service, with SystemNoteService.relate_issuable / block_issuable /
 * blocked_by_issuable / unrelate_issuable). One statement each: the link and both system notes.
 */

export type LinkEnd = { id: number; iid: number; projectId: number; project: { id: number; path: string; fullPath: string; namespaceId: number } };

/** `Issue#to_reference(from_project)`: `#1`, `proj#1` in the same namespace, else `group/proj#1`. */
export function issueReference(issue: LinkEnd, from: LinkEnd["project"]): string {
  if (issue.project.id === from.id) return `#${issue.iid}`;
  if (issue.project.namespaceId === from.namespaceId) return `${issue.project.path}#${issue.iid}`;
  return `${issue.project.fullPath}#${issue.iid}`;
}

/** A system note on each issue of the pair, inserted by the CTE named `name` when the CTE `when` has a row. */
function pairNotes(name: string, when: string, authorId: number, a: LinkEnd, aBody: string, b: LinkEnd, bBody: string) {
  return systemNotesCte(
    name,
    [
      { noteableType: "Issue", noteableId: a.id, projectId: a.projectId, body: aBody },
      { noteableType: "Issue", noteableId: b.id, projectId: b.projectId, body: bBody },
    ],
    { authorId, from: sql`(SELECT 1 FROM ${sql.identifier(when)} LIMIT 1) w` },
  );
}

export type CreateResult =
  | { status: "exists" }
  | { status: "forbidden" }
  | { status: "created"; linkId: number; sourceId: number; targetId: number; linkType: string };

/**
 * IssueLinks::CreateService for one target, in its order: already linked either way → `exists`
 * (409 `Issue(s) already assigned`), then not `permitted` (admin_issue_link on both) → `forbidden`.
 * `is_blocked_by` is stored as `blocks` from the target.
 */
export async function createLink(
  db: Executor,
  authorId: number,
  issue: LinkEnd,
  target: LinkEnd,
  linkType: "relates_to" | "blocks" | "is_blocked_by",
  permitted: boolean,
): Promise<CreateResult> {
  const [source, dest] = linkType === "is_blocked_by" ? [target, issue] : [issue, target];
  const stored = linkType === "relates_to" ? "relates_to" : "blocks";
  const sourceBody =
    stored === "blocks" ? `marked this issue as blocking ${issueReference(dest, source.project)}` : `marked this issue as related to ${issueReference(dest, source.project)}`;
  const destBody =
    stored === "blocks" ? `marked this issue as blocked by ${issueReference(source, dest.project)}` : `marked this issue as related to ${issueReference(source, dest.project)}`;
  const result = await db.execute<{ existed: boolean; id: number | null }>(sql`
    WITH existing AS (SELECT 1 FROM issue_links
      WHERE (source_id = ${issue.id}::int AND target_id = ${target.id}::int) OR (source_id = ${target.id}::int AND target_id = ${issue.id}::int) LIMIT 1),
    link AS (INSERT INTO issue_links (source_id, target_id, link_type)
      SELECT ${source.id}::int, ${dest.id}::int, ${stored}::text WHERE NOT EXISTS (SELECT 1 FROM existing) AND ${permitted}::boolean
      ON CONFLICT DO NOTHING RETURNING id),
    ${pairNotes("link_notes", "link", authorId, source, sourceBody, dest, destBody)}
    SELECT EXISTS (SELECT 1 FROM existing) AS existed, (SELECT id FROM link) AS id`);
  const row = result.rows[0];
  if (row.existed) return { status: "exists" };
  if (row.id === null) return { status: permitted ? "exists" : "forbidden" };
  return { status: "created", linkId: Number(row.id), sourceId: source.id, targetId: dest.id, linkType: stored };
}

/** IssueLinks::DestroyService: the link (both directions are one row) and "removed the relation with …" on both issues. */
/** Deletes the link and writes both system notes; false when it was already gone (a concurrent delete). */
export async function destroyLink(db: Executor, authorId: number, linkId: number, source: LinkEnd, target: LinkEnd): Promise<boolean> {
  const result = await db.execute<{ deleted: number }>(sql`
    WITH gone AS (DELETE FROM issue_links WHERE id = ${linkId}::int RETURNING id),
    ${pairNotes(
      "unlink_notes",
      "gone",
      authorId,
      source,
      `removed the relation with ${issueReference(target, source.project)}`,
      target,
      `removed the relation with ${issueReference(source, target.project)}`,
    )}
    SELECT count(*)::int AS deleted FROM gone`);
  return Number(result.rows[0]?.deleted ?? 0) > 0;
}
