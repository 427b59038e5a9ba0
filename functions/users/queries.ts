import { and, asc, desc, eq, gte, ilike, lte, or, sql, type SQL } from "drizzle-orm";
import { identities, members, namespaces, users, type User } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { cappedCount, type Page } from "../kernel/pagination";
import { projectAccessLevel } from "../kernel/visibility";
import type { CustomAttribute, UserIdentity, UserRow } from "../entities/users";
import type { UserListFilter } from "./params";

/** `users.id` qualified: Drizzle leaves selected columns unqualified, which subqueries would capture. */
const usersId = sql.raw('"users"."id"');

/**
 * The only Drizzle code of the users domain. A user is always loaded with what its fuller entities
 * need, in the same statement (correlated subqueries, never a query per row).
 */

const identitiesOf = sql<UserIdentity[]>`coalesce((SELECT json_agg(json_build_object(
    'provider', i.provider, 'extern_uid', i.extern_uid, 'saml_provider_id', i.saml_provider_id) ORDER BY i.id)
  FROM identities i WHERE i.user_id = ${usersId}), '[]'::json)`;

/** Projects in the user's personal namespace (`personal_projects_count`, for `can_create_project`). */
const personalProjectsCountOf = sql<number>`(SELECT count(*)::int FROM projects p
  JOIN namespaces n ON n.id = p.namespace_id WHERE n.owner_id = ${usersId} AND n.type = 'User')`;

/** The highest access level of the user's memberships (user_highest_roles), 0 without any. */
const highestRoleOf = sql<number>`(SELECT coalesce(max(m.access_level), 0)::int FROM members m
  WHERE m.user_id = ${usersId} AND m.access_level >= 10)`;

const customAttributesOf = sql<CustomAttribute[]>`coalesce((SELECT json_agg(json_build_object('key', a.key, 'value', a.value) ORDER BY a.id)
  FROM user_custom_attributes a WHERE a.user_id = ${usersId}), '[]'::json)`;

function detailsSelection(withCustomAttributes: boolean) {
  return {
    user: users,
    identities: identitiesOf,
    personalProjectsCount: personalProjectsCountOf,
    highestRole: highestRoleOf,
    customAttributes: withCustomAttributes ? customAttributesOf : sql<CustomAttribute[] | null>`null`,
  };
}

type DetailsResult = {
  user: User;
  identities: UserIdentity[];
  personalProjectsCount: number;
  highestRole: number;
  customAttributes: CustomAttribute[] | null;
};

function toRow(r: DetailsResult): UserRow {
  return {
    ...r.user,
    identities: r.identities,
    personalProjectsCount: Number(r.personalProjectsCount),
    highestRole: Number(r.highestRole),
    customAttributes: r.customAttributes,
  };
}

export async function findUserRow(db: Executor, id: number, opts: { withCustomAttributes?: boolean } = {}): Promise<UserRow | null> {
  const rows = await db
    .select(detailsSelection(!!opts.withCustomAttributes))
    .from(users)
    .where(eq(users.id, id))
    .limit(1);
  return rows[0] ? toRow(rows[0]) : null;
}

// ---------------------------------------------------------------------------------------------
// GET /users (UsersFinder, app/finders/users_finder.rb)

export type UserListOrder =
  | { kind: "default" }
  | { kind: "field"; orderBy: "id" | "name" | "username" | "created_at" | "updated_at"; sort: "asc" | "desc" };

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/** `fuzzy_arel_match`: every word of 3+ characters is a substring, else the whole query matches exactly (ILIKE). */
function fuzzy(column: typeof users.name | typeof users.username, query: string): SQL {
  const words = query.trim().split(/\s+/).filter((word) => word.length >= 3);
  if (words.length === 0) return ilike(column, escapeLike(query.trim()));
  return and(...words.map((word) => ilike(column, `%${escapeLike(word)}%`)))!;
}

const active = sql`(m.expires_at IS NULL OR m.expires_at > current_date)`;

