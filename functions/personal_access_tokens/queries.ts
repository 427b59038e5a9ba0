import { and, asc, eq, gte, ilike, lte, or, sql, type SQL } from "drizzle-orm";
import { personalAccessTokens, users, type PersonalAccessToken, type User } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { cappedCount, type Page } from "../kernel/pagination";
import type { ListParams } from "./params";

/** The only Drizzle code of personal access tokens; tokens are found by id or listed by owner. */

/** Whose tokens a list shows: one user's, or (administrators) everybody's. */
export type TokenOwner = { userId: number } | { all: true } | { userIdIfExists: number };

const notExpired = sql`(${personalAccessTokens.expiresAt} IS NULL OR ${personalAccessTokens.expiresAt} > current_date)`;

function conditions(owner: TokenOwner, filter: ListParams): SQL | undefined {
  const where: (SQL | undefined)[] = [];
  // A user's own list leaves out the impersonation tokens administrators made for them (`impersonation: false`).
  if ("userId" in owner) where.push(eq(personalAccessTokens.userId, owner.userId), eq(personalAccessTokens.impersonation, false));
  // PersonalAccessTokensFinder filters by the user only when one was found: an unknown id lists all.
  if ("userIdIfExists" in owner)
    where.push(
      or(
        eq(personalAccessTokens.userId, owner.userIdIfExists),
        sql`NOT EXISTS (SELECT 1 FROM users u WHERE u.id = ${owner.userIdIfExists})`,
      ),
    );
  if (filter.revoked !== undefined) where.push(eq(personalAccessTokens.revoked, filter.revoked));
  if (filter.state === "active") where.push(and(eq(personalAccessTokens.revoked, false), notExpired));
  if (filter.state === "inactive") where.push(or(eq(personalAccessTokens.revoked, true), sql`NOT ${notExpired}`));
  if (filter.created_before) where.push(lte(personalAccessTokens.createdAt, filter.created_before));
  if (filter.created_after) where.push(gte(personalAccessTokens.createdAt, filter.created_after));
  if (filter.last_used_before) where.push(lte(personalAccessTokens.lastUsedAt, filter.last_used_before));
  if (filter.last_used_after) where.push(gte(personalAccessTokens.lastUsedAt, filter.last_used_after));
  if (filter.search) where.push(ilike(personalAccessTokens.name, `%${filter.search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`));
  return and(...where);
}

/** A page of tokens in id order (the order GitLab's offset pagination gives an unordered relation). */
export async function listTokens(
  db: Executor,
  owner: TokenOwner,
  filter: ListParams,
  page: Page,
): Promise<{ rows: PersonalAccessToken[]; total: number }> {
  const where = conditions(owner, filter);
  const rows = await db
    .select()
    .from(personalAccessTokens)
    .where(where)
    .orderBy(asc(personalAccessTokens.id))
    .limit(page.limit)
    .offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(personalAccessTokens).where(where), page);
  return { rows, total };
}

export async function findToken(db: Executor, id: number): Promise<PersonalAccessToken | null> {
  const rows = await db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, id)).limit(1);
  return rows[0] ?? null;
}

export async function revokeToken(db: Executor, id: number): Promise<void> {
  await db.update(personalAccessTokens).set({ revoked: true }).where(eq(personalAccessTokens.id, id));
}

export async function findUser(db: Executor, id: number): Promise<User | null> {
  const rows = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return rows[0] ?? null;
}

export async function insertToken(
  db: Executor,
  values: { userId: number; name: string; tokenDigest: string; scopes: string[]; expiresAt: string | null },
): Promise<PersonalAccessToken> {
  const [created] = await db.insert(personalAccessTokens).values(values).returning();
  return created;
}
