// Protected tags as the tags, releases and git push paths use them (functions/protected_tags/ manages
// them): reading a project's protections in one statement and GitLab 15.4's Gitlab::Checks::TagCheck.
import { sql } from "drizzle-orm";
import type { Executor } from "../../kernel/db";
import { Access } from "../../kernel/access";
import type { ProtectedTagRow } from "../../entities/protected_tags";
import { checkAccess, refMatches, type Caller, type PushDecision, type RefUpdate, type UpdateSource } from "../protected_branches/rules";

export type { ProtectedTagRow };

type LevelJson = { id: number; access_level: number | null; user_id: number | null; group_id: number | null; user_name: string | null; group_name: string | null; group_user_ids: number[] | null };
type Row = { id: number; name: string; created_at: string | Date; updated_at: string | Date; levels: LevelJson[] | string };

const toRow = (row: Row): ProtectedTagRow => ({
  id: Number(row.id),
  name: row.name,
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
  levels: (typeof row.levels === "string" ? (JSON.parse(row.levels) as LevelJson[]) : row.levels).map((l) => ({
    id: Number(l.id),
    accessLevel: l.access_level == null ? null : Number(l.access_level),
    userId: l.user_id == null ? null : Number(l.user_id),
    groupId: l.group_id == null ? null : Number(l.group_id),
    userName: l.user_name,
    groupName: l.group_name,
    groupUserIds: (l.group_user_ids ?? []).map(Number),
  })),
});

/**
 * A project's protected tags (or the one called `name`) with their create levels, by id. One statement;
 * a group level carries the ids of the group's direct members, so deciding needs no further read.
 */
export async function listProtectedTags(db: Executor, projectId: number, name?: string): Promise<ProtectedTagRow[]> {
  const result = await db.execute<Row>(sql`
    SELECT pt.id, pt.name, pt.created_at, pt.updated_at,
           coalesce((SELECT json_agg(json_build_object('id', l.id, 'access_level', l.access_level, 'user_id', l.user_id, 'group_id', l.group_id,
               'user_name', lu.name, 'group_name', lg.name,
               'group_user_ids', CASE WHEN l.group_id IS NULL THEN NULL ELSE ARRAY(SELECT m.user_id FROM members m
                 WHERE m.source_type = 'Namespace' AND m.source_id = l.group_id AND (m.expires_at IS NULL OR m.expires_at > current_date)) END) ORDER BY l.id)
              FROM protected_tag_create_access_levels l
              LEFT JOIN users lu ON lu.id = l.user_id
              LEFT JOIN namespaces lg ON lg.id = l.group_id
             WHERE l.protected_tag_id = pt.id), '[]'::json) AS levels
      FROM protected_tags pt
     WHERE pt.project_id = ${projectId} ${name === undefined ? sql`` : sql`AND pt.name = ${name}`}
     ORDER BY pt.id`);
  return result.rows.map(toRow);
}

/** `ProtectedTag.protected?`: some protection's name (exact or wildcard) matches the tag. */
export const tagIsProtected = (protections: ProtectedTagRow[], tag: string) => protections.some((p) => refMatches(p.name, tag));

/**
 * `Gitlab::UserAccess#can_create_tag?`: an unprotected tag needs nothing more than `push_code` (checked by
 * the caller); a protected one needs a create level of a matching protection to admit the caller.
 */
export function canCreateTag(protections: ProtectedTagRow[], tag: string, caller: Caller): boolean {
  const matching = protections.filter((p) => refMatches(p.name, tag));
  if (matching.length === 0) return true;
  return matching.some((p) => p.levels.some((l) => checkAccess(caller, l)));
}

/** Gitlab::Checks::TagCheck's messages (GitLab 15.4). */
export const TAG_MESSAGES = {
  update: "Protected tags cannot be updated.",
  delete: "You are not allowed to delete protected tags from this project. Only a project maintainer or owner can delete a protected tag.",
  deleteNonWeb: "You can only delete protected tags using the web interface.",
  create: "You are not allowed to create this tag as it is protected.",
} as const;

/**
 * `TagCheck#protected_tag_checks` for one update of `refs/tags/<name>` by a caller who has `push_code`:
 * a protected tag is never moved, is deleted only by maintainers through the API (`web`), and is
 * created only by whom its create levels admit. Other refs pass.
 */
export function checkTagUpdate(protections: ProtectedTagRow[], update: RefUpdate, caller: Caller, source: UpdateSource = {}): PushDecision {
  if (!update.ref.startsWith("refs/tags/")) return { allowed: true };
  const tag = update.ref.slice("refs/tags/".length);
  if (!tagIsProtected(protections, tag)) return { allowed: true };
  if (update.before !== null && update.after !== null) return { allowed: false, message: TAG_MESSAGES.update };
  if (update.after === null) {
    const maintainer = !!caller && (caller.isAdmin || caller.accessLevel >= Access.MAINTAINER);
    if (!maintainer) return { allowed: false, message: TAG_MESSAGES.delete };
    if (!source.web) return { allowed: false, message: TAG_MESSAGES.deleteNonWeb };
    return { allowed: true };
  }
  return canCreateTag(protections, tag, caller) ? { allowed: true } : { allowed: false, message: TAG_MESSAGES.create };
}
