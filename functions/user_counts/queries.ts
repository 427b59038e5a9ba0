import { sql } from "drizzle-orm";
import type { Executor } from "../kernel/db";

export type UserCounts = { assignedIssues: number; assignedMergeRequests: number; reviewRequestedMergeRequests: number; todos: number };

/**
 * User#assigned_open_issues_count, #assigned_open_merge_requests_count,
 * #review_requested_open_merge_requests_count and #todos_pending_count, in one statement.
 * Differs from GitLab: counted without the issue finders' visibility rules (an assignee of a project
 * they left still counts it), as GitLab's cached counts do until they expire.
 */
export async function userCounts(db: Executor, userId: number): Promise<UserCounts> {
  const { rows } = await db.execute<Record<string, string | number>>(sql`SELECT
      (SELECT count(*) FROM issue_assignees a JOIN issues i ON i.id = a.issue_id WHERE a.user_id = ${userId} AND i.state = 'opened') AS issues,
      (SELECT count(*) FROM merge_request_assignees a JOIN merge_requests m ON m.id = a.merge_request_id WHERE a.user_id = ${userId} AND m.state = 'opened') AS assigned,
      (SELECT count(*) FROM merge_request_reviewers r JOIN merge_requests m ON m.id = r.merge_request_id WHERE r.user_id = ${userId} AND m.state = 'opened') AS reviews,
      (SELECT count(*) FROM todos t WHERE t.user_id = ${userId} AND t.state = 'pending') AS todos`);
  const r = rows[0];
  return { assignedIssues: Number(r.issues), assignedMergeRequests: Number(r.assigned), reviewRequestedMergeRequests: Number(r.reviews), todos: Number(r.todos) };
}
