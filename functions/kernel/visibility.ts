import { getTableName, sql, type SQL } from "drizzle-orm";
import { namespaces, projects } from "../../db/schema";
import type { Actor } from "./env";

/**
 * SQL for "who may see what", shared by lookups and lists so that a hidden resource is missing
 * everywhere (lists, counts, X-Total) by the same rule (docs/compat.md, "Authentication and permissions", A7, A8). GitLab keeps
 * these in materialised `project_authorizations`; we compute them from `members` and the group tree.
 */

/**
 * A column written with its table's name. In a single-table select Drizzle writes bare column names,
 * which inside these subqueries would bind to the subquery's own tables (`members.id`).
 */
function qualified(table: typeof projects | typeof namespaces, column: string): SQL {
  return sql`${sql.identifier(getTableName(table))}.${sql.identifier(column)}`;
}

/** A membership that counts: not expired. */
const active = sql`(m.expires_at IS NULL OR m.expires_at > current_date)`;

/** Ids of the groups the user is a direct member of. */
export function memberGroupIds(userId: number | SQL): SQL {
  return sql`ARRAY(SELECT m.source_id FROM members m WHERE m.user_id = ${userId} AND m.source_type = 'Namespace' AND ${active})`;
}

/** Ids of the groups shared (group_group_links, not expired) with a group the user is a member of, directly or through an ancestor. */
export function sharedGroupIds(userId: number | SQL): SQL {
  return sql`ARRAY(SELECT gl.shared_group_id FROM group_group_links gl JOIN namespaces sg ON sg.id = gl.shared_with_group_id
    WHERE (gl.expires_at IS NULL OR gl.expires_at > current_date) AND sg.traversal_ids && ${memberGroupIds(userId)})`;
}

/**
 * The user's effective access level on the project row `p` (of table `projects`) in namespace `n`:
 * the highest of the direct membership, memberships of ancestor groups, and group shares capped by
 * the share's level.
 */
export function projectAccessLevel(userId: number | SQL | null, project = projects, namespace = namespaces): SQL<number> {
  if (userId === null) return sql<number>`0`;
  const projectId = qualified(project, "id");
  // Two subqueries rather than one with `(Project AND id) OR (Namespace AND ancestors)`: each is an index
  // scan on (user_id, source_type, source_id) with every column bound, where the OR could only bind
  // user_id and read all of the user's memberships once per row (0.2 ms a row for a member of 1,000 projects).
  return sql<number>`GREATEST(
    COALESCE((SELECT max(m.access_level) FROM members m
      WHERE m.user_id = ${userId} AND m.source_type = 'Project' AND m.source_id = ${projectId} AND ${active}), 0),
    COALESCE((SELECT max(m.access_level) FROM members m
      WHERE m.user_id = ${userId} AND m.source_type = 'Namespace' AND m.source_id = ANY(${qualified(namespace, "traversal_ids")}) AND ${active}), 0),
    COALESCE((SELECT max(LEAST(m.access_level, l.group_access)) FROM project_group_links l
      JOIN namespaces g ON g.id = l.group_id
      JOIN members m ON m.source_type = 'Namespace' AND m.source_id = ANY(g.traversal_ids) AND m.user_id = ${userId} AND ${active}
      WHERE l.project_id = ${projectId} AND (l.expires_at IS NULL OR l.expires_at > current_date)), 0),
    ${sharedGroupAccess(userId, qualified(namespace, "traversal_ids"))}
  )::int`;
}

/**
 * The level a user reaches through group-to-group shares (group_group_links) on a group or a project
 * whose namespace has `traversalIds`: a share of any group on that path, to a group the user is a
 * member of (directly or through an ancestor), capped at the share's level, as project_group_links cap
 * a project share. 0 without such a share.
 */
