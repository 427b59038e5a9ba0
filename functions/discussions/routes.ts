import * as z from "zod";
import { allowed } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Actor, Ctx } from "../kernel/env";
import { badRequest, forbidden, notFound, recordNotFound } from "../kernel/errors";
import { destroyNote, insertNote, insertReply, updateNoteBody } from "../shared/issuables/note_writes";
import { canAdminNote, canCreateNote, canReadConfidentialNotes, canReadNote, checkNoteBody, findCommitNoteable, noteInvalid, findNote, findNoteable, noteCreatedAt, noteUser, type Noteable, type NoteableType, type NoteRow } from "../shared/issuables/noteables";
import { newDiscussionId } from "../shared/issuables/system_notes";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, type ParamRule, readParamsWithPath } from "../kernel/params";
import { baseUrl, present } from "../kernel/present";
import { hookEvent } from "../shared/webhooks";
import { router } from "../kernel/router";
import { isResolvable, note, Note } from "../entities/notes";
import { discussion, Discussion } from "../entities/discussions";
import * as q from "./queries";

/**
 * Discussions of issues, project snippets, merge requests, epics and commits (lib/api/discussions.rb), with
 * the note helpers of lib/api/helpers/notes_helpers.rb. Every endpoint needs a signed-in caller.
 * The noteable id is `types: [Integer, String]` there: anything that is not an existing id is
 * `404 Not found`, never a 400; a commit is named by a sha, branch or tag name (`404 Commit Not Found`).
 * Commit comments made through the commits API (single comments and LegacyDiffNotes on a diff line)
 * are discussions here too, as GitLab shows them.
 */
export const discussionsRoutes = router();

const FAMILIES: { base: string; type: Noteable["type"] }[] = [
  { base: "/projects/:id/issues/:noteable_id/discussions", type: "Issue" },
  { base: "/projects/:id/snippets/:noteable_id/discussions", type: "Snippet" },
  { base: "/projects/:id/merge_requests/:noteable_id/discussions", type: "MergeRequest" },
  { base: "/groups/:id/epics/:noteable_id/discussions", type: "Epic" },
  { base: "/projects/:id/repository/commits/:noteable_id/discussions", type: "Commit" },
];

/** Noteable::REPLYABLE_TYPES (with EE's Epic): where a single comment can become a thread. */
const REPLYABLE = new Set<Noteable["type"]>(["Issue", "MergeRequest", "Epic"]);

/**
 * A thread or reply is a note like any other: its Note Hook, as `POST …/notes` sends it
 * (Notes::PostProcessService#execute_note_hooks). Epics live in a group and send none (GitLab neither:
 * `return unless note.project`).
 */
async function noteHook(c: Ctx, created: { id: number; projectId: number | null; system: boolean }, actor: Actor): Promise<void> {
  if (created.projectId === null || created.system) return;
  await hookEvent(c.env, baseUrl(c), { kind: "note", projectId: created.projectId, id: created.id, userId: actor.user.id });
}

function noteable(c: Ctx, type: Noteable["type"], key: string): Promise<Noteable> {
  if (type === "Commit") return findCommitNoteable(c, c.req.param("id") ?? "", key);
  return findNoteable(c, type, c.req.param("id") ?? "", /^\d+$/.test(key) ? Number(key) : NaN);
}

/** `resolve_note`: the note's or the noteable's author, developers and up (NotePolicy, ProjectPolicy). */
function canResolve(actor: Actor, n: Noteable, found: Pick<NoteRow, "authorId">): boolean {
  if (found.authorId === actor.user.id || n.authorId === actor.user.id) return true;
  return !!n.project && allowed(actor, "update_merge_request", n.project);
}

const List = z.object({ noteable_id: p.string(), ...pageParams.shape });
const One = z.object({ discussion_id: p.string(), noteable_id: p.string() });
/** `optional :position, type: Hash` of the POST (diff notes), validated as Grape validates it. */
const Position = z.object({
  base_sha: p.string(),
  start_sha: p.string(),
  head_sha: p.string(),
  position_type: p.oneOf("text", "image"),
  new_path: p.string().optional(),
  new_line: p.int().optional(),
  old_path: p.string().optional(),
  old_line: p.int().optional(),
  width: p.int().optional(),
  height: p.int().optional(),
  x: p.int().optional(),
  y: p.int().optional(),
  line_range: p.hash().optional(),
});
const CreateThread = z.object({ noteable_id: p.string(), body: p.string(), created_at: p.string().optional(), position: Position.optional() });
const Reply = z.object({ noteable_id: p.string(), discussion_id: p.string(), body: p.string(), created_at: p.string().optional() });
const OneNote = z.object({ noteable_id: p.string(), discussion_id: p.string(), note_id: p.int() });
const UpdateNote = z.object({
  noteable_id: p.string(),
  discussion_id: p.string(),
  note_id: p.int(),
  body: p.string().optional(),
  resolved: p.bool().optional(),
});
const ResolveDiscussion = z.object({ noteable_id: p.string(), discussion_id: p.string(), resolved: p.bool() });

