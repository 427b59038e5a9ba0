import { and, asc, desc, eq, sql, type SQL } from "drizzle-orm";
import { projectTopics, topics, type Topic } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { fuzzySearch } from "../kernel/fuzzy_search";
import { pageIdsWithCount, type Page } from "../kernel/pagination";
import type { TopicFilters } from "./params";

export type { Topic };

/**
 * Projects::TopicsFinder: `search` matches the name (Gitlab::SQL::Pattern), `without_projects` keeps
 * topics no project has; ordered by `non_private_projects_count` (most used first), then id.
 * Differs from GitLab: with a search GitLab ranks by pg_trgm similarity to the name; here an exact
 * (case-insensitive) name comes first, then the same order as without a search.
 */
export async function listTopics(db: Executor, f: TopicFilters, page: Page): Promise<{ rows: Topic[]; total: number }> {
  const where: SQL[] = [];
  const match = fuzzySearch([topics.name], f.search);
  if (match) where.push(match);
  if (f.without_projects) where.push(eq(topics.totalProjectsCount, 0));
  const filtered = db.select({ id: topics.id }).from(topics).where(and(...where));
  const exact = f.search?.trim() ? [sql`(lower(${topics.name}) = lower(${f.search.trim()})) DESC`] : [];
  const ordered = db
    .select({ id: topics.id })
    .from(topics)
    .where(and(...where))
    .orderBy(...exact, desc(topics.nonPrivateProjectsCount), asc(topics.id))
    .limit(page.limit)
    .offset(page.offset);
  const { ids, total } = await pageIdsWithCount(db, filtered, ordered, page);
  if (ids.length === 0) return { rows: [], total };
  const rows = await db.select().from(topics).where(sql`${topics.id} = ANY(${sql.param(ids)}::int[])`);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return { rows: ids.map((id) => byId.get(id)!).filter(Boolean), total };
}

export async function findTopic(db: Executor, id: number): Promise<Topic | null> {
  const [row] = await db.select().from(topics).where(eq(topics.id, id));
  return row ?? null;
}

/** Whether another topic has this name, case-insensitively (`validates :name, uniqueness: { case_sensitive: false }`). */
export async function nameTaken(db: Executor, name: string, exceptId: number | null): Promise<boolean> {
  const rows = await db
    .select({ id: topics.id })
    .from(topics)
    .where(and(sql`lower(${topics.name}) = lower(${name})`, exceptId === null ? undefined : sql`${topics.id} <> ${exceptId}`))
    .limit(1);
  return rows.length > 0;
}

export async function insertTopic(db: Executor, values: { name: string; title: string; description: string | null }): Promise<Topic> {
  const [row] = await db.insert(topics).values(values).returning();
  return row;
}

export type TopicChanges = Partial<Pick<Topic, "name" | "title" | "description">>;

/** A rename reaches the projects' `tag_list` through the `topics_renamed` trigger (migration 0043). */
export async function updateTopic(db: Executor, id: number, changes: TopicChanges): Promise<Topic | null> {
  const [row] = await db.update(topics).set({ ...changes, updatedAt: sql`now()` }).where(eq(topics.id, id)).returning();
  return row ?? null;
}

/** The topic and (by cascade) its project rows; the triggers take it out of the projects' `tag_list`. */
export async function deleteTopic(db: Executor, id: number): Promise<void> {
  await db.delete(topics).where(eq(topics.id, id));
}

/**
 * Topics::MergeService in one statement: the source's projects that already have the target lose the
 * source, the others move to the target (keeping their place in each project's order), and the source is
 * deleted; the `project_topics` triggers recount the target and rewrite the projects' `tag_list`.
 */
export async function mergeTopics(db: Executor, sourceId: number, targetId: number): Promise<Topic | null> {
  await db.execute(sql`WITH dropped AS (
      DELETE FROM ${projectTopics} pt WHERE pt.topic_id = ${sourceId}
        AND pt.project_id IN (SELECT t.project_id FROM ${projectTopics} t WHERE t.topic_id = ${targetId})
      RETURNING pt.id
    ), moved AS (
      UPDATE ${projectTopics} pt SET topic_id = ${targetId}, updated_at = now()
      WHERE pt.topic_id = ${sourceId} AND pt.id NOT IN (SELECT id FROM dropped)
      RETURNING pt.id
    )
    SELECT (SELECT count(*) FROM dropped) + (SELECT count(*) FROM moved) AS n`);
  await db.delete(topics).where(eq(topics.id, sourceId));
  return findTopic(db, targetId);
}
