import { and, asc, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { applicationSettings, members, namespaces, projectGroupLinks, projects, users } from "../../db/schema";
import { visibilityLevel } from "../kernel/access";
import { preparedQuery, type Executor } from "../kernel/db";
import { projectAtPath } from "../kernel/lookup";
import type { Actor } from "../kernel/env";
import { inIdOrder, pageIdsWithCount, preparedPageIds, type Page } from "../kernel/pagination";
import { stateEventsCte } from "../shared/issuables/resource_events";
import { transferLocationGroups } from "../shared/transfer_locations";
import {
  actorPlaceholders,
  actorShape,
  authorizedProjectIds,
  groupIsVisible,
  groupIsVisibleForShape,
  projectAccessLevel,
  projectIsVisible,
  projectIsVisibleForShape,
  type ActorShape,
} from "../kernel/visibility";
import type { ContainerExpirationPolicyRow, ProjectOwnerRow, ProjectWithPermissionsRow, SharedGroup } from "../entities/projects";
import type { ListParams } from "./params";
import { pathRowId } from "../kernel/params";

const owner = alias(users, "owner");
// The project a fork comes from, joined into the same statement (`forked_from_project`).
const forkedFrom = alias(projects, "forked_from");
const forkedFromNamespace = alias(namespaces, "forked_from_namespace");
const forkedFromOwner = alias(users, "forked_from_owner");

/** The caller's direct project membership (`permissions.project_access`), null without one. */
function directProjectAccess(userId: number | SQL | null): SQL<number | null> {
  if (userId === null) return sql<null>`NULL::int`;
  return sql<number | null>`(SELECT m.access_level FROM members m WHERE m.source_type = 'Project'
    AND m.source_id = ${projects.id} AND m.user_id = ${userId}
    AND (m.expires_at IS NULL OR m.expires_at > current_date))`;
}

/** `group.highest_group_member(user)`: the caller's best membership in the group or its ancestors. */
function groupHierarchyAccess(userId: number | SQL | null): SQL<number | null> {
  if (userId === null) return sql<null>`NULL::int`;
  return sql<number | null>`(CASE WHEN ${namespaces.type} = 'Group' THEN (SELECT max(m.access_level) FROM members m
    WHERE m.source_type = 'Namespace' AND m.source_id = ANY(${namespaces.traversalIds}) AND m.user_id = ${userId}
      AND (m.expires_at IS NULL OR m.expires_at > current_date)) END)`;
}

/** Only what the entities show of a personal namespace's owner: a user row has 50 columns, and each costs CPU to read. */
function ownerColumns(user: typeof owner | typeof forkedFromOwner) {
  return { id: user.id, username: user.username, name: user.name, state: user.state, avatarUrl: user.avatarUrl };
}

/** A left-joined owner: Drizzle gives null for a missing row, typed as an object of nullable columns. */
function presentOwner(owner: { id: number | null } | null): ProjectOwnerRow | null {
  return owner && owner.id !== null ? (owner as ProjectOwnerRow) : null;
}

const sharedGroup = alias(namespaces, "shared_group");

/**
 * The project's non-expired group links whose groups the caller may read (`groupVisible`, on the
 * `shared_group` alias), oldest first, as JSON in the shape of `SharedGroup`: read with the row, so a
 * project costs one statement instead of two (the links were a second statement per page before).
 */
function sharedGroupsJson(groupVisible: SQL): SQL<SharedGroup[]> {
  return sql<SharedGroup[]>`COALESCE((SELECT json_agg(json_build_object('groupId', l.group_id, 'groupAccess', l.group_access,
      'expiresAt', l.expires_at, 'group', json_build_object('name', ${sharedGroup.name}, 'fullPath', ${sharedGroup.fullPath})) ORDER BY l.id)
    FROM ${projectGroupLinks} l JOIN namespaces ${sharedGroup} ON ${sharedGroup.id} = l.group_id
    WHERE l.project_id = ${projects.id} AND (l.expires_at IS NULL OR l.expires_at > current_date) AND ${groupVisible}), '[]'::json)`;
}

/** One statement for the page: project, namespace, personal owner, the caller's levels and the shared groups. */
function selectRows(db: Executor, actor: Actor | null) {
  return selectRowsFor(db, actor?.user.id ?? null, groupIsVisible(actor, sharedGroup as unknown as typeof namespaces));
}

/** `selectRows` for a user id that may be a prepared query's placeholder (and the groups' visibility to match). */
function selectRowsFor(db: Executor, userId: number | SQL | null, groupVisible: SQL) {
  return db
    .select({
      project: projects,
      namespace: namespaces,
      owner: ownerColumns(owner),
      accessLevel: projectAccessLevel(userId),
      projectAccess: directProjectAccess(userId),
      groupAccess: groupHierarchyAccess(userId),
      forkedFrom,
      forkedFromNamespace,
      forkedFromOwner: ownerColumns(forkedFromOwner),
      forkedFromAccess: sql<number | null>`(CASE WHEN ${forkedFrom.id} IS NOT NULL THEN ${projectAccessLevel(userId, forkedFrom as unknown as typeof projects, forkedFromNamespace as unknown as typeof namespaces)} END)`,
      sharedGroups: sharedGroupsJson(groupVisible),
      instanceDefaultBranch: sql<string | null>`(SELECT ${applicationSettings.settings}->>'default_branch_name' FROM ${applicationSettings} WHERE ${applicationSettings.id} = 1)`,
      containerExpirationPolicy: sql<ContainerExpirationPolicyRow | null>`(SELECT json_build_object('cadence', cep.cadence, 'enabled', cep.enabled,
        'keepN', cep.keep_n, 'olderThan', cep.older_than, 'nameRegex', cep.name_regex, 'nameRegexKeep', cep.name_regex_keep, 'nextRunAt', cep.next_run_at)
        FROM container_expiration_policies cep WHERE cep.project_id = ${projects.id})`,
    })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .leftJoin(owner, and(eq(namespaces.type, "User"), eq(owner.id, namespaces.ownerId)))
    .leftJoin(forkedFrom, eq(forkedFrom.id, projects.forkedFromProjectId))
    .leftJoin(forkedFromNamespace, eq(forkedFromNamespace.id, forkedFrom.namespaceId))
    .leftJoin(forkedFromOwner, and(eq(forkedFromNamespace.type, "User"), eq(forkedFromOwner.id, forkedFromNamespace.ownerId)));
}

type RawRow = Awaited<ReturnType<ReturnType<typeof selectRowsFor>["where"]>>[number];

/** The rows as the entities take them (no statement: the shared groups came with each row). */
function presentRows(raws: RawRow[]): ProjectWithPermissionsRow[] {
  return raws.map((r) => ({
    ...r.project,
    namespace: r.namespace,
    owner: presentOwner(r.owner),
    accessLevel: Number(r.accessLevel),
    permissions: {
      projectAccess: r.projectAccess === null ? null : Number(r.projectAccess),
      groupAccess: r.groupAccess === null ? null : Number(r.groupAccess),
    },
    sharedWithGroups: r.sharedGroups ?? [],
    instanceDefaultBranch: r.instanceDefaultBranch,
    containerExpirationPolicy: r.containerExpirationPolicy,
    forkedFrom:
      r.forkedFrom && r.forkedFromNamespace
        ? {
            ...r.forkedFrom,
            namespace: r.forkedFromNamespace,
            owner: presentOwner(r.forkedFromOwner),
            accessLevel: Number(r.forkedFromAccess ?? 0),
            sharedWithGroups: [],
          }
        : null,
  }));
}

/**
 * The single project (with its shared groups) runs on every `GET /projects/:id`, so it is prepared once
 * per actor shape (kernel/db.ts `preparedQuery`): building its 200-column SQL was most of the request's CPU.
 */
function preparedRows(shape: ActorShape, where: SQL, limit?: number) {
  return preparedQuery((db) => {
    const query = selectRowsFor(db, shape === "anonymous" ? null : sql`${sql.placeholder("userId")}::int`, groupIsVisibleForShape(shape, sharedGroup as unknown as typeof namespaces)).where(where);
    return limit ? query.limit(limit) : query;
  });
}
const byShape = (build: (shape: ActorShape) => ReturnType<typeof preparedRows>) => ({
  anonymous: build("anonymous"),
  admin: build("admin"),
  user: build("user"),
});
const projectRowById = byShape((shape) => preparedRows(shape, eq(projects.id, sql`${sql.placeholder("id")}::int`), 1));
/** The same row by full path, case-insensitive, following redirects (`find_project!` with a path; kernel/lookup.ts's condition). */
const projectRowByPath = byShape((shape) => preparedRows(shape, projectAtPath(sql`${sql.placeholder("path")}::text`), 1));

/** A project with everything its entities show (one statement). */
export async function loadProjectRow(db: Executor, actor: Actor | null, projectId: number): Promise<ProjectWithPermissionsRow | null> {
  const raws = await projectRowById[actorShape(actor)](db, { id: projectId, ...actorPlaceholders(actor) });
  return presentRows(raws)[0] ?? null;
}

/**
 * `GET /projects/:id`'s find and load in one: the project by id or full path (kernel/lookup.ts's rules
 * for `:id`) with everything its entities show, when `readable` says the caller may see it; else null.
 * The row carries what `find_project!` decides on (the namespace and the caller's access level), so the
 * separate lookup statement (another 100 columns to read) is not needed: one statement instead of three
 * (lookup, row, shared groups).
 */
export async function findReadableProjectRow(
  db: Executor,
  actor: Actor | null,
  idOrPath: string,
  readable: (row: ProjectWithPermissionsRow) => boolean,
): Promise<ProjectWithPermissionsRow | null> {
  const byId = /^\d+$/.test(idOrPath);
  if (!byId && !idOrPath.includes("/")) return null;
  if (byId && pathRowId(idOrPath) === null) return null;
  const shape = actorShape(actor);
  const raws = byId
    ? await projectRowById[shape](db, { id: Number(idOrPath), ...actorPlaceholders(actor) })
    : await projectRowByPath[shape](db, { path: idOrPath, ...actorPlaceholders(actor) });
  const row = presentRows(raws)[0];
  return row && readable(row) ? row : null;
}

// ---------------------------------------------------------------------------------------------
// Lists (ProjectsFinder, GroupProjectsFinder)

export type OrderBy = "id" | "name" | "path" | "created_at" | "updated_at" | "last_activity_at" | "similarity";
type Column = typeof projects.id | typeof projects.name | typeof projects.path | typeof projects.createdAt
  | typeof projects.updatedAt | typeof projects.lastActivityAt;

export const ORDER_COLUMNS: Record<Exclude<OrderBy, "similarity">, Column> = {
  id: projects.id,
  name: projects.name,
  path: projects.path,
  created_at: projects.createdAt,
  updated_at: projects.updatedAt,
  last_activity_at: projects.lastActivityAt,
};

/** Where the listed projects come from: everything visible, or one group's projects. */
export type ProjectSource =
  | {
      kind: "all";
      /** `GET /users/:id/starred_projects`: projects this user starred. */
      starredBy?: number;
      /** `GET /projects/:id/forks`: the direct forks of this project. */
      forkedFrom?: number;
      /** `GET /users/:user_id/projects` (PersonalProjectsFinder): projects in this user's personal namespace. */
      personalOf?: number;
      /** `custom_attributes[key]=value` (CustomAttributesFilter, undeclared): administrators only; the route drops it for others. */
      customAttributes?: Record<string, string>;
    }
  | { kind: "group"; groupId: number; includeSubgroups: boolean; withShared: boolean; onlyShared: boolean };

export type ListOrder =
  | { kind: "column"; column: Exclude<OrderBy, "similarity">; sort: "asc" | "desc" }
  | { kind: "similarity"; search: string }
  | { kind: "name_then_id"; idSort: "asc" | "desc" };

/** Keyset bounds: `(column, id)` strictly after the last row of the previous page. */
export type KeysetBound = { column: Exclude<OrderBy, "similarity">; sort: "asc" | "desc"; value: string | number; id: number };

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (m) => `\\${m}`);
}

