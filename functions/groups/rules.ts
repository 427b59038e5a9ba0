import { Access, visibilityName } from "../kernel/access";
import type { GroupWithAccess } from "../kernel/abilities";
import type { Actor } from "../kernel/env";
import { SUBGROUP_CREATION_LEVELS } from "../entities/groups";

/**
 * The group rules GitLab keeps in its models, validators and policies (app/models/namespace.rb,
 * app/models/group.rb, app/validators/namespace_path_validator.rb, lib/gitlab/path_regex.rb,
 * app/policies/group_policy.rb), as pure functions of what the queries loaded. No I/O here.
 */

/** Model errors in the order ActiveModel collects them: attribute → messages. */
export type ModelErrors = Record<string, string[]>;

function add(errors: ModelErrors, attribute: string, message: string) {
  (errors[attribute] ??= []).push(message);
}

/** Namespace::NUMBER_OF_ANCESTORS_ALLOWED. */
const NUMBER_OF_ANCESTORS_ALLOWED = 20;
const MAX_LENGTH = 255;

/** Gitlab::PathRegex::TOP_LEVEL_ROUTES: a root group may not take these paths (any case). */
const TOP_LEVEL_ROUTES = new Set([
  "-", ".well-known", "404.html", "422.html", "500.html", "502.html", "503.html", "abuse_reports", "admin",
  "api", "apple-touch-icon-precomposed.png", "apple-touch-icon.png", "assets", "autocomplete", "ci",
  "dashboard", "deploy.html", "explore", "favicon.ico", "files", "groups", "header_logo_dark.png",
  "header_logo_light.png", "health_check", "help", "import", "invites", "jwt", "koding",
  "notification_settings", "oauth", "profile", "projects", "public", "robots.txt", "s", "search",
  "sent_notifications", "slash-command-logo.png", "snippets", "u", "unsubscribes", "uploads", "users",
]);

/** Gitlab::PathRegex::ILLEGAL_GROUP_PATH_WORDS (project wildcard routes and group routes): not for subgroups. */
const ILLEGAL_GROUP_PATH_WORDS = new Set([
  "-", "badges", "blame", "blob", "builds", "commits", "create", "create_dir", "edit", "files",
  "find_file", "new", "preview", "raw", "refs", "tree", "update", "wikis",
]);

/**
 * Gitlab::PathRegex.namespace_format_regex: starts with a letter, digit, `_` or `.`; then letters,
 * digits, `_`, `-`, `.`; ends with a letter, digit, `_` or `-`; never ends in `.git` or `.atom`.
 */
const NAMESPACE_FORMAT = /^(?:[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])$/;
export const NAMESPACE_FORMAT_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";

/** Gitlab::Regex.group_name_regex: `\p{Alnum}`, U+00A9–U+1F9FF (emoji), `_` first; then also dash, space, `()` and `.`. */
const GROUP_NAME_FORMAT = /^[\p{L}\p{M}\p{Nd}\u{00A9}-\u{1F9FF}_][\p{L}\p{M}\p{Nd}\p{Pd}\u{00A9}-\u{1F9FF}_(). ]*$/u;
export const GROUP_NAME_MESSAGE =
  "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.";

/**
 * HtmlSafetyValidator: the value must survive Rails' FullSanitizer unchanged. Tags are stripped and
 * `<`, `>`, `"` and `'` come back entity-encoded (`&` is pre-encoded and survives), so any of those fails.
 */
