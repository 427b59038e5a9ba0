import { and, asc, count, desc, eq, inArray, ne, sql } from "drizzle-orm";
import { applicationSettings, ciBuilds, ciJobArtifacts, pagesDeployments, pagesDomains, projectPagesMetadata, projects, type PagesDeployment, type PagesDomain } from "../../db/schema";
import type { Database, Executor } from "../kernel/db";
import type { Page } from "../kernel/pagination";

export type { PagesDeployment, PagesDomain };

/**
 * Pages rows (docs/pages.md). This file is the one writer of `project_pages_metadata`, the pointer to
 * the deployment a site serves (test/node/one_writer.test.mjs): `switchDeployment` and `unpublish`.
 */

/** What serving a request needs: the project's read rules and the current deployment's R2 prefix. */
export type Site = { projectId: number; fullPath: string; visibilityLevel: number; pagesAccessLevel: string; prefix: string };

const siteColumns = {
  projectId: projects.id,
  fullPath: projects.fullPath,
  visibilityLevel: projects.visibilityLevel,
  pagesAccessLevel: projects.pagesAccessLevel,
  prefix: pagesDeployments.r2Prefix,
};

/** The deployed site among `paths` (most specific first), else the namespace's root project (one statement). */
export async function siteOnNamespaceHost(db: Executor, paths: string[], root: string): Promise<Site | null> {
  const all = [...paths, root];
  const rows = await db
    .select(siteColumns)
    .from(projects)
    .innerJoin(projectPagesMetadata, and(eq(projectPagesMetadata.projectId, projects.id), eq(projectPagesMetadata.deployed, true)))
    .innerJoin(pagesDeployments, eq(pagesDeployments.id, projectPagesMetadata.pagesDeploymentId))
    .where(sql`lower(${projects.fullPath}) IN (${sql.join(all.map((p) => sql`${p}`), sql`, `)})`)
    .orderBy(sql`lower(${projects.fullPath}) = ${root}`, desc(sql`length(${projects.fullPath})`))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * The deployed site of a custom domain that may be served: verified, or within its `enabled_until`, or
 * any domain while the `pages_domain_verification_enabled` setting is off (PagesDomain#enabled?).
 */
export async function siteOnCustomDomain(db: Executor, host: string): Promise<Site | null> {
  const verificationOff = sql`COALESCE((SELECT (${applicationSettings.settings}->>'pages_domain_verification_enabled')::boolean FROM ${applicationSettings} WHERE ${applicationSettings.id} = 1), true) = false`;
  const rows = await db
    .select(siteColumns)
    .from(pagesDomains)
    .innerJoin(projects, eq(projects.id, pagesDomains.projectId))
    .innerJoin(projectPagesMetadata, and(eq(projectPagesMetadata.projectId, projects.id), eq(projectPagesMetadata.deployed, true)))
    .innerJoin(pagesDeployments, eq(pagesDeployments.id, projectPagesMetadata.pagesDeploymentId))
    .where(and(sql`lower(${pagesDomains.domain}) = ${host}`, sql`(${pagesDomains.verifiedAt} IS NOT NULL OR ${pagesDomains.enabledUntil} > now() OR ${verificationOff})`))
    .limit(1);
  return rows[0] ?? null;
}

/** The ids among `ids` of jobs named `pages` (the jobs a publish follows). */
export async function pagesJobIds(db: Executor, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db.select({ id: ciBuilds.id }).from(ciBuilds).where(and(inArray(ciBuilds.id, ids), eq(ciBuilds.name, "pages")));
  return rows.map((r) => r.id);
}

/** A succeeded `pages` job and the R2 key of its archive, when it has one. */
export async function publishableJob(db: Executor, jobId: number) {
  const rows = await db
    .select({ id: ciBuilds.id, projectId: ciBuilds.projectId, r2Key: ciJobArtifacts.r2Key, size: ciJobArtifacts.size })
    .from(ciBuilds)
    .innerJoin(ciJobArtifacts, and(eq(ciJobArtifacts.jobId, ciBuilds.id), eq(ciJobArtifacts.fileType, "archive")))
    .where(and(eq(ciBuilds.id, jobId), eq(ciBuilds.name, "pages"), eq(ciBuilds.status, "success"), sql`${ciBuilds.erasedAt} IS NULL`))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * The job's deployments and whether one is the site's current one: a redelivered publish of a current
 * deployment does nothing new; any other is a publish that died half-way, deleted here (its R2 prefixes
 * returned) before the job is published again.
 */
export async function claimJobDeployments(db: Executor, jobId: number): Promise<{ current: boolean; stale: string[] }> {
  const current = await db
    .select({ id: pagesDeployments.id })
    .from(pagesDeployments)
    .innerJoin(projectPagesMetadata, eq(projectPagesMetadata.pagesDeploymentId, pagesDeployments.id))
    .where(eq(pagesDeployments.ciBuildId, jobId))
    .limit(1);
  if (current.length) return { current: true, stale: [] };
  const gone = await db.delete(pagesDeployments).where(eq(pagesDeployments.ciBuildId, jobId)).returning({ prefix: pagesDeployments.r2Prefix });
  return { current: false, stale: gone.map((g) => g.prefix) };
}

export async function createDeployment(db: Executor, d: { projectId: number; ciBuildId: number; r2Prefix: string; fileCount: number; size: number }): Promise<PagesDeployment> {
  const [row] = await db.insert(pagesDeployments).values(d).returning();
  return row;
}

/**
 * Serves `deploymentId` from now on, in one transaction: the pointer moves in one row update
 * (the switch a visitor sees), unless a newer job's deployment is already current (a late publish
 * of an older job loses). Every other deployment of the project is deleted; their R2 prefixes are
 * returned for the caller to empty. `switched` is false when the deployment lost.
 */
export async function switchDeployment(db: Database, projectId: number, deploymentId: number): Promise<{ switched: boolean; stale: string[] }> {
  return db.transaction(async (tx) => {
    await tx.insert(projectPagesMetadata).values({ projectId }).onConflictDoNothing();
    const [current] = await tx
      .select({ id: pagesDeployments.id, ciBuildId: pagesDeployments.ciBuildId })
      .from(projectPagesMetadata)
      .leftJoin(pagesDeployments, eq(pagesDeployments.id, projectPagesMetadata.pagesDeploymentId))
      .where(eq(projectPagesMetadata.projectId, projectId))
      .for("update", { of: projectPagesMetadata });
    const [mine] = await tx.select({ ciBuildId: pagesDeployments.ciBuildId }).from(pagesDeployments).where(eq(pagesDeployments.id, deploymentId));
    const newer = current?.id && current.ciBuildId !== null && mine?.ciBuildId !== null && mine?.ciBuildId !== undefined && current.ciBuildId > mine.ciBuildId;
    const keep = newer ? current!.id! : deploymentId;
    if (!newer) await tx.update(projectPagesMetadata).set({ deployed: true, pagesDeploymentId: deploymentId, updatedAt: new Date() }).where(eq(projectPagesMetadata.projectId, projectId));
    const gone = await tx
      .delete(pagesDeployments)
      .where(and(eq(pagesDeployments.projectId, projectId), ne(pagesDeployments.id, keep)))
      .returning({ prefix: pagesDeployments.r2Prefix });
    return { switched: !newer, stale: gone.map((g) => g.prefix) };
  });
}

/** Pages::DeleteService: the site stops being served and its deployments go; returns their R2 prefixes. */
export async function unpublish(db: Database, projectId: number): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx
      .insert(projectPagesMetadata)
      .values({ projectId, deployed: false, pagesDeploymentId: null })
      .onConflictDoUpdate({ target: projectPagesMetadata.projectId, set: { deployed: false, pagesDeploymentId: null, updatedAt: new Date() } });
    const gone = await tx.delete(pagesDeployments).where(eq(pagesDeployments.projectId, projectId)).returning({ prefix: pagesDeployments.r2Prefix });
    return gone.map((g) => g.prefix);
  });
}

