// The notes domain's public face: the one file another domain may import from it (the layering rule,
// .dependency-cruiser.cjs). The search API (functions/search) finds a project's notes with this domain's query.
export { searchProjectNotes, type NoteSearchRules, type SearchedNoteRow } from "./queries";
// The web front (functions/web/) shows an issue's or a merge request's notes with the list query and
// posts a comment through the API's note service.
export { listNotes } from "./queries";
export { ListNotes } from "./params";
export { createNote } from "./services";
