import { and, asc, eq, sql } from "drizzle-orm";
import { gpgKeys, users, type GpgKey, type User } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { cappedCount, type Page } from "../kernel/pagination";

/** The only Drizzle code of GPG keys. */

export async function findUser(db: Executor, id: number): Promise<User | null> {
  const rows = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return rows[0] ?? null;
}

export async function listKeys(db: Executor, userId: number, page: Page): Promise<{ rows: GpgKey[]; total: number }> {
  const where = eq(gpgKeys.userId, userId);
  const rows = await db.select().from(gpgKeys).where(where).orderBy(asc(gpgKeys.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(gpgKeys).where(where), page);
  return { rows, total };
}

export async function findKey(db: Executor, userId: number, keyId: number): Promise<GpgKey | null> {
  const rows = await db.select().from(gpgKeys).where(and(eq(gpgKeys.userId, userId), eq(gpgKeys.id, keyId))).limit(1);
  return rows[0] ?? null;
}

/** Which of the unique columns another key already holds, in one statement. */
export async function takenBy(db: Executor, key: string, fingerprint: string | null, keyid: string | null) {
  const result = await db.execute<{ key: boolean; fingerprint: boolean; keyid: boolean }>(sql`SELECT
    EXISTS (SELECT 1 FROM gpg_keys WHERE md5(key) = md5(${key}) AND key = ${key}) AS key,
    EXISTS (SELECT 1 FROM gpg_keys WHERE fingerprint = ${fingerprint}) AS fingerprint,
    EXISTS (SELECT 1 FROM gpg_keys WHERE primary_keyid = ${keyid}) AS keyid`);
  const row = result.rows[0];
  return { key: !!row.key, fingerprint: !!row.fingerprint, keyid: !!row.keyid };
}

/** Inserts unless a unique column is taken meanwhile (a concurrent duplicate); null then. */
export async function insertKey(db: Executor, values: { userId: number; key: string; fingerprint: string; primaryKeyid: string }): Promise<GpgKey | null> {
  const rows = await db.insert(gpgKeys).values(values).onConflictDoNothing().returning();
  return rows[0] ?? null;
}

/** `GpgKeys::DestroyService` and `GpgKey#revoke` (no signatures are stored here to mark unverified). */
export async function deleteKey(db: Executor, id: number): Promise<void> {
  await db.delete(gpgKeys).where(eq(gpgKeys.id, id));
}
export type { User };
