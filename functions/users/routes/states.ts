import { requireAdmin } from "../../kernel/auth";
import type { Executor } from "../../kernel/db";
import { apiError, forbidden, notFound } from "../../kernel/errors";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { INT32, p, readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import type { User } from "../queries";
import { isInternal, Membership, membership } from "../../entities/users";
import { TransitionResult } from "../../entities/status_message";
import * as q from "../queries";

/**
 * Ban, unban, activate, deactivate and memberships (lib/api/users.rb, app/services/users/ban_service.rb,
 * unban_service.rb). Administrators only; each answers 201 with `true` (or what GitLab's state machine
 * returns) as GitLab does for these POSTs.
 */
export const stateRoutes = router({ readUserScope: true });

/** `User::MINIMUM_INACTIVE_DAYS`: users active more recently than this cannot be deactivated. */
const MINIMUM_INACTIVE_DAYS = 90;

/** GitLab's blocked states: `blocked?` is true for banned users too. */
const isBlocked = (user: User) => user.state === "blocked" || user.state === "banned";

async function findTarget(db: Executor, raw: string): Promise<User> {
  const id = Number(raw);
  const found = id <= INT32.max ? await q.findUser(db, id) : null;
  if (!found) throw notFound("User");
  return found;
}

/** `User#can_be_deactivated?`: active, not internal, and no activity (`last_activity_on`, sign-in) for 90 days. */
function recentlyActive(user: User, now: Date): boolean {
  const cutoff = now.getTime() - MINIMUM_INACTIVE_DAYS * 86_400_000;
  const times = [user.lastActivityOn ? Date.parse(user.lastActivityOn) : null, user.currentSignInAt ? new Date(user.currentSignInAt).getTime() : null];
  return times.some((t) => t !== null && t > cutoff);
}

/** POST /users/:id/activate: 201 `true`, `false` for a user who is already active. */
stateRoutes.post("/users/:id{[0-9]+}/activate", { response: TransitionResult }, async (c) => {
  requireAdmin(c);
  const target = await findTarget(c.var.db(), c.req.param("id"));
  if (isBlocked(target)) throw forbidden("A blocked user must be unblocked to be activated");
  // The state machine's `activate` returns false when there is nothing to do.
  if (target.state === "active") return c.json(false, 201);
  await q.setUserState(c.var.db(), target.id, "active");
  return c.json(true, 201);
});

/** POST /users/:id/deactivate: 201 `true`; `null` for a user who is already deactivated. */
stateRoutes.post("/users/:id{[0-9]+}/deactivate", { response: TransitionResult }, async (c) => {
  requireAdmin(c);
  const target = await findTarget(c.var.db(), c.req.param("id"));
  if (target.state === "deactivated") return c.json(null, 201);
  if (isBlocked(target)) throw forbidden("A blocked user cannot be deactivated by the API");
  if (isInternal(target)) throw forbidden("An internal user cannot be deactivated by the API");
  if (recentlyActive(target, new Date()))
    throw forbidden(`The user you are trying to deactivate has been active in the past ${MINIMUM_INACTIVE_DAYS} days and cannot be deactivated`);
  await q.setUserState(c.var.db(), target.id, "deactivated");
  return c.json(true, 201);
});

/** POST /users/:id/ban (Users::BanService): 201 `true`; only active users can be banned. */
stateRoutes.post("/users/:id{[0-9]+}/ban", { response: TransitionResult }, async (c) => {
  requireAdmin(c);
  const target = await findTarget(c.var.db(), c.req.param("id"));
  if (target.state !== "active") throw apiError(`You cannot ban ${target.state} users.`, 403);
  await q.setUserState(c.var.db(), target.id, "banned");
  return c.json(true, 201);
});

/** POST /users/:id/unban (Users::UnbanService): 201 `true`; only banned users can be unbanned. */
stateRoutes.post("/users/:id{[0-9]+}/unban", { response: TransitionResult }, async (c) => {
  requireAdmin(c);
  const target = await findTarget(c.var.db(), c.req.param("id"));
  if (target.state !== "banned") throw apiError(`You cannot unban ${target.state} users.`, 403);
  await q.setUserState(c.var.db(), target.id, "active");
  return c.json(true, 201);
});

const ListMemberships = pageParams.extend({ type: p.oneOf("Project", "Namespace").optional() });

/** GET /users/:user_id/memberships (Entities::Membership): admins only. */
stateRoutes.get("/users/:user_id{[0-9]+}/memberships", { params: ListMemberships, response: [Membership] }, async (c) => {
  const params = await readParams(c, ListMemberships);
  requireAdmin(c);
  const target = await findTarget(c.var.db(), c.req.param("user_id"));
  const page = pageOf(params);
  const { rows, total } = await q.listMemberships(c.var.db(), target.id, params.type, page);
  paginate(c, page, total);
  return present(c, rows, membership);
});

