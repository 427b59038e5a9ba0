import { eq } from "drizzle-orm";
import { identities, userCustomAttributes, users } from "../../db/schema";
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

