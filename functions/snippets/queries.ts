import { and, desc, eq, isNull, sql, type SQL } from "drizzle-orm";
import { projects, snippetFiles, snippets, userAgentDetails, users, type Snippet } from "../../db/schema";
import type { ProjectWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { anySnippetIsVisible, snippetIsVisible } from "../shared/issuables/policy";
import { cappedCount, type Page } from "../kernel/pagination";
import { Visibility } from "../kernel/access";
import type { SnippetRow } from "../entities/snippets";
import { isRowId } from "../kernel/params";
import { fuzzySearch, type SearchPage } from "../kernel/fuzzy_search";
import { authorizedProjectIds } from "../kernel/visibility";

export type { SnippetRow };
/** A snippet's files as a map from path to content (what the file actions work on). */
export type SnippetFileMap = Map<string, string>;

/**
 * Snippets with their author, their project's full path and their files' paths in one statement;
 * paths sorted bytewise (COLLATE "C"), as `git ls-files` lists them.
 */
const selectSnippets = (db: Executor) =>
  db
    .select({
      snippet: snippets,
      author: { id: users.id, username: users.username, name: users.name, state: users.state, avatarUrl: users.avatarUrl, email: users.email },
      projectFullPath: projects.fullPath,
      filePaths: sql<string[]>`coalesce((SELECT array_agg(f.path ORDER BY f.path COLLATE "C") FROM ${snippetFiles} f WHERE f.snippet_id = ${snippets.id}), '{}')`,
    })
    .from(snippets)
    .leftJoin(users, eq(users.id, snippets.authorId))
    .leftJoin(projects, eq(projects.id, snippets.projectId));

type Selected = Awaited<ReturnType<ReturnType<typeof selectSnippets>["execute"]>>[number];

function toRow(r: Selected): SnippetRow {
  const author = r.author && r.author.id !== null ? (r.author as SnippetRow["author"]) : null;
  return Object.assign({}, r.snippet, { author, projectFullPath: r.projectFullPath ?? null, filePaths: r.filePaths ?? [] });
}

async function listWhere(db: Executor, where: SQL | undefined, page: Page): Promise<{ rows: SnippetRow[]; total: number }> {
  const rows = await selectSnippets(db).where(where).orderBy(desc(snippets.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(snippets).where(where), page);
  return { rows: rows.map(toRow), total };
}

/** SnippetsFinder for one project (Snippet.for_project_with_user), newest first, paginated. */
export function listSnippets(db: Executor, project: ProjectWithAccess, actor: Actor | null, page: Page) {
  return listWhere(db, and(eq(snippets.projectId, project.id), snippetIsVisible(actor, project)), page);
}

/** `GET /snippets`: the caller's own snippets, personal and of projects, that they may still read. */
export function listAuthoredSnippets(db: Executor, actor: Actor, page: Page) {
  return listWhere(db, and(eq(snippets.authorId, actor.user.id), anySnippetIsVisible(actor)), page);
}

/** `GET /snippets/public`: public personal snippets (SnippetsFinder `only_personal`, no user). */
export function listPublicPersonalSnippets(db: Executor, page: Page) {
  return listWhere(db, and(isNull(snippets.projectId), eq(snippets.visibilityLevel, Visibility.PUBLIC)), page);
}

/** `GET /snippets/all`: every snippet the caller may read (all of them for admins). */
export function listAllSnippets(db: Executor, actor: Actor, page: Page) {
  return listWhere(db, anySnippetIsVisible(actor), page);
}

/** One snippet of the project that the caller may see; null otherwise. */
export async function findSnippet(db: Executor, project: ProjectWithAccess, actor: Actor | null, id: number): Promise<SnippetRow | null> {
  if (!isRowId(id)) return null;
  const [row] = await selectSnippets(db)
    .where(and(eq(snippets.projectId, project.id), eq(snippets.id, id), snippetIsVisible(actor, project)))
    .limit(1);
  return row ? toRow(row) : null;
}

/** One snippet, personal or of a project, that the caller may see (optionally only their own); null otherwise. */
export async function findAnySnippet(db: Executor, actor: Actor | null, id: number, opts: { authoredBy?: number } = {}): Promise<SnippetRow | null> {
  if (!isRowId(id)) return null;
  const own = opts.authoredBy === undefined ? undefined : eq(snippets.authorId, opts.authoredBy);
  const [row] = await selectSnippets(db).where(and(eq(snippets.id, id), own, anySnippetIsVisible(actor))).limit(1);
  return row ? toRow(row) : null;
}

/** Any snippet by id, without a read rule (the admins' `user_agent_detail`). */
export async function snippetExists(db: Executor, id: number): Promise<boolean> {
  if (!isRowId(id)) return false;
  const [row] = await db.select({ id: snippets.id }).from(snippets).where(eq(snippets.id, id)).limit(1);
  return !!row;
}

/** The snippet's files with their content. */
export async function snippetFileMap(db: Executor, snippetId: number): Promise<SnippetFileMap> {
  const rows = await db
    .select({ path: snippetFiles.path, content: snippetFiles.content })
    .from(snippetFiles)
    .where(eq(snippetFiles.snippetId, snippetId));
  return new Map(rows.map((r) => [r.path, r.content]));
}

/** One file's content, or null. */
export async function snippetFileContent(db: Executor, snippetId: number, path: string): Promise<string | null> {
  const [row] = await db
    .select({ content: snippetFiles.content })
    .from(snippetFiles)
    .where(and(eq(snippetFiles.snippetId, snippetId), eq(snippetFiles.path, path)))
    .limit(1);
  return row ? row.content : null;
}

type NewSnippet = Omit<typeof snippets.$inferInsert, "fileName" | "content">;

/**
 * Snippets::CreateService: the snippet, its files and its UserAgentDetail (when the request carried a
 * user agent), in one transaction. `fileName`/`content` mirror the first file, as GitLab's columns do.
 */
export async function insertSnippet(
  db: Executor,
  values: NewSnippet,
  files: SnippetFileMap,
  request: { userAgent: string | null; ipAddress: string },
): Promise<Snippet> {
  const first = firstFile(files);
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(snippets).values({ ...values, fileName: first?.[0] ?? null, content: first?.[1] ?? "" }).returning();
    await tx.insert(snippetFiles).values([...files].map(([path, content]) => ({ snippetId: row.id, path, content })));
    if (request.userAgent)
      await tx.insert(userAgentDetails).values({ subjectType: "Snippet", subjectId: row.id, userAgent: request.userAgent, ipAddress: request.ipAddress });
    return row;
  });
}

