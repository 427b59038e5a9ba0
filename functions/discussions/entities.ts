import { note, type NoteContext } from "../notes/entities";
import type { NoteRow } from "../shared/issuables/noteables";

/** A discussion: its id and its readable notes in creation order. */
export type DiscussionRow = { id: string; notes: NoteRow[] };

/**
 * API::Entities::Discussion (lib/api/entities/discussion.rb). A discussion is individual (a single
 * comment, IndividualNoteDiscussion) when its first note is not a thread note.
 */
export function discussion(row: DiscussionRow, ctx: NoteContext) {
  return {
    id: row.id,
    individual_note: row.notes[0]?.type !== "DiscussionNote",
    notes: row.notes.map((n) => note(n, ctx)),
  };
}
