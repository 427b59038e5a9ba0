import { and, asc, desc, eq, inArray, ne, sql, type SQL } from "drizzle-orm";
import {
  ciPipelines,
  namespaces,
  npmMetadata,
  packageBuildInfos,
  packageFiles,
  packages,
  packageTags,
  projects,
  pypiMetadata,
  users,
  type Package,
  type PackageFile,
  type PackageTag,
} from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { escapeLike } from "../kernel/fuzzy_search";
import { cappedCount, type Page } from "../kernel/pagination";
import { authorizedProjectIds } from "../kernel/visibility";
import type { PackagePipeline, PackageRow } from "../entities/packages";
import type { NpmVersion } from "../entities/packages_npm";
import type { PypiFileRow, PypiNameRow } from "../entities/packages_pypi";
import type { ListParams } from "./params";

const PACKAGE_ID = sql.raw(`"packages_packages"."id"`);
const tagsOf = sql<PackageTag[]>`COALESCE((SELECT json_agg(json_build_object('id', t.id, 'packageId', t.package_id, 'projectId', t.project_id,
  'name', t.name, 'createdAt', t.created_at, 'updatedAt', t.updated_at) ORDER BY t.id) FROM packages_tags t WHERE t.package_id = ${PACKAGE_ID}), '[]'::json)`;

const fixTags = (tags: PackageTag[]) => tags.map((t) => ({ ...t, createdAt: new Date(t.createdAt), updatedAt: new Date(t.updatedAt) }));

/** Packages::PackagesFinder / GroupPackagesFinder filters: displayable statuses unless `status`, no versionless. */
function conditionsOf(f: ListParams): SQL[] {
  return [
    f.status ? eq(packages.status, f.status) : sql`${packages.status} IN ('default', 'error')`,
    ...(f.package_type ? [eq(packages.packageType, f.package_type)] : []),
    ...(f.package_name ? [sql`${packages.name} ILIKE ${`%${escapeLike(f.package_name)}%`}`] : []),
    ...(f.include_versionless ? [] : [sql`${packages.version} IS NOT NULL`]),
  ];
}

function orderOf(f: ListParams): SQL[] {
  const dir = f.sort === "desc" ? desc : asc;
  const column = { created_at: packages.createdAt, name: packages.name, version: packages.version, type: packages.packageType, project_path: projects.fullPath }[f.order_by];
  return [dir(column), dir(packages.id)];
}

async function list(db: Executor, where: SQL, f: ListParams, page: Page): Promise<{ rows: PackageRow[]; total: number }> {
  const rows = await db
    .select({ pkg: packages, projectFullPath: projects.fullPath, tags: tagsOf })
    .from(packages)
    .innerJoin(projects, eq(projects.id, packages.projectId))
    .where(where)
    .orderBy(...orderOf(f))
    .limit(page.limit)
    .offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(packages).innerJoin(projects, eq(projects.id, packages.projectId)).where(where), page);
  const pipelines = await pipelinesOf(db, rows.map((r) => r.pkg.id));
  return { rows: rows.map((r) => ({ ...r.pkg, projectFullPath: r.projectFullPath, tags: fixTags(r.tags), pipelines: pipelines.get(r.pkg.id) ?? [] })), total };
}

export function listProjectPackages(db: Executor, projectId: number, f: ListParams, page: Page) {
  return list(db, and(eq(packages.projectId, projectId), ...conditionsOf(f))!, f, page);
}

/**
 * GroupPackagesFinder: packages of the group's projects (and its subgroups' unless `exclude_subgroups`)
 * whose package registry the caller may read: public projects, internal ones for signed-in
 * non-external users, and projects where the caller is Reporter or higher.
 */
export function listGroupPackages(db: Executor, groupId: number, excludeSubgroups: boolean, actor: Actor | null, f: ListParams, page: Page) {
  const inGroup = excludeSubgroups
    ? eq(projects.namespaceId, groupId)
    : sql`${projects.namespaceId} IN (SELECT ${namespaces.id} FROM ${namespaces} WHERE ${groupId}::int = ANY(${namespaces.traversalIds}))`;
  const readable = actor?.isAdmin
    ? sql`true`
    : actor
      ? sql`(${projects.visibilityLevel} >= ${actor.user.external ? 20 : 10} OR ${projects.id} IN ${authorizedProjectIds(actor.user.id, 20)})`
      : sql`${projects.visibilityLevel} = 20`;
  return list(db, and(inGroup, readable, ...conditionsOf(f))!, f, page);
}

