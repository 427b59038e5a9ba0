// SQL of the container registry: image repositories, the blobs they link, manifests, tags and upload
// sessions (db/schema/container_registry.ts), and the instance's token key.
import { and, asc, desc, eq, gt, inArray, sql } from "drizzle-orm";
import {
  containerExpirationPolicies,
  containerManifests,
  containerRegistryKeys,
  containerRepositories,
  containerRepositoryBlobs,
  containerTags,
  containerUploads,
  namespaces,
  projects,
  type ContainerManifest,
  type ContainerRepository,
  type ContainerUpload,
  type ContainerExpirationPolicy,
} from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Page } from "../kernel/pagination";
import { cappedCount } from "../kernel/pagination";
import type { Actor } from "../kernel/env";
import { authorizedProjectIds } from "../kernel/visibility";
import type { RegistryRepositoryRow, RegistryTagRow } from "../entities/container_registry";

export type { ContainerExpirationPolicy, ContainerManifest, ContainerRepository, ContainerUpload };

/** The project whose full path is the longest prefix of the image path `candidates` lists (lowercase), if any. */
export async function projectIdForImage(db: Executor, candidates: string[]): Promise<{ id: number; fullPath: string } | null> {
  const rows = await db
    .select({ id: projects.id, fullPath: projects.fullPath })
    .from(projects)
    .where(inArray(sql`lower(${projects.fullPath})`, candidates))
    .orderBy(desc(sql`length(${projects.fullPath})`))
    .limit(1);
  return rows[0] ?? null;
}

// ---------------------------------------------------------------------------------------------
// Token key

export async function registryKey(db: Executor): Promise<{ privateJwk: JsonWebKey; publicJwk: JsonWebKey } | null> {
  const [row] = await db.select().from(containerRegistryKeys).where(eq(containerRegistryKeys.id, 1));
  return row ?? null;
}

/** Keeps the first key pair written (two isolates may make one at once); the caller reads it back. */
export async function insertRegistryKey(db: Executor, privateJwk: JsonWebKey, publicJwk: JsonWebKey): Promise<void> {
  await db.insert(containerRegistryKeys).values({ id: 1, privateJwk, publicJwk }).onConflictDoNothing();
}

// ---------------------------------------------------------------------------------------------
// Repositories and blobs

export async function findRepository(db: Executor, projectId: number, name: string): Promise<ContainerRepository | null> {
  const [row] = await db
    .select()
    .from(containerRepositories)
    .where(and(eq(containerRepositories.projectId, projectId), eq(containerRepositories.name, name)));
  return row ?? null;
}

/** The size of `digest` if the repository links it. */
export async function linkedBlob(db: Executor, projectId: number, name: string, digest: string): Promise<number | null> {
  const rows = await db
    .select({ size: containerRepositoryBlobs.size })
    .from(containerRepositoryBlobs)
    .innerJoin(containerRepositories, eq(containerRepositories.id, containerRepositoryBlobs.repositoryId))
    .where(and(eq(containerRepositories.projectId, projectId), eq(containerRepositories.name, name), eq(containerRepositoryBlobs.digest, digest)));
  return rows[0]?.size ?? null;
}

/** The repository (made when it is new) links the blob; one statement. */
function linkSql(projectId: number, name: string, digest: string, size: number) {
  return sql`repo AS (INSERT INTO container_repositories (project_id, name) VALUES (${projectId}::int, ${name}::text)
      ON CONFLICT (project_id, name) DO UPDATE SET updated_at = now() RETURNING id),
    link AS (INSERT INTO container_repository_blobs (repository_id, digest, size) SELECT id, ${digest}::text, ${size}::bigint FROM repo
      ON CONFLICT (repository_id, digest) DO NOTHING)`;
}

export async function linkBlob(db: Executor, projectId: number, name: string, digest: string, size: number): Promise<void> {
  await db.execute(sql`WITH ${linkSql(projectId, name, digest, size)} SELECT 1`);
}

/** Finishes an upload session: the session row goes and the repository links the blob, in one statement. */
export async function completeUpload(db: Executor, uuid: string, projectId: number, name: string, digest: string, size: number): Promise<void> {
  await db.execute(sql`WITH gone AS (DELETE FROM container_uploads WHERE uuid = ${uuid}::text), ${linkSql(projectId, name, digest, size)} SELECT 1`);
}

