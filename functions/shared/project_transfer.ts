// Projects::TransferService, shared by `PUT /projects/:id/transfer` (projects) and the admins'
// `POST /groups/:id/projects/:project_id` (groups): the refusals, then every write of the move in one
// transaction. The old full path becomes a redirect by the `redirect_routes` trigger.
import { eq, sql, type SQL } from "drizzle-orm";
import { projects, type Namespace, type Project, type User } from "../../db/schema";
import { Access } from "../kernel/access";
import type { Database, Executor } from "../kernel/db";
import { apiError, isUniqueViolation } from "../kernel/errors";
import { nextIidSql } from "./issuables/iids";

/** GroupPolicy `create_projects` by the group's project_creation_level (0 no one, 1 maintainers, 2 developers). */
export function canCreateIn(user: User, namespace: Namespace, memberLevel: number): boolean {
  if (user.admin) return true;
  if (namespace.type === "User") return namespace.ownerId === user.id;
  if (namespace.projectCreationLevel === 0) return false;
  return memberLevel >= (namespace.projectCreationLevel === 1 ? Access.MAINTAINER : Access.DEVELOPER);
}

/**
 * Projects::TransferService#execute: the refusals, in GitLab's order, rendered as
 * `Failed to transfer project {:new_namespace=>["…"]}`; then the project's path, name and visibility
 * move in one transaction (a personal namespace's owner becomes an Owner member, as GitLab keeps them),
 * with the old group's labels and milestones the project uses (`transfer_missing_group_resources`) and
 * the old full path kept as a redirect (the `redirect_routes` trigger).
 */