function sharedGroupAccess(userId: number | SQL, traversalIds: SQL): SQL {
  return sql`COALESCE((SELECT max(LEAST(m.access_level, gl.group_access)) FROM group_group_links gl
      JOIN namespaces sg ON sg.id = gl.shared_with_group_id
      JOIN members m ON m.source_type = 'Namespace' AND m.source_id = ANY(sg.traversal_ids) AND m.user_id = ${userId} AND ${active}
      WHERE gl.shared_group_id = ANY(${traversalIds}) AND (gl.expires_at IS NULL OR gl.expires_at > current_date)), 0)`;
}

/** The user's access level on the group row `g` (inherited from ancestors); 5 for a member of a descendant or of a project inside. */
export function groupAccessLevel(userId: number | SQL | null, group = namespaces): SQL<number> {
  if (userId === null) return sql<number>`0`;
  const groupId = qualified(group, "id");
  return sql<number>`GREATEST(
    COALESCE((SELECT max(m.access_level) FROM members m
      WHERE m.user_id = ${userId} AND ${active} AND m.source_type = 'Namespace' AND m.source_id = ANY(${qualified(group, "traversal_ids")})), 0),
    ${sharedGroupAccess(userId, qualified(group, "traversal_ids"))},
    CASE WHEN EXISTS (SELECT 1 FROM members m JOIN namespaces d ON d.id = m.source_id
        WHERE m.user_id = ${userId} AND ${active} AND m.source_type = 'Namespace' AND ${groupId} = ANY(d.traversal_ids))
      OR EXISTS (SELECT 1 FROM members m JOIN projects mp ON mp.id = m.source_id JOIN namespaces d ON d.id = mp.namespace_id
        WHERE m.user_id = ${userId} AND ${active} AND m.source_type = 'Project' AND ${groupId} = ANY(d.traversal_ids))
      THEN 5 ELSE 0 END
  )::int`;
}

/** Ids of every project the user is authorised on (member directly, through a group, or a share). */
export function authorizedProjectIds(userId: number | SQL, minAccessLevel = 10): SQL {
  return sql`(
    SELECT m.source_id FROM members m
      WHERE m.user_id = ${userId} AND m.source_type = 'Project' AND m.access_level >= ${minAccessLevel} AND ${active}
    UNION
    SELECT ap.id FROM projects ap JOIN namespaces an ON an.id = ap.namespace_id
      WHERE an.traversal_ids && ARRAY(SELECT m.source_id FROM members m WHERE m.user_id = ${userId}
        AND m.source_type = 'Namespace' AND m.access_level >= ${minAccessLevel} AND ${active})
    UNION
    SELECT l.project_id FROM project_group_links l JOIN namespaces g ON g.id = l.group_id
      WHERE l.group_access >= ${minAccessLevel} AND (l.expires_at IS NULL OR l.expires_at > current_date)
        AND g.traversal_ids && ARRAY(SELECT m.source_id FROM members m WHERE m.user_id = ${userId}
          AND m.source_type = 'Namespace' AND m.access_level >= ${minAccessLevel} AND ${active})
    UNION
    SELECT ap.id FROM projects ap JOIN namespaces an ON an.id = ap.namespace_id
      WHERE an.traversal_ids && ARRAY(SELECT gl.shared_group_id FROM group_group_links gl JOIN namespaces sg ON sg.id = gl.shared_with_group_id
        WHERE gl.group_access >= ${minAccessLevel} AND (gl.expires_at IS NULL OR gl.expires_at > current_date)
          AND sg.traversal_ids && ARRAY(SELECT m.source_id FROM members m WHERE m.user_id = ${userId}
            AND m.source_type = 'Namespace' AND m.access_level >= ${minAccessLevel} AND ${active}))
  )`;
}

/**
 * WHERE condition: the project row is readable by the actor (A8). `memberLevel` raises the level a
 * member needs where visibility alone does not grant it: merge requests of a private project need
 * reporter (ProjectFeature.required_minimum_access_level(:merge_requests)).
 */
