import { and, eq, sql, type SQL, type WithSubquery } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { epics, notes, snippets, users, type Epic, type Note, type User } from "../../../db/schema";
import { allowed, allowedOnGroup, type GroupWithAccess, type ProjectWithAccess } from "../../kernel/abilities";
import { Access } from "../../kernel/access";
import type { Executor } from "../../kernel/db";
import type { Actor, Ctx } from "../../kernel/env";
import { badRequest, notFound, recordNotFound } from "../../kernel/errors";
import { canReadEpic, canReadIssue, canReadMergeRequest, canReadSnippet } from "./policy";
import { findGroup, findProject } from "../../kernel/lookup";
import { loadIssue, loadMergeRequest } from "./find";
import { repoOf, resolveRevisions } from "../git";
import { isRowId, parseDateTime } from "../../kernel/params";
import type { Noteable, NoteableType, NoteRow, NoteUser } from "../../entities/notes";

/**
 * What notes, discussions and award emoji share (lib/api/helpers/notes_helpers.rb, NotesFinder,
 * app/policies/note_policy.rb, project_snippet_policy.rb, ee epic_policy.rb): the targets of notes
 * ("noteables": issues, merge requests, project snippets, epics, commits) loaded with what their read rules
 * need, the note read and write rules, and the note select with its authors.
 */

export type { Noteable, NoteableType, NoteRow, NoteUser };

/** A noteable that is a row (what loadNoteable and findNoteable find). */
export type RowNoteable = Noteable & { type: NoteableType };

export type NoteableContainer = { project: ProjectWithAccess } | { group: GroupWithAccess };


/** `key` is the iid for issues and merge requests, the id for snippets and (global) epics. Null when missing. */
export async function loadNoteable(c: Ctx, container: NoteableContainer, type: NoteableType, key: number): Promise<RowNoteable | null> {
  if (!isRowId(key)) return null;
  const db = c.var.db();
  const actor = c.var.actor;
  if ("group" in container) {
    if (type !== "Epic") return null;
    const [epic] = await db.select().from(epics).where(and(eq(epics.groupId, container.group.id), eq(epics.id, key))).limit(1);
    return epic ? epicNoteable(actor, container.group, epic) : null;
  }
  const project = container.project;
  const base = { project, group: null };
  if (type === "Issue") {
    const issue = await loadIssue(db, project.id, key);
    if (!issue) return null;
    return {
      ...base,
      type,
      id: issue.id,
      iid: issue.iid,
      authorId: issue.authorId,
      assigneeIds: issue.assigneeIds,
      confidential: issue.confidential,
      discussionLocked: !!issue.discussionLocked,
      readable: canReadIssue(actor, project, issue),
    };
  }
  if (type === "MergeRequest") {
    const mr = await loadMergeRequest(db, project.id, key);
    if (!mr) return null;
    return {
      ...base,
      type,
      id: mr.id,
      iid: mr.iid,
      authorId: mr.authorId,
      assigneeIds: mr.assigneeIds,
      confidential: false,
      discussionLocked: !!mr.discussionLocked,
      readable: canReadMergeRequest(actor, project, mr),
    };
  }
  if (type === "Snippet") {
    const [snippet] = await db.select().from(snippets).where(and(eq(snippets.projectId, project.id), eq(snippets.id, key))).limit(1);
    if (!snippet) return null;
    return {
      ...base,
      type,
      id: snippet.id,
      iid: null,
      authorId: snippet.authorId,
      assigneeIds: [],
      confidential: false,
      discussionLocked: false,
      readable: canReadSnippet(actor, project, snippet),
    };
  }
  return null;
}

function epicNoteable(actor: Actor | null, group: GroupWithAccess, epic: Epic): RowNoteable {
  return {
    type: "Epic",
    id: epic.id,
    iid: epic.iid,
    authorId: epic.authorId,
    assigneeIds: [],
    confidential: epic.confidential,
    discussionLocked: false,
    project: null,
    group,
    readable: canReadEpic(actor, group, epic),
  };
}

// ---------------------------------------------------------------------------------------------
// Note rules (app/policies/note_policy.rb as of 15.4, with IssuablePolicy's `locked` rule)

function containerLevel(n: Noteable): number {
  return n.project?.accessLevel ?? n.group?.accessLevel ?? 0;
}