export async function transferProject(
  db: Database,
  user: User,
  project: Project & { namespace: Namespace },
  target: Namespace & { accessLevel: number },
): Promise<void> {
  const refuse = (text: string) => apiError(`Failed to transfer project {:new_namespace=>[${JSON.stringify(text)}]}`, 400);
  if (target.id === project.namespaceId) throw refuse("Project is already in this namespace.");
  if (!canTransferInto(user, target)) throw refuse("You don't have permission to transfer projects into that namespace.");
  const fullPath = `${target.fullPath}/${project.path}`;
  const conflicts = await transferConflicts(db, project, target.id, fullPath);
  if (conflicts.taken) throw refuse("Project with same name or path in target namespace already exists");
  // `new_namespace_has_same_root?`: npm package names are scoped by the root namespace.
  const rootOf = (traversalIds: number[], id: number) => traversalIds[0] ?? id;
  if (conflicts.npm && rootOf(target.traversalIds, target.id) !== rootOf(project.namespace.traversalIds, project.namespace.id))
    throw refuse("Root namespace can't be updated if project has NPM packages");
  // `visibility_level_allowed_by_group?`: a group lowers a project above its own level.
  const level = target.type === "Group" ? Math.min(project.visibilityLevel, target.visibilityLevel) : project.visibilityLevel;
  try {
    await db.transaction(async (tx) => {
      await tx
        .update(projects)
        .set({ namespaceId: target.id, fullPath, nameWithNamespace: `${target.fullName} / ${project.name}`, visibilityLevel: level, updatedAt: sql`now()` })
        .where(eq(projects.id, project.id));
      if (target.type === "User" && target.ownerId !== null) await ensureOwnerMember(tx, project.id, target.ownerId, user.id);
      if (project.namespace.type === "Group") await transferGroupResources(tx, project.id, target.type === "Group" ? target.traversalIds : []);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw refuse("Project with same name or path in target namespace already exists");
    throw err;
  }
}

/**
 * `transfer_projects` on the target: a personal namespace for its owner (who may still create personal
 * projects), a group for its maintainers and owners when its project creation level lets them create
 * projects; admins anywhere (NamespacePolicy, GroupPolicy).
 */
function canTransferInto(user: User, target: Namespace & { accessLevel: number }): boolean {
  if (user.admin) return true;
  if (target.type === "User") return target.ownerId === user.id && user.projectsLimit > 0;
  return target.accessLevel >= Access.MAINTAINER && canCreateIn(user, target, target.accessLevel);
}

/**
 * What Projects::TransferService#transfer checks of the target before moving: whether another project
 * of the namespace has the project's path or name (`where('path = ? or name = ?')`), or a namespace
 * has the new full path (route uniqueness); and whether the project has npm packages
 * (`has_packages?(:npm)`, any status).
 */
export async function transferConflicts(db: Executor, project: { id: number; name: string }, namespaceId: number, fullPath: string) {
  const result = await db.execute<{ taken: boolean; npm: boolean }>(sql`SELECT
    (EXISTS (SELECT 1 FROM projects p WHERE p.id <> ${project.id}
        AND (lower(p.full_path) = lower(${fullPath}) OR (p.namespace_id = ${namespaceId} AND p.name = ${project.name})))
      OR EXISTS (SELECT 1 FROM namespaces n WHERE lower(n.full_path) = lower(${fullPath}))) AS taken,
    EXISTS (SELECT 1 FROM packages_packages k WHERE k.project_id = ${project.id} AND k.package_type = 'npm') AS npm`);
  return { taken: !!result.rows[0].taken, npm: !!result.rows[0].npm };
}

/**
 * Labels::TransferService and Milestones::TransferService (Projects::TransferService#transfer_missing_group_resources):
 * after a project leaves a group, the group labels and milestones its issues and merge requests use,
 * unless they belong to a group above the new namespace, are replaced by the label (milestone) of
 * that title the project sees in its new place, created as a project label (milestone) when there is
 * none. Run inside the transfer's transaction; `newGroupIds` are the new namespace's group and its
 * ancestors (empty for a personal namespace).
 */
export async function transferGroupResources(db: Executor, projectId: number, newGroupIds: number[]) {
  const seen = sql`(x.project_id = ${projectId} OR x.group_id = ANY(${sql.param(newGroupIds)}::int[]))`;
  const stranded = sql`l.group_id IS NOT NULL AND NOT (l.group_id = ANY(${sql.param(newGroupIds)}::int[]))`;
  const onProject = sql`((ll.target_type = 'Issue' AND ll.target_id IN (SELECT id FROM issues WHERE project_id = ${projectId}))
    OR (ll.target_type = 'MergeRequest' AND ll.target_id IN (SELECT id FROM merge_requests WHERE project_id = ${projectId})))`;
  // Labels::FindOrCreateService: title, color and description of the group label.
  await db.execute(sql`INSERT INTO labels (project_id, title, color, description)
    SELECT DISTINCT ON (l.title) ${projectId}, l.title, l.color, l.description
      FROM labels l JOIN label_links ll ON ll.label_id = l.id
     WHERE ${stranded} AND ${onProject} AND NOT EXISTS (SELECT 1 FROM labels x WHERE x.title = l.title AND ${seen})
     ORDER BY l.title, l.id
    ON CONFLICT DO NOTHING`);
  // Delete and insert (not UPDATE): issues.label_ids follows label_links' inserts and deletes.
  await db.execute(sql`WITH moved AS (
      DELETE FROM label_links ll USING labels l WHERE l.id = ll.label_id AND ${stranded} AND ${onProject}
      RETURNING ll.target_type, ll.target_id, ll.created_at, l.title)
    INSERT INTO label_links (label_id, target_type, target_id, created_at)
    SELECT (SELECT x.id FROM labels x WHERE x.title = m.title AND ${seen} ORDER BY x.project_id NULLS LAST, x.id LIMIT 1),
           m.target_type, m.target_id, m.created_at
      FROM moved m
    ON CONFLICT DO NOTHING`);
  // Milestones::FindOrCreateService: title, description, dates and state, with the project's next iid.
  const used = sql`SELECT m.id FROM milestones m WHERE m.group_id IS NOT NULL AND NOT (m.group_id = ANY(${sql.param(newGroupIds)}::int[]))
    AND (m.id IN (SELECT milestone_id FROM issues WHERE project_id = ${projectId})
      OR m.id IN (SELECT milestone_id FROM merge_requests WHERE project_id = ${projectId}))`;
  const missing = await db.execute<{ title: string; description: string | null; state: string; due_date: string | null; start_date: string | null }>(sql`
    SELECT DISTINCT ON (m.title) m.title, m.description, m.state, m.due_date::text, m.start_date::text FROM milestones m
     WHERE m.id IN (${used}) AND NOT EXISTS (SELECT 1 FROM milestones x WHERE x.title = m.title AND ${seen})
     ORDER BY m.title, m.id`);
  for (const m of missing.rows) {
    await db.execute(sql`WITH next AS (${nextIidSql("milestones", { projectId })})
      INSERT INTO milestones (iid, project_id, title, description, state, due_date, start_date)
      SELECT last_value, ${projectId}, ${m.title}, ${m.description}, ${m.state}, ${m.due_date}::date, ${m.start_date}::date FROM next`);
  }
  const replacement = (column: SQL) => sql`(SELECT x.id FROM milestones x WHERE x.title = (SELECT title FROM milestones WHERE id = ${column}) AND ${seen}
    ORDER BY x.project_id NULLS LAST, x.id LIMIT 1)`;
  await db.execute(sql`UPDATE issues SET milestone_id = ${replacement(sql`issues.milestone_id`)}
    WHERE project_id = ${projectId} AND milestone_id IN (${used})`);
  await db.execute(sql`UPDATE merge_requests SET milestone_id = ${replacement(sql`merge_requests.milestone_id`)}
    WHERE project_id = ${projectId} AND milestone_id IN (${used})`);
}

/** A personal namespace's owner is an Owner member of the projects in it. */
export async function ensureOwnerMember(db: Executor, projectId: number, userId: number, createdById: number) {
  await db.execute(sql`INSERT INTO members (source_type, source_id, user_id, access_level, created_by_id)
    VALUES ('Project', ${projectId}, ${userId}, 50, ${createdById})
    ON CONFLICT (source_type, source_id, user_id) DO UPDATE SET access_level = 50, updated_at = now()`);
}

