import { sql, type SQL } from "drizzle-orm";
import { notes, type Note } from "../../../db/schema";
import { Access } from "../../kernel/access";
import type { Executor } from "../../kernel/db";
import type { Actor, Ctx } from "../../kernel/env";
import { checkUnmodifiedSince, forbidden, recordNotFound } from "../../kernel/errors";
import { directlyAddressedUsernames, mentionedUsernames } from "../../entities/mentions";
import { canAdminNote, findNote, type Noteable, type NoteableType } from "./noteables";
import { insertTodosSql, resolveTodosSql, TodoAction } from "./todos";

/**
 * The writes of notes (the notes domain owns them; discussions and quick actions call them), each ONE statement (data-modifying CTEs, atomic like a
 * transaction and without BEGIN/COMMIT round trips), with their side effects:
 * - Notes::CreateService: the note; the noteable's `updated_at` (Note#touch_noteable) and, for
 *   issues and merge requests, `user_notes_count` (non-system notes); TodoService#new_note: the
 *   author's pending to-dos on the target are done, and `directly_addressed` / `mentioned` to-dos for
 *   the users the note names who may read it (one pending to-do per user and target, as GitLab's
 *   `pending_todos` exclusion does; none for snippet notes, `Note#can_create_todo?`).
 * - Notes::DestroyService: the note, its award emoji (polymorphic, no foreign key) and the counter.
 * - Project import (`insertNotesInBulk`): restored notes as they were, no side effects.
 * System notes are written by `shared/issuables/system_notes.ts` (a CTE inside the issuable's own write).
 */

/** Tables whose rows hold each noteable. */
const TABLE: Record<NoteableType, string> = { Issue: "issues", MergeRequest: "merge_requests", Snippet: "snippets", Epic: "epics" };
/** Noteables with `user_notes_count`, `upvotes` and `downvotes` columns. */
const COUNTED = new Set<Noteable["type"]>(["Issue", "MergeRequest"]);

const ident = (name: string) => sql.identifier(name);

/** Raw `notes` rows (snake_case, timestamps as text) as the schema's Note. */
function noteFrom(r: Record<string, unknown>): Note {
  const time = (v: unknown) => (v === null || v === undefined ? null : new Date(String(v)));
  return {
    id: Number(r.id),
    noteableType: String(r.noteable_type),
    noteableId: r.noteable_id === null ? null : Number(r.noteable_id),
    projectId: r.project_id === null ? null : Number(r.project_id),
    authorId: r.author_id === null ? null : Number(r.author_id),
    note: String(r.note),
    system: Boolean(r.system),
    confidential: Boolean(r.confidential),
    type: r.type === null ? null : String(r.type),
    discussionId: String(r.discussion_id),
    resolvable: Boolean(r.resolvable),
    resolvedAt: time(r.resolved_at),
    resolvedById: r.resolved_by_id === null ? null : Number(r.resolved_by_id),
    updatedById: r.updated_by_id === null ? null : Number(r.updated_by_id),
    commitId: r.commit_id === null || r.commit_id === undefined ? null : String(r.commit_id),
    lineCode: r.line_code === null || r.line_code === undefined ? null : String(r.line_code),
    createdAt: time(r.created_at)!,
    updatedAt: time(r.updated_at)!,
  };
}

/**
 * WHERE condition on `users u` for "may read this note on this noteable" (TodoService
 * `reject_users_without_access`): the project (issues, merge requests) or group (epics) is readable
 * by the user, and a confidential issue, epic or note needs reporter access, or being the noteable's
 * author or assignee (issues).
 */
