import { sql } from "drizzle-orm";
import { awardEmoji, type AwardEmoji } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import { DOWNVOTE_NAME, UPVOTE_NAME } from "./emoji";
import { resolveTodosSql } from "./todos";

/**
 * The writes of award emoji (the award_emoji domain owns them; the `/award` quick action of notes calls
 * them), each ONE statement with its side effects: AwardEmojis::AddService / DestroyService /
 * ToggleService, the issue or merge request vote counters, the awarder's to-dos; and the awards a project
 * import restores (`insertAwardsInBulk`).
 */

const ident = (name: string) => sql.identifier(name);

function awardFrom(r: Record<string, unknown>): AwardEmoji {
  return {
    id: Number(r.id),
    name: String(r.name),
    userId: Number(r.user_id),
    awardableType: String(r.awardable_type),
    awardableId: Number(r.awardable_id),
    createdAt: new Date(String(r.created_at)),
    updatedAt: new Date(String(r.updated_at)),
  };
}

export type Awardable = { type: "Issue" | "MergeRequest" | "Snippet" | "Epic" | "Note"; id: number };

function voteColumn(awardable: Awardable, name: string): string | null {
  if (awardable.type !== "Issue" && awardable.type !== "MergeRequest") return null;
  return name === UPVOTE_NAME ? "upvotes" : name === DOWNVOTE_NAME ? "downvotes" : null;
}

/**
 * AwardEmojis::AddService: the award (null when the user already awarded that emoji: the unique
 * index), the vote counter, and TodoService#new_award_emoji (the awarder's pending to-dos on an issue
 * or merge request are done). One statement.
 */
export async function insertAward(db: Executor, awardable: Awardable, name: string, userId: number, todoTarget: Awardable | null): Promise<AwardEmoji | null> {
  const column = voteColumn(awardable, name);
  const votes = column
    ? sql`, votes AS (UPDATE ${ident(awardable.type === "Issue" ? "issues" : "merge_requests")} SET ${ident(column)} = ${ident(column)} + 1
        WHERE id = ${awardable.id} AND EXISTS (SELECT 1 FROM inserted) RETURNING 1)`
    : sql``;
  const todos =
    todoTarget && (todoTarget.type === "Issue" || todoTarget.type === "MergeRequest")
      ? sql`, resolved AS (${resolveTodosSql(userId, todoTarget.type, todoTarget.id, { when: sql`EXISTS (SELECT 1 FROM inserted)` })} RETURNING 1)`
      : sql``;
  const result = await db.execute(sql`
    WITH inserted AS (
      INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id) VALUES (${name}, ${userId}, ${awardable.type}, ${awardable.id})
      ON CONFLICT (awardable_type, awardable_id, user_id, name) DO NOTHING RETURNING *
    )${votes}${todos}
    SELECT * FROM inserted`);
  const row = result.rows[0] as Record<string, unknown> | undefined;
  return row ? awardFrom(row) : null;
}

/** AwardEmojis::DestroyService: the award and the vote counter. One statement. */
export async function deleteAward(db: Executor, awardable: Awardable, award: AwardEmoji): Promise<void> {
  const column = voteColumn(awardable, award.name);
  const votes = column
    ? sql`, votes AS (UPDATE ${ident(awardable.type === "Issue" ? "issues" : "merge_requests")} SET ${ident(column)} = GREATEST(${ident(column)} - 1, 0)
        WHERE id = ${awardable.id} AND EXISTS (SELECT 1 FROM deleted) RETURNING 1)`
    : sql``;
  await db.execute(sql`
    WITH deleted AS (DELETE FROM award_emoji WHERE id = ${award.id} RETURNING id)${votes}
    SELECT count(*)::int AS n FROM deleted`);
}

/**
 * AwardEmojis::ToggleService (the `/award` quick action): removes the user's award of `name` when it
 * exists, else adds it, with the vote counters. One statement; true when the award now exists.
 */
export async function toggleAward(db: Executor, awardable: Awardable, name: string, userId: number): Promise<boolean> {
  const column = voteColumn(awardable, name);
  const votes = column
    ? sql`, votes AS (UPDATE ${ident(awardable.type === "Issue" ? "issues" : "merge_requests")}
        SET ${ident(column)} = GREATEST(${ident(column)} + (SELECT count(*) FROM added) - (SELECT count(*) FROM removed), 0)
        WHERE id = ${awardable.id} RETURNING 1)`
    : sql``;
  const result = await db.execute(sql`
    WITH removed AS (
      DELETE FROM award_emoji WHERE awardable_type = ${awardable.type} AND awardable_id = ${awardable.id}
        AND user_id = ${userId} AND name = ${name} RETURNING id
    ), added AS (
      INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id)
      SELECT ${name}::text, ${userId}::int, ${awardable.type}::text, ${awardable.id}::int WHERE NOT EXISTS (SELECT 1 FROM removed)
      ON CONFLICT (awardable_type, awardable_id, user_id, name) DO NOTHING RETURNING id
    )${votes}
    SELECT (SELECT count(*) FROM added)::int AS added`);
  return Number((result.rows[0] as Record<string, unknown>).added) > 0;
}

/**
 * AwardEmojis::CopyService (issue move and clone): every award of issue `fromId` again on issue `toId`
 * (same users, names and times), and the new issue's vote counters set from what was copied. One statement.
 */
export async function copyIssueAwards(db: Executor, fromId: number, toId: number): Promise<void> {
  await db.execute(sql`
    WITH copied AS (
      INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id, created_at, updated_at)
      SELECT name, user_id, 'Issue', ${toId}::int, created_at, updated_at FROM award_emoji
      WHERE awardable_type = 'Issue' AND awardable_id = ${fromId}::int
      ON CONFLICT DO NOTHING RETURNING name
    )
    UPDATE issues SET upvotes = (SELECT count(*) FROM copied WHERE name = ${UPVOTE_NAME}),
      downvotes = (SELECT count(*) FROM copied WHERE name = ${DOWNVOTE_NAME})
    WHERE id = ${toId}::int`);
}

/** An award restored by an import, its awardable already mapped. */
export type RestoredAward = { name: string; userId: number; awardableType: Awardable["type"]; awardableId: number };

/**
 * Project import: awards as the archive holds them, one statement; an award given twice is kept once (the
 * unique index). No side effects: the importer recounts the votes once at the end (`recount`).
 */
export async function insertAwardsInBulk(db: Executor, rows: RestoredAward[]): Promise<void> {
  if (rows.length) await db.insert(awardEmoji).values(rows).onConflictDoNothing();
}
