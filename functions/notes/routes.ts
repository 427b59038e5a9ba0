import * as z from "zod";
import { AwardEmoji, awardEmoji } from "../entities/award_emoji";
import { requireUser } from "../kernel/auth";
import { forbidden, notFound, recordNotFound } from "../kernel/errors";
import { destroyNote, updateNoteBody } from "../shared/issuables/note_writes";
import { canAdminNote, canCreateNote, canReadConfidentialNotes, canReadNote, checkNoteBody, findNote, findNoteable, noteCreatedAt, noteInvalid, type NoteableType } from "../shared/issuables/noteables";
import { pageOf, paginate } from "../kernel/pagination";
import { p, readParamsWithPath } from "../kernel/params";
import { baseUrl, present } from "../kernel/present";
import { hookEvent } from "../shared/webhooks";
import { checkRateLimit } from "../kernel/rate_limit";
import { router } from "../kernel/router";
import { note, noteCommands, Note } from "../entities/notes";
import { ListNotes } from "./params";
import * as q from "./queries";
import { createNote } from "./services";

/**
 * Notes of issues, project snippets, merge requests and epics (lib/api/notes.rb,
 * lib/api/helpers/notes_helpers.rb), registered once per noteable type as GitLab does. Every endpoint
 * needs a signed-in caller (`before { authenticate! }`), checked before the parameters.
 * Issues and merge requests are addressed by iid, snippets by id, epics by their global id (R4).
 */
export const notesRoutes = router();

const FAMILIES: { base: string; type: NoteableType }[] = [
  { base: "/projects/:id/issues/:noteable_id", type: "Issue" },
  { base: "/projects/:id/snippets/:noteable_id", type: "Snippet" },
  { base: "/projects/:id/merge_requests/:noteable_id", type: "MergeRequest" },
  { base: "/groups/:id/epics/:noteable_id", type: "Epic" },
];

// GitLab's `desc:` of each parameter (lib/api/notes.rb) describes it in the OpenAPI document.
const noteId = () => p.int().describe("The ID of a note");
const noteableId = () => p.int().describe("The ID of the noteable");
const OneNote = z.object({ note_id: noteId(), noteable_id: noteableId() });
const CreateNote = z.object({
  noteable_id: noteableId(),
  body: p.string().describe("The content of a note"),
  confidential: p.bool().optional().describe("[Deprecated in 15.5] Renamed to internal"),
  internal: p.bool().optional().describe("Internal note flag, default is false"),
  created_at: p.string().optional().describe("The creation date of the note"),
  merge_request_diff_head_sha: p.string().optional().describe("The SHA of the head commit"),
});
/** `body` is optional on issue notes only. */
const UpdateIssueNote = z.object({
  noteable_id: noteableId(),
  note_id: noteId(),
  body: p.nonBlank().optional().describe("The content of a note"),
  confidential: p.bool().optional().describe("[Deprecated in 14.10] No longer allowed to update confidentiality of notes"),
});
const UpdateNote = z.object({
  noteable_id: noteableId(),
  note_id: noteId(),
  body: p.nonBlank().describe("The content of a note"),
  confidential: p.bool().optional().describe("[Deprecated in 14.10] No longer allowed to update confidentiality of notes"),
});

for (const family of FAMILIES) {
  const collection = `${family.base}/notes`;
  const member = `${collection}/:note_id`;

  /** GET /:parent/:id/:noteables/:noteable_id/notes (lib/api/notes.rb) */
  notesRoutes.get(collection, { params: ListNotes, response: [Note] }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, ListNotes);
    const n = await findNoteable(c, family.type, c.req.param("id") ?? "", params.noteable_id);
    const page = pageOf(params);
    const list = await q.listNotes(c.var.db(), n, params, !canReadConfidentialNotes(c.var.actor, n), page);
    paginate(c, page, list.total);
    return present(c, list.rows, note, { noteable: n });
  });

  /** GET /:parent/:id/:noteables/:noteable_id/notes/:note_id (lib/api/notes.rb, `get_note`) */
  notesRoutes.get(member, { params: OneNote, response: Note }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, OneNote);
    const n = await findNoteable(c, family.type, c.req.param("id") ?? "", params.noteable_id);
    const found = await findNote(c.var.db(), n, params.note_id);
    if (!found) throw recordNotFound();
    if (!canReadNote(c.var.actor, n, found)) throw notFound("Note");
    return present(c, found, note, { noteable: n });
  });

  /**
   * POST /:parent/:id/:noteables/:noteable_id/notes (lib/api/notes.rb, `create_note`). An award-only note answers the award (201); a note of quick actions only answers 202 with
   * NoteCommands, which the document lists without its body.
   */
  notesRoutes.post(collection, { params: CreateNote, response: z.union([Note, AwardEmoji]), errors: [202] }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, CreateNote);
    await checkRateLimit(c.var.db(), "notes_create", actor.user.id);
    const n = await findNoteable(c, family.type, c.req.param("id") ?? "", params.noteable_id);
    if (!canCreateNote(actor, n)) throw forbidden();
    checkNoteBody(params.body);
    // `confidential` (15.5: `internal`) is for issue notes, and only for who may read confidential notes.
    const asked = !!(params.internal || params.confidential);
    const confidential = n.type === "Issue" && asked && canReadConfidentialNotes(actor, n);
    const createdAt = noteCreatedAt(actor, n, params.created_at);
    const created = await createNote(c.var.db(), actor, n, { body: params.body, confidential, createdAt });
    if (created.kind === "award") return present(c, created.award, awardEmoji, {}, 201);
    if (created.kind === "commands") return present(c, created, noteCommands, {}, 202);
    if (created.note.projectId !== null && !created.note.system)
      await hookEvent(c.env, baseUrl(c), { kind: "note", projectId: created.note.projectId, id: created.note.id, userId: actor.user.id });
    return present(c, Object.assign(created.note, { commandsChanges: created.commandsChanges }), note, { noteable: n }, 201);
  });

  /** PUT /:parent/:id/:noteables/:noteable_id/notes/:note_id (lib/api/notes.rb, `update_note`) */
  const Update = family.type === "Issue" ? UpdateIssueNote : UpdateNote;
  notesRoutes.put(member, { params: Update, response: Note }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, Update);
    const n = await findNoteable(c, family.type, c.req.param("id") ?? "", params.noteable_id);
    const found = await findNote(c.var.db(), n, params.note_id);
    if (!found) throw recordNotFound();
    if (!canAdminNote(actor, n, found)) throw forbidden();
    // Note#ensure_confidentiality_not_changed (14.10+): confidentiality is fixed at creation.
    if (params.confidential !== undefined && params.confidential !== found.confidential)
      throw noteInvalid("confidential", "can not be changed for existing notes");
    if (params.body === undefined || params.body === found.note) return present(c, found, note, { noteable: n });
    checkNoteBody(params.body);
    const updated = await updateNoteBody(c.var.db(), n, found, params.body, actor.user.id);
    return present(c, Object.assign(updated, { author: found.author, resolvedBy: found.resolvedBy }), note, { noteable: n });
  });

  /** DELETE /:parent/:id/:noteables/:noteable_id/notes/:note_id (lib/api/notes.rb, `delete_note`) */
  notesRoutes.delete(member, { params: OneNote }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, OneNote);
    const n = await findNoteable(c, family.type, c.req.param("id") ?? "", params.noteable_id);
    return destroyNote(c, actor, n, params.note_id);
  });
}