/**
 * `fuzzy_search` (lib/gitlab/sql/pattern.rb): the query is split into words (quoted phrases kept);
 * words of 3+ characters must all occur in one column (ILIKE %word%); with no such word the whole
 * query must equal the column, case-insensitively. Columns are OR'ed.
 */
export function fuzzySearch(columns: SQL[], query: string): SQL | undefined {
  const squished = query.replace(/\s+/g, " ").trim();
  if (!squished) return undefined;
  const quoted = squished.match(/"[^"]+"/g) ?? [];
  let rest = squished;
  for (const q of quoted) rest = rest.replace(q, "");
  const words = [...rest.split(" ").filter(Boolean), ...quoted.map((q) => q.slice(1, -1))].filter((w) => w.length >= 3);
  const perColumn = columns.map((column) => {
    if (words.length === 0) return sql`${column} ILIKE ${likeEscape(squished)}`;
    return sql.join(words.map((w) => sql`${column} ILIKE ${`%${likeEscape(w)}%`}`), sql` AND `);
  });
  return sql`(${sql.join(perColumn, sql` OR `)})`;
}

/** The condition of a list that can have no rows (an anonymous caller's `owned` or `membership`). */
const NO_PROJECTS = sql`false`;

/** The list's WHERE conditions: the caller's visibility first, then one per filter that narrows. */
function conditions(actor: Actor | null, source: ProjectSource, f: ListParams): SQL[] {
  const userId = actor?.user.id ?? null;
  const where: SQL[] = [projectIsVisible(actor)];
  if (source.kind === "group") {
    const own = source.includeSubgroups
      ? sql`${source.groupId} = ANY(${namespaces.traversalIds})`
      : sql`${projects.namespaceId} = ${source.groupId}`;
    const shared = sql`${projects.id} IN (SELECT l.project_id FROM project_group_links l
      WHERE l.group_id = ${source.groupId} AND (l.expires_at IS NULL OR l.expires_at > current_date))`;
    where.push(source.onlyShared ? shared : source.withShared ? sql`(${own} OR ${shared})` : own);
    // GroupProjectsFinder#filter_by_visibility: owned and min_access_level narrow to authorised projects.
    if (userId !== null && f.owned) where.push(sql`${projects.id} IN ${authorizedProjectIds(userId, 50)}`);
    else if (userId !== null && f.min_access_level !== undefined)
      where.push(sql`${projects.id} IN ${authorizedProjectIds(userId, f.min_access_level)}`);
  } else {
    // ProjectsFinder#collection_with_user / collection_without_user.
    if (f.owned || f.membership || f.min_access_level !== undefined) {
      if (userId === null) return [NO_PROJECTS];
      if (f.owned)
        where.push(sql`(${projects.namespaceId} IN (SELECT un.id FROM namespaces un WHERE un.type = 'User' AND un.owner_id = ${userId})
          OR ${projects.id} IN ${authorizedProjectIds(userId, 50)})`);
      else if (f.min_access_level !== undefined) where.push(sql`${projects.id} IN ${authorizedProjectIds(userId, f.min_access_level)}`);
      if (f.membership) where.push(sql`${projects.id} IN ${authorizedProjectIds(userId, 10)}`);
    }
    if (source.starredBy !== undefined) where.push(sql`${projects.id} IN (SELECT s.project_id FROM users_star_projects s WHERE s.user_id = ${source.starredBy})`);
    if (source.forkedFrom !== undefined) where.push(eq(projects.forkedFromProjectId, source.forkedFrom));
    if (source.personalOf !== undefined) where.push(sql`(${namespaces.type} = 'User' AND ${namespaces.ownerId} = ${source.personalOf})`);
    for (const [key, value] of Object.entries(source.customAttributes ?? {}))
      where.push(sql`EXISTS (SELECT 1 FROM project_custom_attributes ca WHERE ca.project_id = ${projects.id} AND ca.key = ${key} AND ca.value = ${value})`);
  }
  if (f.starred && userId !== null) where.push(sql`${projects.id} IN (SELECT s.project_id FROM users_star_projects s WHERE s.user_id = ${userId})`);
  if (f.visibility !== undefined) where.push(eq(projects.visibilityLevel, visibilityLevel(f.visibility)));
  if (f.topic_id !== undefined) where.push(sql`${projects.id} IN (SELECT pt.project_id FROM project_topics pt WHERE pt.topic_id = ${f.topic_id})`);
  if (f.topic && f.topic.length > 0) where.push(sql`${projects.tagList} @> ${`{${f.topic.map((t) => JSON.stringify(t)).join(",")}}`}::text[]`);
  if (f.search) {
    const columns = f.search_namespaces
      ? [sql`${projects.fullPath}`, sql`${projects.nameWithNamespace}`, sql`${projects.description}`]
      : [sql`${projects.path}`, sql`${projects.name}`, sql`${projects.description}`];
    const match = fuzzySearch(columns, f.search);
    if (match) where.push(match);
  }
  if (f.archived !== undefined) where.push(eq(projects.archived, f.archived));
  if (f.with_issues_enabled) where.push(eq(projects.issuesEnabled, true));
  if (f.with_merge_requests_enabled) where.push(eq(projects.mergeRequestsEnabled, true));
  if (f.id_after !== undefined) where.push(sql`${projects.id} > ${f.id_after}`);
  if (f.id_before !== undefined) where.push(sql`${projects.id} < ${f.id_before}`);
  if (f.last_activity_after) where.push(sql`${projects.lastActivityAt} > ${f.last_activity_after.toISOString()}`);
  if (f.last_activity_before) where.push(sql`${projects.lastActivityAt} < ${f.last_activity_before.toISOString()}`);
  return where;
}

