import { and, asc, eq, or, sql, type SQL } from "drizzle-orm";
import { personalAccessTokens, users, type PersonalAccessToken, type User } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { cappedCount, type Page } from "../kernel/pagination";

/** The only Drizzle code of impersonation tokens: rows of `personal_access_tokens` with `impersonation`. */

export async function findUser(db: Executor, id: number): Promise<User | null> {
  const rows = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return rows[0] ?? null;
}

const notExpired = sql`(${personalAccessTokens.expiresAt} IS NULL OR ${personalAccessTokens.expiresAt} > current_date)`;

/** `PersonalAccessTokensFinder.new(user:, impersonation: true, state:)`. */
function ofUser(userId: number, state: "all" | "active" | "inactive" = "all"): SQL | undefined {
  return and(
    eq(personalAccessTokens.userId, userId),
    eq(personalAccessTokens.impersonation, true),
    state === "active" ? and(eq(personalAccessTokens.revoked, false), notExpired) : undefined,
    state === "inactive" ? or(eq(personalAccessTokens.revoked, true), sql`NOT ${notExpired}`) : undefined,
  );
}

export async function listTokens(
  db: Executor,
  userId: number,
  state: "all" | "active" | "inactive",
  page: Page,
): Promise<{ rows: PersonalAccessToken[]; total: number }> {
  const where = ofUser(userId, state);
  const rows = await db.select().from(personalAccessTokens).where(where).orderBy(asc(personalAccessTokens.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(personalAccessTokens).where(where), page);
  return { rows, total };
}

export async function findToken(db: Executor, userId: number, id: number): Promise<PersonalAccessToken | null> {
  const rows = await db.select().from(personalAccessTokens).where(and(ofUser(userId), eq(personalAccessTokens.id, id))).limit(1);
  return rows[0] ?? null;
}

export async function insertToken(
  db: Executor,
  values: { userId: number; name: string; tokenDigest: string; scopes: string[]; expiresAt: string | null },
): Promise<PersonalAccessToken> {
  const [created] = await db
    .insert(personalAccessTokens)
    .values({ ...values, impersonation: true })
    .returning();
  return created;
}

/** `revoke!`. */
export async function revokeToken(db: Executor, id: number): Promise<void> {
  await db.update(personalAccessTokens).set({ revoked: true }).where(eq(personalAccessTokens.id, id));
}
export type { User };
