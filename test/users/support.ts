import { eq } from "drizzle-orm";
import { identities, personalAccessTokens, userCustomAttributes, users } from "../../db/schema";
import { generateToken, sha256Hex } from "../../functions/kernel/auth";
import type { World } from "../helpers/world";

/** Keys of API::Entities::UserBasic. */
export const BASIC_KEYS = ["avatar_url", "id", "name", "state", "username", "web_url"];

/** Sets columns of a user directly (fields no endpoint under test writes). */
export function setUser(w: World, id: number, set: Partial<typeof users.$inferInsert>) {
  return w.db((db) => db.update(users).set(set).where(eq(users.id, id)));
}

export function addIdentity(w: World, userId: number, provider: string, externUid: string) {
  return w.db((db) => db.insert(identities).values({ userId, provider, externUid }));
}

export function addCustomAttribute(w: World, userId: number, key: string, value: string) {
  return w.db((db) => db.insert(userCustomAttributes).values({ userId, key, value }));
}

/** A personal access token made in the database; returns its value and id. */
export async function makeToken(
  w: World,
  userId: number,
  opts: { scopes?: string[]; expiresAt?: string | null; revoked?: boolean; name?: string } = {},
): Promise<{ token: string; id: number }> {
  const token = generateToken();
  const [row] = await w.db(async (db) =>
    db
      .insert(personalAccessTokens)
      .values({
        userId,
        name: opts.name ?? "made",
        tokenDigest: await sha256Hex(token),
        scopes: opts.scopes ?? ["api"],
        expiresAt: opts.expiresAt ?? null,
        revoked: !!opts.revoked,
      })
      .returning(),
  );
  return { token, id: row.id };
}

/** `YYYY-MM-DD`, `days` from today (UTC). */
export function day(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}