/** A member (guest and up) of the noteable's project or group, or an admin. */
function isMember(actor: Actor | null, n: Noteable): boolean {
  return !!actor && (actor.isAdmin || containerLevel(n) >= Access.GUEST);
}

/** `can_read_confidential` of NotePolicy (15.4): reporters and up, the noteable's author and assignees, admins. */
export function canReadConfidentialNotes(actor: Actor | null, n: Noteable): boolean {
  if (!actor) return false;
  if (actor.isAdmin || containerLevel(n) >= Access.REPORTER) return true;
  return n.authorId === actor.user.id || n.assigneeIds.includes(actor.user.id);
}

/** `read_note`: the noteable is readable, and a confidential note needs `can_read_confidential`. */
export function canReadNote(actor: Actor | null, n: Noteable, note: Pick<Note, "confidential">): boolean {
  return n.readable && (!note.confidential || canReadConfidentialNotes(actor, n));
}

/**
 * `create_note` on the noteable; a locked discussion only for members (IssuablePolicy `locked`).
 * A commit takes what its comments take (POST …/commits/:sha/comments): a signed-in caller who may
 * read the repository.
 */
export function canCreateNote(actor: Actor | null, n: Noteable): boolean {
  if (!actor || !n.readable) return false;
  if (n.type === "Commit") return true;
  if (n.discussionLocked && !isMember(actor, n)) return false;
  return n.project ? allowed(actor, "create_note", n.project) : allowedOnGroup(actor, "create_note", n.group!);
}

/**
 * `admin_note` (update, delete): never on system notes (`~editable`), nor when the note is unreadable;
 * the author always, else the container's `admin_note` (maintainers).
 */
export function canAdminNote(actor: Actor | null, n: Noteable, note: Pick<Note, "system" | "confidential" | "authorId">): boolean {
  if (!actor || note.system || !canReadNote(actor, n, note)) return false;
  if (n.discussionLocked && !isMember(actor, n)) return false;
  if (note.authorId === actor.user.id) return true;
  return n.project ? allowed(actor, "admin_note", n.project) : allowedOnGroup(actor, "admin_note", n.group!);
}

/** `set_note_created_at`: admins and owners of the project or group. */
export function canSetNoteCreatedAt(actor: Actor | null, n: Noteable): boolean {
  return n.project ? allowed(actor, "set_note_created_at", n.project) : allowedOnGroup(actor, "set_note_created_at", n.group!);
}

/** `award_emoji` on a readable noteable (IssuablePolicy's `locked` rule applies). */
export function canAwardEmoji(actor: Actor | null, n: Noteable): boolean {
  if (!actor || !n.readable) return false;
  if (n.discussionLocked && !isMember(actor, n)) return false;
  return n.project ? allowed(actor, "award_emoji", n.project) : allowedOnGroup(actor, "read_epic", n.group!);
}

// ---------------------------------------------------------------------------------------------
// Notes with their authors

const resolver = alias(users, "resolver");

const userColumns = (u: typeof users | typeof resolver) => ({
  id: u.id,
  username: u.username,
  name: u.name,
  state: u.state,
  avatarUrl: u.avatarUrl,
  email: u.email,
});

/** `SELECT notes + author + resolver`, optionally after CTEs: domains add their WHERE, ORDER and LIMIT. */
export function selectNotes(db: Executor, ...ctes: WithSubquery[]) {
  return (ctes.length ? db.with(...ctes) : db)
    .select({ note: notes, author: userColumns(users), resolvedBy: userColumns(resolver) })
    .from(notes)
    .leftJoin(users, eq(users.id, notes.authorId))
    .leftJoin(resolver, eq(resolver.id, notes.resolvedById));
}

type MaybeUser = { [K in keyof NoteUser]: NoteUser[K] | null } | null;

/** A joined user is null when the left join found nobody (a deleted author, an unresolved note). */
function joinedUser(u: MaybeUser): NoteUser | null {
  return u && u.id !== null ? (u as NoteUser) : null;
}

export function noteRow(r: { note: Note; author: MaybeUser; resolvedBy: MaybeUser }): NoteRow {
  return Object.assign({}, r.note, { author: joinedUser(r.author), resolvedBy: joinedUser(r.resolvedBy) });
}