/**
 * Snippets::UpdateService: the columns and, when `files` is given, the snippet's whole new file set
 * (rows not in it are deleted), in one transaction. `updated_at` moves.
 */
export async function updateSnippet(
  db: Executor,
  snippetId: number,
  columns: Partial<Pick<Snippet, "title" | "description" | "visibilityLevel">>,
  files: SnippetFileMap | null,
): Promise<void> {
  const first = files ? firstFile(files) : undefined;
  const mirror = files ? { fileName: first?.[0] ?? null, content: first?.[1] ?? "" } : {};
  await db.transaction(async (tx) => {
    await tx.update(snippets).set({ ...columns, ...mirror, updatedAt: new Date() }).where(eq(snippets.id, snippetId));
    if (!files) return;
    await tx.delete(snippetFiles).where(eq(snippetFiles.snippetId, snippetId));
    if (files.size) await tx.insert(snippetFiles).values([...files].map(([path, content]) => ({ snippetId, path, content })));
  });
}

function firstFile(files: SnippetFileMap): [string, string] | undefined {
  return [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))[0];
}

/**
 * Snippets::DestroyService: the snippet (its files by cascade), its notes, and the award emoji of both
 * (polymorphic rows without foreign keys), its user agent detail. One statement.
 */
export async function deleteSnippet(db: Executor, snippetId: number): Promise<void> {
  await db.execute(sql`
    WITH deleted AS (DELETE FROM snippets WHERE id = ${snippetId} RETURNING id),
    gone_notes AS (DELETE FROM notes WHERE noteable_type = 'Snippet' AND noteable_id = ${snippetId} RETURNING id),
    gone_agent AS (DELETE FROM user_agent_details WHERE subject_type = 'Snippet' AND subject_id = ${snippetId} RETURNING 1),
    gone_awards AS (
      DELETE FROM award_emoji WHERE (awardable_type = 'Snippet' AND awardable_id = ${snippetId})
        OR (awardable_type = 'Note' AND awardable_id IN (SELECT id FROM gone_notes)) RETURNING 1)
    SELECT count(*)::int AS n FROM deleted`);
}

/** The UserAgentDetail recorded when the snippet was created. */
export async function findUserAgentDetail(db: Executor, snippetId: number) {
  const [row] = await db
    .select()
    .from(userAgentDetails)
    .where(and(eq(userAgentDetails.subjectType, "Snippet"), eq(userAgentDetails.subjectId, snippetId)))
    .limit(1);
  return row ?? null;
}

/**
 * The search API's `snippet_titles` (Gitlab::SnippetSearchResults: SnippetsFinder with
 * `authorized_and_user_personal`: the caller's own personal snippets and the snippets of projects they are
 * a member of, each still readable by `anySnippetIsVisible`; then `Snippet.search`: title, description
 * and file name), newest first; no count (`limit + 1` rows).
 */
export async function searchSnippets(db: Executor, actor: Actor, query: string, page: Page): Promise<SearchPage<SnippetRow>> {
  const match = fuzzySearch([snippets.title, snippets.description, snippets.fileName], query);
  const mine = sql`((${snippets.projectId} IS NULL AND ${snippets.authorId} = ${actor.user.id})
    OR ${snippets.projectId} IN ${authorizedProjectIds(actor.user.id)})`;
  const rows = await selectSnippets(db)
    .where(and(anySnippetIsVisible(actor), mine, match ?? undefined))
    .orderBy(desc(snippets.id))
    .limit(page.limit + 1)
    .offset(page.offset);
  return { rows: rows.slice(0, page.limit).map(toRow), hasNext: rows.length > page.limit };
}
