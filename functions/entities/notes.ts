import * as z from "zod";
import type { Note as NoteModel, User } from "../../db/schema";
import type { GroupWithAccess, ProjectWithAccess } from "../kernel/abilities";
import { isoTime, type PresentContext } from "../kernel/present";
import { UserBasic, userBasic } from "./users";

// The rows note presenters read; shared/issuables/noteables loads them and holds the read and write rules.

/** The noteables that are rows (issuables and snippets); a Commit is a noteable too, found by sha. */
export type NoteableType = "Issue" | "MergeRequest" | "Snippet" | "Epic";

/** A noteable, whatever its type, with where it lives and whether the actor may read it. */
export type Noteable = {
  type: NoteableType | "Commit";
  /** The noteable's row id; 0 for a commit, which has no row (its notes name it by `commitId`). */
  id: number;
  /** Commits only: the commit's full id, which its notes hold in `commit_id` (their `noteable_id` is null). */
  commitId?: string;
  /** Issue, merge request and epic iid (null for snippets). */
  iid: number | null;
  authorId: number | null;
  assigneeIds: number[];
  confidential: boolean;
  discussionLocked: boolean;
  /** Issues, merge requests and snippets live in a project, epics in a group. */
  project: ProjectWithAccess | null;
  group: GroupWithAccess | null;
  /** The finder's rule for the actor (IssuesFinder, MergeRequestsFinder, SnippetsFinder, EpicsFinder). */
  readable: boolean;
};

/** The user columns `userBasic` reads. */
export type NoteUser = Pick<User, "id" | "username" | "name" | "state" | "avatarUrl" | "email">;
export type NoteRow = NoteModel & { author: NoteUser | null; resolvedBy: NoteUser | null };

export type NoteContext = PresentContext & { noteable: Noteable };

/** Noteable types whose notes show `noteable_iid` (API::Entities::Note::NOTEABLE_TYPES_WITH_IID). */
const WITH_IID = new Set(["Issue", "MergeRequest"]);

/**
 * `resolvable?` (Note, 15.4): thread notes that are not system notes, on noteables that support
 * resolvable notes (merge requests; Noteable::RESOLVABLE_TYPES).
 */
export function isResolvable(row: Pick<NoteRow, "type" | "system" | "noteableType">): boolean {
  return row.type === "DiscussionNote" && !row.system && row.noteableType === "MergeRequest";
}

/** A note as presented, with the changes its quick actions made when it was just created. */
export type PresentedNote = NoteRow & { commandsChanges?: Record<string, string> };

/** API::Entities::Note (lib/api/entities/note.rb). */
export const Note = z
  .object({
    id: z.int(),
    type: z.string().nullable(),
    body: z.string(),
    attachment: z.string().nullable(),
    author: UserBasic.nullable(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    system: z.boolean(),
    noteable_id: z.int().nullable(),
    noteable_type: z.string(),
    resolvable: z.boolean(),
    resolved: z.boolean().optional(),
    resolved_by: UserBasic.nullable().optional(),
    resolved_at: z.string().nullable().optional(),
    confidential: z.boolean(),
    internal: z.boolean(),
    noteable_iid: z.int().nullable(),
    commands_changes: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "Note" });
export function note(row: PresentedNote, ctx: NoteContext): z.output<typeof Note> {
  const resolvable = isResolvable(row);
  return {
    id: row.id,
    type: row.type,
    body: row.note,
    attachment: null,
    author: row.author ? userBasic(row.author, ctx) : null,
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
    system: row.system,
    noteable_id: row.noteableId,
    noteable_type: row.noteableType,
    resolvable,
    ...(resolvable
      ? {
          resolved: row.resolvedAt !== null,
          resolved_by: row.resolvedBy ? userBasic(row.resolvedBy, ctx) : null,
          resolved_at: isoTime(row.resolvedAt),
        }
      : {}),
    confidential: row.confidential,
    // 15.5 renamed confidential notes to internal notes; clients of both names read the same flag.
    internal: row.confidential,
    noteable_iid: WITH_IID.has(row.noteableType) ? ctx.noteable.iid : null,
    commands_changes: row.commandsChanges ?? {},
  };
}

/** API::Entities::NoteCommands: what a note made only of quick actions answers (202). */
export const NoteCommands = z
  .object({ commands_changes: z.record(z.string(), z.unknown()), summary: z.array(z.string()) })
  .meta({ id: "NoteCommands" });
export function noteCommands(row: { commandsChanges: Record<string, string>; summary: string[] }): z.output<typeof NoteCommands> {
  return { commands_changes: row.commandsChanges, summary: row.summary };
}
