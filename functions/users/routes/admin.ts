import * as z from "zod";
import type { Executor } from "../../kernel/db";
import type { Actor } from "../../kernel/env";
import { requireAdmin } from "../../kernel/auth";
import { apiError, checkUnmodifiedSince, conflict, forbidden, notFound, validation } from "../../kernel/errors";
import { INT32, p, type ParamRule, readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { isInternal, userWithAdmin, type UserRow, UserWithAdmin } from "../../entities/users";
import { TransitionResult } from "../../entities/status_message";
import { hasErrors, passwordComplexity, validateUser, type ValidationErrors } from "../model";
import { hashPassword, randomPassword } from "../password";
import * as q from "../queries";
import { loadSettings } from "../../shared/settings/load";
import type { Settings } from "../../entities/settings_catalog";
import { createUser, deleteUser, NAMESPACE_TAKEN, throwConflict, updateUser } from "../services";
import { syncSamlUser } from "../../saml_group_links/public";
import { avatarErrors, storeAvatar } from "../../shared/uploads";

/** Avatarable's errors on `avatar`, added to the model's. */
function addAvatarErrors(errors: ValidationErrors, avatar: File | undefined): void {
  const found = avatar ? avatarErrors(avatar) : [];
  if (found.length) errors.avatar = found;
}

/** The administrators' writes of lib/api/users.rb. */
export const adminRoutes = router({ readUserScope: true });


const userId = (raw: string) => {
  const id = Number(raw);
  return id <= INT32.max ? id : null;
};

/**
 * `params :optional_attributes` of lib/api/users.rb (and EE's), in GitLab's order. The spec's neutral
 * names `messenger`, `professional_profile`, `social_handle` are accepted, and GitLab's `skype`,
 * `linkedin`, `twitter` as aliases. A JSON null is a change (to "" for text, false for private_profile).
 */
const optionalAttributes = {
  messenger: p.string().nullable().optional(),
  professional_profile: p.string().nullable().optional(),
  social_handle: p.string().nullable().optional(),
  skype: p.string().nullable().optional(),
  linkedin: p.string().nullable().optional(),
  twitter: p.string().nullable().optional(),
  website_url: p.string().nullable().optional(),
  organization: p.string().nullable().optional(),
  projects_limit: p.int().optional(),
  extern_uid: p.string().optional(),
  provider: p.string().optional(),
  bio: p.string().nullable().optional(),
  location: p.string().nullable().optional(),
  public_email: p.string().nullable().optional(),
  admin: p.bool().optional(),
  can_create_group: p.bool().optional(),
  external: p.bool().optional(),
  theme_id: p.int().optional(),
  color_scheme_id: p.int().optional(),
  private_profile: p.bool().nullable().optional(),
  note: p.string().nullable().optional(),
  view_diffs_file_by_file: p.bool().optional(),
  shared_runners_minutes_limit: p.int().nullable().optional(),
  extra_shared_runners_minutes_limit: p.int().nullable().optional(),
  avatar: p.file().optional(),
};
type OptionalAttributes = { [K in keyof typeof optionalAttributes]?: z.output<(typeof optionalAttributes)[K]> };

const identityRule: ParamRule = { allOrNoneOf: ["extern_uid", "provider"], before: "shared_runners_minutes_limit" };

/** The columns the optional attributes set, for the keys that were sent. */
function profileChanges(params: OptionalAttributes): Partial<q.NewUser> {
  const text = (value: string | null | undefined) => (value === undefined ? undefined : (value ?? ""));
  const set: Partial<q.NewUser> = {
    messenger: text(params.messenger ?? params.skype),
    professionalProfile: text(params.professional_profile ?? params.linkedin),
    socialHandle: text(params.social_handle ?? params.twitter),
    websiteUrl: text(params.website_url),
    organization: text(params.organization),
    projectsLimit: params.projects_limit,
    bio: text(params.bio),
    location: text(params.location),
    publicEmail: params.public_email === undefined ? undefined : params.public_email || null,
    admin: params.admin,
    canCreateGroup: params.can_create_group,
    external: params.external,
    themeId: params.theme_id,
    colorSchemeId: params.color_scheme_id,
    // `default_private_profile_to_false`, and the API turns an explicit null into the default (false).
    privateProfile: params.private_profile === undefined ? undefined : !!params.private_profile,
    note: params.note,
    viewDiffsFileByFile: params.view_diffs_file_by_file,
    sharedRunnersMinutesLimit: params.shared_runners_minutes_limit,
    extraSharedRunnersMinutesLimit: params.extra_shared_runners_minutes_limit,
  };
  for (const key of Object.keys(set) as (keyof typeof set)[]) if (set[key] === undefined) delete set[key];
  return set;
}

/**
 * `ensure_user_rights_and_limits` (before saving a new user or a change of `external`): external users
 * may create neither groups nor projects; others get the defaults unless this request set them.
 */
function ensureRightsAndLimits(set: Partial<q.NewUser>, settings: Settings): void {
  if (set.external) {
    set.canCreateGroup = false;
    set.projectsLimit = 0;
  } else {
    // The application settings `can_create_group` and `default_projects_limit`.
    set.canCreateGroup ??= settings.can_create_group;
    set.projectsLimit ??= settings.default_projects_limit;
  }
}

/**
 * `set_default_user_external` (new users): with `user_default_external`, a new user is external unless
 * this request said otherwise or their e-mail matches `user_default_internal_regex`.
 */
function applyDefaultExternal(set: Partial<q.NewUser>, email: string, settings: Settings): void {
  if (set.external !== undefined || !settings.user_default_external) return;
  const regex = settings.user_default_internal_regex;
  let internal = false;
  if (typeof regex === "string" && regex !== "") {
    try {
      internal = new RegExp(regex).test(email);
    } catch {
      internal = false;
    }
  }
  set.external = !internal;
}

/** Devise's `strip_whitespace_keys` and `case_insensitive_keys` for e-mails. */
const normalizeEmail = (email: string) => email.trim().toLowerCase();

const identityOf = (params: OptionalAttributes) =>
  params.provider !== undefined && params.extern_uid !== undefined ? { provider: params.provider, externUid: params.extern_uid } : null;

/** The model's messages, plus the namespace path error, as `render_validation_error!`. */
function throwValidation(errors: ValidationErrors, namespaceTaken: boolean): void {
  const all = namespaceTaken ? { ...errors, ...NAMESPACE_TAKEN } : errors;
  if (hasErrors(all)) throw validation(all);
}

const CreateUser = z.object({
  email: p.string(),
  password: p.string().optional(),
  reset_password: p.bool().optional(),
  skip_confirmation: p.bool().optional(),
  name: p.string(),
  username: p.string(),
  force_random_password: p.bool().optional(),
  ...optionalAttributes,
});

/** POST /users (lib/api/users.rb): administrators create a user and their personal namespace; 201. */
adminRoutes.post("/users", { params: CreateUser, response: UserWithAdmin, errors: [409] }, async (c) => {
  const params = await readParams(c, CreateUser, [
    { atLeastOneOf: ["password", "reset_password", "force_random_password"], before: "name" },
    identityRule,
  ]);
  requireAdmin(c);
  // `force_random_password` and `reset_password` win over `password` (Users::BuildService).
  const password = params.force_random_password || params.reset_password ? randomPassword() : params.password;
  const email = normalizeEmail(params.email);
  const set = profileChanges(params);
  const settings = await loadSettings(c.var.db());
  const errors = validateUser(
    { email, password: password ?? null, name: params.name, username: params.username, ...modelFields(set) },
    { passwordRequired: true, verifiedEmails: params.skip_confirmation ? [email] : [], minimumPasswordLength: settings.minimum_password_length, passwordComplexity: passwordComplexity(settings) },
  );
  // GitLab answers a taken e-mail or username with 409 before any validation error. Asked on every
  // create: an e-mail can be taken by another user's secondary address (`emails`), which no unique
  // index of `users` catches.
  addAvatarErrors(errors, params.avatar);
  const conflicts = await q.findConflicts(c.var.db(), { email, username: params.username });
  throwConflict(conflicts);
  if (hasErrors(errors)) throwValidation(errors, conflicts.namespace);
  applyDefaultExternal(set, email, settings);
  ensureRightsAndLimits(set, settings);
  const created = await createUser(
    c.var.db(),
    {
      ...set,
      email,
      name: params.name,
      username: params.username,
      encryptedPassword: await hashPassword(password!),
      publicEmail: set.publicEmail ?? "",
      confirmedAt: params.skip_confirmation ? new Date() : null,
    },
    identityOf(params),
  );
  if (params.avatar) created.avatarUrl = await storeAvatar(c.var.db(), c.env.BLOBS, "user", created.id, params.avatar);
  return present(c, created, userWithAdmin, undefined, 201);
});

/** The fields of the changes that the model validates. */
function modelFields(set: Partial<q.NewUser>) {
  return {
    publicEmail: set.publicEmail,
    projectsLimit: set.projectsLimit,
    themeId: set.themeId,
    colorSchemeId: set.colorSchemeId,
    bio: set.bio,
  };
}

const UpdateUser = z.object({
  email: p.string().optional(),
  password: p.string().optional(),
  skip_reconfirmation: p.bool().optional(),
  name: p.string().optional(),
  username: p.string().optional(),
  ...optionalAttributes,
});

/**
 * PUT /users/:id (lib/api/users.rb): administrators change any field; only the keys sent change.
 * A changed e-mail waits in `unconfirmed_email` unless `skip_reconfirmation` (Devise reconfirmable).
 */
adminRoutes.put("/users/:id{[0-9]+}", { params: UpdateUser, response: UserWithAdmin, errors: [409] }, async (c) => {
  const params = await readParams(c, UpdateUser, [identityRule]);
  const actor = requireAdmin(c);
  const id = userId(c.req.param("id"));
  const email = params.email === undefined ? undefined : normalizeEmail(params.email);
  const found = id === null ? null : await q.findUserForUpdate(c.var.db(), id, { email, username: params.username });
  if (!found) throw notFound("User");
  const { row, conflicts } = found;
  throwConflict({ ...conflicts, namespace: false }, 404);

  const settings = await loadSettings(c.var.db());
  const set = changes(row, params, email, actor, settings);
  const finalEmail = set.email ?? row.email;
  const errors = validateUser(
    {
      email: email !== undefined && email !== row.email ? email : undefined,
      password: params.password,
      name: set.name,
      username: set.username,
      ...modelFields(set),
    },
    { passwordRequired: false, verifiedEmails: row.confirmedAt ? [finalEmail] : [], minimumPasswordLength: settings.minimum_password_length, passwordComplexity: passwordComplexity(settings) },
  );
  addAvatarErrors(errors, params.avatar);
  throwValidation(errors, conflicts.namespace && set.username !== undefined);
  if (params.password !== undefined) set.encryptedPassword = await hashPassword(params.password);
  const identity = identityOf(params);
  const updated = await updateUser(c.var.db(), row, set, identity);
  // A SAML identity given to a user: their `saml_groups` (custom attribute) take effect now.
  if (identity) await syncSamlUser(c.var.db(), row.id);
  if (params.avatar) updated.avatarUrl = await storeAvatar(c.var.db(), c.env.BLOBS, "user", row.id, params.avatar);
  return present(c, updated, userWithAdmin);
});

/** The columns a PUT changes (the password digest is added once the changes are valid). */
function changes(row: UserRow, params: z.output<typeof UpdateUser>, email: string | undefined, actor: Actor, settings: Settings): Partial<q.NewUser> {
  const set = profileChanges(params);
  if (email !== undefined && email !== row.email) {
    if (params.skip_reconfirmation) Object.assign(set, { email, unconfirmedEmail: null });
    else set.unconfirmedEmail = email;
  }
  if (params.name !== undefined && params.name !== row.name) set.name = params.name;
  if (params.username !== undefined && params.username !== row.username) set.username = params.username;
  // An administrator's change of another user's password forces a new one at next sign-in.
  if (params.password !== undefined && actor.user.id !== row.id) set.passwordExpiresAt = new Date();
  if (set.external !== undefined && set.external !== row.external) ensureRightsAndLimits(set, settings);
  return set;
}

const DeleteUser = z.object({ hard_delete: p.bool().optional() });

/**
 * DELETE /users/:id (lib/api/users.rb): 204; a sole owner of a group is refused with 409 unless
 * `hard_delete`, which deletes those groups too. Administrators may delete themselves, as in GitLab.
 */
adminRoutes.delete("/users/:id{[0-9]+}", { params: DeleteUser }, async (c) => {
  const params = await readParams(c, DeleteUser);
  requireAdmin(c);
  const id = userId(c.req.param("id"));
  const found = id === null ? null : await q.findUserForDelete(c.var.db(), id);
  if (!found) throw notFound("User");
  if (found.soloOwnedGroupIds.length > 0 && !params.hard_delete)
    throw conflict("User cannot be removed while is the sole-owner of a group");
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), found.user.updatedAt);
  await deleteUser(c.var.db(), found.user.id, params.hard_delete ? found.soloOwnedGroupIds : []);
  return c.body(null, 204);
});