export async function unlinkBlob(db: Executor, projectId: number, name: string, digest: string): Promise<boolean> {
  const result = await db.execute(sql`DELETE FROM container_repository_blobs b USING container_repositories r
    WHERE b.repository_id = r.id AND r.project_id = ${projectId}::int AND r.name = ${name}::text AND b.digest = ${digest}::text RETURNING b.digest`);
  return result.rows.length > 0;
}

/**
 * Queues `digest` for review, or moves its review to now: called before an upload or a mount reads
 * whether the blob's object exists, so that a sweep reviewing the digest has finished (this statement
 * waits for its lock) and none starts within the review delay (docs/container_registry.md, "Garbage
 * collection"). A blob uploaded and never referenced is thereby collected too (GitLab's
 * `gc_track_blob_uploads`).
 */
export async function holdBlob(db: Executor, digest: string): Promise<void> {
  await db.execute(sql`INSERT INTO container_registry_blob_reviews (digest) VALUES (${digest}::text)
    ON CONFLICT (digest) DO UPDATE SET queued_at = now()`);
}

// ---------------------------------------------------------------------------------------------
// Upload sessions

export async function createUpload(db: Executor, uuid: string, projectId: number, name: string, parts: number[] = []): Promise<void> {
  await db.insert(containerUploads).values({ uuid, projectId, repositoryName: name, parts });
}

export async function findUpload(db: Executor, uuid: string, projectId: number, name: string): Promise<ContainerUpload | null> {
  const [row] = await db
    .select()
    .from(containerUploads)
    .where(and(eq(containerUploads.uuid, uuid), eq(containerUploads.projectId, projectId), eq(containerUploads.repositoryName, name)));
  return row ?? null;
}

/** Appends part sizes if no other request appended first (`known` parts so far); false otherwise. */
export async function appendParts(db: Executor, uuid: string, known: number, sizes: number[]): Promise<boolean> {
  const result = await db.execute(sql`UPDATE container_uploads SET parts = parts || ${JSON.stringify(sizes)}::jsonb, updated_at = now()
    WHERE uuid = ${uuid}::text AND jsonb_array_length(parts) = ${known}::int RETURNING uuid`);
  return result.rows.length > 0;
}

export async function deleteUpload(db: Executor, uuid: string): Promise<void> {
  await db.delete(containerUploads).where(eq(containerUploads.uuid, uuid));
}

/**
 * Takes up to `limit` sessions started before `cutoff` and deletes their rows in one statement (SKIP
 * LOCKED: two crons never take the same one); the caller removes their parts. Returns what it took.
 */
export async function takeAbandonedUploads(db: Executor, cutoff: Date, limit: number): Promise<{ uuid: string; parts: number[] }[]> {
  const result = await db.execute<{ uuid: string; parts: number[] }>(sql`DELETE FROM container_uploads WHERE uuid IN (
      SELECT uuid FROM container_uploads WHERE created_at < ${cutoff.toISOString()}::timestamptz ORDER BY created_at LIMIT ${limit}::int FOR UPDATE SKIP LOCKED)
    RETURNING uuid, parts`);
  return result.rows.map((r) => ({ uuid: r.uuid, parts: typeof r.parts === "string" ? JSON.parse(r.parts) : r.parts }));
}

// ---------------------------------------------------------------------------------------------
// Manifests and tags

export type NewManifest = { digest: string; mediaType: string; payload: string; totalSize: number; configDigest: string | null; blobs: string[]; manifests: string[] };

/**
 * Stores a manifest (and points `tag` at it) in one transaction, if the repository links every blob
 * and holds every manifest it references; else nothing is written and the first missing digest returns.
 */
