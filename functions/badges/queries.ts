import { and, asc, desc, eq, sql, type SQL } from "drizzle-orm";
import { badges, projects, type Badge } from "../../db/schema";
import type { ProjectWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { cappedCount, type Page } from "../kernel/pagination";
import { projectIsVisible } from "../kernel/visibility";
import type { PlaceholderSource } from "../entities/badges";

export type BadgeSource = { kind: "project"; project: ProjectWithAccess } | { kind: "group"; groupId: number };

/** `source.badges`: a project's own and its ancestor groups'; a group's own. */
function ofSource(source: BadgeSource): SQL {
  if (source.kind === "group") return eq(badges.groupId, source.groupId);
  const groupIds = source.project.namespace.type === "Group" ? source.project.namespace.traversalIds : [];
  if (groupIds.length === 0) return eq(badges.projectId, source.project.id);
  return sql`(${badges.projectId} = ${source.project.id} OR ${badges.groupId} = ANY(${sql.param(groupIds)}::int[]))`;
}

/** Badges in creation order (`default_scope { order_created_at_asc }`), `name` exact. */
export async function listBadges(db: Executor, source: BadgeSource, name: string | undefined, page: Page): Promise<{ rows: Badge[]; total: number }> {
  const where = and(ofSource(source), name !== undefined ? eq(badges.name, name) : undefined);
  const rows = await db.select().from(badges).where(where).orderBy(asc(badges.createdAt), asc(badges.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(badges).where(where), page);
  return { rows, total };
}

/** `source.badges.find(id)`; `ownOnly` for writes (a project changes only its own badges). */
export async function findBadge(db: Executor, source: BadgeSource, id: number, ownOnly = false): Promise<Badge | null> {
  const scope = ownOnly && source.kind === "project" ? eq(badges.projectId, source.project.id) : ofSource(source);
  const rows = await db.select().from(badges).where(and(scope, eq(badges.id, id))).limit(1);
  return rows[0] ?? null;
}

/** What placeholders read: the project, and the commit at the head of its default branch. */
export async function placeholdersOfProject(db: Executor, project: ProjectWithAccess): Promise<PlaceholderSource> {
  const result = await db.execute<{ sha: string | null }>(
    sql`SELECT (SELECT target FROM git_refs WHERE project_id = ${project.id}::int AND name = ${`refs/heads/${project.defaultBranch ?? ""}`}::text) AS sha`,
  );
  return { fullPath: project.fullPath, id: project.id, defaultBranch: project.defaultBranch, commitSha: result.rows[0]?.sha?.trim() ?? null };
}

/**
 * For a group's badges GitLab renders placeholders with the group's first project the caller may see
 * (`GroupProjectsFinder.execute.first`, newest first); null when there is none.
 */
export async function placeholdersOfGroup(db: Executor, groupId: number, actor: Actor | null): Promise<PlaceholderSource | null> {
  const rows = await db
    .select({
      id: projects.id,
      fullPath: projects.fullPath,
      defaultBranch: projects.defaultBranch,
      sha: sql<string | null>`(SELECT r.target FROM git_refs r WHERE r.project_id = ${sql.raw('"projects"."id"')}
        AND r.name = 'refs/heads/' || ${sql.raw('"projects"."default_branch"')})`,
    })
    .from(projects)
    .where(and(eq(projects.namespaceId, groupId), projectIsVisible(actor)))
    .orderBy(desc(projects.id))
    .limit(1);
  const row = rows[0];
  return row ? { id: row.id, fullPath: row.fullPath, defaultBranch: row.defaultBranch, commitSha: row.sha?.trim() ?? null } : null;
}

export async function insertBadge(db: Executor, source: BadgeSource, v: { name: string | null; linkUrl: string; imageUrl: string }): Promise<Badge> {
  const owner = source.kind === "project" ? { type: "ProjectBadge", projectId: source.project.id } : { type: "GroupBadge", groupId: source.groupId };
  const rows = await db.insert(badges).values({ ...owner, ...v }).returning();
  return rows[0];
}

export async function updateBadge(db: Executor, id: number, v: { name?: string; linkUrl?: string; imageUrl?: string }): Promise<Badge> {
  const rows = await db.update(badges).set({ ...v, updatedAt: new Date() }).where(eq(badges.id, id)).returning();
  return rows[0];
}

export async function deleteBadge(db: Executor, id: number): Promise<void> {
  await db.delete(badges).where(eq(badges.id, id));
}

/** The row type routes name (routes never import db/schema). */
export type { Badge } from "../../db/schema";

/**
 * `ci_pipelines.latest_status(ref)`: the status of the ref's newest pipeline (child pipelines left
 * out), skipped ones passed over when `ignoreSkipped`; null when there is none (1 statement).
 */
export async function latestPipelineStatus(db: Executor, projectId: number, ref: string, ignoreSkipped: boolean): Promise<string | null> {
  const result = await db.execute<{ status: string }>(sql`
    SELECT status FROM ci_pipelines WHERE project_id = ${projectId} AND ref = ${ref} AND source <> 'parent_pipeline'
      ${ignoreSkipped ? sql`AND status <> 'skipped'` : sql``}
    ORDER BY id DESC LIMIT 1`);
  return result.rows[0]?.status ?? null;
}

/**
 * Gitlab::Ci::Badge::Coverage::Report: the ref's newest successful pipeline's coverage (the mean of its
 * latest jobs' coverage), or with `job` that job's; null when unknown (1 statement).
 */
export async function latestCoverage(db: Executor, projectId: number, ref: string, job: string | null): Promise<number | null> {
  const result = await db.execute<{ coverage: number | null }>(sql`
    WITH p AS (SELECT id FROM ci_pipelines WHERE project_id = ${projectId} AND ref = ${ref} AND status = 'success' AND source <> 'parent_pipeline' ORDER BY id DESC LIMIT 1)
    SELECT ${job === null ? sql`avg(b.coverage)` : sql`(array_agg(b.coverage ORDER BY b.id DESC))[1]`}::float8 AS coverage
    FROM ci_builds b JOIN p ON p.id = b.pipeline_id
    WHERE NOT b.retried AND b.type = 'build' ${job === null ? sql`AND b.coverage IS NOT NULL` : sql`AND b.name = ${job}`}`);
  const value = result.rows[0]?.coverage;
  return value === null || value === undefined ? null : Number(value);
}