/** One package of the project with its tags and its other versions (same name and type). */
export async function findPackage(db: Executor, projectId: number, id: number, withVersions = true): Promise<PackageRow | null> {
  const rows = await db
    .select({ pkg: packages, projectFullPath: projects.fullPath, tags: tagsOf })
    .from(packages)
    .innerJoin(projects, eq(projects.id, packages.projectId))
    .where(and(eq(packages.projectId, projectId), eq(packages.id, id), ne(packages.status, "pending_destruction")))
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  const found: PackageRow = { ...row.pkg, projectFullPath: row.projectFullPath, tags: fixTags(row.tags) };
  if (!withVersions) return found;
  const versions = await db
    .select({ pkg: packages, tags: tagsOf })
    .from(packages)
    .where(and(eq(packages.projectId, projectId), eq(packages.name, found.name), eq(packages.packageType, found.packageType), ne(packages.id, id), sql`${packages.version} IS NOT NULL`))
    .orderBy(desc(packages.createdAt), desc(packages.id))
    .limit(100);
  const pipelines = await pipelinesOf(db, [found.id]);
  return { ...found, versions: versions.map((v) => ({ ...v.pkg, tags: fixTags(v.tags) })), pipelines: pipelines.get(found.id) ?? [] };
}

export async function listPackageFiles(db: Executor, packageId: number, page: Page): Promise<{ rows: PackageFile[]; total: number }> {
  const where = eq(packageFiles.packageId, packageId);
  const rows = await db.select().from(packageFiles).where(where).orderBy(asc(packageFiles.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(packageFiles).where(where), page);
  return { rows, total };
}

/** Deletes the package (files, tags and metadata cascade) and returns the R2 keys of its files. */
export async function deletePackage(db: Executor, packageId: number): Promise<string[]> {
  const result = await db.execute<{ file_store: string }>(sql`
    WITH files AS (SELECT file_store FROM packages_package_files WHERE package_id = ${packageId}::int),
    gone AS (DELETE FROM packages_packages WHERE id = ${packageId}::int)
    SELECT file_store FROM files`);
  return result.rows.map((r) => r.file_store);
}

/** The file of a package, or null (`package.package_files.find_by_id`). */
export async function findPackageFile(db: Executor, packageId: number, fileId: number): Promise<PackageFile | null> {
  const [row] = await db.select().from(packageFiles).where(and(eq(packageFiles.packageId, packageId), eq(packageFiles.id, fileId)));
  return row ?? null;
}

/** Deletes one package file row; returns its R2 key (null when another request deleted it first). */
export async function deletePackageFile(db: Executor, fileId: number): Promise<string | null> {
  const [row] = await db.delete(packageFiles).where(eq(packageFiles.id, fileId)).returning({ fileStore: packageFiles.fileStore });
  return row?.fileStore ?? null;
}

// ---------------------------------------------------------------------------------------------
// Build infos (the pipelines that published a package)

/** A CTE (after `pkg`) recording the publishing job's pipeline once per package; nothing without a job. */
function buildInfo(pipelineId: number | null): SQL {
  return sql`build AS (INSERT INTO packages_build_infos (package_id, pipeline_id)
      SELECT pkg.id, ${pipelineId}::int FROM pkg WHERE ${pipelineId}::int IS NOT NULL
      ON CONFLICT (package_id, pipeline_id) DO NOTHING)`;
}

/**
 * The pipelines of packages by package id, newest build info first (`package.pipelines`,
 * `last_build_info`): one statement for a page of packages.
 */
export async function pipelinesOf(db: Executor, packageIds: number[]): Promise<Map<number, PackagePipeline[]>> {
  const out = new Map<number, PackagePipeline[]>();
  if (!packageIds.length) return out;
  const rows = await db
    .select({ packageId: packageBuildInfos.packageId, pipeline: ciPipelines, user: users, projectFullPath: projects.fullPath })
    .from(packageBuildInfos)
    .innerJoin(ciPipelines, eq(ciPipelines.id, packageBuildInfos.pipelineId))
    .innerJoin(projects, eq(projects.id, ciPipelines.projectId))
    .leftJoin(users, eq(users.id, ciPipelines.userId))
    .where(inArray(packageBuildInfos.packageId, packageIds))
    .orderBy(desc(packageBuildInfos.id));
  for (const r of rows) {
    const list = out.get(r.packageId) ?? [];
    list.push({ ...r.pipeline, user: r.user, projectFullPath: r.projectFullPath });
    out.set(r.packageId, list);
  }
  return out;
}

/** `GET …/packages/:package_id/pipelines`: the package's pipelines, newest first, one page. */
export async function listPackagePipelines(db: Executor, packageId: number, page: Page): Promise<{ rows: PackagePipeline[]; total: number }> {
  const where = eq(packageBuildInfos.packageId, packageId);
  const rows = await db
    .select({ pipeline: ciPipelines, user: users, projectFullPath: projects.fullPath })
    .from(packageBuildInfos)
    .innerJoin(ciPipelines, eq(ciPipelines.id, packageBuildInfos.pipelineId))
    .innerJoin(projects, eq(projects.id, ciPipelines.projectId))
    .leftJoin(users, eq(users.id, ciPipelines.userId))
    .where(where)
    .orderBy(desc(ciPipelines.id))
    .limit(page.limit)
    .offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(packageBuildInfos).innerJoin(ciPipelines, eq(ciPipelines.id, packageBuildInfos.pipelineId)).where(where), page);
  return { rows: rows.map((r) => ({ ...r.pipeline, user: r.user, projectFullPath: r.projectFullPath })), total };
}

