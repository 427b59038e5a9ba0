import * as z from "zod";

/** The body of `GET /user_counts` (lib/api/user_counts.rb); `merge_requests` is the deprecated alias of `assigned_merge_requests`. */
export const UserCounts = z
  .object({
    merge_requests: z.int(),
    assigned_issues: z.int(),
    assigned_merge_requests: z.int(),
    review_requested_merge_requests: z.int(),
    todos: z.int(),
  })
  .meta({ id: "UserCounts" });
export function userCounts(c: { assignedIssues: number; assignedMergeRequests: number; reviewRequestedMergeRequests: number; todos: number }): z.output<typeof UserCounts> {
  return {
    merge_requests: c.assignedMergeRequests,
    assigned_issues: c.assignedIssues,
    assigned_merge_requests: c.assignedMergeRequests,
    review_requested_merge_requests: c.reviewRequestedMergeRequests,
    todos: c.todos,
  };
}

/** API::Entities::UserActivity (lib/api/entities/user_activity.rb): `last_activity_at` is a back-compatible alias. */
export const UserActivity = z
  .object({ username: z.string(), last_activity_on: z.string().nullable(), last_activity_at: z.string().nullable() })
  .meta({ id: "UserActivity" });
export function userActivity(row: { username: string; lastActivityOn: string | null }): z.output<typeof UserActivity> {
  return { username: row.username, last_activity_on: row.lastActivityOn, last_activity_at: row.lastActivityOn };
}