/**
 * `sorted_by_similarity_desc`: path weighs 1, name 0.7, description 0.2.
 * Differs from GitLab: GitLab scores with pg_trgm `similarity()`; without that extension we score an
 * exact match 1, a prefix 0.75 and a substring 0.5 per column.
 */
function similarityScore(search: string): SQL {
  const q = search.toLowerCase();
  const score = (column: SQL) => sql`(CASE WHEN lower(COALESCE(${column}, '')) = ${q} THEN 1
    WHEN lower(COALESCE(${column}, '')) LIKE ${`${likeEscape(q)}%`} THEN 0.75
    WHEN strpos(lower(COALESCE(${column}, '')), ${q}) > 0 THEN 0.5 ELSE 0 END)`;
  return sql`(${score(sql`${projects.path}`)} + 0.7 * ${score(sql`${projects.name}`)} + 0.2 * ${score(sql`${projects.description}`)})`;
}

function orderBy(order: ListOrder): SQL[] {
  if (order.kind === "similarity") return [sql`${similarityScore(order.search)} DESC`, desc(projects.id)];
  if (order.kind === "name_then_id") return [asc(projects.name), order.idSort === "asc" ? asc(projects.id) : desc(projects.id)];
  const dir = order.sort === "asc" ? asc : desc;
  const column = ORDER_COLUMNS[order.column];
  return column === projects.id ? [dir(projects.id)] : [dir(column), dir(projects.id)];
}