/** The deployment the project's site serves, if any. */
export async function currentDeployment(db: Executor, projectId: number): Promise<PagesDeployment | null> {
  const rows = await db
    .select({ deployment: pagesDeployments })
    .from(projectPagesMetadata)
    .innerJoin(pagesDeployments, eq(pagesDeployments.id, projectPagesMetadata.pagesDeploymentId))
    .where(and(eq(projectPagesMetadata.projectId, projectId), eq(projectPagesMetadata.deployed, true)))
    .limit(1);
  return rows[0]?.deployment ?? null;
}

// Custom domains (Pages::Domains::*Service).

export async function listProjectDomains(db: Executor, projectId: number, page: Page): Promise<{ rows: PagesDomain[]; total: number }> {
  const rows = await db.select().from(pagesDomains).where(eq(pagesDomains.projectId, projectId)).orderBy(asc(pagesDomains.domain)).limit(page.limit).offset(page.offset);
  const [{ total }] = await db.select({ total: count() }).from(pagesDomains).where(eq(pagesDomains.projectId, projectId));
  return { rows, total };
}

export async function listAllDomains(db: Executor, page: Page): Promise<{ rows: PagesDomain[]; total: number }> {
  const rows = await db.select().from(pagesDomains).orderBy(asc(pagesDomains.id)).limit(page.limit).offset(page.offset);
  const [{ total }] = await db.select({ total: count() }).from(pagesDomains);
  return { rows, total };
}

/** `PagesDomain.find_by_domain_case_insensitive` */
export async function findDomainAnywhere(db: Executor, domain: string): Promise<PagesDomain | null> {
  const rows = await db.select().from(pagesDomains).where(sql`lower(${pagesDomains.domain}) = lower(${domain})`).limit(1);
  return rows[0] ?? null;
}

/** `user_project.pages_domains.find_by(domain:)` */
export async function findDomain(db: Executor, projectId: number, domain: string): Promise<PagesDomain | null> {
  const rows = await db.select().from(pagesDomains).where(and(eq(pagesDomains.projectId, projectId), eq(pagesDomains.domain, domain))).limit(1);
  return rows[0] ?? null;
}

export type DomainValues = Pick<PagesDomain, "certificate" | "key" | "certificateSubject" | "certificateValidNotBefore" | "certificateValidNotAfter" | "autoSslEnabled">;

/** Null when the domain is taken (the unique index on lower(domain)). */
export async function insertDomain(db: Executor, projectId: number, domain: string, verificationCode: string, values: DomainValues): Promise<PagesDomain | null> {
  const rows = await db.insert(pagesDomains).values({ projectId, domain, verificationCode, ...values }).onConflictDoNothing().returning();
  return rows[0] ?? null;
}

export async function updateDomain(db: Executor, id: number, values: Partial<DomainValues>): Promise<PagesDomain | null> {
  const rows = await db.update(pagesDomains).set({ ...values, updatedAt: new Date() }).where(eq(pagesDomains.id, id)).returning();
  return rows[0] ?? null;
}

export async function deleteDomain(db: Executor, id: number): Promise<void> {
  await db.delete(pagesDomains).where(eq(pagesDomains.id, id));
}
