// Releases' SQL: a page of releases with author, links, evidences and milestones (with issue counts)
// aggregated in the same statement, and the writes of the releases services.
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { milestoneReleases, milestones, namespaces, projects, releaseEvidences, releaseLinks, releases, type Milestone } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { COUNT_LIMIT, type Page } from "../kernel/pagination";
import { projectIsVisible } from "../kernel/visibility";
import type { ReleaseRow } from "../entities/releases";
import { milestoneJson, userJson } from "../shared/issuables/issue_preload";

type Json<T> = T | string;
type Raw = Omit<ReleaseRow, "author" | "links" | "evidences" | "milestones" | "projectId"> & {
  projectId: number | string;
  author: Json<ReleaseRow["author"]>;
  links: Json<ReleaseRow["links"]>;
  evidences: Json<ReleaseRow["evidences"]>;
  milestones: Json<ReleaseRow["milestones"]>;
};
const parse = <T>(v: Json<T>): T => (typeof v === "string" ? (JSON.parse(v) as T) : v);
const toRow = (r: Raw): ReleaseRow => ({
  ...r,
  id: Number(r.id),
  projectId: Number(r.projectId),
  author: parse(r.author),
  links: parse(r.links),
  evidences: parse(r.evidences),
  milestones: parse(r.milestones),
});

/** The columns of a release row, for `FROM releases r JOIN projects ON projects.id = r.project_id`. */
const COLUMNS = sql`r.id, r.project_id AS "projectId", r.tag, r.name, r.description, r.sha, r.released_at AS "releasedAt",
  r.created_at AS "createdAt", projects.full_path AS "projectPath",
  (SELECT ${userJson("u")} FROM users u WHERE u.id = r.author_id) AS author,
  coalesce((SELECT json_agg(json_build_object('id', l.id, 'name', l.name, 'url', l.url, 'filepath', l.filepath, 'linkType', l.link_type) ORDER BY l.id)
     FROM release_links l WHERE l.release_id = r.id), '[]'::json) AS links,
  coalesce((SELECT json_agg(json_build_object('id', e.id, 'summarySha', e.summary_sha, 'createdAt', e.created_at) ORDER BY e.id)
     FROM release_evidences e WHERE e.release_id = r.id), '[]'::json) AS evidences,
  coalesce((SELECT json_agg((${milestoneJson("m")})::jsonb || jsonb_build_object('issueStats', json_build_object(
       'total', (SELECT count(*) FROM issues i WHERE i.milestone_id = m.id),
       'closed', (SELECT count(*) FROM issues i WHERE i.milestone_id = m.id AND i.state = 'closed')))
       ORDER BY m.due_date NULLS LAST, m.title)
     FROM milestone_releases mr JOIN milestones m ON m.id = mr.milestone_id WHERE mr.release_id = r.id), '[]'::json) AS milestones`;

export type ReleaseOrder = { orderBy: "released_at" | "created_at"; sort: "asc" | "desc" };

function orderOf(order: ReleaseOrder): SQL {
  const dir = sql.raw(order.sort === "asc" ? "ASC" : "DESC");
  const column = sql.raw(order.orderBy === "created_at" ? "r.created_at" : "r.released_at");
  return sql`${column} ${dir}, r.id ${dir}`;
}