/** The listed projects' ids with the list's filters, for `pageIdsWithCount`. */
function filteredIds(db: Executor, where: SQL | undefined) {
  return db.select({ id: projects.id }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(where);
}

/** The page's rows by id, prepared once per actor shape (the rows' SQL is what costs; kernel/pagination.ts). */
const projectRowsByIds = byShape((shape) => preparedRows(shape, sql`${projects.id} = ANY(${sql.placeholder("ids")}::int[])`));

async function rowsOfIds(db: Executor, actor: Actor | null, ids: number[]): Promise<ProjectWithPermissionsRow[]> {
  if (ids.length === 0) return [];
  const raws = await projectRowsByIds[actorShape(actor)](db, { ids, ...actorPlaceholders(actor) });
  return presentRows(inIdOrder(ids, raws, (r) => r.project.id));
}

/**
 * The ids and count of `GET /projects` when nothing but visibility narrows it (the common call), prepared
 * per actor shape and order.
 */
const unfilteredPageIds = preparedPageIds((db, window, shape: ActorShape, column: Exclude<OrderBy, "similarity">, sort: "asc" | "desc") => {
  const where = projectIsVisibleForShape(shape);
  const ordered = filteredIds(db, where)
    .orderBy(...orderBy({ kind: "column", column, sort }))
    .limit(window.limit)
    .offset(window.offset);
  return { filtered: filteredIds(db, where), ordered };
});

/** An offset page and its capped count (two statements: ids with the count, then the rows). */
export async function listProjects(
  db: Executor,
  actor: Actor | null,
  source: ProjectSource,
  filters: ListParams,
  order: ListOrder,
  page: Page,
): Promise<{ rows: ProjectWithPermissionsRow[]; total: number }> {
  const narrowing = conditions(actor, source, filters);
  if (source.kind === "all" && narrowing.length === 1 && narrowing[0] !== NO_PROJECTS && order.kind === "column") {
    // Only the caller's visibility: the same statement as below, prepared.
    const { ids, total } = await unfilteredPageIds(db, [actorShape(actor), order.column, order.sort], actorPlaceholders(actor), page);
    return { rows: await rowsOfIds(db, actor, ids), total };
  }
  const where = and(...narrowing);
  const ordered = filteredIds(db, where)
    .orderBy(...orderBy(order))
    .limit(page.limit)
    .offset(page.offset);
  const { ids, total } = await pageIdsWithCount(db, filteredIds(db, where), ordered, page);
  return { rows: await rowsOfIds(db, actor, ids), total };
}

/** A keyset page: `limit + 1` rows are read to know whether another page exists; no count. */
export async function listProjectsKeyset(
  db: Executor,
  actor: Actor | null,
  source: Extract<ProjectSource, { kind: "all" }>,
  filters: ListParams,
  order: { column: Exclude<OrderBy, "similarity">; sort: "asc" | "desc" },
  after: KeysetBound | null,
  limit: number,
): Promise<{ rows: ProjectWithPermissionsRow[]; more: boolean }> {
  const where = conditions(actor, source, filters);
  if (after) {
    const column = ORDER_COLUMNS[after.column];
    const value = after.value;
    const op = after.sort === "asc" ? sql`>` : sql`<`;
    where.push(
      column === projects.id
        ? sql`${projects.id} ${op} ${after.id}`
        : sql`(${column}, ${projects.id}) ${op} (${value}, ${after.id})`,
    );
  }
  // Rows are read directly here (not ids, then prepared rows): a keyset page has no count to share a statement with.
  const raws = await selectRows(db, actor)
    .where(and(...where))
    .orderBy(...orderBy({ kind: "column", ...order }))
    .limit(limit + 1);
  const more = raws.length > limit;
  return { rows: presentRows(raws.slice(0, limit)), more };
}

// ---------------------------------------------------------------------------------------------
// Creation and updates

/** The namespace a project is created in, with what the create rules need, in one statement. */
export async function loadTargetNamespace(db: Executor, which: { id: number } | { ownerId: number }, creatorId: number) {
  const rows = await db
    .select({
      namespace: namespaces,
      owner,
      memberLevel: sql<number>`COALESCE((SELECT max(m.access_level) FROM members m WHERE m.source_type = 'Namespace'
        AND m.source_id = ANY(${namespaces.traversalIds}) AND m.user_id = ${creatorId}
        AND (m.expires_at IS NULL OR m.expires_at > current_date)), 0)::int`,
      personalProjects: sql<number>`(SELECT count(*) FROM projects pp JOIN namespaces pn ON pn.id = pp.namespace_id
        WHERE pn.type = 'User' AND pn.owner_id = ${creatorId})::int`,
      defaultVisibility: sql<string>`(SELECT s.default_project_visibility FROM ${applicationSettings} s WHERE s.id = 1)`,
    })
    .from(namespaces)
    .leftJoin(owner, and(eq(namespaces.type, "User"), eq(owner.id, namespaces.ownerId)))
    .where("id" in which ? eq(namespaces.id, which.id) : and(eq(namespaces.type, "User"), eq(namespaces.ownerId, which.ownerId)))
    .limit(1);
  const row = rows[0];
  return row
    ? { ...row, memberLevel: Number(row.memberLevel), personalProjects: Number(row.personalProjects) }
    : null;
}

/**
 * What `validates :name, uniqueness` and the path/route checks need: whether the name is used by
 * another project of the namespace, and whether the full path is taken by a project or a namespace.
 */
export async function nameAndPathTaken(
  db: Executor,
  namespaceId: number,
  name: string | null,
  fullPath: string | null,
  exceptProjectId: number | null,
  /** Creating: also draw the new project's id (so that its rows can be written in one statement). */
  withNextId = false,
): Promise<{ nameTaken: boolean; pathTaken: boolean; nextId: number | null }> {
  const except = exceptProjectId === null ? sql`true` : sql`p.id <> ${exceptProjectId}`;
  const result = await db.execute<{ name_taken: boolean; path_taken: boolean; next_id: number | null }>(sql`SELECT
    ${name === null ? sql`false` : sql`EXISTS (SELECT 1 FROM projects p WHERE p.namespace_id = ${namespaceId} AND p.name = ${name} AND ${except})`} AS name_taken,
    ${fullPath === null ? sql`false` : sql`(EXISTS (SELECT 1 FROM projects p WHERE lower(p.full_path) = lower(${fullPath}) AND ${except})
      OR EXISTS (SELECT 1 FROM namespaces n WHERE lower(n.full_path) = lower(${fullPath})))`} AS path_taken,
    ${withNextId ? sql`nextval(pg_get_serial_sequence('projects', 'id'))::int` : sql`NULL::int`} AS next_id`);
  const row = result.rows[0];
  return { nameTaken: !!row.name_taken, pathTaken: !!row.path_taken, nextId: row.next_id === null ? null : Number(row.next_id) };
}

export type NewProject = typeof projects.$inferInsert;

export async function insertProject(db: Executor, values: NewProject) {
  const [row] = await db.insert(projects).values(values).returning();
  return row;
}

/**
 * Inserts the project with the id drawn beforehand (`nameAndPathTaken(…, true)`) and, when `ownerId`
 * is given, the namespace owner's Owner membership, in one statement.
 */
export async function insertProjectWithOwner(db: Executor, id: number, values: NewProject, ownerId: number | null, createdById: number) {
  const owner = db
    .$with("owner")
    .as(db.insert(members).values({ sourceType: "Project", sourceId: id, userId: ownerId ?? 0, accessLevel: 50, createdById }).returning({ id: members.id }));
  const insert = ownerId === null ? db.insert(projects) : db.with(owner).insert(projects);
  const [row] = await insert.overridingSystemValue().values({ ...values, id }).returning();
  return row;
}

/**
 * Project#topic_list= and `save_topics`: the project's topics become `names` (found by lower(name), else
 * created with the name as title), in their order. The database function is the one writer of
 * `project_topics`; its triggers keep `tag_list` and the topics' counters (migration 0043). Returns the
 * project's topic names as stored.
 */
export async function assignTopics(db: Executor, projectId: number, names: string[]): Promise<string[]> {
  const result = await db.execute<{ names: string[] }>(sql`SELECT project_topics_assign(${projectId}::int, ${sql.param(names)}::text[]) AS names`);
  return result.rows[0]?.names ?? [];
}

export async function insertOwnerMember(db: Executor, projectId: number, userId: number, createdById: number) {
  await db.insert(members).values({ sourceType: "Project", sourceId: projectId, userId, accessLevel: 50, createdById });
}

export type ProjectChanges = Partial<Omit<NewProject, "id" | "createdAt">>;

export async function updateProject(db: Executor, projectId: number, changes: ProjectChanges) {
  const [row] = await db
    .update(projects)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(projects.id, projectId))
    .returning({ id: projects.id });
  return row ?? null;
}