export async function putManifest(db: Executor, projectId: number, name: string, m: NewManifest, tag: string | null): Promise<{ missing: string | null }> {
  return db.transaction(async (tx) => {
    const repo = await findRepository(tx, projectId, name);
    const blobs = [...new Set(m.blobs)];
    const manifests = [...new Set(m.manifests)];
    if (!repo && (blobs.length || manifests.length)) return { missing: blobs[0] ?? manifests[0] };
    if (repo && blobs.length) {
      // FOR SHARE: the garbage collector deletes a link only after locking it, so a link read here stays
      // until this manifest, which references it, is committed.
      const have = await tx
        .select({ digest: containerRepositoryBlobs.digest })
        .from(containerRepositoryBlobs)
        .where(and(eq(containerRepositoryBlobs.repositoryId, repo.id), inArray(containerRepositoryBlobs.digest, blobs)))
        .for("share");
      const found = new Set(have.map((r) => r.digest));
      const missing = blobs.find((d) => !found.has(d));
      if (missing) return { missing };
    }
    if (repo && manifests.length) {
      const have = await tx
        .select({ digest: containerManifests.digest })
        .from(containerManifests)
        .where(and(eq(containerManifests.repositoryId, repo.id), inArray(containerManifests.digest, manifests)))
        .for("share");
      const found = new Set(have.map((r) => r.digest));
      const missing = manifests.find((d) => !found.has(d));
      if (missing) return { missing };
    }
    const [target] = await tx
      .insert(containerRepositories)
      .values({ projectId, name })
      .onConflictDoUpdate({ target: [containerRepositories.projectId, containerRepositories.name], set: { updatedAt: sql`now()` } })
      .returning({ id: containerRepositories.id });
    const [stored] = await tx
      .insert(containerManifests)
      .values({ repositoryId: target.id, digest: m.digest, mediaType: m.mediaType, payload: m.payload, totalSize: m.totalSize, configDigest: m.configDigest, referencedDigests: [...blobs, ...manifests] })
      .onConflictDoUpdate({ target: [containerManifests.repositoryId, containerManifests.digest], set: { mediaType: m.mediaType } })
      .returning({ id: containerManifests.id });
    if (tag !== null)
      await tx
        .insert(containerTags)
        .values({ repositoryId: target.id, name: tag, manifestId: stored.id })
        .onConflictDoUpdate({ target: [containerTags.repositoryId, containerTags.name], set: { manifestId: stored.id, updatedAt: sql`now()` } });
    return { missing: null };
  });
}

/** A manifest of the repository by digest (`sha256:…`) or by tag. */
export async function findManifest(db: Executor, projectId: number, name: string, reference: string): Promise<ContainerManifest | null> {
  const byDigest = reference.includes(":");
  const rows = await db
    .select({ manifest: containerManifests })
    .from(containerManifests)
    .innerJoin(containerRepositories, eq(containerRepositories.id, containerManifests.repositoryId))
    .where(
      and(
        eq(containerRepositories.projectId, projectId),
        eq(containerRepositories.name, name),
        byDigest
          ? eq(containerManifests.digest, reference)
          : sql`${containerManifests.id} = (SELECT t.manifest_id FROM container_tags t WHERE t.repository_id = ${containerRepositories.id} AND t.name = ${reference})`,
      ),
    )
    .limit(1);
  return rows[0]?.manifest ?? null;
}

/** Deletes a manifest by digest (its tags go with it) or a tag by name; false when there was none. */
export async function deleteManifest(db: Executor, repositoryId: number, reference: string): Promise<boolean> {
  const deleted = reference.includes(":")
    ? await db.delete(containerManifests).where(and(eq(containerManifests.repositoryId, repositoryId), eq(containerManifests.digest, reference))).returning({ id: containerManifests.id })
    : await db.delete(containerTags).where(and(eq(containerTags.repositoryId, repositoryId), eq(containerTags.name, reference))).returning({ id: containerTags.manifestId });
  return deleted.length > 0;
}

/**
 * `/v2/_catalog`: every image path (`<project path>` or `<project path>/<name>`, lowercase) in byte
 * order after `last`, at most `n` (and one more to tell whether a next page exists).
 */
export async function catalogNames(db: Executor, n: number, last: string | null): Promise<string[]> {
  const path = sql<string>`lower(${projects.fullPath}) || CASE WHEN ${containerRepositories.name} = '' THEN '' ELSE '/' || ${containerRepositories.name} END`;
  const rows = await db
    .select({ path })
    .from(containerRepositories)
    .innerJoin(projects, eq(projects.id, containerRepositories.projectId))
    .where(last === null ? undefined : sql`${path} COLLATE "C" > ${last}::text COLLATE "C"`)
    .orderBy(sql`${path} COLLATE "C"`)
    .limit(n + 1);
  return rows.map((r) => r.path);
}