const UNSAFE_HTML = /[<>"']/;
export const HTML_SAFETY_MESSAGE = "cannot contain HTML/XML tags, including any word between angle brackets (&lt;,&gt;).";

const blank = (value: string | null | undefined) => value === null || value === undefined || value.trim() === "";

/** Everything the Group model validates, with the facts the queries gathered. */
export type GroupValidationInput = {
  name: string;
  nameChanged: boolean;
  path: string;
  pathChanged: boolean;
  description: string;
  /** Ancestors' count (the parent's traversal_ids length), 0 for a root group. */
  ancestorCount: number;
  visibilityLevel: number;
  parentVisibilityLevel: number | null;
  /** Highest visibility among direct subgroups / direct projects (existing groups only). */
  maxChildVisibility: number | null;
  maxProjectVisibility: number | null;
  twoFactorGracePeriod: number;
  /** The new full path is already a route (a namespace or a project), case-insensitively. */
  pathTaken: boolean;
};

/**
 * Namespace and Group validations in the order ActiveModel runs them: Namespace's `name`, `description`,
 * `path` (presence, length, namespace_path, minimum length), nesting; Group's visibility rules,
 * `two_factor_grace_period`, the name's HTML safety and format; last, the route's uniqueness that Routable copies onto
 * `path` after validation (`set_path_errors`).
 */
export function validateGroup(input: GroupValidationInput): ModelErrors {
  const errors: ModelErrors = {};
  if (blank(input.name)) add(errors, "name", "can't be blank");
  if ([...input.name].length > MAX_LENGTH) add(errors, "name", `is too long (maximum is ${MAX_LENGTH} characters)`);
  if ([...input.description].length > MAX_LENGTH)
    add(errors, "description", `is too long (maximum is ${MAX_LENGTH} characters)`);
  if (blank(input.path)) add(errors, "path", "can't be blank");
  if (input.path.length > MAX_LENGTH) add(errors, "path", `is too long (maximum is ${MAX_LENGTH} characters)`);
  const reserved = input.ancestorCount === 0 ? TOP_LEVEL_ROUTES : ILLEGAL_GROUP_PATH_WORDS;
  if (!NAMESPACE_FORMAT.test(input.path) || /\.(git|atom)$/.test(input.path)) add(errors, "path", NAMESPACE_FORMAT_MESSAGE);
  else if (reserved.has(input.path.toLowerCase())) add(errors, "path", `${input.path} is a reserved name`);
  if (input.pathChanged && input.path.length < 2) add(errors, "path", "is too short (minimum is 2 characters)");
  if (input.ancestorCount > NUMBER_OF_ANCESTORS_ALLOWED) add(errors, "parent_id", "has too deep level of nesting");

  const visibility = visibilityName(input.visibilityLevel);
  if (input.maxProjectVisibility !== null && input.maxProjectVisibility > input.visibilityLevel)
    add(errors, "visibility_level", `${visibility} is not allowed since this group contains projects with higher visibility.`);
  if (input.maxChildVisibility !== null && input.maxChildVisibility > input.visibilityLevel)
    add(errors, "visibility_level", `${visibility} is not allowed since there are sub-groups with higher visibility.`);
  if (input.parentVisibilityLevel !== null && input.visibilityLevel > input.parentVisibilityLevel)
    add(
      errors,
      "visibility_level",
      `${visibility} is not allowed since the parent group has a ${visibilityName(input.parentVisibilityLevel)} visibility.`,
    );
  if (input.twoFactorGracePeriod < 0) add(errors, "two_factor_grace_period", "must be greater than or equal to 0");
  if (input.nameChanged && !blank(input.name) && UNSAFE_HTML.test(input.name)) add(errors, "name", HTML_SAFETY_MESSAGE);
  if (input.nameChanged && !GROUP_NAME_FORMAT.test(input.name)) add(errors, "name", GROUP_NAME_MESSAGE);
  if (input.pathTaken) add(errors, "path", "has already been taken");
  return errors;
}

export const hasErrors = (errors: ModelErrors) => Object.keys(errors).length > 0;

/** Ruby's `String#inspect` for the messages GitLab interpolates into "Failed to save group …". */
function rubyInspect(value: string): string {
  let out = '"';
  for (const ch of value) {
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\u001b") out += "\\e";
    else if (ch.charCodeAt(0) < 0x20 || ch === "\u007f") out += `\\x${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`;
    else out += ch;
  }
  return `${out.replace(/#(?=[{$@])/g, "\\#")}"`;
}

/** `errors.messages.to_s` as Ruby 2.7/3.0 prints a Hash: `{:path=>["has already been taken"]}`. */
export function rubyHash(errors: ModelErrors): string {
  const entries = Object.entries(errors).map(([key, messages]) => `:${key}=>[${messages.map(rubyInspect).join(", ")}]`);
  return `{${entries.join(", ")}}`;
}

/**
 * GroupPolicy's `create_subgroup`: owners (and admins) always; maintainers when the group's
 * `subgroup_creation_level` is maintainer (`maintainer_can_create_group`).
 */
export function canCreateSubgroup(actor: Actor | null, parent: GroupWithAccess): boolean {
  if (!actor) return false;
  if (actor.isAdmin || parent.accessLevel >= Access.OWNER) return true;
  return parent.subgroupCreationLevel === SUBGROUP_CREATION_LEVELS.maintainer && parent.accessLevel >= Access.MAINTAINER;
}

/** GlobalPolicy's `create_group`: the user's `can_create_group` flag (admins pass every ability). */
export function canCreateGroup(actor: Actor): boolean {
  return actor.isAdmin || actor.user.canCreateGroup;
}

/**
 * GroupPolicy's `change_share_with_group_lock`: an owner of the group, unless the parent has the lock
 * on, in which case only someone who may change the parent's lock (its owners) may change it.
 */
export function canChangeShareLock(actor: Actor, parent: { shareWithGroupLock: boolean; accessLevel: number } | null): boolean {
  if (actor.isAdmin || !parent || !parent.shareWithGroupLock) return true;
  return parent.accessLevel >= Access.OWNER;
}

/** GitLab's share-lock error (app/services/groups/update_service.rb). */
export const SHARE_LOCK_MESSAGE =
  'cannot be disabled when the parent group "Share with group lock" is enabled, except by the owner of the parent group';

/**
 * Gitlab::SQL::Pattern.split_query_to_search_terms: `"quoted phrases"` stay whole, the rest splits on
 * whitespace. Terms of 3+ characters match anywhere; with none, the whole query must match exactly
 * (case-insensitively) — `fuzzy_arel_match`.
 */
export function searchTerms(query: string): { partial: string[]; exact: string | null } {
  const squished = query.trim().replace(/\s+/g, " ");
  if (!squished) return { partial: [], exact: null };
  const quoted: string[] = [];
  const rest = squished.replace(/(?<=^| )"([^"]+)"(?= |$)/g, (_, term: string) => {
    quoted.push(term);
    return "";
  });
  const terms = [...rest.split(" ").filter(Boolean), ...quoted];
  const partial = terms.filter((term) => [...term].length >= 3);
  return { partial, exact: partial.length ? null : squished };
}