/**
 * Deleting a project removes its memberships (polymorphic, no FK) and its group links; a deleted fork
 * no longer counts in its source's `forks_count` (its own forks lose `forked_from_project` by the FK).
 */
export async function deleteProject(db: Executor, projectId: number) {
  await db.delete(members).where(and(eq(members.sourceType, "Project"), eq(members.sourceId, projectId)));
  await db.delete(projectGroupLinks).where(eq(projectGroupLinks.projectId, projectId));
  await db.execute(sql`WITH gone AS (DELETE FROM projects WHERE id = ${projectId} RETURNING forked_from_project_id)
    UPDATE projects SET forks_count = GREATEST(forks_count - 1, 0) WHERE id IN (SELECT forked_from_project_id FROM gone)`);
}

// ---------------------------------------------------------------------------------------------
// Forks and transfers

/** A new fork counts in its source's `forks_count` (GitLab's `forks_count` cache). */
export async function countFork(db: Executor, sourceId: number) {
  await db.execute(sql`UPDATE projects SET forks_count = forks_count + 1 WHERE id = ${sourceId}`);
}

/**
 * `POST /projects/:id/fork/:forked_from_id`: links an existing project to its source, once. False when
 * it is already a fork (another request may have linked it meanwhile). The counter moves in the same statement.
 */
