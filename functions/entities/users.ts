import * as z from "zod";
import type { User as UserModel } from "../../db/schema";
import { isoDate, isoTime, webUrl, type PresentContext } from "../kernel/present";
import { md5 } from "@noble/hashes/legacy.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

/** `{key, value}` of user_custom_attributes (API::Entities::CustomAttribute). */
export const CustomAttribute = z.object({ key: z.string(), value: z.string() }).meta({ id: "CustomAttribute" });
export type CustomAttribute = z.output<typeof CustomAttribute>;

/** An identity as loaded with its user (`identities` rows, snake_case from json_agg). */
export type UserIdentity = { provider: string; extern_uid: string; saml_provider_id: number | null };

/**
 * A user with what the fuller entities need, loaded in the same statement as the user: identities,
 * the count of personal projects (`can_create_project`), the highest membership level, and the custom
 * attributes when `with_custom_attributes` was asked for by an admin (else null: not exposed).
 */
export type UserRow = UserModel & {
  identities: UserIdentity[];
  personalProjectsCount: number;
  highestRole: number;
  customAttributes: CustomAttribute[] | null;
};

/** GitLab's bot user types (app/models/concerns/has_user_type.rb). */
const BOT_TYPES = new Set([
  "alert_bot",
  "project_bot",
  "support_bot",
  "visual_review_bot",
  "migration_bot",
  "security_bot",
  "automation_bot",
]);
/** Types that are not internal: humans (null), project bots and service users. */
const NON_INTERNAL_TYPES = new Set(["human", "project_bot", "service_user"]);

export function isBot(user: Pick<UserModel, "userType">): boolean {
  return user.userType !== null && BOT_TYPES.has(user.userType);
}

/** `User#internal?`: ghost and bots other than project bots. */
export function isInternal(user: Pick<UserModel, "userType">): boolean {
  return user.userType !== null && !NON_INTERNAL_TYPES.has(user.userType);
}

/**
 * `user.avatar_url(only_path: false)`: the uploaded avatar, else the Gravatar URL GitLab builds by
 * default (gravatar enabled, `https://www.gravatar.com/avatar/%{hash}?s=%{size}&d=identicon`, size 40
 * at scale 2, MD5 of the downcased e-mail as in 15.4).
 * Differs from GitLab: always the https Gravatar URL; GitLab uses the http one on an http instance.
 */
export function avatarUrl(user: Pick<UserModel, "avatarUrl" | "email">, ctx: PresentContext, size = 40): string {
  if (user.avatarUrl) return user.avatarUrl.startsWith("/") ? webUrl(ctx, user.avatarUrl) : user.avatarUrl;
  // GravatarService: `s` is the size at scale 2.
  return `https://www.gravatar.com/avatar/${bytesToHex(md5(utf8ToBytes(user.email.trim().toLowerCase())))}?s=${size * 2}&d=identicon`;
}

/** API::Entities::Avatar (lib/api/entities/avatar.rb): `avatar_url(only_path: false, size:)`. */
export const Avatar = z.object({ avatar_url: z.string() }).meta({ id: "Avatar" });
export function avatar(row: { user: Pick<UserModel, "avatarUrl" | "email">; size: number | undefined }, ctx: PresentContext): z.output<typeof Avatar> {
  return { avatar_url: avatarUrl(row.user, ctx, row.size ?? 40) };
}

/** `Gitlab::PrivateCommitEmail.for_user`: `<id>-<username>@users.noreply.<host>`. */
function commitEmail(user: UserModel, ctx: PresentContext): string {
  if (user.commitEmail === "_private") return `${user.id}-${user.username}@users.noreply.${new URL(ctx.baseUrl).hostname}`;
  return user.commitEmail || user.email;
}

/** `read_user_profile` (app/policies/user_policy.rb): public profiles, or yourself, or an admin. */
function canReadProfile(user: UserModel, ctx: PresentContext): boolean {
  return !user.privateProfile || !!ctx.actor?.isAdmin || ctx.actor?.user.id === user.id;
}

