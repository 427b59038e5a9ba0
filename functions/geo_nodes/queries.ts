import { and, asc, eq, ne, sql } from "drizzle-orm";
import { geoNodes, namespaces, type GeoNode } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Page } from "../kernel/pagination";
import { isRowId } from "../kernel/params";
import type { InstanceFigures } from "../entities/geo_nodes";

/** The only Drizzle code of the geo nodes domain. */

export type { GeoNode };
export type GeoNodeValues = Omit<typeof geoNodes.$inferInsert, "id" | "createdAt" | "updatedAt">;

/** `GeoNode.all` under `paginate`: ordered by id. */
export async function listGeoNodes(db: Executor, page: Page): Promise<{ rows: GeoNode[]; total: number }> {
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(geoNodes).orderBy(asc(geoNodes.id)).limit(page.limit).offset(page.offset),
    db.select({ total: sql<number>`count(*)::int` }).from(geoNodes),
  ]);
  return { rows, total: Number(total) };
}

export async function findGeoNode(db: Executor, id: number): Promise<GeoNode | null> {
  if (!isRowId(id)) return null;
  const [row] = await db.select().from(geoNodes).where(eq(geoNodes.id, id));
  return row ?? null;
}

/** `GeoNode.find_by(name:)` for the instance's own node name, with or without its ending slash (GeoNode.current_node). */
export async function findGeoNodeByName(db: Executor, names: string[]): Promise<GeoNode | null> {
  const [row] = await db.select().from(geoNodes).where(sql`${geoNodes.name} = ANY(${sql.param(names)}::text[])`).orderBy(asc(geoNodes.id)).limit(1);
  return row ?? null;
}

/** What GeoNode's uniqueness validations need, in one statement: a same-name node, a primary, unknown namespaces. */
export async function conflicts(db: Executor, name: string, exceptId: number | null, namespaceIds: number[]): Promise<{ nameTaken: boolean; primaryTaken: boolean; missingNamespaces: boolean }> {
  const other = exceptId === null ? sql`true` : ne(geoNodes.id, exceptId);
  const [row] = await db
    .select({
      nameTaken: sql<boolean>`EXISTS (SELECT 1 FROM ${geoNodes} WHERE lower(${geoNodes.name}) = lower(${name}) AND ${other})`,
      primaryTaken: sql<boolean>`EXISTS (SELECT 1 FROM ${geoNodes} WHERE ${geoNodes.primary} AND ${other})`,
      found: sql<number>`(SELECT count(*) FROM ${namespaces} WHERE ${namespaces.id} = ANY(${sql.param(namespaceIds)}::int[]))::int`,
    })
    .from(sql`(SELECT 1) AS one`);
  return { nameTaken: row.nameTaken, primaryTaken: row.primaryTaken, missingNamespaces: Number(row.found) < new Set(namespaceIds).size };
}

export async function insertGeoNode(db: Executor, values: GeoNodeValues): Promise<GeoNode> {
  const [row] = await db.insert(geoNodes).values(values).returning();
  return row;
}

export async function updateGeoNode(db: Executor, id: number, values: Partial<GeoNodeValues>): Promise<GeoNode | null> {
  const [row] = await db.update(geoNodes).set({ ...values, updatedAt: new Date() }).where(eq(geoNodes.id, id)).returning();
  return row ?? null;
}

export async function deleteGeoNode(db: Executor, id: number): Promise<void> {
  await db.delete(geoNodes).where(eq(geoNodes.id, id));
}

/** The namespaces of selective sync, for the status entity's deprecated `namespaces`. */
export async function namespacesByIds(db: Executor, ids: number[]) {
  if (ids.length === 0) return [];
  return db.select().from(namespaces).where(and(sql`${namespaces.id} = ANY(${sql.param(ids)}::int[])`)).orderBy(asc(namespaces.id));
}


export async function instanceFigures(db: Executor): Promise<InstanceFigures> {
  const result = await db.execute<Record<string, number>>(sql`
    SELECT (SELECT count(*) FROM projects)::int AS repositories,
           (SELECT count(*) FROM projects p WHERE EXISTS (SELECT 1 FROM git_refs r WHERE r.project_id = p.id))::int AS repositories_checksummed,
           ((SELECT count(*) FROM uploads) + (SELECT count(*) FROM issuable_metric_images)
             + (SELECT count(*) FROM alert_management_alert_metric_images))::int AS attachments,
           (SELECT count(*) FROM uploads WHERE checksum <> '')::int AS attachments_checksummed,
           (SELECT count(*) FROM lfs_objects)::int AS lfs_objects,
           (SELECT count(*) FROM ci_job_artifacts)::int AS job_artifacts,
           (SELECT count(*) FROM packages_package_files)::int AS package_files,
           (SELECT count(*) FROM packages_package_files WHERE file_sha256 IS NOT NULL)::int AS package_files_checksummed,
           (SELECT count(*) FROM merge_request_diffs)::int AS merge_request_diffs`);
  const r = result.rows[0];
  return {
    repositories: Number(r.repositories),
    repositoriesChecksummed: Number(r.repositories_checksummed),
    attachments: Number(r.attachments),
    attachmentsChecksummed: Number(r.attachments_checksummed),
    lfsObjects: Number(r.lfs_objects),
    jobArtifacts: Number(r.job_artifacts),
    packageFiles: Number(r.package_files),
    packageFilesChecksummed: Number(r.package_files_checksummed),
    mergeRequestDiffs: Number(r.merge_request_diffs),
  };
}