export async function linkFork(db: Executor, projectId: number, sourceId: number): Promise<boolean> {
  const result = await db.execute(sql`WITH linked AS (
      UPDATE projects SET forked_from_project_id = ${sourceId}, updated_at = now()
       WHERE id = ${projectId} AND forked_from_project_id IS NULL RETURNING id)
    UPDATE projects SET forks_count = forks_count + 1 WHERE id = ${sourceId} AND EXISTS (SELECT 1 FROM linked) RETURNING id`);
  return result.rows.length > 0;
}

/**
 * Projects::UnlinkForkService: the project stops being a fork; its source's counter drops. The object
 * pool stays shared (objects are immutable, so sharing them is invisible). The open merge requests
 * between the project and the rest of its fork network, either way, are closed by `userId`
 * (`fork_network.merge_requests.opened.from_and_to_forks(project)` through MergeRequests::CloseService:
 * closed state and its state event). One statement. False when it was not a fork.
 */
export async function unlinkFork(db: Executor, projectId: number, userId: number): Promise<boolean> {
  const result = await db.execute(sql`WITH RECURSIVE
    up(id, parent) AS (SELECT p.id, p.forked_from_project_id FROM projects p WHERE p.id = ${projectId}
      UNION SELECT p.id, p.forked_from_project_id FROM up JOIN projects p ON p.id = up.parent),
    network(id) AS (SELECT id FROM up WHERE parent IS NULL
      UNION SELECT p.id FROM network JOIN projects p ON p.forked_from_project_id = network.id),
    unlinked AS (
      UPDATE projects p SET forked_from_project_id = NULL, updated_at = now()
        FROM projects old WHERE old.id = p.id AND p.id = ${projectId} AND p.forked_from_project_id IS NOT NULL
      RETURNING old.forked_from_project_id AS source_id),
    closed AS (
      UPDATE merge_requests m SET state = 'closed', closed_at = now(), closed_by_id = ${userId}::int, updated_at = now()
       WHERE EXISTS (SELECT 1 FROM unlinked) AND m.state = 'opened' AND m.source_project_id <> m.project_id
         AND (m.source_project_id = ${projectId} OR m.project_id = ${projectId})
         AND m.source_project_id IN (SELECT id FROM network) AND m.project_id IN (SELECT id FROM network)
      RETURNING m.id),
    ${stateEventsCte("closed_events", "MergeRequest", sql`SELECT 'closed', closed.id FROM closed`, userId)}
    UPDATE projects SET forks_count = GREATEST(forks_count - 1, 0) WHERE id IN (SELECT source_id FROM unlinked) RETURNING id`);
  return result.rows.length > 0;
}

