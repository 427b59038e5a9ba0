import * as z from "zod";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { validation } from "../kernel/errors";
import { findUserByIdOrUsername } from "../kernel/lookup";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { emojiName } from "../shared/issuables/emoji";
import { AVAILABILITIES, userStatus, UserStatusEntity } from "../entities/user_status";
import * as q from "./queries";

/** User statuses (lib/api/users.rb, app/services/users/set_status_service.rb); GETs open to `read_user` tokens. */
export const userStatusRoutes = router({ readUserScope: true });

/** UserStatus::CLEAR_STATUS_QUICK_OPTIONS, in milliseconds. */
const CLEAR_STATUS_AFTER = {
  "30_minutes": 30 * 60_000,
  "3_hours": 3 * 3_600_000,
  "8_hours": 8 * 3_600_000,
  "1_day": 86_400_000,
  "3_days": 3 * 86_400_000,
  "7_days": 7 * 86_400_000,
  "30_days": 30 * 86_400_000,
} as const;
type ClearAfter = keyof typeof CLEAR_STATUS_AFTER;

const DEFAULT_EMOJI = "speech_balloon";
const MESSAGE_MAX = 100;

/** `params :set_user_status_params`. */
const SetStatus = z.object({
  emoji: p.string().optional(),
  message: p.string().optional(),
  availability: p.string().optional(),
  clear_status_after: p.oneOf(...(Object.keys(CLEAR_STATUS_AFTER) as ClearAfter[])).optional(),
});
type SetStatusParams = z.output<typeof SetStatus>;

const blank = (value: string | undefined) => value === undefined || value.trim() === "";

/**
 * SetStatusService#execute with the declared params: `includeMissing` (PUT) turns every parameter
 * that was not sent into nil, so it is cleared; PATCH changes only what was sent.
 */
async function setStatus(c: Ctx, params: SetStatusParams, includeMissing: boolean) {
  const actor = requireUser(c);
  const db = c.var.db();
  if (blank(params.emoji) && blank(params.message) && blank(params.availability)) {
    await q.deleteStatus(db, actor.user.id);
    // Deliberate difference from GitLab: it presents the association it just deleted, which Grape
    // renders as `null`; the empty status (as GET shows it) is returned instead.
    return present(c, null, userStatus);
  }
  const emoji = blank(params.emoji) ? DEFAULT_EMOJI : params.emoji!;
  // UserStatus validations, in declaration order (emoji inclusion, message length).
  const errors: Record<string, string[]> = {};
  if (!emojiName(emoji)) errors.emoji = ["is not included in the list"];
  if (params.message !== undefined && params.message.length > MESSAGE_MAX) errors.message = [`is too long (maximum is ${MESSAGE_MAX} characters)`];
  // Deliberate difference from GitLab: an unknown availability makes SetStatusService return false
  // without a model error, which GitLab renders as an empty answer (or a 500 without a status); a
  // 400 naming the parameter is answered instead.
  const availability = blank(params.availability) ? undefined : (AVAILABILITIES as readonly string[]).indexOf(params.availability!);
  if (availability === -1) errors.availability = ["is not included in the list"];
  if (Object.keys(errors).length > 0) throw validation(errors);
  const clearAt =
    params.clear_status_after !== undefined
      ? new Date(Date.now() + CLEAR_STATUS_AFTER[params.clear_status_after])
      : includeMissing
        ? null
        : undefined;
  const status = await q.upsertStatus(db, actor.user.id, {
    emoji,
    message: params.message !== undefined ? params.message : includeMissing ? null : undefined,
    // SetStatusService drops a blank availability, so the stored one stays.
    availability: availability === undefined ? undefined : availability,
    clearStatusAt: clearAt,
  });
  return present(c, status, userStatus);
}

/** GET /user/status: the caller's status, or every field null. */
userStatusRoutes.get("/user/status", { response: UserStatusEntity }, async (c) => {
  const actor = requireUser(c);
  return present(c, await q.findStatus(c.var.db(), actor.user.id), userStatus);
});

/** PUT /user/status: sets the status; parameters that are not sent are cleared. */
userStatusRoutes.put("/user/status", { params: SetStatus, response: UserStatusEntity }, async (c) => {
  requireUser(c);
  return setStatus(c, await readParams(c, SetStatus), true);
});

/** PATCH /user/status: changes only the parameters sent; with none, 200 and nothing changes. */
userStatusRoutes.patch("/user/status", { params: SetStatus, response: UserStatusEntity.nullable() }, async (c) => {
  requireUser(c);
  const params = await readParams(c, SetStatus);
  // `status :ok; break`: Grape renders the block's nil as `null`.
  if (Object.values(params).every((value) => value === undefined)) return c.json(null, 200);
  return setStatus(c, params, false);
});

/** GET /users/:user_id/status: any user's status by id or username, also for anonymous callers. */
userStatusRoutes.get("/users/:user_id/status", { response: UserStatusEntity }, async (c) => {
  const user = await findUserByIdOrUsername(c, c.req.param("user_id"));
  return present(c, await q.findStatus(c.var.db(), user.id), userStatus);
});