// ---------------------------------------------------------------------------------------------
// Generic packages

export type StoredFile = { fileName: string; size: number; fileMd5: string; fileSha1: string; fileSha256: string; fileStore: string };

/**
 * `Packages::Generic::FindOrCreatePackageService` and `CreatePackageFileService` in one statement:
 * the generic package `name`/`version` of the project (made on first upload, its status set to the
 * upload's), then a new file row (duplicates are kept, as GitLab allows by default), and the uploading
 * job's pipeline among the package's build infos (`build_infos.safe_find_or_create_by!`).
 */
export async function addGenericFile(
  db: Executor,
  projectId: number,
  creatorId: number | null,
  v: { name: string; version: string; status: string; pipelineId: number | null },
  file: StoredFile,
): Promise<PackageFile> {
  const result = await db.execute<Record<string, unknown>>(sql`
    WITH existing AS (SELECT id FROM packages_packages WHERE project_id = ${projectId}::int AND package_type = 'generic'
        AND name = ${v.name}::text AND version = ${v.version}::text AND status <> 'pending_destruction' ORDER BY id LIMIT 1),
    created AS (INSERT INTO packages_packages (project_id, creator_id, name, version, package_type, status)
      SELECT ${projectId}::int, ${creatorId}::int, ${v.name}::text, ${v.version}::text, 'generic', ${v.status}::text
      WHERE NOT EXISTS (SELECT 1 FROM existing) RETURNING id),
    pkg AS (SELECT id FROM existing UNION ALL SELECT id FROM created),
    touched AS (UPDATE packages_packages SET status = ${v.status}::text, updated_at = now() WHERE id IN (SELECT id FROM existing)),
    ${buildInfo(v.pipelineId)}
    INSERT INTO packages_package_files (package_id, file_name, size, file_md5, file_sha1, file_sha256, file_store)
      SELECT pkg.id, ${file.fileName}::text, ${file.size}::bigint, ${file.fileMd5}::text, ${file.fileSha1}::text, ${file.fileSha256}::text, ${file.fileStore}::text FROM pkg
    RETURNING id, package_id, file_name, size, file_md5, file_sha1, file_sha256, file_store, created_at, updated_at`);
  return fileFromRow(result.rows[0]);
}