/** `User.without_projects`: no project authorization, direct, through a group, or through a share. */
const withoutProjects = sql`NOT EXISTS (SELECT 1 FROM members m WHERE m.user_id = ${usersId}
    AND m.source_type = 'Project' AND ${active})
  AND NOT EXISTS (SELECT 1 FROM members m JOIN namespaces d ON m.source_id = ANY(d.traversal_ids)
    JOIN projects p ON p.namespace_id = d.id
    WHERE m.user_id = ${usersId} AND m.source_type = 'Namespace' AND ${active})
  AND NOT EXISTS (SELECT 1 FROM members m JOIN namespaces g ON m.source_id = ANY(g.traversal_ids)
    JOIN project_group_links l ON l.group_id = g.id
    WHERE m.user_id = ${usersId} AND m.source_type = 'Namespace' AND ${active})`;

function conditions(filter: UserListFilter): SQL[] {
  const where: SQL[] = [];
  if (filter.username !== undefined) where.push(sql`lower(${users.username}) = lower(${filter.username})`);
  if (filter.search !== undefined) {
    const query = filter.search.replace(/^@/, "").toLowerCase();
    if (query.trim() === "") where.push(sql`false`);
    else where.push(or(fuzzy(users.name, query), fuzzy(users.username, query), sql`lower(${users.email}) = ${query}`)!);
  }
  if (filter.admins) where.push(eq(users.admin, true));
  if (filter.blocked) where.push(eq(users.state, "blocked"));
  if (filter.active) where.push(and(eq(users.state, "active"), sql`${users.userType} IS DISTINCT FROM 'ghost'`)!);
  if (filter.extern_uid && filter.provider)
    where.push(sql`EXISTS (SELECT 1 FROM identities i WHERE i.user_id = ${usersId}
      AND i.provider = ${filter.provider} AND lower(i.extern_uid) = lower(${filter.extern_uid}))`);
  if (filter.external) where.push(eq(users.external, true));
  if (filter.two_factor) where.push(eq(users.twoFactorEnabled, filter.two_factor === "enabled"));
  if (filter.created_after) where.push(gte(users.createdAt, filter.created_after));
  if (filter.created_before) where.push(lte(users.createdAt, filter.created_before));
  if (filter.without_projects) where.push(withoutProjects);
  for (const [key, value] of Object.entries(filter.custom_attributes ?? {}))
    where.push(sql`EXISTS (SELECT 1 FROM user_custom_attributes a WHERE a.user_id = ${usersId}
      AND a.key = ${key} AND a.value = ${value})`);
  if (filter.exclude_internal)
    where.push(sql`(${users.userType} IS NULL OR ${users.userType} IN ('human', 'project_bot', 'service_user'))`);
  if (filter.exclude_external) where.push(eq(users.external, false));
  if (filter.teamOfProject !== undefined)
    where.push(sql`(SELECT ${projectAccessLevel(usersId)} FROM projects JOIN namespaces ON namespaces.id = projects.namespace_id
      WHERE projects.id = ${filter.teamOfProject}) >= 10`);
  if (filter.usersOfGroup !== undefined)
    where.push(sql`EXISTS (SELECT 1 FROM members m WHERE m.user_id = ${usersId} AND ${active} AND (
      (m.source_type = 'Namespace' AND m.source_id IN (SELECT g.id FROM namespaces g, namespaces s WHERE s.id = ${filter.usersOfGroup}
        AND (g.id = ANY(s.traversal_ids) OR g.traversal_ids @> ARRAY[s.id])))
      OR (m.source_type = 'Project' AND m.source_id IN (SELECT p.id FROM projects p JOIN namespaces d ON d.id = p.namespace_id
        WHERE d.traversal_ids @> ARRAY[${filter.usersOfGroup}]::integer[]))))`);
  return where;
}

