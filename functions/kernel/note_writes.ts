import { sql, type SQL } from "drizzle-orm";
import type { AwardEmoji, Note } from "../../db/schema";
import { Access } from "./access";
import type { Executor } from "./db";
import { DOWNVOTE_NAME, UPVOTE_NAME } from "./emoji";
import { directlyAddressedUsernames, mentionedUsernames, TodoAction } from "./issuables";
import type { Noteable, NoteableType } from "./noteables";

/**
 * The writes of notes and award emoji, each ONE statement (data-modifying CTEs, atomic like a
 * transaction and without BEGIN/COMMIT round trips), with their side effects:
 * - Notes::CreateService: the note; the noteable's `updated_at` (Note#touch_noteable) and, for
 *   issues and merge requests, `user_notes_count` (non-system notes); TodoService#new_note: the
 *   author's pending to-dos on the target are done, and `directly_addressed` / `mentioned` to-dos for
 *   the users the note names who may read it (one pending to-do per user and target, as GitLab's
 *   `pending_todos` exclusion does; none for snippet notes, `Note#can_create_todo?`).
 * - Notes::DestroyService: the note, its award emoji (polymorphic, no foreign key) and the counter.
 * - AwardEmojis::AddService / DestroyService: the award and the issue or merge request vote counters.
 */

/** Tables whose rows hold each noteable. */
const TABLE: Record<NoteableType, string> = { Issue: "issues", MergeRequest: "merge_requests", Snippet: "snippets", Epic: "epics" };
/** Noteables with `user_notes_count`, `upvotes` and `downvotes` columns. */
const COUNTED = new Set<NoteableType>(["Issue", "MergeRequest"]);

const ident = (name: string) => sql.identifier(name);

/** Raw `notes` rows (snake_case, timestamps as text) as the schema's Note. */
function noteFrom(r: Record<string, unknown>): Note {
  const time = (v: unknown) => (v === null || v === undefined ? null : new Date(String(v)));
  return {
    id: Number(r.id),
    noteableType: String(r.noteable_type),
    noteableId: Number(r.noteable_id),
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
    createdAt: time(r.created_at)!,
    updatedAt: time(r.updated_at)!,
  };
}

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
  if (n.type === "Snippet") return sql``;
  const resolve = sql`, resolved AS (
    UPDATE todos SET state = 'done', updated_at = now()
    WHERE user_id = ${authorId} AND target_type = ${n.type} AND target_id = ${n.id} AND state = 'pending' RETURNING 1)`;
  const direct = directlyAddressedUsernames(body).filter((u) => !skip.includes(u));
  const all = mentionedUsernames(body).filter((u) => !skip.includes(u));
  if (all.length === 0) return resolve;
  return sql`${resolve}, mentioned AS (
    SELECT u.id, CASE WHEN lower(u.username) = ANY(${sql.param(direct)}::text[]) THEN ${TodoAction.directly_addressed}::int ELSE ${TodoAction.mentioned}::int END AS action
    FROM users u
    WHERE lower(u.username) = ANY(${sql.param(all)}::text[]) AND u.state = 'active' AND ${mayRead(n, confidentialNote)}
      AND NOT EXISTS (SELECT 1 FROM todos t WHERE t.user_id = u.id AND t.target_type = ${n.type} AND t.target_id = ${n.id} AND t.state = 'pending')
  ), created_todos AS (
    INSERT INTO todos (user_id, project_id, group_id, author_id, target_type, target_id, note_id, action, body)
    SELECT m.id, ${n.project?.id ?? null}::int, ${n.group?.id ?? null}::int, ${authorId}::int, ${n.type}::text, ${n.id}::int, s.id, m.action, s.note
    FROM mentioned m CROSS JOIN source s RETURNING 1)`;
}

export type NewNote = {
  noteable: Noteable;
  authorId: number;
  body: string;
  confidential: boolean;
  /** "DiscussionNote" for a thread note, null for a single comment. */
  type: "DiscussionNote" | null;
  discussionId: string;
  resolvable: boolean;
  /** `created_at` (and `updated_at`) when the caller may set them; else now. */
  createdAt: Date | null;
};

/** Creates a note with its side effects (see the file comment). One statement. */
export async function insertNote(db: Executor, input: NewNote): Promise<Note> {
  const n = input.noteable;
  const at = input.createdAt ? sql`${input.createdAt.toISOString()}::timestamptz` : sql`now()`;
  const counter = COUNTED.has(n.type) ? sql`, user_notes_count = user_notes_count + 1` : sql``;
  const result = await db.execute(sql`
    WITH source AS (
      INSERT INTO notes (noteable_type, noteable_id, project_id, author_id, note, system, confidential, type, discussion_id, resolvable, created_at, updated_at)
      VALUES (${n.type}, ${n.id}, ${n.project?.id ?? null}::int, ${input.authorId}, ${input.body}, false, ${input.confidential},
        ${input.type}, ${input.discussionId}, ${input.resolvable}, ${at}, ${at})
      RETURNING *
    ), touched AS (
      UPDATE ${ident(TABLE[n.type])} SET updated_at = now()${counter} WHERE id = ${n.id} RETURNING 1
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
  if (!input.convert) return insertNote(db, input);
  const n = input.noteable;
  const at = input.createdAt ? sql`${input.createdAt.toISOString()}::timestamptz` : sql`now()`;
  const counter = COUNTED.has(n.type) ? sql`, user_notes_count = user_notes_count + 1` : sql``;
  const result = await db.execute(sql`
    WITH converted AS (${convertToThreadSql(n, input.discussionId)} RETURNING 1),
    source AS (
      INSERT INTO notes (noteable_type, noteable_id, project_id, author_id, note, system, confidential, type, discussion_id, resolvable, created_at, updated_at)
      VALUES (${n.type}, ${n.id}, ${n.project?.id ?? null}::int, ${input.authorId}, ${input.body}, false, ${input.confidential},
        'DiscussionNote', ${input.discussionId}, ${input.resolvable}, ${at}, ${at})
      RETURNING *
    ), touched AS (
      UPDATE ${ident(TABLE[n.type])} SET updated_at = now()${counter} WHERE id = ${n.id} RETURNING 1
    )${todoCtes(n, input.authorId, input.body, input.confidential, [])}
    SELECT * FROM source`);
  return noteFrom(result.rows[0] as Record<string, unknown>);
}

/** Notes::DestroyService: the note, its award emoji and (user notes) the noteable's counter. One statement. */
export async function deleteNote(db: Executor, n: Noteable, note: Note): Promise<void> {
  const counter = COUNTED.has(n.type) && !note.system
    ? sql`, counted AS (UPDATE ${ident(TABLE[n.type])} SET user_notes_count = GREATEST(user_notes_count - 1, 0)
        WHERE id = ${n.id} AND EXISTS (SELECT 1 FROM deleted) RETURNING 1)`
    : sql``;
  await db.execute(sql`
    WITH deleted AS (DELETE FROM notes WHERE id = ${note.id} RETURNING id),
    awards AS (DELETE FROM award_emoji WHERE awardable_type = 'Note' AND awardable_id = ${note.id} RETURNING 1)${counter}
    SELECT count(*)::int AS n FROM deleted`);
}

// ---------------------------------------------------------------------------------------------
// Award emoji

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
      ? sql`, resolved AS (UPDATE todos SET state = 'done', updated_at = now() WHERE user_id = ${userId}
          AND target_type = ${todoTarget.type} AND target_id = ${todoTarget.id} AND state = 'pending' AND EXISTS (SELECT 1 FROM inserted) RETURNING 1)`
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
