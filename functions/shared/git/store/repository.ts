// Project-level repository state that moves with refs: the first branch of an empty repository becomes
// its HEAD (`projects.default_branch`) and is protected as GitLab's instance default asks (full
// protection: maintainers push and merge; `Projects::ProtectDefaultBranchService`).
import { sql } from "drizzle-orm";
import type { Executor } from "../../../kernel/db";

/** `Gitlab::Access::MAINTAINER`, the push and merge level of full default-branch protection. */
const MAINTAINER = 40;

/**
 * Marks an empty repository as holding `branch`, makes it the default branch and protects it, in one
 * statement. `AND empty_repo` leaves all of it to whichever writer got there first. Git pushes into an
 * empty repository (smart HTTP) call this in the transaction that creates the first branch.
 */
export async function initializeDefaultBranch(db: Executor, projectId: number, branch: string): Promise<void> {
  await db.execute(sql`
    WITH p AS (
      UPDATE projects SET empty_repo = false, default_branch = ${branch}
       WHERE id = ${projectId} AND empty_repo = true
      RETURNING id
    ), pb AS (
      INSERT INTO protected_branches (project_id, name)
      SELECT id, ${branch} FROM p
      ON CONFLICT DO NOTHING
      RETURNING id
    )
    INSERT INTO protected_branch_access_levels (protected_branch_id, action, access_level)
    SELECT pb.id, a.action, ${MAINTAINER} FROM pb, (VALUES ('push'), ('merge'), ('unprotect')) AS a(action)`);
}
