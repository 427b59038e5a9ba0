import { and, eq, sql } from "drizzle-orm";
import { issues, mergeRequests } from "../../../db/schema";
import { type ProjectWithAccess } from "../../kernel/abilities";
import type { Executor } from "../../kernel/db";
import type { Ctx } from "../../kernel/env";
import { notFound } from "../../kernel/errors";
import { pathRowId } from "../../kernel/params";
import { canReadIssue, canReadMergeRequest, mayReadSomeMergeRequest, type IssueWithAssignees, type MergeRequestWithAssignees } from "./policy";

/** Issuables by iid inside a project, as the API's `find_project_issue` and `find_merge_request_with_access` load them. */

/** `find_project_issue` (lib/api/helpers.rb): by iid inside the project; unreadable is `404 Issue Not Found`. */
export async function findIssue(c: Ctx, project: ProjectWithAccess, iid: string): Promise<IssueWithAssignees> {
  const n = pathRowId(iid);
  if (n === null) throw notFound("Issue");
  const rows = await c.var
    .db()
    .select({
      issue: issues,
      assigneeIds: sql<number[]>`ARRAY(SELECT ia.user_id FROM issue_assignees ia WHERE ia.issue_id = ${issues.id} ORDER BY ia.user_id)`,
    })
    .from(issues)
    .where(and(eq(issues.projectId, project.id), eq(issues.iid, n)))
    .limit(1);
  const row = rows[0];
  const issue = row ? { ...row.issue, assigneeIds: (row.assigneeIds ?? []).map(Number) } : null;
  if (!issue || !canReadIssue(c.var.actor, project, issue)) throw notFound("Issue");
  return issue;
}

/**
 * `find_merge_request_with_access` (lib/api/helpers.rb): by iid inside the project; missing or not
 * readable (`read_merge_request`: the project feature and access) is `404 Merge Request Not Found`.
 * Differs from GitLab: its `find_by!` answers `404 Not found` for a missing merge request and
 * `authorize!` 403 for an unreadable one; here both are the named 404, as `findIssue` does.
 */
export async function findMergeRequest(c: Ctx, project: ProjectWithAccess, iid: string): Promise<MergeRequestWithAssignees> {
  const n = pathRowId(iid);
  if (n === null) throw notFound("Merge Request");
  if (!mayReadSomeMergeRequest(c.var.actor, project)) throw notFound("Merge Request");
  const mr = await loadMergeRequest(c.var.db(), project.id, n);
  if (!mr) throw notFound("Merge Request");
  if (!canReadMergeRequest(c.var.actor, project, mr)) throw notFound("Merge Request");
  return mr;
}

/** The merge request `iid` of the project with its assignee and reviewer ids, unchecked (callers decide who may read it). */
export async function loadMergeRequest(db: Executor, projectId: number, iid: number): Promise<MergeRequestWithAssignees | null> {
  const rows = await db
    .select({
      mr: mergeRequests,
      assigneeIds: sql<number[]>`ARRAY(SELECT a.user_id FROM merge_request_assignees a WHERE a.merge_request_id = ${mergeRequests.id} ORDER BY a.user_id)`,
      reviewerIds: sql<number[]>`ARRAY(SELECT r.user_id FROM merge_request_reviewers r WHERE r.merge_request_id = ${mergeRequests.id} ORDER BY r.user_id)`,
    })
    .from(mergeRequests)
    .where(and(eq(mergeRequests.projectId, projectId), eq(mergeRequests.iid, iid)))
    .limit(1);
  const row = rows[0];
  return row ? { ...row.mr, assigneeIds: (row.assigneeIds ?? []).map(Number), reviewerIds: (row.reviewerIds ?? []).map(Number) } : null;
}
