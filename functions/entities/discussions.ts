import * as z from "zod";
import { Note, note, type NoteContext, type NoteRow } from "./notes";

/** A discussion: its id and its readable notes in creation order. */
export type DiscussionRow = { id: string; notes: NoteRow[] };

/**
 * API::Entities::Discussion (lib/api/entities/discussion.rb). A discussion is individual (a single
 * comment, IndividualNoteDiscussion) when its first note is a plain note (no type); a thread
 * (DiscussionNote) and a commit's diff-line discussion (LegacyDiffNote, LegacyDiffDiscussion) are not.
 */
export const Discussion = z.object({ id: z.string(), individual_note: z.boolean(), notes: z.array(Note) }).meta({ id: "Discussion" });
export function discussion(row: DiscussionRow, ctx: NoteContext): z.output<typeof Discussion> {
  return {
    id: row.id,
    individual_note: !row.notes[0]?.type,
    notes: row.notes.map((n) => note(n, ctx)),
  };
}
