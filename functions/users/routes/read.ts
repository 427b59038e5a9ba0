import * as z from "zod";
import { requireUser } from "../../kernel/auth";
import { forbidden, notFound, unauthorized } from "../../kernel/errors";
import { pageOf, paginate } from "../../kernel/pagination";
import { INT32, p, rawParams, readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { loadSettings } from "../../shared/settings/load";
import {
  Avatar,
  avatar,
  User,
  user,
  UserBasic,
  userBasic,
  UserDetailsWithAdmin,
  userDetailsWithAdmin,
  UserPublic,
  userPublic,
  UserWithAdmin,
  userWithAdmin,
} from "../../entities/users";
import { ListUsers, withoutAdminFilters, type UserListFilter } from "../params";
import * as q from "../queries";

/** The reads of lib/api/users.rb, open to `read_user` tokens. */
export const readRoutes = router({ readUserScope: true });


/** GET /user (lib/api/users.rb): the caller, with private fields; admins get the administrator view. */
readRoutes.get("/user", { response: z.union([UserWithAdmin, UserPublic]) }, async (c) => {
  const actor = requireUser(c);
  const row = await q.findUserRow(c.var.db(), actor.user.id);
  if (!row) throw unauthorized();
  return present(c, row, actor.isAdmin ? userWithAdmin : userPublic);
});

/** GET /users (lib/api/users.rb, app/finders/users_finder.rb) */
readRoutes.get("/users", { params: ListUsers, response: [z.union([UserWithAdmin, UserBasic])] }, async (c) => {
  const params = await readParams(c, ListUsers, [{ allOrNoneOf: ["extern_uid", "provider"], before: "order_by" }]);
  const actor = c.var.actor;
  const admin = !!actor?.isAdmin;
  if (params.extern_uid && params.provider) {
    if (!actor) throw unauthorized();
    if (!admin) throw forbidden();
  }
  // Anonymous callers may only look a user up by username (a list of every user is refused).
  if (!actor && !params.username) throw forbidden("Not authorized to access /api/v4/users");
  // Undeclared in GitLab (read from the raw params by the finder): no validation, and only for admins.
  const raw = await rawParams(c);
  const customAttributes = admin ? stringHash(raw.custom_attributes) : undefined;
  const twoFactor = admin && (raw.two_factor === "enabled" || raw.two_factor === "disabled") ? raw.two_factor : undefined;
  const page = pageOf(params);
  // Filters GitLab drops for non-admins (`params.except!`, `by_admins`); the last two are read from the raw params.
  const filter: UserListFilter = admin ? { ...params, two_factor: twoFactor, custom_attributes: customAttributes } : withoutAdminFilters(params);
  const { rows, total } = await q.listUsers(
    c.var.db(),
    filter,
    admin ? { kind: "field", orderBy: params.order_by ?? "id", sort: params.sort ?? "desc" } : { kind: "default" },
    page,
    { withCustomAttributes: admin && !!params.with_custom_attributes },
  );
  paginate(c, page, total);
  return present(c, rows, admin ? userWithAdmin : userBasic);
});

/** A Rack hash of strings (`custom_attributes[key]=value`), else nothing (`is_a?(Hash)`). */
function stringHash(value: unknown): Record<string, string> | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) if (typeof v === "string" || typeof v === "number") out[key] = String(v);
  return out;
}

const GetUser = z.object({ with_custom_attributes: p.bool().optional() });

/** GET /users/:id (lib/api/users.rb): open to anonymous callers; admins get UserDetailsWithAdmin. */
readRoutes.get("/users/:id{[0-9]+}", { params: GetUser, response: z.union([UserDetailsWithAdmin, User]) }, async (c) => {
  const params = await readParams(c, GetUser);
  const id = Number(c.req.param("id"));
  const admin = !!c.var.actor?.isAdmin;
  const row = id <= INT32.max ? await q.findUserRow(c.var.db(), id, { withCustomAttributes: admin && !!params.with_custom_attributes }) : null;
  if (!row) throw notFound("User");
  return present(c, row, admin ? userDetailsWithAdmin : user);
});

const AvatarParams = z.object({ email: p.string(), size: p.int().optional() });

/**
 * GET /avatar (lib/api/avatar.rb): the avatar URL of the user whose public e-mail this is, else the
 * Gravatar URL of the address itself (`User.new(email:)`), `size` scaling the Gravatar image.
 */
readRoutes.get("/avatar", { params: AvatarParams, response: Avatar }, async (c) => {
  const params = await readParams(c, AvatarParams);
  // `read_users_list` (GlobalPolicy): anonymous callers lose it when the public level is restricted.
  if (!c.var.actor && (await loadSettings(c.var.db())).restricted_visibility_levels.includes(20)) throw forbidden("Unauthorized access");
  const found = await q.userByPublicEmail(c.var.db(), params.email);
  return present(c, { user: found ?? { avatarUrl: null, email: params.email }, size: params.size }, avatar);
});