/** Tag names in lexical order after `last`, at most `n` (one more to tell whether a next page exists). */
export async function tagNames(db: Executor, repositoryId: number, n: number, last: string | null): Promise<string[]> {
  const rows = await db
    .select({ name: containerTags.name })
    .from(containerTags)
    .where(and(eq(containerTags.repositoryId, repositoryId), last === null ? undefined : gt(containerTags.name, last)))
    .orderBy(sql`${containerTags.name} COLLATE "C"`)
    .limit(n + 1);
  return rows.map((r) => r.name);
}

// ---------------------------------------------------------------------------------------------
// REST API (lib/api/project_container_repositories.rb, group_container_repositories.rb, container_repositories.rb)



/** Repositories with their project's path, and their tags (name order) when asked: one statement for a page. */
async function repositoryRows(db: Executor, where: ReturnType<typeof and>, page: Page | null, withTags: boolean): Promise<{ rows: RegistryRepositoryRow[]; total: number }> {
  const tags = sql<RegistryTagRow[]>`COALESCE((SELECT json_agg(json_build_object('name', t.name, 'digest', m.digest, 'configDigest', m.config_digest,
      'totalSize', m.total_size, 'createdAt', m.created_at) ORDER BY t.name COLLATE "C")
    FROM container_tags t JOIN container_manifests m ON m.id = t.manifest_id WHERE t.repository_id = ${containerRepositories.id}), '[]'::json)`;
  const query = db
    .select({
      repo: containerRepositories,
      projectFullPath: projects.fullPath,
      tagsCount: sql<number>`(SELECT count(*)::int FROM container_tags t WHERE t.repository_id = ${containerRepositories.id})`,
      size: sql<number>`(SELECT COALESCE(sum(b.size), 0)::bigint FROM container_repository_blobs b WHERE b.repository_id = ${containerRepositories.id})`,
      tags: withTags ? tags : sql<RegistryTagRow[]>`'[]'::json`,
    })
    .from(containerRepositories)
    .innerJoin(projects, eq(projects.id, containerRepositories.projectId))
    .where(where)
    .orderBy(asc(containerRepositories.id));
  const rows = page ? await query.limit(page.limit).offset(page.offset) : await query;
  const total = page
    ? await cappedCount(db, db.select({ one: sql`1` }).from(containerRepositories).innerJoin(projects, eq(projects.id, containerRepositories.projectId)).where(where), page)
    : rows.length;
  return {
    rows: rows.map((r) => ({ ...r.repo, projectFullPath: r.projectFullPath, tagsCount: Number(r.tagsCount), size: Number(r.size), tags: (r.tags ?? []).map((t) => ({ ...t, createdAt: new Date(t.createdAt) })) })),
    total,
  };
}

export function listProjectRepositories(db: Executor, projectId: number, page: Page, withTags: boolean) {
  return repositoryRows(db, and(eq(containerRepositories.projectId, projectId)), page, withTags);
}

/** The group's and its subgroups' projects whose images the caller may read (reporters, or readers of public/internal projects with the registry on). */
export function listGroupRepositories(db: Executor, groupId: number, actor: Actor | null, page: Page, withTags: boolean) {
  const inGroup = sql`${projects.namespaceId} IN (SELECT ${namespaces.id} FROM ${namespaces} WHERE ${groupId}::int = ANY(${namespaces.traversalIds}))`;
  const readable = actor?.isAdmin
    ? sql`true`
    : actor
      ? sql`(${projects.visibilityLevel} >= ${actor.user.external ? 20 : 10} OR ${projects.id} IN ${authorizedProjectIds(actor.user.id, 20)})`
      : sql`${projects.visibilityLevel} = 20`;
  return repositoryRows(db, and(inGroup, readable, eq(projects.containerRegistryEnabled, true)), page, withTags);
}

export async function findRepositoryRow(db: Executor, id: number, projectId: number | null, withTags = false): Promise<RegistryRepositoryRow | null> {
  const { rows } = await repositoryRows(db, and(eq(containerRepositories.id, id), projectId === null ? undefined : eq(containerRepositories.projectId, projectId)), null, withTags);
  return rows[0] ?? null;
}

