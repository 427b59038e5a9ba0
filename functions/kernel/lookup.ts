import { and, eq, sql, type SQL } from "drizzle-orm";
import { preparedQuery, type Executor } from "./db";
import { namespaces, projects, redirectRoutes, users, type Namespace, type User } from "../../db/schema";
import { authorize, authorizeGroup, callerMay, canReadGroup, canReadProject, type GroupAbility, type GroupWithAccess, type ProjectAbility, type ProjectWithAccess } from "./abilities";
import type { Ctx } from "./env";
import { notFound, unauthorized } from "./errors";
import { pathRowId } from "./params";
import { groupAccessLevel, projectAccessLevelForShape } from "./visibility";

/**
 * `find_project!`, `find_group!`, `find_user` (lib/api/helpers.rb): numeric id or URL-encoded full
 * path, case-insensitive; one statement returns the row and the actor's effective access level; what
 * the actor may not read is 404, exactly as what does not exist (docs/compat.md, "Addressing resources", R1, R2, R5).
 */
export async function findProject(c: Ctx, idOrPath: string): Promise<ProjectWithAccess> {
  const project = await loadProject(c, idOrPath);
  // On the package registries a deploy token may be the caller: it reads the projects it reaches.
  const readable = project && (c.var.deployToken ? callerMay(c, "read_project", project) : canReadProject(c.var.actor, project));
  if (!readable) throw notFound("Project");
  return project;
}

/**
 * The project of the route's `:id` as GitLab's endpoints guard it, in Grape's order: `authenticate!`
 * when `signedIn` (anonymous: 401, before the project is looked at), `user_project` (unreadable or
 * missing: 404), then `authorize! ability` when one is named (403). Every route that needs those steps
 * in a row calls this rather than writing them again.
 */
export async function authorizedProject(c: Ctx, ability: ProjectAbility | null, opts: { signedIn?: boolean } = {}): Promise<ProjectWithAccess> {
  if (opts.signedIn && !c.var.actor) throw unauthorized();
  const project = await findProject(c, c.req.param("id") ?? "");
  if (ability) authorize(c, ability, project);
  return project;
}

/** `authorizedProject` for the groups' routes: 401 when `signedIn`, `find_group!` (404), `authorize!` (403). */
export async function authorizedGroup(c: Ctx, ability: GroupAbility | null, opts: { signedIn?: boolean } = {}): Promise<GroupWithAccess> {
  if (opts.signedIn && !c.var.actor) throw unauthorized();
  const group = await findGroup(c, c.req.param("id") ?? "");
  if (ability) authorizeGroup(c, ability, group);
  return group;
}

/** The project without the visibility check, for callers that decide themselves (e.g. admin-only paths). */
export async function loadProject(c: Ctx, idOrPath: string): Promise<ProjectWithAccess | null> {
  const byId = /^\d+$/.test(idOrPath);
  if (!byId && !idOrPath.includes("/")) return null;
  if (byId && pathRowId(idOrPath) === null) return null;
  return projectWithAccess(c.var.db(), c.var.actor?.user.id ?? null, byId ? { id: Number(idOrPath) } : { path: idOrPath });
}

/**
 * The project and `userId`'s access level to it, outside a request too (work a Durable Object or a
 * queue consumer does on a user's behalf, such as merging when a pipeline succeeds).
 */
export async function projectWithAccess(db: Executor, userId: number | null, key: { id: number } | { path: string }): Promise<ProjectWithAccess | null> {
  const byId = "id" in key;
  const query = projectLookups[`${byId ? "id" : "path"}:${userId === null ? "anonymous" : "user"}`];
  const rows = await query(db, { id: byId ? key.id : null, path: byId ? null : key.path, userId });
  const row = rows[0];
  return row ? { ...row.project, namespace: row.namespace, accessLevel: Number(row.accessLevel) } : null;
}

/**
 * The project lookup runs on nearly every request, so its four shapes (by id or path, anonymous or
 * signed in: the anonymous access level is a constant 0) are prepared once (kernel/db.ts `preparedQuery`).
 */
function projectLookup(byId: boolean, anonymous: boolean) {
  return preparedQuery((db) =>
    db
      .select({
        project: projects,
        namespace: namespaces,
        accessLevel: projectAccessLevelForShape(anonymous ? "anonymous" : "user"),
      })
      .from(projects)
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(
        byId
          ? eq(projects.id, sql`${sql.placeholder("id")}::int`)
          : projectAtPath(sql`${sql.placeholder("path")}::text`),
      )
      .limit(1),
  );
}
/**
 * `find_by_full_path(id, follow_redirects: true)` as a condition on `projects`: the project at the path
 * (case-insensitive), else the one an old path of it (a rename or transfer, `redirect_routes`) names;
 * one statement either way. Every lookup of a project by path uses it.
 */