function fileFromRow(r: Record<string, unknown>): PackageFile {
  return {
    id: Number(r.id),
    packageId: Number(r.package_id),
    fileName: String(r.file_name),
    size: Number(r.size),
    fileMd5: r.file_md5 as string,
    fileSha1: r.file_sha1 as string,
    fileSha256: r.file_sha256 as string,
    fileStore: String(r.file_store),
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}

/** The newest file of that name in the package `name`/`version` (displayable: not hidden-from-download states). */
export async function findGenericFile(db: Executor, projectId: number, name: string, version: string, fileName: string): Promise<PackageFile | null> {
  const rows = await db
    .select({ file: packageFiles })
    .from(packageFiles)
    .innerJoin(packages, eq(packages.id, packageFiles.packageId))
    .where(
      and(
        eq(packages.projectId, projectId),
        eq(packages.packageType, "generic"),
        eq(packages.name, name),
        eq(packages.version, version),
        sql`${packages.status} IN ('default', 'hidden')`,
        eq(packageFiles.fileName, fileName),
      ),
    )
    .orderBy(desc(packageFiles.id))
    .limit(1);
  return rows[0]?.file ?? null;
}

// ---------------------------------------------------------------------------------------------
// npm

/** Every installable version of an npm package in the project, with its metadata, file and dist-tags. */
export async function npmVersions(db: Executor, projectId: number, name: string): Promise<NpmVersion[]> {
  const rows = await db
    .select({
      pkg: packages,
      packageJson: npmMetadata.packageJson,
      file: sql<Record<string, unknown> | null>`(SELECT row_to_json(f) FROM packages_package_files f WHERE f.package_id = ${PACKAGE_ID} ORDER BY f.id DESC LIMIT 1)`,
      tags: sql<string[]>`ARRAY(SELECT t.name FROM packages_tags t WHERE t.package_id = ${PACKAGE_ID} ORDER BY t.id)`,
    })
    .from(packages)
    .leftJoin(npmMetadata, eq(npmMetadata.packageId, packages.id))
    .where(and(eq(packages.projectId, projectId), eq(packages.packageType, "npm"), eq(packages.name, name), eq(packages.status, "default")))
    .orderBy(asc(packages.id));
  return rows.map((r) => ({ ...r.pkg, packageJson: r.packageJson ?? {}, file: r.file ? fileFromRow(r.file) : null, tags: r.tags ?? [] }));
}

/**
 * `Packages::Npm::CreatePackageService`: the version, its metadata, its tarball, its dist-tags (moved
 * from other versions of the package) and the publishing job's pipeline (`build_infos`) in one
 * statement. False when the version exists.
 */
export async function createNpmVersion(
  db: Executor,
  projectId: number,
  creatorId: number | null,
  v: { name: string; version: string; packageJson: Record<string, unknown>; tags: string[]; pipelineId: number | null },
  file: StoredFile,
): Promise<boolean> {
  const result = await db.execute<{ id: number }>(sql`
    WITH pkg AS (INSERT INTO packages_packages (project_id, creator_id, name, version, package_type, status)
      VALUES (${projectId}::int, ${creatorId}::int, ${v.name}::text, ${v.version}::text, 'npm', 'default')
      ON CONFLICT (project_id, name, version) WHERE package_type = 'npm' AND status <> 'pending_destruction' DO NOTHING RETURNING id),
    meta AS (INSERT INTO packages_npm_metadata (package_id, package_json) SELECT id, ${JSON.stringify(v.packageJson)}::jsonb FROM pkg),
    file AS (INSERT INTO packages_package_files (package_id, file_name, size, file_md5, file_sha1, file_sha256, file_store)
      SELECT id, ${file.fileName}::text, ${file.size}::bigint, ${file.fileMd5}::text, ${file.fileSha1}::text, ${file.fileSha256}::text, ${file.fileStore}::text FROM pkg),
    moved AS (DELETE FROM packages_tags t USING packages_packages p
      WHERE t.package_id = p.id AND p.project_id = ${projectId}::int AND p.package_type = 'npm' AND p.name = ${v.name}::text
        AND t.name = ANY(${`{${v.tags.map((t) => JSON.stringify(t)).join(",")}}`}::text[]) AND EXISTS (SELECT 1 FROM pkg)),
    tags AS (INSERT INTO packages_tags (package_id, project_id, name)
      SELECT pkg.id, ${projectId}::int, tag FROM pkg, unnest(${`{${v.tags.map((t) => JSON.stringify(t)).join(",")}}`}::text[]) AS tag),
    ${buildInfo(v.pipelineId)}
    SELECT id FROM pkg`);
  return result.rows.length > 0;
}

/** The npm tarball `fileName` of package `name` in the project. */
export async function findNpmFile(db: Executor, projectId: number, name: string, fileName: string): Promise<PackageFile | null> {
  const rows = await db
    .select({ file: packageFiles })
    .from(packageFiles)
    .innerJoin(packages, eq(packages.id, packageFiles.packageId))
    .where(and(eq(packages.projectId, projectId), eq(packages.packageType, "npm"), eq(packages.name, name), eq(packageFiles.fileName, fileName), eq(packages.status, "default")))
    .orderBy(desc(packageFiles.id))
    .limit(1);
  return rows[0]?.file ?? null;
}

// ---------------------------------------------------------------------------------------------
// PyPI

/** PEP 503 normalization (`Packages::Package#normalized_pypi_name`): runs of `-`, `_`, `.` become `-`, lowercased. */
const NORMALIZED_NAME = sql`lower(regexp_replace(${packages.name}, '[-_.]+', '-', 'g'))`;

/**
 * The projects of a group (and its subgroups) whose packages the caller reads (GroupPackagesFinder's
 * rule). `everyProject`: the caller is a deploy token of the group or an ancestor, which reaches them all.
 */
function readableInGroup(groupId: number, actor: Actor | null, everyProject = false): SQL {
  const inGroup = sql`${projects.namespaceId} IN (SELECT ${namespaces.id} FROM ${namespaces} WHERE ${groupId}::int = ANY(${namespaces.traversalIds}))`;
  const readable = actor?.isAdmin || everyProject
    ? sql`true`
    : actor
      ? sql`(${projects.visibilityLevel} >= ${actor.user.external ? 20 : 10} OR ${projects.id} IN ${authorizedProjectIds(actor.user.id, 20)})`
      : sql`${projects.visibilityLevel} = 20`;
  return and(inGroup, readable)!;
}

export type PypiOwner = { projectId: number } | { groupId: number; actor: Actor | null; everyProject?: boolean };

function ownerCondition(owner: PypiOwner): SQL {
  return "projectId" in owner ? eq(packages.projectId, owner.projectId) : readableInGroup(owner.groupId, owner.actor, owner.everyProject);
}

/** Packages::Pypi::PackagesFinder with a name: every file of the installable versions whose normalized name matches. */
export async function pypiFiles(db: Executor, owner: PypiOwner, normalizedName: string): Promise<{ name: string; files: PypiFileRow[] }> {
  const rows = await db
    .select({ name: packages.name, fileName: packageFiles.fileName, fileSha256: packageFiles.fileSha256, requiredPython: pypiMetadata.requiredPython })
    .from(packages)
    .innerJoin(projects, eq(projects.id, packages.projectId))
    .innerJoin(packageFiles, eq(packageFiles.packageId, packages.id))
    .leftJoin(pypiMetadata, eq(pypiMetadata.packageId, packages.id))
    .where(and(ownerCondition(owner), eq(packages.packageType, "pypi"), eq(packages.status, "default"), sql`${NORMALIZED_NAME} = ${normalizedName}`))
    .orderBy(asc(packages.id), asc(packageFiles.id));
  return { name: rows[0]?.name ?? "", files: rows.map((r) => ({ fileName: r.fileName, fileSha256: r.fileSha256, requiredPython: r.requiredPython ?? "" })) };
}

/** The simple index: each package name once (the newest version gives its `Requires-Python`), by name. */
export async function pypiNames(db: Executor, owner: PypiOwner): Promise<PypiNameRow[]> {
  const rows = await db
    .selectDistinctOn([NORMALIZED_NAME], { name: packages.name, normalizedName: sql<string>`${NORMALIZED_NAME}`, requiredPython: pypiMetadata.requiredPython })
    .from(packages)
    .innerJoin(projects, eq(projects.id, packages.projectId))
    .leftJoin(pypiMetadata, eq(pypiMetadata.packageId, packages.id))
    .where(and(ownerCondition(owner), eq(packages.packageType, "pypi"), eq(packages.status, "default")))
    .orderBy(NORMALIZED_NAME, desc(packages.id));
  return rows.map((r) => ({ name: r.name, normalizedName: r.normalizedName, requiredPython: r.requiredPython ?? "" }));
}

/** Packages::Pypi::PackageFinder: the file named `fileName` with that sha256 among the owner's PyPI packages. */
export async function findPypiFile(db: Executor, owner: PypiOwner, sha256: string, fileName: string): Promise<PackageFile | null> {
  const rows = await db
    .select({ file: packageFiles })
    .from(packageFiles)
    .innerJoin(packages, eq(packages.id, packageFiles.packageId))
    .innerJoin(projects, eq(projects.id, packages.projectId))
    .where(and(ownerCondition(owner), eq(packages.packageType, "pypi"), eq(packages.status, "default"), eq(packageFiles.fileName, fileName), eq(packageFiles.fileSha256, sha256.toLowerCase())))
    .orderBy(desc(packageFiles.id))
    .limit(1);
  return rows[0]?.file ?? null;
}

/**
 * Packages::Pypi::CreatePackageService in one statement: the version (found or created), its
 * `Requires-Python` (upserted), the file unless the version has one of that name (GitLab's
 * `file_name` uniqueness for PyPI packages) and the uploading job's pipeline. "taken" when the file
 * name exists; "race" when a concurrent upload created the version between our read and write.
 */
export async function addPypiFile(
  db: Executor,
  projectId: number,
  /** Null for a deploy token, which is no user (GitLab keeps no creator then either). */
  creatorId: number | null,
  v: { name: string; version: string; requiredPython: string; pipelineId: number | null },
  file: StoredFile,
): Promise<"created" | "taken" | "race"> {
  const result = await db.execute<{ outcome: string }>(sql`
    WITH existing AS (SELECT id FROM packages_packages WHERE project_id = ${projectId}::int AND package_type = 'pypi'
        AND name = ${v.name}::text AND version = ${v.version}::text AND status <> 'pending_destruction'),
    created AS (INSERT INTO packages_packages (project_id, creator_id, name, version, package_type, status)
      SELECT ${projectId}::int, ${creatorId}::int, ${v.name}::text, ${v.version}::text, 'pypi', 'default'
      WHERE NOT EXISTS (SELECT 1 FROM existing)
      ON CONFLICT (project_id, name, version) WHERE package_type = 'pypi' AND status <> 'pending_destruction' DO NOTHING RETURNING id),
    pkg AS (SELECT id FROM existing UNION ALL SELECT id FROM created),
    taken AS (SELECT 1 FROM packages_package_files f, pkg WHERE f.package_id = pkg.id AND f.file_name = ${file.fileName}::text),
    meta AS (INSERT INTO packages_pypi_metadata (package_id, required_python) SELECT id, ${v.requiredPython}::text FROM pkg WHERE NOT EXISTS (SELECT 1 FROM taken)
      ON CONFLICT (package_id) DO UPDATE SET required_python = EXCLUDED.required_python),
    ${buildInfo(v.pipelineId)},
    inserted AS (INSERT INTO packages_package_files (package_id, file_name, size, file_md5, file_sha1, file_sha256, file_store)
      SELECT pkg.id, ${file.fileName}::text, ${file.size}::bigint, ${file.fileMd5}::text, ${file.fileSha1}::text, ${file.fileSha256}::text, ${file.fileStore}::text
      FROM pkg WHERE NOT EXISTS (SELECT 1 FROM taken) RETURNING id)
    SELECT CASE WHEN EXISTS (SELECT 1 FROM inserted) THEN 'created' WHEN EXISTS (SELECT 1 FROM taken) THEN 'taken' ELSE 'race' END AS outcome`);
  return result.rows[0].outcome as "created" | "taken" | "race";
}