function ordering(order: UserListOrder, search: string | undefined): SQL[] {
  if (order.kind === "field") {
    const column = { id: users.id, name: users.name, username: users.username, created_at: users.createdAt, updated_at: users.updatedAt }[
      order.orderBy
    ];
    const direction = order.sort === "asc" ? asc : desc;
    return order.orderBy === "id" ? [direction(users.id)] : [direction(column), direction(users.id)];
  }
  if (search !== undefined) {
    // User.search orders exact matches first, then by name (app/models/user.rb).
    const query = search.replace(/^@/, "").toLowerCase();
    return [
      sql`CASE WHEN ${users.name} = ${query} THEN 0 WHEN ${users.username} = ${query} THEN 1
        WHEN ${users.email} = ${query} THEN 2 ELSE 3 END`,
      asc(users.name),
      desc(users.id),
    ];
  }
  return [desc(users.id)];
}

/** A page of users with a capped total; `details` loads what the administrator view needs. */
export async function listUsers(
  db: Executor,
  filter: UserListFilter,
  order: UserListOrder,
  page: Page,
  opts: { withCustomAttributes: boolean },
): Promise<{ rows: UserRow[]; total: number }> {
  const where = and(...conditions(filter));
  const orderBy = ordering(order, filter.search);
  const found = await db
    .select(detailsSelection(opts.withCustomAttributes))
    .from(users)
    .where(where)
    .orderBy(...orderBy)
    .limit(page.limit)
    .offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(users).where(where), page);
  return { rows: found.map(toRow), total };
}

// ---------------------------------------------------------------------------------------------
// Writes

/**
 * The user to update (as `findUserRow`), and in the same statement whether another user already holds
 * the e-mail or username asked for, or another namespace the path the username would take.
 */
export async function findUserForUpdate(
  db: Executor,
  id: number,
  values: { email?: string; username?: string },
): Promise<{ row: UserRow; conflicts: Conflicts } | null> {
  const rows = await db
    .select({ ...detailsSelection(false), ...conflictColumns(values, id) })
    .from(users)
    .where(eq(users.id, id))
    .limit(1);
  const found = rows[0];
  if (!found) return null;
  return {
    row: toRow(found),
    conflicts: { email: !!found.emailTaken, username: !!found.usernameTaken, namespace: !!found.namespaceTaken },
  };
}

export type Conflicts = { email: boolean; username: boolean; namespace: boolean };

function conflictColumns(values: { email?: string; username?: string }, exceptUserId: number | null) {
  const other = exceptUserId === null ? sql`true` : sql`u.id <> ${exceptUserId}`;
  const otherNamespace = exceptUserId === null ? sql`true` : sql`n.owner_id IS DISTINCT FROM ${exceptUserId}`;
  return {
    emailTaken:
      values.email === undefined
        ? sql<boolean>`false`
        : // `User.by_any_email`: a primary or a secondary address (`emails`, stored lower-case) of another user.
          sql<boolean>`(EXISTS (SELECT 1 FROM users u WHERE lower(u.email) = lower(${values.email}) AND ${other})
            OR EXISTS (SELECT 1 FROM emails u WHERE u.email = lower(${values.email}) AND ${exceptUserId === null ? sql`true` : sql`u.user_id <> ${exceptUserId}`}))`,
    usernameTaken:
      values.username === undefined
        ? sql<boolean>`false`
        : sql<boolean>`EXISTS (SELECT 1 FROM users u WHERE lower(u.username) = lower(${values.username}) AND ${other})`,
    namespaceTaken:
      values.username === undefined
        ? sql<boolean>`false`
        : sql<boolean>`EXISTS (SELECT 1 FROM namespaces n WHERE lower(n.full_path) = lower(${values.username}) AND ${otherNamespace})`,
  };
}

/** Who already holds these: the e-mail, the username, the personal namespace path (another namespace). */
export async function findConflicts(
  db: Executor,
  values: { email?: string; username?: string },
  exceptUserId: number | null = null,
): Promise<Conflicts> {
  const columns = conflictColumns(values, exceptUserId);
  const result = await db.execute<{ email: boolean; username: boolean; namespace: boolean }>(
    sql`SELECT ${columns.emailTaken} AS email, ${columns.usernameTaken} AS username, ${columns.namespaceTaken} AS namespace`,
  );
  const row = result.rows[0];
  return { email: !!row.email, username: !!row.username, namespace: !!row.namespace };
}