/** `sanitize_sql_like`: `%`, `_` and `\` are literals in the pattern. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/** The position after a keyset page: the last row's name and id. */
export type GroupCursor = { name: string; id: number };

function base64UrlEncode(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_");
}

/**
 * Gitlab::Pagination::Keyset::Paginator's cursor: URL-safe Base64 (padded) of the order columns of the
 * last row and the direction, `{"name":"…","id":"12","_kd":"n"}`.
 */
export function encodeCursor(cursor: GroupCursor): string {
  return base64UrlEncode(JSON.stringify({ name: cursor.name, id: String(cursor.id), _kd: "n" }));
}

/** The cursor's position; null for a blank cursor (the first page), "invalid" for anything unreadable. */
export function decodeCursor(value: unknown): GroupCursor | null | "invalid" {
  if (value === undefined || value === null || value === "") return null;
  if (typeof value !== "string" || !/^[A-Za-z0-9_-]+=*$/.test(value)) return "invalid";
  try {
    const binary = atob(value.replace(/-/g, "+").replace(/_/g, "/"));
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
    const data = JSON.parse(text) as { name?: unknown; id?: unknown; _kd?: unknown };
    const id = Number(data.id);
    if (typeof data.name !== "string" || !Number.isInteger(id) || id < 0 || id > 2147483647 || (data._kd !== undefined && data._kd !== "n")) return "invalid";
    return { name: data.name, id };
  } catch {
    return "invalid";
  }
}
