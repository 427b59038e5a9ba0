// Pushes by the target's members to a fork's branch whose merge request allows collaboration
// (`allow_collaboration`): Project#branch_allows_collaboration?, which Gitlab::UserAccess asks when the
// user lacks `push_code` on the fork. The commits and files APIs and git pushes over smart HTTP ask it.
import { sql } from "drizzle-orm";
import { allowed, type ProjectWithAccess } from "../../kernel/abilities";
import type { Executor } from "../../kernel/db";
import { Visibility } from "../../kernel/access";
import { projectAccessLevel } from "../../kernel/visibility";
import { canMergeInto } from "./access";
import { levelsJson, toProtection, type ProtectionJson } from "./read";

import type { Actor } from "../../kernel/env";

/**
 * Project#fetch_branch_allows_collaboration (GitLab 15.4, app/models/project.rb) as
 * Gitlab::UserAccess#branch_allows_collaboration_for? asks it: some open merge request from `fork`
 * (from `branch`, or from any branch when null: `any_branch_allows_collaboration?`, what the
 * receive-pack advertisement asks) stores `allow_collaboration`, and the user may merge it into its
 * target branch (`can_be_merged_by?` without the collaboration check: developer access to the target
 * project and the target branch's push or merge level). Never for an empty repository. One statement.
 * As in GitLab 15.4, never for an internal fork (`!project.internal?`, the guard of gitlab#36805).
 * The fork's own protection of `branch` is decided by the caller, as `can_push_to_branch?` does after
 * `can_collaborate?`.
 */
export async function branchAllowsCollaboration(
  db: Executor,
  actor: Actor | null,
  fork: { id: number; visibilityLevel: number; emptyRepo: boolean },
  branch: string | null,
): Promise<boolean> {
  if (!actor || fork.emptyRepo || fork.visibilityLevel === Visibility.INTERNAL) return false;
  const result = await db.execute<{
    target_branch: string;
    archived: boolean;
    empty_repo: boolean;
    default_branch: string | null;
    access_level: number;
    protections: ProtectionJson[] | string;
  }>(sql`
    SELECT mr.target_branch, projects.archived, projects.empty_repo, projects.default_branch,
           ${projectAccessLevel(actor.user.id)} AS access_level,
           coalesce((SELECT json_agg(json_build_object('id', pb.id, 'name', pb.name, 'allow_force_push', pb.allow_force_push,
             'code_owner_approval_required', pb.code_owner_approval_required, 'created_at', pb.created_at, 'updated_at', pb.updated_at,
             'levels', ${levelsJson}) ORDER BY pb.id) FROM protected_branches pb WHERE pb.project_id = projects.id), '[]'::json) AS protections
      FROM merge_requests mr
      JOIN projects ON projects.id = mr.project_id
      JOIN namespaces ON namespaces.id = projects.namespace_id
     WHERE mr.source_project_id = ${fork.id} AND mr.project_id <> ${fork.id} AND mr.state = 'opened' AND mr.allow_collaboration
       ${branch === null ? sql`` : sql`AND mr.source_branch = ${branch}`}`);
  return result.rows.some((row) => {
    const rows = typeof row.protections === "string" ? (JSON.parse(row.protections) as ProtectionJson[]) : row.protections;
    const target = { archived: row.archived, emptyRepo: row.empty_repo, defaultBranch: row.default_branch, accessLevel: Number(row.access_level) };
    return canMergeInto(actor, target, rows.map(toProtection), row.target_branch);
  });
}

/**
 * Gitlab::UserAccess#can_collaborate?: `push_code` on the project, else a merge request from `branch`
 * that allows the user's collaboration. The branch's protection is still the caller's to check.
 */
export async function canCollaborate(db: Executor, actor: Actor | null, project: ProjectWithAccess, branch: string | null): Promise<boolean> {
  if (allowed(actor, "push_code", project)) return true;
  return branchAllowsCollaboration(db, actor, project, branch);
}