export type NewUser = typeof users.$inferInsert;

export async function insertUser(tx: Executor, values: NewUser): Promise<User> {
  const [created] = await tx.insert(users).values(values).returning();
  return created;
}

/** The personal namespace GitLab builds with every user (type User, path = username, public). */
export async function insertPersonalNamespace(tx: Executor, user: User): Promise<void> {
  await tx.insert(namespaces).values({
    type: "User",
    name: user.name,
    path: user.username,
    fullPath: user.username,
    fullName: user.name,
    ownerId: user.id,
    visibilityLevel: 20,
  });
}

export async function insertIdentity(tx: Executor, userId: number, provider: string, externUid: string): Promise<void> {
  await tx.insert(identities).values({ userId, provider, externUid });
}

export async function updateUser(tx: Executor, id: number, set: Partial<NewUser>): Promise<User> {
  const [updated] = await tx
    .update(users)
    .set({ ...set, updatedAt: new Date() })
    .where(eq(users.id, id))
    .returning();
  return updated;
}

/**
 * In one statement: the personal namespace follows the username and name (`ensure_namespace_correct`),
 * its projects' `full_path` and `name_with_namespace` follow the namespace, and the identity of
 * `provider` is created or gets the new `extern_uid`.
 */
export async function updateNamespaceAndIdentity(
  tx: Executor,
  userId: number,
  changes: { namespace?: { path: string; name: string }; identity?: { provider: string; externUid: string } },
): Promise<void> {
  const parts: SQL[] = [];
  if (changes.namespace) {
    const { path, name } = changes.namespace;
    parts.push(sql`ns AS (UPDATE namespaces SET path = ${path}, full_path = ${path}, name = ${name}, full_name = ${name},
        updated_at = now() WHERE owner_id = ${userId} AND type = 'User' RETURNING id, full_path, full_name)`);
    parts.push(sql`pr AS (UPDATE projects p SET full_path = ns.full_path || '/' || p.path,
        name_with_namespace = ns.full_name || ' / ' || p.name FROM ns WHERE p.namespace_id = ns.id RETURNING p.id)`);
  }
  if (changes.identity) {
    const { provider, externUid } = changes.identity;
    parts.push(sql`idn AS (INSERT INTO identities (user_id, provider, extern_uid) VALUES (${userId}, ${provider}, ${externUid})
        ON CONFLICT (user_id, provider) DO UPDATE SET extern_uid = EXCLUDED.extern_uid RETURNING id)`);
  }
  if (parts.length === 0) return;
  await tx.execute(sql`WITH ${sql.join(parts, sql`, `)} SELECT 1`);
}

// ---------------------------------------------------------------------------------------------
// Delete, block, identities

/** The user with the ids of the groups they solely own (`solo_owned_groups`: direct owner, no other owner). */
export async function findUserForDelete(db: Executor, id: number): Promise<{ user: User; soloOwnedGroupIds: number[] } | null> {
  const rows = await db
    .select({
      user: users,
      soloOwnedGroupIds: sql<number[]>`ARRAY(SELECT m.source_id FROM members m
        JOIN namespaces g ON g.id = m.source_id AND g.type = 'Group'
        WHERE m.user_id = ${usersId} AND m.source_type = 'Namespace' AND m.access_level = 50
          AND NOT EXISTS (SELECT 1 FROM members o WHERE o.source_type = 'Namespace' AND o.source_id = m.source_id
            AND o.access_level = 50 AND o.user_id <> m.user_id))`,
    })
    .from(users)
    .where(eq(users.id, id))
    .limit(1);
  return rows[0] ? { user: rows[0].user, soloOwnedGroupIds: rows[0].soloOwnedGroupIds.map(Number) } : null;
}

