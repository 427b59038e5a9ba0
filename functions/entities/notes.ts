import type { Noteable, NoteRow } from "../shared/issuables/noteables";
import { isoTime, type PresentContext } from "../kernel/present";
import { userBasic } from "./users";

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
export function note(row: PresentedNote, ctx: NoteContext) {
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
export function noteCommands(row: { commandsChanges: Record<string, string>; summary: string[] }) {
  return { commands_changes: row.commandsChanges, summary: row.summary };
}