/**
 * `GET /projects/:id/transfer_locations` (15.4): UserGroupsFinder with `permission_scope:
 * :transfer_projects` (Groups::AcceptingProjectTransfersFinder: the user's `manageable_groups`, owner or
 * maintainer directly or through an ancestor, where project creation is allowed) without the
 * project's own group; `search` on full path and full name; by path.
 */
export async function projectTransferLocations(db: Executor, userId: number, exceptGroupId: number | null, search: string | undefined, page: Page) {
  const where: SQL[] = [
    sql`g.project_creation_level <> 0`,
    sql`EXISTS (SELECT 1 FROM members m WHERE m.user_id = ${userId}::int AND m.source_type = 'Namespace'
      AND m.source_id = ANY(g.traversal_ids) AND m.access_level >= 40 AND (m.expires_at IS NULL OR m.expires_at > current_date))`,
  ];
  if (exceptGroupId !== null) where.push(sql`g.id <> ${exceptGroupId}::int`);
  return transferLocationGroups(db, where, search, page);
}

// ---------------------------------------------------------------------------------------------
// Sharing

/**
 * The group to share with, whether the caller is a member of it or of an ancestor (GroupPolicy
 * `read_namespace` is `has_access`), and whether the project is already shared with it.
 */
export async function loadShareGroup(db: Executor, groupId: number, userId: number, projectId: number) {
  const rows = await db
    .select({
      group: namespaces,
      // Correlated by value, not by column: a single-table select writes bare column names, which the
      // subqueries' own tables would capture.
      memberLevel: sql<number>`COALESCE((SELECT max(m.access_level) FROM members m WHERE m.source_type = 'Namespace'
        AND m.source_id IN (SELECT unnest(g.traversal_ids) FROM namespaces g WHERE g.id = ${groupId}) AND m.user_id = ${userId}
        AND (m.expires_at IS NULL OR m.expires_at > current_date)), 0)::int`,
      alreadyShared: sql<boolean>`EXISTS (SELECT 1 FROM project_group_links l WHERE l.project_id = ${projectId} AND l.group_id = ${groupId})`,
    })
    .from(namespaces)
    .where(and(eq(namespaces.id, groupId), eq(namespaces.type, "Group")))
    .limit(1);
  const row = rows[0];
  return row ? { group: row.group, memberLevel: Number(row.memberLevel), alreadyShared: !!row.alreadyShared } : null;
}

export async function findGroupLink(db: Executor, projectId: number, groupId: number) {
  const rows = await db
    .select()
    .from(projectGroupLinks)
    .where(and(eq(projectGroupLinks.projectId, projectId), eq(projectGroupLinks.groupId, groupId)))
    .limit(1);
  return rows[0] ?? null;
}

export async function insertGroupLink(
  db: Executor,
  values: { projectId: number; groupId: number; groupAccess: number; expiresAt: string | null },
) {
  const [row] = await db.insert(projectGroupLinks).values(values).returning();
  return row;
}

export async function deleteGroupLink(db: Executor, linkId: number) {
  await db.delete(projectGroupLinks).where(eq(projectGroupLinks.id, linkId));
}