/** The noteable's notes (every type, the caller filters); a commit's by project and `commit_id` (Commit#notes). */
export function onNoteable(n: Noteable): SQL {
  if (n.type === "Commit") return and(eq(notes.projectId, n.project!.id), eq(notes.commitId, n.commitId!), eq(notes.noteableType, "Commit"))!;
  return and(eq(notes.noteableType, n.type), eq(notes.noteableId, n.id))!;
}

/** `noteable.notes.find(note_id)`: null when missing or not this noteable's. */
export async function findNote(db: Executor, n: Noteable, noteId: number): Promise<NoteRow | null> {
  if (!isRowId(noteId)) return null;
  const [row] = await selectNotes(db)
    .where(and(onNoteable(n), eq(notes.id, noteId)))
    .limit(1);
  return row ? noteRow(row) : null;
}

/** The user who writes, as the entity shows them (no query: the actor is loaded). */
export function noteUser(user: User): NoteUser {
  return { id: user.id, username: user.username, name: user.name, state: user.state, avatarUrl: user.avatarUrl, email: user.email };
}

/**
 * `find_noteable` (lib/api/helpers/notes_helpers.rb): the project (or group, for epics) as its lookup
 * answers, then the noteable through its finder, which raises RecordNotFound (`404 Not found`) for a
 * missing one and for one the caller may not read.
 */
export async function findNoteable(c: Ctx, type: NoteableType, containerId: string, key: number): Promise<RowNoteable> {
  const container: NoteableContainer =
    type === "Epic" ? { group: await findGroup(c, containerId) } : { project: await findProject(c, containerId) };
  const n = await loadNoteable(c, container, type, key);
  if (!n || !n.readable) throw recordNotFound();
  return n;
}

/**
 * `find_noteable(Commit, sha)`: NotesFinder's `project.commit(sha)` (a sha, branch or tag name) in a
 * project the caller finds; a missing commit, or a repository the caller may not read
 * (`download_code`, as the commits API asks), is `not_found!("Commit")`: `404 Commit Not Found`.
 */
export async function findCommitNoteable(c: Ctx, containerId: string, sha: string): Promise<Noteable> {
  const project = await findProject(c, containerId);
  if (!allowed(c.var.actor, "download_code", project)) throw notFound("Commit");
  const oid = (await resolveRevisions(c.var.db(), repoOf(project), [sha])).get(sha);
  if (!oid) throw notFound("Commit");
  return {
    type: "Commit",
    id: 0,
    commitId: oid,
    iid: null,
    authorId: null,
    assigneeIds: [],
    confidential: false,
    discussionLocked: false,
    project,
    group: null,
    readable: true,
  };
}

/** The largest note body (Note `validates :note, length: { maximum: 1_000_000 }`). */
export const NOTE_MAX_LENGTH = 1_000_000;

/**
 * Note validations on create and update, rendered as the API renders them:
 * `bad_request!("Note #{note.errors.messages}")` (lib/api/helpers/notes_helpers.rb).
 */
export function checkNoteBody(body: string): void {
  if (body.trim() === "") throw noteInvalid("note", "can't be blank");
  // Ruby counts characters (code points), not UTF-16 units.
  if (body.length > NOTE_MAX_LENGTH && [...body].length > NOTE_MAX_LENGTH)
    throw noteInvalid("note", `is too long (maximum is ${NOTE_MAX_LENGTH} characters)`);
}

/** `bad_request!("Note #{note.errors.messages}")`: `400 Bad request - Note {:note=>["…"], …}` (Ruby's Hash#inspect). */
export function noteErrors(errors: Record<string, string[]>) {
  const inspect = Object.entries(errors)
    .map(([attribute, messages]) => `:${attribute}=>[${messages.map((m) => JSON.stringify(m)).join(", ")}]`)
    .join(", ");
  return badRequest(`Note {${inspect}}`);
}

/** The same for one attribute and one message. */
export function noteInvalid(attribute: string, message: string) {
  return noteErrors({ [attribute]: [message] });
}

/**
 * The `created_at` a note gets: the parsed value when the caller may set it (`set_note_created_at`),
 * else null (now). GitLab drops it silently otherwise, and an unparsable value becomes nil; so does a
 * day that does not exist (`2020-02-30`) or an instant outside years 1–9999 (`+275760-09-13`), which
 * Postgres would refuse.
 */
export function noteCreatedAt(actor: Actor | null, n: Noteable, value: string | undefined): Date | null {
  if (value === undefined || !canSetNoteCreatedAt(actor, n)) return null;
  return parseDateTime(value);
}