export function projectIsVisible(actor: Actor | null, project = projects, memberLevel = 10): SQL {
  if (actor?.isAdmin) return sql`true`;
  if (!actor) return sql`${project.visibilityLevel} = 20`;
  const minimum = actor.user.external ? 20 : 10;
  return sql`(${project.visibilityLevel} >= ${minimum} OR ${project.id} IN ${authorizedProjectIds(actor.user.id, memberLevel)})`;
}

/** `projectIsVisible` for a prepared query of the given actor shape (placeholders of `actorPlaceholders`). */
export function projectIsVisibleForShape(shape: ActorShape, project = projects, memberLevel = 10): SQL {
  if (shape === "admin") return sql`true`;
  if (shape === "anonymous") return sql`${project.visibilityLevel} = 20`;
  return sql`(${project.visibilityLevel} >= ${minimumVisibilityPlaceholder} OR ${project.id} IN ${authorizedProjectIds(userIdPlaceholder, memberLevel)})`;
}

/** WHERE condition: the group row is readable by the actor. */
export function groupIsVisible(actor: Actor | null, group = namespaces): SQL {
  if (actor?.isAdmin) return sql`true`;
  if (!actor) return sql`${group.visibilityLevel} = 20`;
  return groupVisibleToUser(actor.user.id, actor.user.external ? 20 : 10, group);
}

/**
 * The parts of an actor that decide the shape of a visibility condition, for prepared queries
 * (kernel/db.ts `preparedQuery`): one prepared query per shape, the rest bound by `actorPlaceholders`.
 */
export type ActorShape = "anonymous" | "admin" | "user";
export function actorShape(actor: Actor | null): ActorShape {
  return !actor ? "anonymous" : actor.isAdmin ? "admin" : "user";
}
/** The values of the placeholders `userId` and `minimumVisibility` that `*ForShape` conditions use. */
export function actorPlaceholders(actor: Actor | null): { userId: number | null; minimumVisibility: number } {
  return { userId: actor?.user.id ?? null, minimumVisibility: actor?.user.external ? 20 : 10 };
}
/** The `userId` placeholder of `actorPlaceholders`, for `*ForShape` conditions written elsewhere. */
export const userIdPlaceholder = sql`${sql.placeholder("userId")}::int`;
const minimumVisibilityPlaceholder = sql`${sql.placeholder("minimumVisibility")}::int`;

/** `groupIsVisible` for a prepared query of the given actor shape (placeholders of `actorPlaceholders`). */
export function groupIsVisibleForShape(shape: ActorShape, group = namespaces): SQL {
  if (shape === "admin") return sql`true`;
  if (shape === "anonymous") return sql`${group.visibilityLevel} = 20`;
  return groupVisibleToUser(userIdPlaceholder, minimumVisibilityPlaceholder, group);
}

/** The signed-in actor's access level on projects, for a prepared query: `projectAccessLevel` with the `userId` placeholder. */
export function projectAccessLevelForShape(shape: ActorShape, project = projects, namespace = namespaces): SQL<number> {
  return projectAccessLevel(shape === "anonymous" ? null : userIdPlaceholder, project, namespace);
}

function groupVisibleToUser(userId: number | SQL, minimum: number | SQL, group: typeof namespaces): SQL {
  return sql`(${group.visibilityLevel} >= ${minimum}
    OR ${group.traversalIds} && ${memberGroupIds(userId)}
    OR ${group.traversalIds} && ${sharedGroupIds(userId)}
    OR ${group.id} IN (SELECT unnest(d.traversal_ids) FROM members m JOIN namespaces d ON d.id = m.source_id
      WHERE m.user_id = ${userId} AND m.source_type = 'Namespace' AND ${active})
    OR ${group.id} IN (SELECT unnest(d.traversal_ids) FROM members m JOIN projects mp ON mp.id = m.source_id
      JOIN namespaces d ON d.id = mp.namespace_id WHERE m.user_id = ${userId} AND m.source_type = 'Project' AND ${active}))`;
}
