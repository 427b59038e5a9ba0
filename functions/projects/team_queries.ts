import { sql, type SQL } from "drizzle-orm";
import type { z } from "zod";
import type { Namespace, User } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { cappedCount, type Page } from "../kernel/pagination";
import { groupIsVisible } from "../kernel/visibility";
import type { ListProjectGroups, ListProjectUsers } from "./params";
import { fuzzySearch } from "./queries";

/** A membership that counts: not expired. */
const active = sql`(m.expires_at IS NULL OR m.expires_at > current_date)`;

/**
 * `project.team.users` (ProjectTeam, project_authorizations): direct members, members of the
 * project's group and its ancestors, and members of groups the project is shared with (and their
 * ancestors), as the kernel's `projectAccessLevel` counts them.
 */
function teamUserIds(projectId: number): SQL {
  return sql`(
    SELECT m.user_id FROM members m WHERE m.source_type = 'Project' AND m.source_id = ${projectId} AND ${active}
    UNION
    SELECT m.user_id FROM members m JOIN projects tp ON tp.id = ${projectId} JOIN namespaces tn ON tn.id = tp.namespace_id
      WHERE m.source_type = 'Namespace' AND m.source_id = ANY(tn.traversal_ids) AND ${active}
    UNION
    SELECT m.user_id FROM project_group_links l JOIN namespaces g ON g.id = l.group_id
      JOIN members m ON m.source_type = 'Namespace' AND m.source_id = ANY(g.traversal_ids) AND ${active}
      WHERE l.project_id = ${projectId} AND (l.expires_at IS NULL OR l.expires_at > current_date)
  )`;
}

/**
 * GET /projects/:id/users: the team's users, `search` as User.search (name and username fuzzily,
 * public email exactly; exact name, then username, then email matches first, then by name), else by id.
 */
export async function listTeamUsers(db: Executor, projectId: number, f: z.output<typeof ListProjectUsers>, page: Page) {
  const where: SQL[] = [sql`u.id IN ${teamUserIds(projectId)}`];
  let order = sql`u.id ASC`;
  const query = f.search?.replace(/^@/, "");
  if (query !== undefined && query.trim() !== "") {
    const lowered = query.toLowerCase();
    const match = fuzzySearch([sql`u.name`, sql`u.username`], query);
    where.push(match ? sql`(${match} OR lower(u.public_email) = ${lowered})` : sql`lower(u.public_email) = ${lowered}`);
    order = sql`CASE WHEN lower(u.name) = ${lowered} THEN 0 WHEN lower(u.username) = ${lowered} THEN 1
      WHEN lower(u.public_email) = ${lowered} THEN 2 ELSE 3 END, u.name ASC, u.id ASC`;
  }
  if (f.skip_users?.length) where.push(sql`u.id <> ALL(${`{${f.skip_users.join(",")}}`}::int[])`);
  const cond = sql.join(where, sql` AND `);
  const result = await db.execute<Record<string, unknown>>(sql`SELECT u.id, u.username, u.name, u.state, u.avatar_url, u.email
    FROM users u WHERE ${cond} ORDER BY ${order} LIMIT ${page.limit} OFFSET ${page.offset}`);
  const rows = result.rows.map((r) => ({
    id: Number(r.id),
    username: String(r.username),
    name: String(r.name),
    state: String(r.state),
    avatarUrl: (r.avatar_url as string | null) ?? null,
    email: String(r.email),
  })) satisfies Pick<User, "id" | "username" | "name" | "state" | "avatarUrl" | "email">[];
  const total = await cappedCount(db, { limit: (n: number) => sql`SELECT 1 FROM users u WHERE ${cond} LIMIT ${n}` }, page);
  return { rows, total };
}

/**
 * Projects::GroupsFinder: the project's group and its ancestors, plus (`with_shared`) the groups it is
 * shared with at `shared_min_access_level` or above (`shared_visible_only`: only those the caller can
 * read); `skip_groups` and `search` (Group.search: name and path); newest id first.
 */
export async function listProjectGroups(db: Executor, actor: Actor | null, projectId: number, f: z.output<typeof ListProjectGroups>, page: Page) {
  const sources: SQL[] = [
    sql`namespaces.id IN (SELECT unnest(an.traversal_ids) FROM projects ap JOIN namespaces an ON an.id = ap.namespace_id
      WHERE ap.id = ${projectId} AND an.type = 'Group')`,
  ];
  if (f.with_shared) {
    const shared = sql`namespaces.id IN (SELECT l.group_id FROM project_group_links l WHERE l.project_id = ${projectId}
      AND (l.expires_at IS NULL OR l.expires_at > current_date)${
        f.shared_min_access_level !== undefined ? sql` AND l.group_access >= ${f.shared_min_access_level}` : sql``
      })`;
    sources.push(f.shared_visible_only ? sql`(${shared} AND ${groupIsVisible(actor)})` : shared);
  }
  const where: SQL[] = [sql`namespaces.type = 'Group'`, sql`(${sql.join(sources, sql` OR `)})`];
  if (f.skip_groups?.length) where.push(sql`namespaces.id <> ALL(${`{${f.skip_groups.join(",")}}`}::int[])`);
  if (f.search) {
    const match = fuzzySearch([sql`namespaces.name`, sql`namespaces.path`], f.search);
    if (match) where.push(match);
  }
  const cond = sql.join(where, sql` AND `);
  const result = await db.execute<Record<string, unknown>>(sql`SELECT namespaces.id, namespaces.name, namespaces.path, namespaces.full_path,
      namespaces.full_name, namespaces.avatar_url
    FROM namespaces WHERE ${cond} ORDER BY namespaces.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`);
  const rows = result.rows.map((r) => ({
    id: Number(r.id),
    name: String(r.name),
    path: String(r.path),
    fullPath: String(r.full_path),
    fullName: String(r.full_name),
    avatarUrl: (r.avatar_url as string | null) ?? null,
  })) satisfies Pick<Namespace, "id" | "name" | "path" | "fullPath" | "fullName" | "avatarUrl">[];
  const total = await cappedCount(db, { limit: (n: number) => sql`SELECT 1 FROM namespaces WHERE ${cond} LIMIT ${n}` }, page);
  return { rows, total };
}