/** Deletes the repository: its blob links, manifests and tags cascade, and the triggers of migration 0057 queue the blobs for review. */
export async function deleteRepository(db: Executor, id: number): Promise<void> {
  await db.delete(containerRepositories).where(eq(containerRepositories.id, id));
}

export async function deleteTags(db: Executor, repositoryId: number, names: string[]): Promise<number> {
  if (!names.length) return 0;
  const gone = await db.delete(containerTags).where(and(eq(containerTags.repositoryId, repositoryId), inArray(containerTags.name, names))).returning({ name: containerTags.name });
  return gone.length;
}

/** Every repository of the project with its tags (for a cleanup policy run). */
export async function repositoriesWithTags(db: Executor, projectId: number): Promise<RegistryRepositoryRow[]> {
  return (await repositoryRows(db, and(eq(containerRepositories.projectId, projectId)), null, true)).rows;
}

// ---------------------------------------------------------------------------------------------
// Cleanup policies (container_expiration_policies)

export async function expirationPolicy(db: Executor, projectId: number): Promise<ContainerExpirationPolicy | null> {
  const [row] = await db.select().from(containerExpirationPolicies).where(eq(containerExpirationPolicies.projectId, projectId));
  return row ?? null;
}

export type PolicyValues = { cadence: string; enabled: boolean; keepN: number | null; olderThan: string | null; nameRegex: string | null; nameRegexKeep: string | null };

/** Saves the policy; `next_run_at` moves to now + cadence on every save, as Schedulable's `before_save` does. */
export async function saveExpirationPolicy(db: Executor, projectId: number, v: PolicyValues): Promise<void> {
  const nextRunAt = sql`now() + container_expiration_cadence(${v.cadence}::text)`;
  await db
    .insert(containerExpirationPolicies)
    .values({ projectId, ...v, nextRunAt })
    .onConflictDoUpdate({ target: containerExpirationPolicies.projectId, set: { ...v, nextRunAt, updatedAt: sql`now()` } });
}

/** The policy to run now: enabled, on a project whose registry is on; else null. */
export async function expirationPolicyToRun(db: Executor, projectId: number): Promise<ContainerExpirationPolicy | null> {
  const rows = await db
    .select({ policy: containerExpirationPolicies })
    .from(containerExpirationPolicies)
    .innerJoin(projects, eq(projects.id, containerExpirationPolicies.projectId))
    .where(and(eq(containerExpirationPolicies.projectId, projectId), eq(containerExpirationPolicies.enabled, true), eq(projects.containerRegistryEnabled, true)));
  return rows[0]?.policy ?? null;
}

/**
 * Claims up to `limit` enabled policies due at `now` and moves their `next_run_at` one cadence on, in
 * one statement (SKIP LOCKED): whichever process runs it owns those runs, so two crons never run a
 * policy twice for one due time. Returns the projects claimed.
 */
export async function claimDuePolicies(db: Executor, now: Date, limit: number): Promise<number[]> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const result = await db.execute<{ project_id: number }>(sql`UPDATE container_expiration_policies p
       SET next_run_at = ${at} + container_expiration_cadence(p.cadence)
     WHERE p.project_id IN (SELECT project_id FROM container_expiration_policies
        WHERE enabled AND next_run_at <= ${at} ORDER BY next_run_at LIMIT ${limit}::int FOR UPDATE SKIP LOCKED)
    RETURNING p.project_id`);
  return result.rows.map((r) => Number(r.project_id));
}

// ---------------------------------------------------------------------------------------------
// Garbage collection (gc.ts): each review is taken, re-checked and resolved in one transaction. The
// locks taken on manifests and links are NOWAIT: the sweep never waits on a request (a push holding a
// link, a delete holding a manifest), it leaves that review for its next run.

