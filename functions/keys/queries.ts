import { and, asc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { deployKeysProjects, keys, projects, users, type DeployKeysProject, type Key } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { cappedCount, type Page } from "../kernel/pagination";
import { authorizedProjectIds } from "../kernel/visibility";
import type { KeyUserRow, ProjectIdentityRow } from "../entities/keys";

/** The only Drizzle code of the keys domain. */

const usersId = sql.raw('"users"."id"');

/** A user with what the administrator view needs (identities, personal projects, highest role), in one statement. */
const userDetails = {
  user: users,
  identities: sql<KeyUserRow["identities"]>`coalesce((SELECT json_agg(json_build_object(
      'provider', i.provider, 'extern_uid', i.extern_uid, 'saml_provider_id', i.saml_provider_id) ORDER BY i.id)
    FROM identities i WHERE i.user_id = ${usersId}), '[]'::json)`,
  personalProjectsCount: sql<number>`(SELECT count(*)::int FROM projects p
    JOIN namespaces n ON n.id = p.namespace_id WHERE n.owner_id = ${usersId} AND n.type = 'User')`,
  highestRole: sql<number>`(SELECT coalesce(max(m.access_level), 0)::int FROM members m
    WHERE m.user_id = ${usersId} AND m.access_level >= 10)`,
};

export async function findUserRow(db: Executor, id: number): Promise<KeyUserRow | null> {
  const rows = await db.select(userDetails).from(users).where(eq(users.id, id)).limit(1);
  const r = rows[0];
  return r
    ? { ...r.user, identities: r.identities, personalProjectsCount: Number(r.personalProjectsCount), highestRole: Number(r.highestRole), customAttributes: null }
    : null;
}

// ---------------------------------------------------------------------------------------------
// User keys

const userKey = (userId: number) => and(eq(keys.userId, userId), isNull(keys.type));

export async function listUserKeys(db: Executor, userId: number, page: Page): Promise<{ rows: Key[]; total: number }> {
  const rows = await db.select().from(keys).where(userKey(userId)).orderBy(asc(keys.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(keys).where(userKey(userId)), page);
  return { rows, total };
}

export async function findUserKey(db: Executor, userId: number, keyId: number): Promise<Key | null> {
  const rows = await db.select().from(keys).where(and(userKey(userId), eq(keys.id, keyId))).limit(1);
  return rows[0] ?? null;
}

export async function fingerprintTaken(db: Executor, fingerprintSha256: string): Promise<Key | null> {
  const rows = await db.select().from(keys).where(eq(keys.fingerprintSha256, fingerprintSha256)).limit(1);
  return rows[0] ?? null;
}

export type NewKey = typeof keys.$inferInsert;

/** Inserts unless the fingerprint exists (a concurrent duplicate); null then. */
export async function insertKey(db: Executor, values: NewKey): Promise<Key | null> {
  const rows = await db.insert(keys).values(values).onConflictDoNothing({ target: keys.fingerprintSha256 }).returning();
  return rows[0] ?? null;
}

export async function deleteKey(db: Executor, id: number): Promise<void> {
  await db.delete(keys).where(eq(keys.id, id));
}

// ---------------------------------------------------------------------------------------------
// GET /keys/:id, GET /keys?fingerprint=

export async function findKey(db: Executor, id: number): Promise<Key | null> {
  const rows = await db.select().from(keys).where(eq(keys.id, id)).limit(1);
  return rows[0] ?? null;
}

/** KeysFinder#by_fingerprint: by MD5 (`fingerprint`) or SHA256 (`fingerprint_sha256`), most recently used first. */
export async function findKeyByFingerprint(db: Executor, by: { md5: string } | { sha256: string }): Promise<Key | null> {
  const rows = await db
    .select()
    .from(keys)
    .where("md5" in by ? eq(keys.fingerprint, by.md5) : eq(keys.fingerprintSha256, by.sha256))
    .orderBy(sql`${keys.lastUsedAt} DESC NULLS LAST`, asc(keys.id))
    .limit(1);
  return rows[0] ?? null;
}

export async function linksOfKey(db: Executor, keyId: number): Promise<DeployKeysProject[]> {
  return db.select().from(deployKeysProjects).where(eq(deployKeysProjects.deployKeyId, keyId)).orderBy(asc(deployKeysProjects.id));
}

// ---------------------------------------------------------------------------------------------
// Deploy keys

export type DeployKeyListRow = Key & { projectsWithWriteAccess: ProjectIdentityRow[] };

const isDeployKey = eq(keys.type, "DeployKey");

/** GET /deploy_keys: every deploy key (or the public ones), with the projects it may push to, in two statements plus the count. */
export async function listDeployKeys(db: Executor, onlyPublic: boolean, page: Page): Promise<{ rows: DeployKeyListRow[]; total: number }> {
  const where = onlyPublic ? and(isDeployKey, eq(keys.public, true)) : isDeployKey;
  const list = await db.select().from(keys).where(where).orderBy(asc(keys.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(keys).where(where), page);
  const ids = list.map((k) => k.id);
  const writable = ids.length
    ? await db
        .select({ keyId: deployKeysProjects.deployKeyId, project: projects })
        .from(deployKeysProjects)
        .innerJoin(projects, eq(projects.id, deployKeysProjects.projectId))
        .where(and(inArray(deployKeysProjects.deployKeyId, ids), eq(deployKeysProjects.canPush, true)))
        .orderBy(asc(projects.id))
    : [];
  const rows = list.map((k) => ({ ...k, projectsWithWriteAccess: writable.filter((w) => w.keyId === k.id).map((w) => w.project) }));
  return { rows, total };
}

export type ProjectDeployKeyRow = Key & { link: DeployKeysProject };

export async function listProjectDeployKeys(db: Executor, projectId: number, page: Page): Promise<{ rows: ProjectDeployKeyRow[]; total: number }> {
  const where = eq(deployKeysProjects.projectId, projectId);
  const list = await db
    .select({ key: keys, link: deployKeysProjects })
    .from(deployKeysProjects)
    .innerJoin(keys, eq(keys.id, deployKeysProjects.deployKeyId))
    .where(where)
    .orderBy(asc(deployKeysProjects.id))
    .limit(page.limit)
    .offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(deployKeysProjects).where(where), page);
  return { rows: list.map((r) => ({ ...r.key, link: r.link })), total };
}

export async function findProjectDeployKey(db: Executor, projectId: number, keyId: number): Promise<ProjectDeployKeyRow | null> {
  const rows = await db
    .select({ key: keys, link: deployKeysProjects })
    .from(deployKeysProjects)
    .innerJoin(keys, eq(keys.id, deployKeysProjects.deployKeyId))
    .where(and(eq(deployKeysProjects.projectId, projectId), eq(deployKeysProjects.deployKeyId, keyId)))
    .limit(1);
  return rows[0] ? { ...rows[0].key, link: rows[0].link } : null;
}

/**
 * `current_user.accessible_deploy_keys` (with `find_by`): a deploy key that is public or enabled on a
 * project the user maintains; admins reach every deploy key.
 */
export async function findAccessibleDeployKey(
  db: Executor,
  actor: { userId: number; isAdmin: boolean },
  by: { id: number } | { fingerprintSha256: string },
): Promise<Key | null> {
  const match = "id" in by ? eq(keys.id, by.id) : eq(keys.fingerprintSha256, by.fingerprintSha256);
  const reach = actor.isAdmin
    ? sql`true`
    : or(
        eq(keys.public, true),
        sql`EXISTS (SELECT 1 FROM deploy_keys_projects l WHERE l.deploy_key_id = ${keys.id}
          AND l.project_id IN ${authorizedProjectIds(actor.userId, 40)})`,
      );
  const rows = await db.select().from(keys).where(and(isDeployKey, match, reach)).limit(1);
  return rows[0] ?? null;
}

/** `DeployKeyPolicy#update_deploy_key`: a private key enabled on a project the user maintains. */
export async function canUpdateDeployKey(db: Executor, userId: number, keyId: number): Promise<boolean> {
  const rows = await db.execute<{ ok: boolean }>(sql`SELECT EXISTS (SELECT 1 FROM keys k JOIN deploy_keys_projects l ON l.deploy_key_id = k.id
    WHERE k.id = ${keyId} AND NOT k.public AND l.project_id IN ${authorizedProjectIds(userId, 40)}) AS ok`);
  return !!rows.rows[0]?.ok;
}

export async function linkDeployKey(db: Executor, projectId: number, keyId: number, canPush: boolean): Promise<DeployKeysProject> {
  const rows = await db
    .insert(deployKeysProjects)
    .values({ projectId, deployKeyId: keyId, canPush })
    .onConflictDoUpdate({ target: [deployKeysProjects.projectId, deployKeysProjects.deployKeyId], set: { projectId } })
    .returning();
  return rows[0];
}

export async function updateDeployKey(db: Executor, link: DeployKeysProject, set: { title: string; canPush: boolean }): Promise<void> {
  await db.update(keys).set({ title: set.title, updatedAt: sql`now()` }).where(eq(keys.id, link.deployKeyId));
  await db.update(deployKeysProjects).set({ canPush: set.canPush, updatedAt: sql`now()` }).where(eq(deployKeysProjects.id, link.id));
}

/** Removes the link; a private deploy key left on no project is destroyed with it (`destroy_orphaned_deploy_key`). */
export async function unlinkDeployKey(db: Executor, link: DeployKeysProject): Promise<void> {
  await db.execute(sql`WITH gone AS (DELETE FROM deploy_keys_projects WHERE id = ${link.id} RETURNING deploy_key_id)
    DELETE FROM keys k USING gone WHERE k.id = gone.deploy_key_id AND NOT k.public
      AND NOT EXISTS (SELECT 1 FROM deploy_keys_projects l WHERE l.deploy_key_id = k.id AND l.id <> ${link.id})`);
}
