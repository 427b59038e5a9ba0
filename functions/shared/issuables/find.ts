import { and, eq, sql } from "drizzle-orm";
import { issues, mergeRequests } from "../../../db/schema";
import { type ProjectWithAccess } from "../../kernel/abilities";
import type { Executor } from "../../kernel/db";
import type { Ctx } from "../../kernel/env";
import { forbidden, notFound } from "../../kernel/errors";
import { pathRowId } from "../../kernel/params";
import { canReadIssue, canReadMergeRequest, mayReadSomeMergeRequest, type IssueWithAssignees, type MergeRequestWithAssignees } from "./policy";

/** Issuables by iid inside a project, as the API's `find_project_issue`, `find_merge_request_with_access` and `find_project_merge_request` load them. */

/** `find_project_issue` (lib/api/helpers.rb): by iid inside the project; unreadable is `404 Issue Not Found`. */
export async function findIssue(c: Ctx, project: ProjectWithAccess, iid: string): Promise<IssueWithAssignees> {
  const n = pathRowId(iid);
  if (n === null) throw notFound("Issue");
  const issue = await loadIssue(c.var.db(), project.id, n);
  if (!issue || !canReadIssue(c.var.actor, project, issue)) throw notFound("Issue");
  return issue;
}

/**
 * `find_merge_request_with_access` (lib/api/helpers.rb): `user_project.merge_requests.find_by!(iid:)`,
 * then `authorize! :read_merge_request, merge_request`. The project was found readable, so a merge
 * request it holds but the caller may not read is 403 `403 Forbidden` (a guest of a private project,
 * a project with merge requests turned off); a missing one is 404. The single GET, update, commits,
 * changes, diffs, versions, participants, closes_issues, pipelines, approvals, status checks,
 * subscriptions and to-dos use it, as GitLab's endpoints do.
 * Differs from GitLab: a missing merge request is `404 Merge Request Not Found` (GitLab's `find_by!`
 * answers `404 Not found`), as `findIssue` names its resource.
 */
export async function findMergeRequest(c: Ctx, project: ProjectWithAccess, iid: string): Promise<MergeRequestWithAssignees> {
  const mr = await findProjectMergeRequestRow(c, project, iid);
  if (!canReadMergeRequest(c.var.actor, project, mr)) throw forbidden();
  return mr;
}

/**
 * `find_project_merge_request` (lib/api/helpers.rb): `MergeRequestsFinder.new(current_user,
 * project_id:).find_by!(iid:)`, so a merge request the caller may not read is not found: 404 (the
 * merge, merge_ref, cancel_merge_when_pipeline_succeeds, rebase, delete and time tracking endpoints).
 * Notes, discussions and resource events find their merge request through NotesFinder, also a 404.
 */
export async function findProjectMergeRequest(c: Ctx, project: ProjectWithAccess, iid: string): Promise<MergeRequestWithAssignees> {
  if (!mayReadSomeMergeRequest(c.var.actor, project)) throw notFound("Merge Request");
  const mr = await findProjectMergeRequestRow(c, project, iid);
  if (!canReadMergeRequest(c.var.actor, project, mr)) throw notFound("Merge Request");
  return mr;
}

/** The merge request `iid` of the project, whoever may read it; missing is `404 Merge Request Not Found`. */
async function findProjectMergeRequestRow(c: Ctx, project: ProjectWithAccess, iid: string): Promise<MergeRequestWithAssignees> {
  const n = pathRowId(iid);
  if (n === null) throw notFound("Merge Request");
  const mr = await loadMergeRequest(c.var.db(), project.id, n);
  if (!mr) throw notFound("Merge Request");
  return mr;
}

/** The issue `iid` of the project with its assignee ids, unchecked (callers decide who may read it). */
export async function loadIssue(db: Executor, projectId: number, iid: number): Promise<IssueWithAssignees | null> {
  const rows = await db
    .select({
      issue: issues,
      assigneeIds: sql<number[]>`ARRAY(SELECT ia.user_id FROM issue_assignees ia WHERE ia.issue_id = ${issues.id} ORDER BY ia.user_id)`,
    })
    .from(issues)
    .where(and(eq(issues.projectId, projectId), eq(issues.iid, iid)))
    .limit(1);
  const row = rows[0];
  return row ? { ...row.issue, assigneeIds: (row.assigneeIds ?? []).map(Number) } : null;
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