function mayRead(n: Noteable, confidentialNote: boolean): SQL {
  const confidential = n.confidential || confidentialNote;
  const authorAndAssignees = [n.authorId ?? 0, ...n.assigneeIds];
  if (n.project) {
    const level = sql`GREATEST(
      COALESCE((SELECT max(m.access_level) FROM members m JOIN projects p ON p.id = ${n.project.id} JOIN namespaces ns ON ns.id = p.namespace_id
        WHERE m.user_id = u.id AND (m.expires_at IS NULL OR m.expires_at > current_date)
          AND ((m.source_type = 'Project' AND m.source_id = p.id) OR (m.source_type = 'Namespace' AND m.source_id = ANY(ns.traversal_ids)))), 0),
      COALESCE((SELECT max(LEAST(m.access_level, l.group_access)) FROM project_group_links l
        JOIN namespaces g ON g.id = l.group_id
        JOIN members m ON m.source_type = 'Namespace' AND m.source_id = ANY(g.traversal_ids) AND m.user_id = u.id
          AND (m.expires_at IS NULL OR m.expires_at > current_date)
        WHERE l.project_id = ${n.project.id} AND (l.expires_at IS NULL OR l.expires_at > current_date)), 0))`;
    const visibility = n.project.visibilityLevel;
    const readsProject = sql`(u.admin OR ${level} >= ${Access.GUEST} OR ${visibility} = 20 OR (${visibility} = 10 AND NOT u.external))`;
    if (!confidential) return readsProject;
    return sql`(${readsProject} AND (u.admin OR ${level} >= ${Access.REPORTER} OR u.id = ANY(${sql.param(authorAndAssignees)}::int[])))`;
  }
  const group = n.group!;
  const level = sql`COALESCE((SELECT max(m.access_level) FROM members m WHERE m.user_id = u.id AND m.source_type = 'Namespace'
    AND m.source_id = ANY(${sql.param(group.traversalIds)}::int[]) AND (m.expires_at IS NULL OR m.expires_at > current_date)), 0)`;
  const visibility = group.visibilityLevel;
  const readsGroup = sql`(u.admin OR ${level} >= ${Access.MINIMAL_ACCESS} OR ${visibility} = 20 OR (${visibility} = 10 AND NOT u.external))`;
  if (!confidential) return readsGroup;
  return sql`(${readsGroup} AND (u.admin OR ${level} >= ${Access.REPORTER}))`;
}

/** The CTEs that create mention to-dos for the note of CTE `source` and finish the author's own. */
function todoCtes(n: Noteable, authorId: number, body: string, confidentialNote: boolean, skip: string[]): SQL {
  // Differs from GitLab: commit notes make no to-dos yet (see insertCommitNote).
  if (n.type === "Snippet" || n.type === "Commit") return sql``;
  const resolve = sql`, resolved AS (${resolveTodosSql(authorId, n.type, n.id)} RETURNING 1)`;
  const direct = directlyAddressedUsernames(body).filter((u) => !skip.includes(u));
  const all = mentionedUsernames(body).filter((u) => !skip.includes(u));
  if (all.length === 0) return resolve;
  const created = insertTodosSql(
    {
      from: sql`mentioned m CROSS JOIN source s`,
      userId: sql`m.id`,
      action: sql`m.action`,
      targetType: n.type,
      targetId: n.id,
      projectId: n.project?.id ?? null,
      groupId: n.group?.id ?? null,
      authorId,
      noteId: sql`s.id`,
      body: sql`s.note`,
      skipPending: {},
    },
    sql` RETURNING 1`,
  );
  return sql`${resolve}, mentioned AS (
    SELECT u.id, CASE WHEN lower(u.username) = ANY(${sql.param(direct)}::text[]) THEN ${TodoAction.directly_addressed}::int ELSE ${TodoAction.mentioned}::int END AS action
    FROM users u
    WHERE lower(u.username) = ANY(${sql.param(all)}::text[]) AND u.state = 'active' AND ${mayRead(n, confidentialNote)}
  ), created_todos AS (${created})`;
}

export type NewNote = {
  noteable: Noteable;
  authorId: number;
  body: string;
  confidential: boolean;
  /** "DiscussionNote" for a thread note, null for a single comment; "LegacyDiffNote" for replies on a commit's diff line. */
  type: "DiscussionNote" | "LegacyDiffNote" | null;
  /** Commit notes on a diff line (LegacyDiffNote): the line's code. */
  lineCode?: string | null;
  discussionId: string;
  resolvable: boolean;
  /** `created_at` (and `updated_at`) when the caller may set them; else now. */
  createdAt: Date | null;
};

/** Creates a note with its side effects (see the file comment). One statement. */
export async function insertNote(db: Executor, input: NewNote): Promise<Note> {
  const n = input.noteable;
  if (n.type === "Commit")
    return insertCommitNote(db, {
      projectId: n.project!.id,
      commitId: n.commitId!,
      authorId: input.authorId,
      body: input.body,
      type: input.type,
      lineCode: input.lineCode ?? null,
      discussionId: input.discussionId,
      createdAt: input.createdAt,
    });
  return createNote(db, input, input.type, sql``);
}

/**
 * The note of `input` (as `type`) with Notes::CreateService's side effects, after the CTEs `before`
 * (each ending in a comma) in the same statement.
 */
