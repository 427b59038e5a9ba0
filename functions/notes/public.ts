// The notes domain's public face: the one file another domain may import from it (the layering rule,
// .dependency-cruiser.cjs). The search API (functions/search) finds a project's notes with this domain's query.
export { searchProjectNotes, type NoteSearchRules, type SearchedNoteRow } from "./queries";