/** API::Entities::Identity (lib/api/entities/identity.rb; EE's `saml_provider_id`). */
export const Identity = z
  .object({ provider: z.string(), extern_uid: z.string(), saml_provider_id: z.int().nullable().optional() })
  .meta({ id: "Identity" });

/** The columns `userBasic` reads: other domains may load just these. */
export type UserBasicRow = Pick<UserModel, "id" | "username" | "name" | "state" | "avatarUrl" | "email"> & {
  customAttributes?: CustomAttribute[] | null;
};

/** API::Entities::UserBasic (lib/api/entities/user_basic.rb, over UserSafe): what other domains embed. */
export const UserBasic = z
  .object({
    id: z.int(),
    username: z.string(),
    name: z.string(),
    state: z.string(),
    avatar_url: z.string().nullable(),
    web_url: z.string(),
    custom_attributes: z.array(CustomAttribute).optional(),
  })
  .meta({ id: "UserBasic" });
export function userBasic(user: UserBasicRow, ctx: PresentContext): z.output<typeof UserBasic> {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.state,
    avatar_url: avatarUrl(user, ctx),
    web_url: webUrl(ctx, user.username),
    ...(user.customAttributes ? { custom_attributes: user.customAttributes.map(customAttribute) } : {}),
  };
}

export function customAttribute(attribute: CustomAttribute): CustomAttribute {
  return { key: attribute.key, value: attribute.value };
}

/**
 * API::Entities::User (lib/api/entities/user.rb): `GET /users/:id` for non-admins. The spec's neutral
 * names `messenger`, `professional_profile`, `social_handle` stand for GitLab's skype, linkedin, twitter.
 */
export const User = UserBasic.extend({
  created_at: z.string().nullable().optional(),
  bio: z.string(),
  bio_html: z.string(),
  bot: z.boolean(),
  location: z.string(),
  public_email: z.string().nullable(),
  messenger: z.string(),
  professional_profile: z.string(),
  social_handle: z.string(),
  website_url: z.string(),
  organization: z.string(),
  job_title: z.string(),
  followers: z.int().optional(),
  following: z.int().optional(),
}).meta({ id: "User" });
export function user(row: UserModel & { customAttributes?: CustomAttribute[] | null }, ctx: PresentContext): z.output<typeof User> {
  const profile = canReadProfile(row, ctx);
  return {
    ...userBasic(row, ctx),
    ...(profile ? { created_at: isoTime(row.createdAt) } : {}),
    bio: row.bio,
    bio_html: stripTags(row.bio),
    bot: isBot(row),
    location: row.location,
    public_email: row.publicEmail ?? "",
    messenger: row.messenger,
    professional_profile: row.professionalProfile,
    social_handle: row.socialHandle,
    website_url: row.websiteUrl,
    organization: row.organization,
    job_title: row.jobTitle,
    // Differs from GitLab: there is no follow feature, so nobody has followers or followees.
    ...(profile ? { followers: 0, following: 0 } : {}),
  };
}

/** API::Entities::UserPublic (lib/api/entities/user_public.rb): `GET /user` for non-admins. */
export const UserPublic = User.extend({
  last_sign_in_at: z.string().nullable(),
  confirmed_at: z.string().nullable(),
  last_activity_on: z.string().nullable(),
  email: z.string(),
  theme_id: z.int().nullable(),
  color_scheme_id: z.int(),
  projects_limit: z.int(),
  current_sign_in_at: z.string().nullable(),
  identities: z.array(Identity),
  can_create_group: z.boolean(),
  can_create_project: z.boolean(),
  two_factor_enabled: z.boolean(),
  external: z.boolean(),
  private_profile: z.boolean(),
  commit_email: z.string(),
}).meta({ id: "UserPublic" });
export function userPublic(row: UserRow, ctx: PresentContext): z.output<typeof UserPublic> {
  return {
    ...user(row, ctx),
    last_sign_in_at: isoTime(row.lastSignInAt),
    confirmed_at: isoTime(row.confirmedAt),
    last_activity_on: isoDate(row.lastActivityOn),
    email: row.email,
    theme_id: row.themeId,
    color_scheme_id: row.colorSchemeId,
    projects_limit: row.projectsLimit,
    current_sign_in_at: isoTime(row.currentSignInAt),
    identities: row.identities.map(identity),
    can_create_group: row.canCreateGroup,
    can_create_project: row.projectsLimit - row.personalProjectsCount > 0,
    two_factor_enabled: row.twoFactorEnabled,
    external: row.external,
    private_profile: row.privateProfile,
    commit_email: commitEmail(row, ctx),
  };
}