/** POST /users/:id/block (lib/api/users.rb): 201 `true`; `null` when already blocked. */
adminRoutes.post("/users/:id{[0-9]+}/block", { response: TransitionResult }, async (c) => {
  const actor = requireAdmin(c);
  const target = await findTarget(c.var.db(), c.req.param("id"));
  if (actor.user.id === target.id) throw forbidden("The API initiating user cannot be blocked by the API");
  // `break if user.blocked?` (banned users are blocked too).
  if (target.state === "blocked" || target.state === "banned") return c.json(null, 201);
  // Users::BlockService
  if (isInternal(target)) throw apiError("An internal user cannot be blocked", 403);
  await q.setUserState(c.var.db(), target.id, "blocked");
  return c.json(true, 201);
});

/**
 * POST /users/:id/unblock (lib/api/users.rb): 201 `true`; `false` when the user was not blocked
 * (`user.activate` has no transition); a banned user is activated too, a deactivated one refused.
 */
adminRoutes.post("/users/:id{[0-9]+}/unblock", { response: TransitionResult }, async (c) => {
  requireAdmin(c);
  const target = await findTarget(c.var.db(), c.req.param("id"));
  if (target.state === "deactivated") throw forbidden("Deactivated users cannot be unblocked by the API");
  if (target.state !== "blocked" && target.state !== "banned") return c.json(false, 201);
  await q.setUserState(c.var.db(), target.id, "active");
  return c.json(true, 201);
});

async function findTarget(db: Executor, raw: string) {
  const id = userId(raw);
  const found = id === null ? null : await q.findUser(db, id);
  if (!found) throw notFound("User");
  return found;
}

/** DELETE /users/:id/identities/:provider (lib/api/users.rb): 204. */
adminRoutes.delete("/users/:id{[0-9]+}/identities/:provider", async (c) => {
  requireAdmin(c);
  const id = userId(c.req.param("id"));
  const found = id === null ? null : await q.findUserIdentity(c.var.db(), id, c.req.param("provider"));
  if (!found) throw notFound("User");
  if (!found.identity) throw notFound("Identity");
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), found.identity.createdAt);
  await q.deleteIdentity(c.var.db(), found.identity.id);
  return c.body(null, 204);
});