export function projectAtPath(path: SQL): SQL {
  return sql`${projects.id} = COALESCE(
    (SELECT p.id FROM ${projects} p WHERE lower(p.full_path) = lower(${path})),
    (SELECT r.source_id FROM ${redirectRoutes} r WHERE r.source_type = 'Project' AND lower(r.path) = lower(${path})))`;
}

const projectLookups = {
  "id:anonymous": projectLookup(true, true),
  "id:user": projectLookup(true, false),
  "path:anonymous": projectLookup(false, true),
  "path:user": projectLookup(false, false),
};

export async function findGroup(c: Ctx, idOrPath: string): Promise<GroupWithAccess> {
  const group = await loadGroup(c, idOrPath);
  if (!group || !canReadGroup(c.var.actor, group)) throw notFound("Group");
  return group;
}

export async function loadGroup(c: Ctx, idOrPath: string): Promise<GroupWithAccess | null> {
  const byId = /^\d+$/.test(idOrPath);
  if (byId && pathRowId(idOrPath) === null) return null;
  const rows = await c.var
    .db()
    .select({ group: namespaces, accessLevel: groupAccessLevel(c.var.actor?.user.id ?? null) })
    .from(namespaces)
    .where(
      and(
        eq(namespaces.type, "Group"),
        byId ? eq(namespaces.id, Number(idOrPath)) : sql`lower(${namespaces.fullPath}) = lower(${idOrPath})`,
      ),
    )
    .limit(1);
  const row = rows[0];
  return row ? { ...row.group, accessLevel: Number(row.accessLevel) } : null;
}

/** `/users/:id` takes digits only (R3). */
export async function findUser(c: Ctx, id: string): Promise<User> {
  const userId = pathRowId(id);
  if (userId === null) throw notFound("User");
  const rows = await c.var.db().select().from(users).where(eq(users.id, userId)).limit(1);
  if (!rows[0]) throw notFound("User");
  return rows[0];
}

/**
 * `find_user(id_or_username)` (lib/api/helpers.rb): digits are an id, anything else a username
 * (case-insensitive); null when there is none. Read rules are the caller's.
 */
export async function loadUserByIdOrUsername(c: Ctx, idOrUsername: string): Promise<User | null> {
  const byId = /^\d+$/.test(idOrUsername);
  if (byId && pathRowId(idOrUsername) === null) return null;
  const rows = await c.var
    .db()
    .select()
    .from(users)
    .where(byId ? eq(users.id, Number(idOrUsername)) : sql`lower(${users.username}) = lower(${idOrUsername})`)
    .limit(1);
  return rows[0] ?? null;
}

/** `find_user(id_or_username)`, else `404 User Not Found`. */
export async function findUserByIdOrUsername(c: Ctx, idOrUsername: string): Promise<User> {
  const user = await loadUserByIdOrUsername(c, idOrUsername);
  if (!user) throw notFound("User");
  return user;
}

/** A namespace as `find_namespace!` loads it, with the caller's best membership in it or an ancestor. */
export type NamespaceWithAccess = Namespace & { accessLevel: number };

/**
 * `find_namespace!` (lib/api/helpers.rb): digits are an id, anything else a full path; `read_namespace`
 * decides: a personal namespace for its owner, a group for its members and members of an ancestor
 * (GroupPolicy `has_access`), everything for admins. Otherwise `404 Namespace Not Found`.
 */
export async function findNamespace(c: Ctx, idOrPath: string): Promise<NamespaceWithAccess> {
  const actor = c.var.actor;
  const byId = /^\d+$/.test(idOrPath);
  const userId = actor?.user.id ?? null;
  const rows =
    byId && pathRowId(idOrPath) === null
      ? []
      : await c.var
          .db()
          .select({
            namespace: namespaces,
            accessLevel:
              userId === null
                ? sql<number>`0`
                : sql<number>`COALESCE((SELECT max(m.access_level) FROM members m WHERE m.source_type = 'Namespace'
                    AND m.source_id = ANY(${namespaces.traversalIds}) AND m.user_id = ${userId}
                    AND (m.expires_at IS NULL OR m.expires_at > current_date)), 0)::int`,
          })
          .from(namespaces)
          .where(byId ? eq(namespaces.id, Number(idOrPath)) : sql`lower(${namespaces.fullPath}) = lower(${idOrPath})`)
          .limit(1);
  const row = rows[0];
  const readable =
    !!row &&
    !!actor &&
    (actor.isAdmin || (row.namespace.type === "User" ? row.namespace.ownerId === actor.user.id : Number(row.accessLevel) > 0));
  if (!readable) throw notFound("Namespace");
  return { ...row.namespace, accessLevel: Number(row.accessLevel) };
}
