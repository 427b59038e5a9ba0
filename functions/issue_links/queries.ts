import { and, eq, or, sql } from "drizzle-orm";
import { issueLinks, issues, namespaces, projects, type IssueLink } from "../../db/schema";
import type { ProjectWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { issueIsVisible, type IssueWithAssignees } from "../shared/issuables/policy";
import { loadIssueRows, type IssueRow } from "../shared/issuables/issue_preload";
import { projectAccessLevel } from "../kernel/visibility";
import type { LinkType, RelatedIssueRow } from "../entities/issue_links";

/** `IssueLink.inverse_link_type`: what `blocks` looks like from the other side. */
const inverse = (type: string): LinkType => (type === "blocks" ? "is_blocked_by" : "relates_to");

/**
 * `Issue#related_issues(current_user)`: the issues linked to `issueId` in either direction that the
 * caller may read (Ability.issues_readable_by_user), in link order; two statements for any number.
 */
export async function relatedIssues(db: Executor, actor: Actor | null, issueId: number): Promise<RelatedIssueRow[]> {
  const links = await db.execute<{ id: number; source_id: number; target_id: number; link_type: string; created_at: string; updated_at: string }>(sql`
    SELECT il.id, il.source_id, il.target_id, il.link_type, il.created_at, il.updated_at
    FROM issue_links il JOIN issues ON issues.id = CASE WHEN il.source_id = ${issueId}::int THEN il.target_id ELSE il.source_id END
    WHERE (il.source_id = ${issueId}::int OR il.target_id = ${issueId}::int) AND ${issueIsVisible(actor)}
    ORDER BY il.id`);
  const otherId = (l: { source_id: number; target_id: number }) => Number(Number(l.source_id) === issueId ? l.target_id : l.source_id);
  const rows = await loadIssueRows(db, links.rows.map(otherId), actor);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return links.rows.flatMap((l) => {
    const row = byId.get(otherId(l));
    if (!row) return [];
    // The listed issue is the source: the stored type; the target: its inverse.
    const linkType = Number(l.source_id) === issueId ? (l.link_type as LinkType) : inverse(l.link_type);
    return [{ ...row, link: { id: Number(l.id), createdAt: new Date(l.created_at), updatedAt: new Date(l.updated_at) }, linkType }];
  });
}

/** The other end of a link of `issueId`: the issue with its assignees and its project with the caller's level. */
export type LinkEnd = { link: IssueLink; other: IssueWithAssignees; otherProject: ProjectWithAccess };

/** `IssueLink.for_source_or_target(issue).find(id)` with the other issue and its project, in one statement. */
export async function linkOf(db: Executor, actor: Actor | null, issueId: number, linkId: number): Promise<LinkEnd | null> {
  const rows = await db
    .select({
      link: issueLinks,
      other: issues,
      assigneeIds: sql<number[]>`ARRAY(SELECT ia.user_id FROM issue_assignees ia WHERE ia.issue_id = ${issues.id})`,
      project: projects,
      namespace: namespaces,
      accessLevel: projectAccessLevel(actor?.user.id ?? null),
    })
    .from(issueLinks)
    .innerJoin(issues, sql`${issues.id} = CASE WHEN ${issueLinks.sourceId} = ${issueId}::int THEN ${issueLinks.targetId} ELSE ${issueLinks.sourceId} END`)
    .innerJoin(projects, eq(projects.id, issues.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(and(eq(issueLinks.id, linkId), or(eq(issueLinks.sourceId, issueId), eq(issueLinks.targetId, issueId))))
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  return {
    link: row.link,
    other: { ...row.other, assigneeIds: (row.assigneeIds ?? []).map(Number) },
    otherProject: { ...row.project, namespace: row.namespace, accessLevel: Number(row.accessLevel) },
  };
}

/** Both issues of a link, for the IssueLink entity (one statement). */
/** Both issues of a link, or null when one of them is gone (deleted by a concurrent request). */
export async function linkIssues(db: Executor, actor: Actor | null, sourceId: number, targetId: number): Promise<{ source: IssueRow; target: IssueRow } | null> {
  const rows = await loadIssueRows(db, [sourceId, targetId], actor);
  const source = rows.find((r) => r.id === sourceId);
  const target = rows.find((r) => r.id === targetId);
  return source && target ? { source, target } : null;
}