async function createNote(db: Executor, input: NewNote, type: NewNote["type"], before: SQL): Promise<Note> {
  const n = input.noteable;
  const at = input.createdAt ? sql`${input.createdAt.toISOString()}::timestamptz` : sql`now()`;
  const counter = COUNTED.has(n.type) ? sql`, user_notes_count = user_notes_count + 1` : sql``;
  const result = await db.execute(sql`
    WITH ${before}source AS (
      INSERT INTO notes (noteable_type, noteable_id, project_id, author_id, note, system, confidential, type, discussion_id, resolvable, created_at, updated_at)
      VALUES (${n.type}, ${n.id}, ${n.project?.id ?? null}::int, ${input.authorId}, ${input.body}, false, ${input.confidential},
        ${type}, ${input.discussionId}, ${input.resolvable}, ${at}, ${at})
      RETURNING *
    ), touched AS (
      UPDATE ${ident(TABLE[n.type as keyof typeof TABLE])} SET updated_at = now()${counter} WHERE id = ${n.id} RETURNING 1
    )${todoCtes(n, input.authorId, input.body, input.confidential, [])}
    SELECT * FROM source`);
  return noteFrom(result.rows[0] as Record<string, unknown>);
}

/**
 * Notes::UpdateService: the new body, `updated_by`, and TodoService#update_note (to-dos for the users
 * the new body names that the old one did not). One statement.
 */
export async function updateNoteBody(db: Executor, n: Noteable, note: Note, body: string, actorId: number): Promise<Note> {
  const before = mentionedUsernames(note.note);
  const result = await db.execute(sql`
    WITH source AS (
      UPDATE notes SET note = ${body}, updated_at = now(), updated_by_id = ${actorId} WHERE id = ${note.id} RETURNING *
    )${todoCtes(n, actorId, body, note.confidential, before)}
    SELECT * FROM source`);
  return noteFrom(result.rows[0] as Record<string, unknown>);
}

/** Makes the first note of an individual discussion a thread note (IndividualNoteDiscussion#convert_to_discussion!). */
export function convertToThreadSql(n: Noteable, discussionId: string): SQL {
  return sql`UPDATE notes SET type = 'DiscussionNote' WHERE noteable_type = ${n.type} AND noteable_id = ${n.id}
    AND discussion_id = ${discussionId} AND type IS NULL`;
}

/**
 * Replies to a discussion: the reply (a thread note) and, when the discussion was a single comment,
 * its conversion into a thread, in one statement.
 */
export async function insertReply(db: Executor, input: NewNote & { convert: boolean }): Promise<Note> {
  // Commits are not replyable as single comments (Noteable::REPLYABLE_TYPES): nothing to convert.
  if (!input.convert || input.noteable.type === "Commit") return insertNote(db, input);
  return createNote(db, input, "DiscussionNote", sql`converted AS (${convertToThreadSql(input.noteable, input.discussionId)} RETURNING 1), `);
}

/**
 * Notes::CreateService for a comment on a commit (`POST …/repository/commits/:sha/comments`):
 * `noteable_type` "Commit", no `noteable_id`, the commit's id in `commit_id`; a comment on a diff
 * line is a LegacyDiffNote with its `line_code`. The discussions API writes through here too (via
 * insertNote): a new thread is a DiscussionNote, a reply takes its discussion's type and line code
 * (Discussion#reply_attributes). One statement.
 * Differs from GitLab: no mention to-dos for commit notes (TodoService#new_note would add them).
 */
export async function insertCommitNote(
  db: Executor,
  input: {
    projectId: number;
    commitId: string;
    authorId: number;
    body: string;
    /** Defaults to LegacyDiffNote with a line code, else a single comment (null). */
    type?: "DiscussionNote" | "LegacyDiffNote" | null;
    lineCode: string | null;
    discussionId: string;
    createdAt?: Date | null;
  },
): Promise<Note> {
  const type = input.type !== undefined ? input.type : input.lineCode === null ? null : "LegacyDiffNote";
  const at = input.createdAt ? sql`${input.createdAt.toISOString()}::timestamptz` : sql`now()`;
  const result = await db.execute(sql`
    INSERT INTO notes (noteable_type, noteable_id, project_id, author_id, note, system, confidential, type, discussion_id, resolvable, commit_id, line_code, created_at, updated_at)
    VALUES ('Commit', NULL, ${input.projectId}, ${input.authorId}, ${input.body}, false, false,
      ${type}, ${input.discussionId}, false, ${input.commitId}, ${input.lineCode}, ${at}, ${at})
    RETURNING *`);
  return noteFrom(result.rows[0] as Record<string, unknown>);
}