/**
 * The memberships whose source goes away with the user (members has no foreign key: polymorphic):
 * those of the personal projects, and with `groupIds` (solely owned groups) the groups, their
 * subgroups and their projects, which are deleted too (their projects by cascade).
 */
export async function deleteOwnedSources(tx: Executor, userId: number, groupIds: number[]): Promise<void> {
  const groups = groupIds.length ? sql`ARRAY[${sql.join(groupIds.map((g) => sql`${g}`), sql`, `)}]::int[]` : sql`'{}'::int[]`;
  await tx.execute(sql`WITH gone_groups AS (
      DELETE FROM namespaces WHERE type = 'Group' AND traversal_ids && ${groups} RETURNING id
    ), gone_projects AS (
      SELECT p.id FROM projects p JOIN namespaces n ON n.id = p.namespace_id
      WHERE (n.type = 'User' AND n.owner_id = ${userId}) OR (n.type = 'Group' AND n.traversal_ids && ${groups})
    )
    DELETE FROM members WHERE (source_type = 'Project' AND source_id IN (SELECT id FROM gone_projects))
      OR (source_type = 'Namespace' AND source_id IN (SELECT id FROM gone_groups))`);
}

/** Deletes the user; the personal namespace, its projects, tokens, identities and memberships cascade. */
export async function deleteUserRow(tx: Executor, id: number): Promise<void> {
  await tx.delete(users).where(eq(users.id, id));
}

export async function findUser(db: Executor, id: number): Promise<User | null> {
  const rows = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return rows[0] ?? null;
}

/** GitLab's user states that Edgeforge uses (`banned` and `deactivated` come with ban and deactivate). */
export type UserState = "active" | "blocked" | "banned" | "deactivated";

export async function setUserState(db: Executor, id: number, state: UserState): Promise<void> {
  await db.update(users).set({ state, updatedAt: new Date() }).where(eq(users.id, id));
}

/** The user and their identity of `provider` (for `DELETE /users/:id/identities/:provider`). */
export async function findUserIdentity(db: Executor, userId: number, provider: string) {
  const rows = await db
    .select({ user: users, identity: identities })
    .from(users)
    .leftJoin(identities, and(eq(identities.userId, users.id), eq(identities.provider, provider)))
    .where(eq(users.id, userId))
    .limit(1);
  return rows[0] ?? null;
}

export async function deleteIdentity(db: Executor, identityId: number): Promise<void> {
  await db.delete(identities).where(eq(identities.id, identityId));
}


/**
 * `user.members.including_source` (Entities::Membership): the user's project and group memberships,
 * by id, with the source's name; `type` narrows to `Project` or `Namespace`.
 */
export async function listMemberships(db: Executor, userId: number, type: "Project" | "Namespace" | undefined, page: Page) {
  const where = and(eq(members.userId, userId), type ? eq(members.sourceType, type) : undefined);
  const rows = await db
    .select({
      sourceId: members.sourceId,
      sourceType: members.sourceType,
      accessLevel: members.accessLevel,
      sourceName: sql<string>`COALESCE((SELECT p.name FROM projects p WHERE ${members.sourceType} = 'Project' AND p.id = ${members.sourceId}),
        (SELECT n.name FROM namespaces n WHERE ${members.sourceType} = 'Namespace' AND n.id = ${members.sourceId}))`,
    })
    .from(members)
    .where(where)
    .orderBy(asc(members.id))
    .limit(page.limit)
    .offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(members).where(where), page);
  return { rows, total };
}

/** The row type routes name (routes never import db/schema). */
export type { User } from "../../db/schema";

/** `User.find_by_public_email`: the user who shows this address on their profile (exact match). */
export async function userByPublicEmail(db: Executor, email: string): Promise<Pick<User, "avatarUrl" | "email"> | null> {
  const [row] = await db.select({ avatarUrl: users.avatarUrl, email: users.email }).from(users).where(eq(users.publicEmail, email)).limit(1);
  return row ?? null;
}
