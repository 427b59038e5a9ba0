import { and, asc, eq, sql } from "drizzle-orm";
import { emails, users, type Email, type User } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { cappedCount, type Page } from "../kernel/pagination";

/** The only Drizzle code of e-mail addresses. */

export async function findUser(db: Executor, id: number): Promise<User | null> {
  const rows = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return rows[0] ?? null;
}

export async function listEmails(db: Executor, userId: number, page: Page): Promise<{ rows: Email[]; total: number }> {
  const where = eq(emails.userId, userId);
  const rows = await db.select().from(emails).where(where).orderBy(asc(emails.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(emails).where(where), page);
  return { rows, total };
}

export async function findEmail(db: Executor, userId: number, emailId: number): Promise<Email | null> {
  const rows = await db.select().from(emails).where(and(eq(emails.userId, userId), eq(emails.id, emailId))).limit(1);
  return rows[0] ?? null;
}

/**
 * Inserts the address unless it is taken: another row of `emails` (`uniqueness: true`) or any
 * user's primary e-mail (Email#unique_email), decided in the same statement. null when taken.
 */
export async function insertEmail(db: Executor, userId: number, address: string, confirmed: boolean): Promise<Email | null> {
  const result = await db.execute<{ id: number }>(sql`INSERT INTO emails (user_id, email, confirmed_at)
    SELECT ${userId}, ${address}, ${confirmed ? sql`now()` : sql`NULL`}
    WHERE NOT EXISTS (SELECT 1 FROM users u WHERE lower(u.email) = ${address})
    ON CONFLICT (email) DO NOTHING
    RETURNING id`);
  const id = result.rows[0]?.id;
  if (id === undefined) return null;
  return findEmail(db, userId, Number(id));
}

/**
 * Emails::DestroyService: removes the address and, in the same statement, `update_secondary_emails!`
 * (a public or commit e-mail that was this address falls back to none).
 */
export async function deleteEmail(db: Executor, row: Email): Promise<void> {
  await db.execute(sql`WITH gone AS (DELETE FROM emails WHERE id = ${row.id} RETURNING user_id, email)
    UPDATE users u SET
      public_email = CASE WHEN lower(u.public_email) = gone.email THEN NULL ELSE u.public_email END,
      commit_email = CASE WHEN lower(u.commit_email) = gone.email THEN NULL ELSE u.commit_email END
    FROM gone WHERE u.id = gone.user_id`);
}
export type { User };
