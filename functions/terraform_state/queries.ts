import { and, desc, eq, sql } from "drizzle-orm";
import { terraformStates, terraformStateVersions, users, type TerraformState, type TerraformStateVersion } from "../../db/schema";
import type { Database, Executor } from "../kernel/db";

/** Terraform states (Terraform::RemoteStateHandler's SQL): the lock lives on the state row. */

export async function findState(db: Executor, projectId: number, name: string): Promise<TerraformState | null> {
  const rows = await db.select().from(terraformStates).where(and(eq(terraformStates.projectId, projectId), eq(terraformStates.name, name))).limit(1);
  return rows[0] ?? null;
}

/** `Terraform::State.create_or_find_by(project:, name:)` (2 statements at most). */
export async function createOrFindState(db: Executor, projectId: number, name: string): Promise<TerraformState> {
  const created = await db.insert(terraformStates).values({ projectId, name }).onConflictDoNothing().returning();
  return created[0] ?? (await findState(db, projectId, name))!;
}

/** The lock and its holder's username, for the lock answers. */
export async function lockOf(db: Executor, stateId: number) {
  const rows = await db
    .select({ lockXid: terraformStates.lockXid, lockedAt: terraformStates.lockedAt, username: users.username })
    .from(terraformStates)
    .leftJoin(users, eq(users.id, terraformStates.lockedByUserId))
    .where(eq(terraformStates.id, stateId));
  return rows[0] ?? null;
}

/** Takes the lock if nobody holds it; false when it is held (one statement, so two lockers never both win). */
export async function lock(db: Executor, stateId: number, xid: string, userId: number): Promise<boolean> {
  const rows = await db
    .update(terraformStates)
    .set({ lockXid: xid, lockedAt: new Date(), lockedByUserId: userId, updatedAt: new Date() })
    .where(and(eq(terraformStates.id, stateId), sql`${terraformStates.lockXid} IS NULL`))
    .returning({ id: terraformStates.id });
  return rows.length > 0;
}

/** `lock_matches?`: no lock and no ID, or the same ID. */
const lockMatches = (xid: string | null) =>
  xid === null ? sql`${terraformStates.lockXid} IS NULL` : sql`${terraformStates.lockXid} = ${xid}`;

/** Releases the lock when `xid` matches it; false otherwise (one statement). */
export async function unlock(db: Executor, stateId: number, xid: string | null): Promise<boolean> {
  const rows = await db
    .update(terraformStates)
    .set({ lockXid: null, lockedAt: null, lockedByUserId: null, updatedAt: new Date() })
    .where(and(eq(terraformStates.id, stateId), sql`(${terraformStates.lockXid} IS NULL AND ${xid}::text IS NULL OR ${terraformStates.lockXid} = ${xid})`))
    .returning({ id: terraformStates.id });
  return rows.length > 0;
}

export async function latestVersion(db: Executor, stateId: number): Promise<TerraformStateVersion | null> {
  const rows = await db.select().from(terraformStateVersions).where(eq(terraformStateVersions.terraformStateId, stateId)).orderBy(desc(terraformStateVersions.version)).limit(1);
  return rows[0] ?? null;
}

export async function findVersion(db: Executor, stateId: number, version: number): Promise<TerraformStateVersion | null> {
  const rows = await db.select().from(terraformStateVersions).where(and(eq(terraformStateVersions.terraformStateId, stateId), eq(terraformStateVersions.version, version))).limit(1);
  return rows[0] ?? null;
}

export type NewVersion = { version: number; r2Key: string; size: number; createdByUserId: number; ciBuildId: number | null };

/**
 * Records a version under the lock, in one transaction: the state row is locked (`FOR UPDATE`) and
 * must carry the caller's lock ID (or none); a serial written again replaces its version. Null when
 * the lock does not match; else the R2 key a replaced version left behind, if any.
 */
export async function saveVersion(db: Database, stateId: number, xid: string | null, v: NewVersion): Promise<{ replaced: string | null } | null> {
  return db.transaction(async (tx) => {
    const held = await tx.select({ id: terraformStates.id }).from(terraformStates).where(and(eq(terraformStates.id, stateId), lockMatches(xid))).for("update");
    if (!held.length) return null;
    const old = await tx.select({ r2Key: terraformStateVersions.r2Key }).from(terraformStateVersions).where(and(eq(terraformStateVersions.terraformStateId, stateId), eq(terraformStateVersions.version, v.version)));
    await tx
      .insert(terraformStateVersions)
      .values({ terraformStateId: stateId, ...v })
      .onConflictDoUpdate({
        target: [terraformStateVersions.terraformStateId, terraformStateVersions.version],
        set: { r2Key: v.r2Key, size: v.size, createdByUserId: v.createdByUserId, ciBuildId: v.ciBuildId, updatedAt: new Date() },
      });
    await tx.update(terraformStates).set({ updatedAt: new Date() }).where(eq(terraformStates.id, stateId));
    return { replaced: old[0] && old[0].r2Key !== v.r2Key ? old[0].r2Key : null };
  });
}

/** Deletes the state and its versions when the lock matches; returns their R2 keys, or null (locked). */
export async function deleteState(db: Database, stateId: number, xid: string | null): Promise<string[] | null> {
  return db.transaction(async (tx) => {
    const held = await tx.select({ id: terraformStates.id }).from(terraformStates).where(and(eq(terraformStates.id, stateId), lockMatches(xid))).for("update");
    if (!held.length) return null;
    const keys = await tx.select({ r2Key: terraformStateVersions.r2Key }).from(terraformStateVersions).where(eq(terraformStateVersions.terraformStateId, stateId));
    await tx.delete(terraformStates).where(eq(terraformStates.id, stateId));
    return keys.map((k) => k.r2Key);
  });
}
