import { and, asc, eq, sql } from "drizzle-orm";
import { awardEmoji, users, type AwardEmoji } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Awardable } from "../shared/issuables/award_writes";
import { cappedCount, type Page } from "../kernel/pagination";
import type { AwardRow } from "../entities/award_emoji";
import { isRowId } from "../kernel/params";

const onAwardable = (a: Awardable) => and(eq(awardEmoji.awardableType, a.type), eq(awardEmoji.awardableId, a.id));

const selectAwards = (db: Executor) =>
  db
    .select({
      award: awardEmoji,
      user: { id: users.id, username: users.username, name: users.name, state: users.state, avatarUrl: users.avatarUrl, email: users.email },
    })
    .from(awardEmoji)
    .innerJoin(users, eq(users.id, awardEmoji.userId));

const toRow = (r: { award: AwardEmoji; user: AwardRow["user"] }): AwardRow => Object.assign({}, r.award, { user: r.user });

/** `awardable.award_emoji` (ordered by id, users preloaded), paginated. */
export async function listAwards(db: Executor, a: Awardable, page: Page): Promise<{ rows: AwardRow[]; total: number }> {
  const rows = await selectAwards(db).where(onAwardable(a)).orderBy(asc(awardEmoji.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(awardEmoji).where(onAwardable(a)), page);
  return { rows: rows.map(toRow), total };
}

/** `awardable.award_emoji.find(award_id)`: null when missing or another awardable's. */
export async function findAward(db: Executor, a: Awardable, awardId: number): Promise<AwardRow | null> {
  if (!isRowId(awardId)) return null;
  const [row] = await selectAwards(db)
    .where(and(onAwardable(a), eq(awardEmoji.id, awardId)))
    .limit(1);
  return row ? toRow(row) : null;
}
