import { and, asc, eq, sql } from "drizzle-orm";
import { members, personalAccessTokens, users, type User } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { cappedCount, type Page } from "../kernel/pagination";
import type { ResourceAccessTokenRow } from "../entities/resource_access_tokens";

/**
 * The only Drizzle code of resource access tokens: the personal access tokens of the resource's bot
 * users (`resource.bots`, `user_type` project_bot with a direct membership), with the bot's level.
 */
export type Resource = { sourceType: "Project" | "Namespace"; sourceId: number };

const columns = { token: personalAccessTokens, accessLevel: members.accessLevel };

const ofResource = (r: Resource) =>
  and(eq(members.sourceType, r.sourceType), eq(members.sourceId, r.sourceId), eq(users.userType, "project_bot"), eq(personalAccessTokens.impersonation, false));

function base(db: Executor) {
  return db
    .select(columns)
    .from(personalAccessTokens)
    .innerJoin(users, eq(users.id, personalAccessTokens.userId))
    .innerJoin(members, eq(members.userId, users.id));
}

const flat = (r: { token: typeof personalAccessTokens.$inferSelect; accessLevel: number }): ResourceAccessTokenRow => ({ ...r.token, accessLevel: r.accessLevel });

export async function listTokens(db: Executor, r: Resource, page: Page): Promise<{ rows: ResourceAccessTokenRow[]; total: number }> {
  const where = ofResource(r);
  const rows = await base(db).where(where).orderBy(asc(personalAccessTokens.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(
    db,
    db
      .select({ one: sql`1` })
      .from(personalAccessTokens)
      .innerJoin(users, eq(users.id, personalAccessTokens.userId))
      .innerJoin(members, eq(members.userId, users.id))
      .where(where),
    page,
  );
  return { rows: rows.map(flat), total };
}

export async function findToken(db: Executor, r: Resource, id: number): Promise<ResourceAccessTokenRow | null> {
  const rows = await base(db).where(and(ofResource(r), eq(personalAccessTokens.id, id))).limit(1);
  return rows[0] ? flat(rows[0]) : null;
}

export async function findUser(db: Executor, id: number): Promise<User | null> {
  const rows = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return rows[0] ?? null;
}

export async function insertMember(db: Executor, r: Resource, m: { userId: number; accessLevel: number; expiresAt: string | null; createdById: number }): Promise<void> {
  await db.insert(members).values({ ...r, ...m });
}

export async function insertToken(
  db: Executor,
  values: { userId: number; name: string; tokenDigest: string; scopes: string[]; expiresAt: string | null },
) {
  const [created] = await db.insert(personalAccessTokens).values(values).returning();
  return created;
}

/** The bot's membership follows its rotated token's expiry (ProjectAccessTokens::RotateService). */
export async function updateMemberExpiry(db: Executor, r: Resource, userId: number, expiresAt: string | null): Promise<void> {
  await db
    .update(members)
    .set({ expiresAt, updatedAt: new Date() })
    .where(and(eq(members.sourceType, r.sourceType), eq(members.sourceId, r.sourceId), eq(members.userId, userId)));
}