/**
 * API::Entities::UserWithAdmin (lib/api/entities/user_with_admin.rb, with EE's additions): the
 * administrator view of lists, `GET /user` for admins, and the answer of create and update.
 */
export const UserWithAdmin = UserPublic.extend({
  is_admin: z.boolean(),
  note: z.string().nullable(),
  current_sign_in_ip: z.string().nullable(),
  last_sign_in_ip: z.string().nullable(),
  using_license_seat: z.boolean(),
  shared_runners_minutes_limit: z.int().nullable(),
  extra_shared_runners_minutes_limit: z.int().nullable(),
}).meta({ id: "UserWithAdmin" });
export function userWithAdmin(row: UserRow, ctx: PresentContext): z.output<typeof UserWithAdmin> {
  return {
    ...userPublic(row, ctx),
    is_admin: row.admin,
    note: row.note,
    current_sign_in_ip: row.currentSignInIp,
    last_sign_in_ip: row.lastSignInIp,
    using_license_seat: row.state === "active" && row.userType === null && (row.highestRole > 10 || row.admin),
    shared_runners_minutes_limit: row.sharedRunnersMinutesLimit,
    extra_shared_runners_minutes_limit: row.extraSharedRunnersMinutesLimit,
  };
}

/** API::Entities::UserDetailsWithAdmin (lib/api/entities/user_details_with_admin.rb): `GET /users/:id` for admins. */
export const UserDetailsWithAdmin = UserWithAdmin.extend({
  highest_role: z.int(),
  sign_in_count: z.int(),
  plan: z.string().nullable(),
  trial: z.boolean(),
}).meta({ id: "UserDetailsWithAdmin" });
export function userDetailsWithAdmin(row: UserRow, ctx: PresentContext): z.output<typeof UserDetailsWithAdmin> {
  return {
    ...userWithAdmin(row, ctx),
    highest_role: row.highestRole,
    sign_in_count: row.signInCount,
    // EE: the subscription plan and trial of the personal namespace; a self-managed instance has neither.
    plan: null,
    trial: false,
  };
}

/** API::Entities::Identity (EE adds `saml_provider_id`, shown for group SAML identities). */
export function identity(row: UserIdentity): z.output<typeof Identity> {
  return {
    provider: row.provider,
    extern_uid: row.extern_uid,
    ...(row.provider === "group_saml" ? { saml_provider_id: row.saml_provider_id } : {}),
  };
}

/** `strip_tags(user.bio)`: the bio without markup. */
function stripTags(text: string): string {
  return text.replace(/<[^>]*>/g, "");
}

/** API::Entities::Membership (`GET /users/:user_id/memberships`). */
export const Membership = z
  .object({ source_id: z.int(), source_name: z.string(), source_type: z.string(), access_level: z.int() })
  .meta({ id: "Membership" });
export function membership(
  row: { sourceId: number; sourceName: string; sourceType: string; accessLevel: number },
  _ctx?: PresentContext,
): z.output<typeof Membership> {
  return { source_id: row.sourceId, source_name: row.sourceName, source_type: row.sourceType, access_level: row.accessLevel };
}