for (const family of FAMILIES) {
  const { base, type } = family;

  /** GET /:parent/:id/:noteables/:noteable_id/discussions (lib/api/discussions.rb) */
  discussionsRoutes.get(base, { params: List, response: [Discussion] }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, List);
    const n = await noteable(c, type, params.noteable_id);
    const page = pageOf(params);
    const list = await q.listDiscussions(c.var.db(), n, !canReadConfidentialNotes(c.var.actor, n), page);
    paginate(c, page, list.total);
    return present(c, list.rows, discussion, { noteable: n });
  });

  /** GET /:parent/:id/:noteables/:noteable_id/discussions/:discussion_id (lib/api/discussions.rb) */
  discussionsRoutes.get(`${base}/:discussion_id`, { params: One, response: Discussion }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, One);
    const n = await noteable(c, type, params.noteable_id);
    const found = await q.findDiscussion(c.var.db(), n, params.discussion_id, !canReadConfidentialNotes(c.var.actor, n));
    if (!found) throw notFound("Discussion");
    return present(c, found, discussion, { noteable: n });
  });

  /** POST /:parent/:id/:noteables/:noteable_id/discussions: a new thread (lib/api/discussions.rb) */
  discussionsRoutes.post(base, { params: CreateThread, response: Discussion }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, CreateThread);
    const n = await noteable(c, type, params.noteable_id);
    if (!canCreateNote(actor, n)) throw forbidden();
    checkNoteBody(params.body);
    // Differs from GitLab: diff notes (`position`, a DiffNote on a merge request's or a commit's diff)
    // are not built. A well-formed position is refused as an invalid note is, rather than dropped.
    if (params.position) throw noteInvalid("position", "is not supported");
    const created = await insertNote(c.var.db(), {
      noteable: n,
      authorId: actor.user.id,
      body: params.body,
      confidential: false,
      type: "DiscussionNote",
      discussionId: newDiscussionId(),
      resolvable: type === "MergeRequest",
      createdAt: noteCreatedAt(actor, n, params.created_at),
    });
    await noteHook(c, created, actor);
    const row = Object.assign(created, { author: noteUser(actor.user), resolvedBy: null });
    return present(c, { id: row.discussionId, notes: [row] }, discussion, { noteable: n }, 201);
  });

  /** GET /:parent/:id/:noteables/:noteable_id/discussions/:discussion_id/notes (lib/api/discussions.rb) */
  discussionsRoutes.get(`${base}/:discussion_id/notes`, { params: One, response: [Note], paginated: false }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, One);
    const n = await noteable(c, type, params.noteable_id);
    const found = await q.findDiscussion(c.var.db(), n, params.discussion_id, !canReadConfidentialNotes(c.var.actor, n));
    if (!found) throw notFound("Notes");
    return present(c, found.notes, note, { noteable: n });
  });

  /** POST /:parent/:id/:noteables/:noteable_id/discussions/:discussion_id/notes: a reply (lib/api/discussions.rb) */
  discussionsRoutes.post(`${base}/:discussion_id/notes`, { params: Reply, response: Note }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, Reply);
    const n = await noteable(c, type, params.noteable_id);
    const found = await q.findDiscussion(c.var.db(), n, params.discussion_id, !canReadConfidentialNotes(actor, n));
    if (!found) throw notFound("Discussion");
    const first = found.notes[0];
    const individual = !first.type;
    if (individual && !REPLYABLE.has(type)) throw badRequest("Discussion can not be replied to.");
    if (!canCreateNote(actor, n)) throw forbidden();
    checkNoteBody(params.body);
    const created = await insertReply(c.var.db(), {
      noteable: n,
      authorId: actor.user.id,
      body: params.body,
      // A reply inherits the discussion's confidentiality (Notes::BuildService).
      confidential: first.confidential,
      // Discussion#reply_attributes: a reply on a commit's diff line is a LegacyDiffNote on that line.
      type: first.type === "LegacyDiffNote" ? "LegacyDiffNote" : "DiscussionNote",
      lineCode: first.lineCode,
      discussionId: found.id,
      resolvable: type === "MergeRequest",
      createdAt: noteCreatedAt(actor, n, params.created_at),
      convert: individual,
    });
    await noteHook(c, created, actor);
    return present(c, Object.assign(created, { author: noteUser(actor.user), resolvedBy: null }), note, { noteable: n }, 201);
  });

  /** GET /:parent/:id/:noteables/:noteable_id/discussions/:discussion_id/notes/:note_id (`get_note`) */
  discussionsRoutes.get(`${base}/:discussion_id/notes/:note_id`, { params: OneNote, response: Note }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, OneNote);
    const n = await noteable(c, type, params.noteable_id);
    const found = await findNote(c.var.db(), n, params.note_id);
    if (!found) throw recordNotFound();
    if (!canReadNote(c.var.actor, n, found)) throw notFound("Note");
    return present(c, found, note, { noteable: n });
  });

  /** PUT /:parent/:id/:noteables/:noteable_id/discussions/:discussion_id/notes/:note_id (`update_note` / `resolve_note`) */
  discussionsRoutes.put(`${base}/:discussion_id/notes/:note_id`, { params: UpdateNote, response: Note }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, UpdateNote, [{ exactlyOneOf: ["body", "resolved"] }]);
    const n = await noteable(c, type, params.noteable_id);
    const found = await findNote(c.var.db(), n, params.note_id);
    if (!found) throw recordNotFound();
    if (params.resolved !== undefined) {
      if (!canReadNote(actor, n, found) || !canResolve(actor, n, found)) throw forbidden();
      if (!isResolvable(found)) throw badRequest("Note is not resolvable");
      await q.resolveNote(c.var.db(), found.id, params.resolved ? actor.user.id : null);
      const resolved = params.resolved
        ? { resolvedAt: new Date(), resolvedById: actor.user.id, resolvedBy: noteUser(actor.user) }
        : { resolvedAt: null, resolvedById: null, resolvedBy: null };
      return present(c, Object.assign(found, resolved), note, { noteable: n });
    }
    if (!canAdminNote(actor, n, found)) throw forbidden();
    const body = params.body!;
    checkNoteBody(body);
    const updated = await updateNoteBody(c.var.db(), n, found, body, actor.user.id);
    return present(c, Object.assign(updated, { author: found.author, resolvedBy: found.resolvedBy }), note, { noteable: n });
  });

  /** DELETE /:parent/:id/:noteables/:noteable_id/discussions/:discussion_id/notes/:note_id (`delete_note`) */
  discussionsRoutes.delete(`${base}/:discussion_id/notes/:note_id`, { params: OneNote }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, OneNote);
    return destroyNote(c, actor, await noteable(c, type, params.noteable_id), params.note_id);
  });

  if (type === "MergeRequest") {
    /** PUT /projects/:id/merge_requests/:noteable_id/discussions/:discussion_id: resolve a thread (lib/api/discussions.rb) */
    discussionsRoutes.put(`${base}/:discussion_id`, { params: ResolveDiscussion, response: Discussion }, async (c) => {
      const actor = requireUser(c);
      const params = await readParamsWithPath(c, ResolveDiscussion);
      const n = await noteable(c, type, params.noteable_id);
      const found = await q.findDiscussion(c.var.db(), n, params.discussion_id, !canReadConfidentialNotes(actor, n));
      if (!found) throw notFound("Discussion");
      // Discussion#can_resolve?: a resolvable discussion, and the noteable's author or who may resolve notes.
      if (!found.notes.some(isResolvable) || !canResolve(actor, n, { authorId: null })) throw forbidden();
      await q.resolveDiscussion(c.var.db(), n, found.id, params.resolved ? actor.user.id : null);
      const now = new Date();
      const rows = found.notes.map((row) =>
        isResolvable(row)
          ? Object.assign(row, params.resolved
              ? { resolvedAt: now, resolvedById: actor.user.id, resolvedBy: noteUser(actor.user) }
              : { resolvedAt: null, resolvedById: null, resolvedBy: null })
          : row,
      );
      return present(c, { id: found.id, notes: rows }, discussion, { noteable: n });
    });
  }
}
