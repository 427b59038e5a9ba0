import * as z from "zod";
import { requireAdmin } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { checkUnmodifiedSince, recordNotFound, validation } from "../kernel/errors";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams, readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { BroadcastMessage, broadcastMessage } from "../entities/broadcast_messages";
import * as q from "./queries";

/**
 * Broadcast messages (lib/api/broadcast_messages.rb, 15.4): anyone reads them (since 12.8); only
 * administrators write (`authenticated_as_admin!`: 401 anonymous, 403 others).
 */
export const broadcastMessagesRoutes = router();

/** BroadcastMessage::ALLOWED_TARGET_ACCESS_LEVELS: guest to owner. */
const TARGET_LEVELS = [10, 20, 30, 40, 50];
const targetLevels = () =>
  p.ints({ comma: true }).refine((levels) => levels.every((l) => TARGET_LEVELS.includes(l)), { message: "does not have a valid value" });

const Fields = {
  starts_at: p.datetime().optional(),
  ends_at: p.datetime().optional(),
  color: p.string().optional(),
  font: p.string().optional(),
  target_access_levels: targetLevels().optional(),
  target_path: p.string().optional(),
  broadcast_type: p.oneOf("banner", "notification").optional(),
  dismissable: p.bool().optional(),
};
const ListMessages = z.object({ ...pageParams.shape });
const CreateMessage = z.object({ message: p.string(), ...Fields });
const UpdateMessage = z.object({ id: p.id(), message: p.string().optional(), ...Fields });
const OneMessage = z.object({ id: p.id() });

/** `BroadcastMessage.find(params[:id])`: `404 Not found`. */
async function findMessage(c: Ctx, id: number): Promise<q.BroadcastMessage> {
  const found = await q.findMessage(c.var.db(), id);
  if (!found) throw recordNotFound();
  return found;
}

/** The model's validations (ColorValidator on `color` and `font`; presence of the message). */
function messageErrors(v: { message?: string; color?: string; font?: string }): void {
  const errors: Record<string, string[]> = {};
  if (v.message !== undefined && v.message.trim() === "") errors.message = ["can't be blank"];
  const color = /^#(?:[0-9A-Fa-f]{3}){1,2}$/;
  if (v.color && !color.test(v.color)) errors.color = ["must be a valid color code"];
  if (v.font && !color.test(v.font)) errors.font = ["must be a valid color code"];
  if (Object.keys(errors).length) throw validation(errors);
}

/** GET /broadcast_messages */
broadcastMessagesRoutes.get("/broadcast_messages", { params: ListMessages, paginated: true, response: [BroadcastMessage] }, async (c) => {
  const params = await readParams(c, ListMessages);
  const page = pageOf(params);
  const { rows, total } = await q.listMessages(c.var.db(), page);
  paginate(c, page, total);
  return present(c, rows, broadcastMessage);
});

/** POST /broadcast_messages: `starts_at` defaults to now, `ends_at` to an hour later, the type to `banner`. */
broadcastMessagesRoutes.post("/broadcast_messages", { params: CreateMessage, response: BroadcastMessage }, async (c) => {
  const params = await readParams(c, CreateMessage);
  requireAdmin(c);
  messageErrors(params);
  const now = Date.now();
  const created = await q.insertMessage(c.var.db(), {
    message: params.message,
    startsAt: params.starts_at ?? new Date(now),
    endsAt: params.ends_at ?? new Date(now + 3600_000),
    // The model's `default_value_for :color` and `:font`.
    color: params.color ?? "#E75E40",
    font: params.font ?? "#FFFFFF",
    targetAccessLevels: params.target_access_levels ?? [],
    targetPath: params.target_path ?? null,
    broadcastType: params.broadcast_type ?? "banner",
    dismissable: params.dismissable ?? null,
  });
  return present(c, created, broadcastMessage, undefined, 201);
});

/** GET /broadcast_messages/:id */
broadcastMessagesRoutes.get("/broadcast_messages/:id", { params: OneMessage, response: BroadcastMessage }, async (c) => {
  const params = await readParamsWithPath(c, OneMessage, [], []);
  return present(c, await findMessage(c, params.id), broadcastMessage);
});

/** PUT /broadcast_messages/:id: only the attributes sent change. */
broadcastMessagesRoutes.put("/broadcast_messages/:id", { params: UpdateMessage, response: BroadcastMessage }, async (c) => {
  const params = await readParamsWithPath(c, UpdateMessage, [], []);
  requireAdmin(c);
  const current = await findMessage(c, params.id);
  messageErrors(params);
  const changes: q.BroadcastChanges = {};
  if (params.message !== undefined) changes.message = params.message;
  if (params.starts_at !== undefined) changes.startsAt = params.starts_at;
  if (params.ends_at !== undefined) changes.endsAt = params.ends_at;
  if (params.color !== undefined) changes.color = params.color;
  if (params.font !== undefined) changes.font = params.font;
  if (params.target_access_levels !== undefined) changes.targetAccessLevels = params.target_access_levels;
  if (params.target_path !== undefined) changes.targetPath = params.target_path;
  if (params.broadcast_type !== undefined) changes.broadcastType = params.broadcast_type;
  if (params.dismissable !== undefined) changes.dismissable = params.dismissable;
  const updated = Object.keys(changes).length ? await q.updateMessage(c.var.db(), current.id, changes) : current;
  if (!updated) throw recordNotFound();
  return present(c, updated, broadcastMessage);
});

/** DELETE /broadcast_messages/:id (`destroy_conditionally!`: 204). */
broadcastMessagesRoutes.delete("/broadcast_messages/:id", { params: OneMessage }, async (c) => {
  const params = await readParamsWithPath(c, OneMessage, [], []);
  requireAdmin(c);
  const found = await findMessage(c, params.id);
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), found.updatedAt);
  await q.deleteMessage(c.var.db(), found.id);
  return c.body(null, 204);
});