/**
 * `delete_note` (lib/api/helpers/notes_helpers.rb), the notes and the discussions APIs alike: the note
 * among the noteable's (`404 Not found`), `authorize! :admin_note` (403), `destroy_conditionally!`
 * (412 when changed since `If-Unmodified-Since`), then Notes::DestroyService; 204.
 */
export async function destroyNote(c: Ctx, actor: Actor, n: Noteable, noteId: number): Promise<Response> {
  const found = await findNote(c.var.db(), n, noteId);
  if (!found) throw recordNotFound();
  if (!canAdminNote(actor, n, found)) throw forbidden();
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), found.updatedAt);
  await deleteNote(c.var.db(), n, found);
  return c.body(null, 204);
}

/** Notes::DestroyService: the note, its award emoji and (user notes) the noteable's counter. One statement. */
export async function deleteNote(db: Executor, n: Noteable, note: Note): Promise<void> {
  const counter = COUNTED.has(n.type) && !note.system
    ? sql`, counted AS (UPDATE ${ident(TABLE[n.type as keyof typeof TABLE])} SET user_notes_count = GREATEST(user_notes_count - 1, 0)
        WHERE id = ${n.id} AND EXISTS (SELECT 1 FROM deleted) RETURNING 1)`
    : sql``;
  await db.execute(sql`
    WITH deleted AS (DELETE FROM notes WHERE id = ${note.id} RETURNING id),
    awards AS (DELETE FROM award_emoji WHERE awardable_type = 'Note' AND awardable_id = ${note.id} RETURNING 1)${counter}
    SELECT count(*)::int AS n FROM deleted`);
}

/**
 * Notes::CopyService (issue move, and clone `with_notes`): every note of issue `fromId` (user and
 * system notes, their authors, types and times kept) again on issue `toId` in project `toProjectId`,
 * each old discussion id replaced by its new one from `discussionIds` (made by `newDiscussionId`), and
 * the new issue's `user_notes_count`. One statement. Differs from GitLab: note bodies are copied as
 * written (GitLab rewrites references and upload links for the new project); award emoji on notes are
 * not copied.
 */
export async function copyIssueNotes(db: Executor, fromId: number, toId: number, toProjectId: number, discussionIds: Map<string, string>): Promise<void> {
  const old = [...discussionIds.keys()];
  const renamed = old.map((id) => discussionIds.get(id)!);
  await db.execute(sql`
    WITH ids AS (SELECT * FROM unnest(${sql.param(old)}::text[], ${sql.param(renamed)}::text[]) AS d(old_id, new_id)),
    copied AS (
      INSERT INTO notes (noteable_type, noteable_id, project_id, author_id, note, system, confidential, type, discussion_id,
        resolvable, resolved_at, resolved_by_id, updated_by_id, created_at, updated_at)
      SELECT 'Issue', ${toId}::int, ${toProjectId}::int, n.author_id, n.note, n.system, n.confidential, n.type, ids.new_id,
        n.resolvable, n.resolved_at, n.resolved_by_id, n.updated_by_id, n.created_at, n.updated_at
      FROM notes n JOIN ids ON ids.old_id = n.discussion_id
      WHERE n.noteable_type = 'Issue' AND n.noteable_id = ${fromId}::int ORDER BY n.id
      RETURNING system
    )
    UPDATE issues SET user_notes_count = (SELECT count(*) FROM copied WHERE NOT system) WHERE id = ${toId}::int`);
}

/** A note restored by an import: the archive's columns, the noteable's already mapped. */
export type RestoredNote = typeof notes.$inferInsert;

/** Rows a statement: keeps a statement's bind parameters (14 a row) under Postgres' 65,535. */
const BULK_ROWS = 500;

/**
 * Project import (Gitlab::ImportExport relation factory): notes written as the archive holds them, in
 * statements of 500 rows. No side effects: the importer recounts `user_notes_count` once at the end
 * (`project_import/queries.ts#recount`), touches nothing and creates no to-dos, as GitLab's import does.
 */
export async function insertNotesInBulk(db: Executor, rows: RestoredNote[]): Promise<void> {
  for (let i = 0; i < rows.length; i += BULK_ROWS) await db.insert(notes).values(rows.slice(i, i + BULK_ROWS));
}
