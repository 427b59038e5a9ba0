import { and, eq, gt, or, sql } from "drizzle-orm";
import { users, webSessions, type User } from "../../db/schema";
import type { Database, Executor } from "../kernel/db";

/** Devise lockable as GitLab configures it (config/initializers/8_devise.rb): 10 attempts, unlocked 10 minutes later. */
export const MAXIMUM_ATTEMPTS = 10;
export const UNLOCK_IN_MS = 10 * 60 * 1000;
/** GitLab's default `session_expire_delay`: 10080 minutes (one week). */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** The user a sign-in form names: username or e-mail, case-insensitively (Devise's `login` key). */
export async function findUserByLogin(db: Executor, login: string): Promise<User | null> {
  const lower = login.trim().toLowerCase();
  const rows = await db
    .select()
    .from(users)
    .where(or(sql`lower(${users.username}) = ${lower}`, sql`lower(${users.email}) = ${lower}`))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * Devise's `valid_for_authentication?` after a wrong password: one more failed attempt, and the lock
 * when it is the 10th. One statement, so concurrent wrong guesses all count.
 */
export async function recordFailedAttempt(db: Executor, userId: number): Promise<{ failedAttempts: number; lockedAt: Date | null }> {
  const rows = await db
    .update(users)
    .set({
      failedAttempts: sql`${users.failedAttempts} + 1`,
      lockedAt: sql`CASE WHEN ${users.failedAttempts} + 1 >= ${MAXIMUM_ATTEMPTS} THEN coalesce(${users.lockedAt}, now()) ELSE ${users.lockedAt} END`,
    })
    .where(eq(users.id, userId))
    .returning({ failedAttempts: users.failedAttempts, lockedAt: users.lockedAt });
  return rows[0] ?? { failedAttempts: 0, lockedAt: null };
}

/** Devise `unlock_access!` once the lock has expired: the count starts again. */
export async function unlockUser(db: Executor, userId: number): Promise<void> {
  await db.update(users).set({ failedAttempts: 0, lockedAt: null }).where(eq(users.id, userId));
}

/**
 * A good password: the session row and Devise's trackable columns, in one transaction. A deactivated
 * user who signs in is active again (GitLab's `Users::ActivityService`/`activate` on web sign-in).
 */
export async function startSession(
  db: Database,
  user: User,
  values: { sessionDigest: string; ip: string | null; userAgent: string | null },
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.insert(webSessions).values({ ...values, userId: user.id, expiresAt: new Date(Date.now() + SESSION_TTL_MS) });
    await tx
      .update(users)
      .set({
        failedAttempts: 0,
        lockedAt: null,
        signInCount: sql`${users.signInCount} + 1`,
        lastSignInAt: sql`coalesce(${users.currentSignInAt}, now())`,
        currentSignInAt: sql`now()`,
        lastSignInIp: sql`coalesce(${users.currentSignInIp}, ${values.ip})`,
        currentSignInIp: values.ip,
        ...(user.state === "deactivated" ? { state: "active" } : {}),
      })
      .where(eq(users.id, user.id));
  });
}

/** The live session of a cookie's digest and its user: one statement per signed-in page. */
export async function sessionUser(db: Executor, sessionDigest: string): Promise<{ sessionId: number; user: User } | null> {
  const rows = await db
    .select({ sessionId: webSessions.id, user: users })
    .from(webSessions)
    .innerJoin(users, eq(users.id, webSessions.userId))
    .where(and(eq(webSessions.sessionDigest, sessionDigest), gt(webSessions.expiresAt, sql`now()`)))
    .limit(1);
  return rows[0] ?? null;
}

export async function deleteSession(db: Executor, sessionDigest: string): Promise<void> {
  await db.delete(webSessions).where(eq(webSessions.sessionDigest, sessionDigest));
}