const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/** Takes the oldest manifest review queued before `cutoff` that no other sweep holds and that is not in `skip`. */
export async function takeManifestReview(tx: Executor, cutoff: Date, skip: number[]): Promise<number | null> {
  const result = await tx.execute<{ manifest_id: number }>(sql`SELECT manifest_id FROM container_registry_manifest_reviews
    WHERE queued_at <= ${at(cutoff)} AND NOT (manifest_id = ANY(${sql.param(skip)}::int[]))
    ORDER BY queued_at LIMIT 1 FOR UPDATE SKIP LOCKED`);
  return result.rows[0] ? Number(result.rows[0].manifest_id) : null;
}

/** Locks the manifest (NOWAIT); null when it is gone. */
export async function lockManifest(tx: Executor, id: number): Promise<{ id: number; repositoryId: number; digest: string } | null> {
  const [row] = await tx
    .select({ id: containerManifests.id, repositoryId: containerManifests.repositoryId, digest: containerManifests.digest })
    .from(containerManifests)
    .where(eq(containerManifests.id, id))
    .for("update", { noWait: true });
  return row ?? null;
}

/** Whether a tag points at the manifest or an index of its repository references it. */
export async function manifestReferenced(tx: Executor, m: { id: number; repositoryId: number; digest: string }): Promise<boolean> {
  const result = await tx.execute(sql`SELECT 1 WHERE EXISTS (SELECT 1 FROM container_tags WHERE manifest_id = ${m.id}::int)
    OR EXISTS (SELECT 1 FROM container_manifests WHERE repository_id = ${m.repositoryId}::int AND id <> ${m.id}::int
                 AND referenced_digests @> ARRAY[${m.digest}::text])`);
  return result.rows.length > 0;
}

/** Deletes the manifest (the trigger queues what it referenced) and its review. */
export async function collectManifest(tx: Executor, id: number): Promise<void> {
  await tx.execute(sql`WITH gone AS (DELETE FROM container_manifests WHERE id = ${id}::int)
    DELETE FROM container_registry_manifest_reviews WHERE manifest_id = ${id}::int`);
}

export async function dropManifestReview(tx: Executor, id: number): Promise<void> {
  await tx.execute(sql`DELETE FROM container_registry_manifest_reviews WHERE manifest_id = ${id}::int`);
}

/** Takes the oldest blob review queued before `cutoff` that no other sweep holds and that is not in `skip`. */
export async function takeBlobReview(tx: Executor, cutoff: Date, skip: string[]): Promise<string | null> {
  const result = await tx.execute<{ digest: string }>(sql`SELECT digest FROM container_registry_blob_reviews
    WHERE queued_at <= ${at(cutoff)} AND NOT (digest = ANY(${sql.param(skip)}::text[]))
    ORDER BY queued_at LIMIT 1 FOR UPDATE SKIP LOCKED`);
  return result.rows[0]?.digest ?? null;
}

/**
 * Locks every link of the blob (NOWAIT: a push holding one with FOR SHARE is about to reference it) and
 * says which repositories link it and whether a manifest of that repository references it. Read after
 * the lock, in a statement of its own, so it sees every manifest committed before the lock was granted.
 */
export async function lockBlobLinks(tx: Executor, digest: string): Promise<{ repositoryId: number; referenced: boolean }[]> {
  await tx.execute(sql`SELECT 1 FROM container_repository_blobs WHERE digest = ${digest}::text FOR UPDATE NOWAIT`);
  const result = await tx.execute<{ repository_id: number; referenced: boolean }>(sql`SELECT l.repository_id,
      EXISTS (SELECT 1 FROM container_manifests m WHERE m.repository_id = l.repository_id AND m.referenced_digests @> ARRAY[l.digest]) AS referenced
    FROM container_repository_blobs l WHERE l.digest = ${digest}::text`);
  return result.rows.map((r) => ({ repositoryId: Number(r.repository_id), referenced: r.referenced === true || String(r.referenced) === "t" }));
}

/** Deletes the blob's links in `repositoryIds` and its review (the link trigger's own review of it goes with it). */
export async function collectBlobLinks(tx: Executor, digest: string, repositoryIds: number[]): Promise<void> {
  if (repositoryIds.length)
    await tx.execute(sql`DELETE FROM container_repository_blobs WHERE digest = ${digest}::text AND repository_id = ANY(${sql.param(repositoryIds)}::int[])`);
  await tx.execute(sql`DELETE FROM container_registry_blob_reviews WHERE digest = ${digest}::text`);
}
