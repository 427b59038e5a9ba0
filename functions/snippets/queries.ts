import { and, desc, eq, sql } from "drizzle-orm";
import { snippets, users, type Snippet } from "../../db/schema";
import type { ProjectWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { snippetIsVisible } from "../shared/issuables/policy";
import { cappedCount, type Page } from "../kernel/pagination";
import type { SnippetRow } from "./entities";

const selectSnippets = (db: Executor) =>
  db
    .select({
      snippet: snippets,
      author: { id: users.id, username: users.username, name: users.name, state: users.state, avatarUrl: users.avatarUrl, email: users.email },
    })
    .from(snippets)
    .leftJoin(users, eq(users.id, snippets.authorId));

type Selected = Awaited<ReturnType<ReturnType<typeof selectSnippets>["execute"]>>[number];

function toRow(r: Selected, project: ProjectWithAccess): SnippetRow {
  const author = r.author && r.author.id !== null ? (r.author as SnippetRow["author"]) : null;
  return Object.assign({}, r.snippet, { author, projectFullPath: project.fullPath });
}

/** SnippetsFinder for one project (Snippet.for_project_with_user), newest first, paginated. */
export async function listSnippets(db: Executor, project: ProjectWithAccess, actor: Actor | null, page: Page): Promise<{ rows: SnippetRow[]; total: number }> {
  const where = and(eq(snippets.projectId, project.id), snippetIsVisible(actor, project));
  const rows = await selectSnippets(db).where(where).orderBy(desc(snippets.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(snippets).where(where), page);
  return { rows: rows.map((r) => toRow(r, project)), total };
}

/** One snippet of the project that the caller may see; null otherwise. */
export async function findSnippet(db: Executor, project: ProjectWithAccess, actor: Actor | null, id: number): Promise<SnippetRow | null> {
  if (id < 1 || id > 2147483647) return null;
  const [row] = await selectSnippets(db)
    .where(and(eq(snippets.projectId, project.id), eq(snippets.id, id), snippetIsVisible(actor, project)))
    .limit(1);
  return row ? toRow(row, project) : null;
}

export async function insertSnippet(db: Executor, values: typeof snippets.$inferInsert): Promise<Snippet> {
  const [row] = await db.insert(snippets).values(values).returning();
  return row;
}

/**
 * Snippets::DestroyService: the snippet, its notes, and the award emoji of both (polymorphic rows
 * without foreign keys). One statement.
 */
export async function deleteSnippet(db: Executor, snippetId: number): Promise<void> {
  await db.execute(sql`
    WITH deleted AS (DELETE FROM snippets WHERE id = ${snippetId} RETURNING id),
    gone_notes AS (DELETE FROM notes WHERE noteable_type = 'Snippet' AND noteable_id = ${snippetId} RETURNING id),
    gone_awards AS (
      DELETE FROM award_emoji WHERE (awardable_type = 'Snippet' AND awardable_id = ${snippetId})
        OR (awardable_type = 'Note' AND awardable_id IN (SELECT id FROM gone_notes)) RETURNING 1)
    SELECT count(*)::int AS n FROM deleted`);
}