async function pageOfReleases(db: Executor, where: SQL, order: ReleaseOrder, page: Page, extra: SQL = sql``): Promise<{ rows: (ReleaseRow & { downloadCode?: boolean })[]; total: number }> {
  const result = await db.execute<Raw & { downloadCode?: boolean }>(sql`
    SELECT ${COLUMNS} ${extra} FROM releases r JOIN projects ON projects.id = r.project_id
     WHERE ${where} ORDER BY ${orderOf(order)} LIMIT ${page.limit} OFFSET ${page.offset}`);
  // A capped count, as kernel/pagination.ts `cappedCount` (past 10,000 the totals are omitted).
  const cap = Math.max(COUNT_LIMIT + 1, page.offset + page.limit + 1);
  const counted = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM releases r JOIN projects ON projects.id = r.project_id WHERE ${where} LIMIT ${cap}) c`);
  return { rows: result.rows.map(toRow), total: Number(counted.rows[0].n) };
}

/** `ReleasesFinder`: a project's releases, with `updated_before`/`updated_after`. Count and page in one statement. */
export function listReleases(db: Executor, projectId: number, order: ReleaseOrder, filters: { updatedBefore?: Date; updatedAfter?: Date }, page: Page) {
  const where = sql.join(
    [
      sql`r.project_id = ${projectId}`,
      ...(filters.updatedBefore ? [sql`r.updated_at < ${filters.updatedBefore.toISOString()}`] : []),
      ...(filters.updatedAfter ? [sql`r.updated_at > ${filters.updatedAfter.toISOString()}`] : []),
    ],
    sql` AND `,
  );
  return pageOfReleases(db, where, order, page);
}

/**
 * `Releases::GroupReleasesFinder`: releases of the projects of the group and its subgroups that the
 * actor reads, newest `released_at` first (or oldest with `asc`).
 */
export function listGroupReleases(db: Executor, actor: Actor | null, groupId: number, sort: "asc" | "desc", page: Page) {
  const where = sql`projects.namespace_id IN (SELECT g.id FROM namespaces g WHERE ${groupId} = ANY(g.traversal_ids))
    AND ${projectIsVisible(actor, projects)}`;
  // `can_download_code?` per release: the project is readable by visibility, or the actor is a reporter.
  return pageOfReleases(db, where, { orderBy: "released_at", sort }, page, sql`, (${projectIsVisible(actor, projects, 20)}) AS "downloadCode"`);
}

/** One release by its tag name. */
export async function findRelease(db: Executor, projectId: number, tag: string): Promise<ReleaseRow | null> {
  const result = await db.execute<Raw>(sql`SELECT ${COLUMNS} FROM releases r JOIN projects ON projects.id = r.project_id WHERE r.project_id = ${projectId} AND r.tag = ${tag}`);
  return result.rows[0] ? toRow(result.rows[0]) : null;
}

/** `find_latest_release`: the newest by `released_at`. */
export async function latestRelease(db: Executor, projectId: number): Promise<{ tag: string } | null> {
  const [row] = await db.select({ tag: releases.tag }).from(releases).where(eq(releases.projectId, projectId)).orderBy(sql`${releases.releasedAt} DESC, ${releases.id} DESC`).limit(1);
  return row ?? null;
}

/**
 * Milestones by title that a release of the project may name: the project's and (EE) its ancestor
 * groups'. One statement.
 */
export type ReleaseMilestone = Pick<Milestone, "id" | "iid" | "title" | "description" | "state" | "dueDate" | "createdAt">;
export async function milestonesByTitle(db: Executor, project: { id: number; namespaceId: number }, titles: string[]): Promise<ReleaseMilestone[]> {
  if (titles.length === 0) return [];
  return db
    .select({ id: milestones.id, iid: milestones.iid, title: milestones.title, description: milestones.description, state: milestones.state, dueDate: milestones.dueDate, createdAt: milestones.createdAt })
    .from(milestones)
    .where(
      and(
        inArray(milestones.title, titles),
        sql`(${milestones.projectId} = ${project.id} OR ${milestones.groupId} IN (SELECT unnest(ns.traversal_ids) FROM ${namespaces} ns WHERE ns.id = ${project.namespaceId}))`,
      ),
    );
}

export type NewLink = { name: string; url: string; filepath: string | null; linkType: string };

/** Inserts a release with its links, milestones and evidence, in the caller's transaction. */
export async function insertRelease(
  tx: Executor,
  input: { projectId: number; tag: string; name: string | null; description: string | null; authorId: number; sha: string; releasedAt: Date; links: NewLink[]; milestoneIds: number[] },
): Promise<{ id: number; createdAt: Date } | null> {
  const [created] = await tx
    .insert(releases)
    .values({ projectId: input.projectId, tag: input.tag, name: input.name, description: input.description, authorId: input.authorId, sha: input.sha, releasedAt: input.releasedAt })
    .onConflictDoNothing()
    .returning({ id: releases.id, createdAt: releases.createdAt });
  if (!created) return null;
  if (input.links.length) await tx.insert(releaseLinks).values(input.links.map((l) => ({ releaseId: created.id, ...l })));
  if (input.milestoneIds.length) await tx.insert(milestoneReleases).values(input.milestoneIds.map((milestoneId) => ({ releaseId: created.id, milestoneId })));
  return created;
}

export async function insertEvidence(tx: Executor, releaseId: number, summary: unknown, summarySha: string): Promise<void> {
  await tx.insert(releaseEvidences).values({ releaseId, summary, summarySha });
}

/** Updates the fields sent and, when `milestoneIds` is given, replaces the milestones. */
export async function updateRelease(tx: Executor, id: number, changes: { name?: string | null; description?: string | null; releasedAt?: Date }, milestoneIds?: number[]): Promise<void> {
  await tx.update(releases).set({ ...changes, updatedAt: sql`now()` }).where(eq(releases.id, id));
  if (milestoneIds) {
    await tx.delete(milestoneReleases).where(eq(milestoneReleases.releaseId, id));
    if (milestoneIds.length) await tx.insert(milestoneReleases).values(milestoneIds.map((milestoneId) => ({ releaseId: id, milestoneId })));
  }
}

export async function deleteRelease(db: Executor, projectId: number, id: number): Promise<boolean> {
  const rows = await db.delete(releases).where(and(eq(releases.projectId, projectId), eq(releases.id, id))).returning({ id: releases.id });
  return rows.length > 0;
}

// Links (`/releases/:tag_name/assets/links`).

export async function insertLink(db: Executor, releaseId: number, link: NewLink): Promise<number | null> {
  const [row] = await db.insert(releaseLinks).values({ releaseId, ...link }).onConflictDoNothing().returning({ id: releaseLinks.id });
  return row?.id ?? null;
}

/** Updates a link of the release; false when another link already has the name or URL (unique indexes). */
export async function updateLink(db: Executor, releaseId: number, id: number, changes: Partial<NewLink>): Promise<boolean> {
  const result = await db.execute(sql`
    UPDATE release_links SET
      name = coalesce(${changes.name ?? null}, name), url = coalesce(${changes.url ?? null}, url),
      filepath = CASE WHEN ${changes.filepath !== undefined} THEN ${changes.filepath ?? null} ELSE filepath END,
      link_type = coalesce(${changes.linkType ?? null}, link_type), updated_at = now()
     WHERE id = ${id} AND release_id = ${releaseId}
       AND NOT EXISTS (SELECT 1 FROM release_links o WHERE o.release_id = ${releaseId} AND o.id <> ${id}
         AND (o.name = ${changes.name ?? null} OR o.url = ${changes.url ?? null}))`);
  return (result.rowCount ?? 0) > 0;
}

export async function deleteLink(db: Executor, releaseId: number, id: number): Promise<boolean> {
  const rows = await db.delete(releaseLinks).where(and(eq(releaseLinks.releaseId, releaseId), eq(releaseLinks.id, id))).returning({ id: releaseLinks.id });
  return rows.length > 0;
}
