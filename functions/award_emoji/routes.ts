import * as z from "zod";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { checkUnmodifiedSince, notFound, recordNotFound, unauthorized } from "../kernel/errors";
import { emojiName } from "../shared/issuables/emoji";
import { findProject } from "../kernel/lookup";
import { deleteAward, insertAward, type Awardable } from "../shared/issuables/award_writes";
import { canAwardEmoji, canReadNote, findNote, loadNoteable, noteUser, type NoteableType, type RowNoteable } from "../shared/issuables/noteables";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { awardEmoji, AwardEmoji } from "../entities/award_emoji";
import * as q from "./queries";

/**
 * Award emoji on issues, merge requests, project snippets and their notes (lib/api/award_emoji.rb,
 * lib/api/helpers/award_emoji.rb). The list is open to anonymous callers on what they may read
 * (`skip_authentication`); the other endpoints need a signed-in caller.
 */
export const awardEmojiRoutes = router();

const FAMILIES: { base: string; type: NoteableType; key: string }[] = [
  { base: "/projects/:id/issues/:issue_iid", type: "Issue", key: "issue_iid" },
  { base: "/projects/:id/merge_requests/:merge_request_iid", type: "MergeRequest", key: "merge_request_iid" },
  { base: "/projects/:id/snippets/:snippet_id", type: "Snippet", key: "snippet_id" },
];

/** What the endpoints act on: the issue, merge request or snippet, or one of its notes. */
type Target = { awardable: Awardable; noteable: RowNoteable; readable: boolean; canAward: boolean; systemNote: boolean };

/**
 * `awardable` (lib/api/helpers/award_emoji.rb): the parent by iid or id inside the project, then the
 * note among its notes; a missing one is `404 Not found` (find_by!, find). Whether the caller may read
 * it is answered separately (`can_read_awardable?`).
 * Differs from GitLab: a confidential note the caller may not read is not readable here either (GitLab
 * only checks the noteable).
 */
async function findTarget(c: Ctx, type: NoteableType, key: number): Promise<Target> {
  const project = await findProject(c, c.req.param("id") ?? "");
  const n = await loadNoteable(c, { project }, type, key);
  if (!n) throw recordNotFound();
  const noteId = c.req.param("note_id");
  const actor = c.var.actor;
  if (noteId === undefined) {
    return { awardable: { type: n.type, id: n.id }, noteable: n, readable: n.readable, canAward: canAwardEmoji(actor, n), systemNote: false };
  }
  const note = /^\d+$/.test(noteId) ? await findNote(c.var.db(), n, Number(noteId)) : null;
  if (!note) throw recordNotFound();
  const readable = canReadNote(actor, n, note);
  return { awardable: { type: "Note", id: note.id }, noteable: n, readable, canAward: readable && canAwardEmoji(actor, n), systemNote: note.system };
}

for (const { base, type, key } of FAMILIES) {
  const keyParam = { [key]: p.int() } as { awardable: ReturnType<typeof p.int> };
  const List = z.object({ ...keyParam, ...pageParams.shape });
  const One = z.object({ ...keyParam, award_id: p.int() });
  const Create = z.object({ ...keyParam, name: p.string() });
  const keyOf = (params: object) => (params as Record<string, number>)[key];

  for (const collection of [`${base}/award_emoji`, `${base}/notes/:note_id/award_emoji`]) {
    /** GET /projects/:id/:awardables/:awardable_id[/notes/:note_id]/award_emoji (lib/api/award_emoji.rb) */
    awardEmojiRoutes.get(collection, { params: List, response: [AwardEmoji] }, async (c) => {
      const params = await readParamsWithPath(c, List, [], ["id", "note_id"]);
      const target = await findTarget(c, type, keyOf(params));
      if (!target.readable) throw notFound("Award Emoji");
      const page = pageOf(params);
      const list = await q.listAwards(c.var.db(), target.awardable, page);
      paginate(c, page, list.total);
      return present(c, list.rows, awardEmoji);
    });

    /** GET /projects/:id/:awardables/:awardable_id[/notes/:note_id]/award_emoji/:award_id (lib/api/award_emoji.rb) */
    awardEmojiRoutes.get(`${collection}/:award_id`, { params: One, response: AwardEmoji }, async (c) => {
      requireUser(c);
      const params = await readParamsWithPath(c, One, [], ["id", "note_id"]);
      const target = await findTarget(c, type, keyOf(params));
      if (!target.readable) throw notFound("Award Emoji");
      const award = await q.findAward(c.var.db(), target.awardable, params.award_id);
      if (!award) throw recordNotFound();
      return present(c, award, awardEmoji);
    });

    /** POST /projects/:id/:awardables/:awardable_id[/notes/:note_id]/award_emoji (AwardEmojis::AddService) */
    awardEmojiRoutes.post(collection, { params: Create, response: AwardEmoji }, async (c) => {
      const actor = requireUser(c);
      const params = await readParamsWithPath(c, Create, [], ["id", "note_id"]);
      const target = await findTarget(c, type, keyOf(params));
      if (!target.readable || !target.canAward) throw notFound("Award Emoji");
      // Note#emoji_awardable?: system notes take no award.
      if (target.systemNote) throw notFound("Award Emoji Awardable cannot be awarded emoji");
      // AwardEmojis::BaseService#normalize_name, then the model's validations, as full messages.
      const name = emojiName(params.name);
      if (!name) throw notFound(`Award Emoji ["Name is not a valid emoji name"]`);
      const todoTarget = { type: target.noteable.type, id: target.noteable.id };
      const award = await insertAward(c.var.db(), target.awardable, name, actor.user.id, todoTarget);
      if (!award) throw notFound(`Award Emoji ["Name has already been taken"]`);
      return present(c, Object.assign(award, { user: noteUser(actor.user) }), awardEmoji, {}, 201);
    });

    /** DELETE /projects/:id/:awardables/:awardable_id[/notes/:note_id]/award_emoji/:award_id (lib/api/award_emoji.rb) */
    awardEmojiRoutes.delete(`${collection}/:award_id`, { params: One }, async (c) => {
      const actor = requireUser(c);
      const params = await readParamsWithPath(c, One, [], ["id", "note_id"]);
      const target = await findTarget(c, type, keyOf(params));
      const award = await q.findAward(c.var.db(), target.awardable, params.award_id);
      if (!award) throw recordNotFound();
      // GitLab answers 401 (`unauthorized!`), not 403, to someone else's award.
      if (award.userId !== actor.user.id && !actor.isAdmin) throw unauthorized();
      checkUnmodifiedSince(c.req.header("if-unmodified-since"), award.updatedAt);
      await deleteAward(c.var.db(), target.awardable, award);
      return c.body(null, 204);
    });
  }
}
