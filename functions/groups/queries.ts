import { and, asc, desc, eq, inArray, lte, ne, notInArray, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import {
  applicationSettings,
  groupCustomAttributes,
  groupGroupLinks,
  members,
  namespaces,
  projectGroupLinks,
  projects,
  users,
  type Namespace,
} from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { cappedCount, type Page } from "../kernel/pagination";
import { transferLocationGroups } from "../shared/transfer_locations";
import { groupAccessLevel, groupIsVisible, memberGroupIds, projectAccessLevel, projectIsVisible, sharedGroupIds } from "../kernel/visibility";
import type { ProjectRow, SharedGroup } from "../entities/projects";
import type { CustomAttribute, SharedWithGroup } from "../entities/groups";
import { escapeLike, searchTerms } from "./rules";
import type { ListParams } from "./params";

/** A membership that counts: not expired (as kernel/visibility.ts). */
const active = sql`(m.expires_at IS NULL OR m.expires_at > current_date)`;

/** `traversal_ids @> ARRAY[id]`: the group and everything below it (GIN-indexed). */
const inSubtreeOf = (groupId: number) => sql`${namespaces.traversalIds} @> ARRAY[${groupId}]::integer[]`;

/**
 * The groups a user reaches through memberships, as GroupsFinder without `all_available`:
 * `authorized_groups.self_and_ancestors` ∪ `groups.self_and_descendants` — member groups with their
 * descendants and ancestors, and the groups (with ancestors) holding projects the user is a member of.
 * The same relations as kernel `groupIsVisible`, without its visibility-level clause.
 */
function reachedThroughMemberships(userId: number): SQL {
  // One id set (a semi-join the planner can drive from): the GIN-indexed descendants of member groups,
  // then the ancestors (self included) of member groups and of member projects' namespaces.
  return sql`${namespaces.id} IN (
    SELECT g.id FROM namespaces g WHERE g.traversal_ids && ${memberGroupIds(userId)}
    UNION
    SELECT g.id FROM namespaces g WHERE g.traversal_ids && ${sharedGroupIds(userId)}
    UNION
    SELECT unnest(d.traversal_ids) FROM members m JOIN namespaces d ON d.id = m.source_id
      WHERE m.user_id = ${userId} AND m.source_type = 'Namespace' AND ${active}
    UNION
    SELECT unnest(d.traversal_ids) FROM members m JOIN projects mp ON mp.id = m.source_id
      JOIN namespaces d ON d.id = mp.namespace_id WHERE m.user_id = ${userId} AND m.source_type = 'Project' AND ${active})`;
}

/** Where a group list's groups come from: `/subgroups` (direct children) or `/descendant_groups` (every group below). */
export type GroupSource = { parentId?: number; ancestorId?: number };

/** GroupsFinder#all_groups: which groups the caller may list at all. */
function reachable(actor: Actor | null, filter: ListParams): SQL {
  if (filter.owned) {
    if (!actor) return sql`false`;
    return sql`${namespaces.id} IN (SELECT m.source_id FROM members m WHERE m.user_id = ${actor.user.id}
      AND m.source_type = 'Namespace' AND m.access_level = 50 AND ${active})`;
  }
  if (actor && filter.min_access_level !== undefined) {
    return sql`${namespaces.traversalIds} && ARRAY(SELECT m.source_id FROM members m WHERE m.user_id = ${actor.user.id}
      AND m.source_type = 'Namespace' AND m.access_level >= ${filter.min_access_level} AND ${active})`;
  }
  // `all_available` defaults to the caller's admin-ness (`find_groups`).
  if (!actor || (filter.all_available ?? actor.isAdmin)) return groupIsVisible(actor);
  return reachedThroughMemberships(actor.user.id);
}

/**
 * `fuzzy_search(query, columns)` (Gitlab::SQL::Pattern): every term of 3+ characters must occur in the
 * same column; without such terms, the whole query must equal a column (case-insensitively).
 */
function fuzzySearch(query: string, columns: SQL[]): SQL | undefined {
  const { partial, exact } = searchTerms(query);
  if (!partial.length && exact === null) return undefined;
  return or(
    ...columns.map((column) =>
      exact !== null
        ? sql`${column} ILIKE ${escapeLike(exact)}`
        : and(...partial.map((term) => sql`${column} ILIKE ${`%${escapeLike(term)}%`}`)),
    ),
  );
}

function listCondition(actor: Actor | null, source: GroupSource, filter: ListParams): SQL {
  const conditions: (SQL | undefined)[] = [eq(namespaces.type, "Group"), reachable(actor, filter)];
  if (filter.top_level_only) conditions.push(sql`${namespaces.parentId} IS NULL`);
  if (source.parentId !== undefined) conditions.push(eq(namespaces.parentId, source.parentId));
  if (source.ancestorId !== undefined)
    conditions.push(inSubtreeOf(source.ancestorId), ne(namespaces.id, source.ancestorId));
  if (filter.search?.trim()) {
    // Group.search(include_parents: parent.blank?): the full path and full name (the route) for
    // `/groups`, the group's own path and name below a parent.
    const below = source.parentId !== undefined || source.ancestorId !== undefined;
    const columns = below ? [sql`${namespaces.path}`, sql`${namespaces.name}`] : [sql`${namespaces.fullPath}`, sql`${namespaces.fullName}`];
    conditions.push(fuzzySearch(filter.search, columns));
  }
  if (filter.skip_groups?.length) conditions.push(notInArray(namespaces.id, filter.skip_groups));
  // CustomAttributesFilter: administrators only; ignored for others.
  for (const [key, value] of Object.entries((actor?.isAdmin && filter.custom_attributes) || {})) {
    conditions.push(sql`EXISTS (SELECT 1 FROM ${groupCustomAttributes} ca WHERE ca.group_id = ${namespaces.id}
      AND ca.key = ${key} AND ca.value = ${value})`);
  }
  return and(...conditions)!;
}

/** `reorder(order_by => sort, id: asc)`: ties always break on ascending id. */
function listOrder(filter: ListParams) {
  const direction = filter.sort === "desc" ? desc : asc;
  if (filter.order_by === "id") return [direction(namespaces.id)];
  const column = filter.order_by === "path" ? namespaces.path : namespaces.name;
  return [direction(column), asc(namespaces.id)];
}

/** One page of groups and the capped total: two statements whatever the page size. */
export async function listGroups(
  db: Executor,
  actor: Actor | null,
  source: GroupSource,
  filter: ListParams,
  page: Page,
): Promise<{ rows: Namespace[]; total: number }> {
  const where = listCondition(actor, source, filter);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(namespaces).where(where), page);
  const rows = await db
    .select()
    .from(namespaces)
    .where(where)
    .orderBy(...listOrder(filter))
    .limit(page.limit)
    .offset(page.offset);
  return { rows, total };
}

/**
 * Keyset page of `ORDER BY name, id` after the cursor's row (`Group.supported_keyset_orderings`:
 * name ascending only). One more row than asked tells whether a next page exists.
 */
export async function listGroupsAfter(
  db: Executor,
  actor: Actor | null,
  filter: ListParams,
  after: { name: string; id: number } | null,
  limit: number,
): Promise<Namespace[]> {
  const where = after
    ? and(listCondition(actor, {}, filter), sql`(${namespaces.name}, ${namespaces.id}) > (${after.name}, ${after.id})`)
    : listCondition(actor, {}, filter);
  return db.select().from(namespaces).where(where).orderBy(asc(namespaces.name), asc(namespaces.id)).limit(limit + 1);
}

/** Custom attributes of these groups, in one statement. */
export async function customAttributesOf(db: Executor, groupIds: number[]): Promise<Map<number, CustomAttribute[]>> {
  const byGroup = new Map<number, CustomAttribute[]>(groupIds.map((id) => [id, []]));
  if (!groupIds.length) return byGroup;
  const rows = await db
    .select({ groupId: groupCustomAttributes.groupId, key: groupCustomAttributes.key, value: groupCustomAttributes.value })
    .from(groupCustomAttributes)
    .where(inArray(groupCustomAttributes.groupId, groupIds))
    .orderBy(asc(groupCustomAttributes.id));
  for (const row of rows) byGroup.get(row.groupId)?.push({ key: row.key, value: row.value });
  return byGroup;
}

/** Whether a route (a namespace or a project) already has this full path, ignoring case. */
function routeTaken(fullPath: string, exceptNamespaceId?: number): SQL<boolean> {
  const other = exceptNamespaceId === undefined ? sql`true` : sql`${namespaces.id} <> ${exceptNamespaceId}`;
  return sql<boolean>`(EXISTS (SELECT 1 FROM ${namespaces} WHERE lower(${namespaces.fullPath}) = lower(${fullPath}) AND ${other})
    OR EXISTS (SELECT 1 FROM ${projects} WHERE lower(${projects.fullPath}) = lower(${fullPath})))`;
}

/**
 * What creating a group needs from the database, in one statement: whether the path is taken, the
 * instance's default group visibility, and the new group's id (its traversal_ids end with it).
 */
export async function creationFacts(db: Executor, fullPath: string) {
  const [facts] = await db
    .select({
      taken: routeTaken(fullPath),
      defaultVisibility: sql<string | null>`(SELECT ${applicationSettings.defaultGroupVisibility} FROM ${applicationSettings} WHERE ${applicationSettings.id} = 1)`,
      nextId: sql<number>`nextval(pg_get_serial_sequence('namespaces', 'id'))::int`,
    })
    .from(sql`(SELECT 1) AS one`);
  return { taken: Boolean(facts.taken), defaultVisibility: facts.defaultVisibility, nextId: Number(facts.nextId) };
}

export type NewGroup = Omit<typeof namespaces.$inferInsert, "id" | "type" | "traversalIds">;

/** Inserts the group with its id and its creator as an OWNER member, in one statement. */
export async function insertGroup(db: Executor, id: number, parentTraversalIds: number[], values: NewGroup, creatorId: number) {
  const owner = db
    .$with("owner")
    .as(db.insert(members).values({ sourceType: "Namespace", sourceId: id, userId: creatorId, accessLevel: 50 }).returning({ id: members.id }));
  const [row] = await db
    .with(owner)
    .insert(namespaces)
    .overridingSystemValue()
    .values({ ...values, id, type: "Group", traversalIds: [...parentTraversalIds, id] })
    .returning();
  return row;
}

/**
 * What updating a group needs to validate, in one statement: whether the new full path is taken,
 * the highest visibility among its direct subgroups and direct projects, and its parent's visibility
 * and share lock with the actor's access level there.
 */
export async function updateFacts(db: Executor, group: Namespace, newFullPath: string | null, userId: number) {
  const parent = alias(namespaces, "parent");
  const [facts] = await db
    .select({
      pathTaken: newFullPath === null ? sql<boolean>`false` : routeTaken(newFullPath, group.id),
      maxChildVisibility: sql<number | null>`(SELECT max(c.visibility_level) FROM namespaces c WHERE c.parent_id = ${group.id} AND c.type = 'Group')`,
      maxProjectVisibility: sql<number | null>`(SELECT max(p.visibility_level) FROM projects p WHERE p.namespace_id = ${group.id})`,
      parentVisibility: parent.visibilityLevel,
      parentShareLock: parent.shareWithGroupLock,
      parentAccess: groupAccessLevel(userId, parent as unknown as typeof namespaces),
    })
    .from(namespaces)
    .leftJoin(parent, eq(parent.id, namespaces.parentId))
    .where(eq(namespaces.id, group.id));
  const toNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return {
    pathTaken: Boolean(facts.pathTaken),
    maxChildVisibility: toNumber(facts.maxChildVisibility),
    maxProjectVisibility: toNumber(facts.maxProjectVisibility),
    parent:
      facts.parentVisibility === null
        ? null
        : { visibilityLevel: facts.parentVisibility, shareWithGroupLock: !!facts.parentShareLock, accessLevel: Number(facts.parentAccess) },
  };
}

export type GroupChanges = Partial<Omit<typeof namespaces.$inferInsert, "id" | "type" | "traversalIds" | "parentId">>;

/** A rename moves every route below the group: old and new full path and full name of the group. */
export type Rename = { oldFullPath: string; newFullPath: string; oldFullName: string; newFullName: string };

/**
 * Updates the group and, in the same statement, what follows from it: on a rename, the full path and
 * full name of every descendant group and the full path and `name_with_namespace` of every project
 * below (Route#rename_descendants); when the share lock turns on, the lock of every descendant
 * (Namespace#force_share_with_group_lock_on_descendants).
 */
export async function updateGroup(db: Executor, groupId: number, changes: GroupChanges, rename: Rename | null, lockDescendants: boolean) {
  const ctes = [];
  if (rename || lockDescendants) {
    const descendantChanges: { fullPath?: SQL; fullName?: SQL; shareWithGroupLock?: boolean } = {};
    if (rename) {
      descendantChanges.fullPath = sql`${rename.newFullPath} || substr(${namespaces.fullPath}, char_length(${rename.oldFullPath}) + 1)`;
      descendantChanges.fullName = sql`${rename.newFullName} || substr(${namespaces.fullName}, char_length(${rename.oldFullName}) + 1)`;
    }
    if (lockDescendants) descendantChanges.shareWithGroupLock = true;
    ctes.push(
      db
        .$with("descendants")
        .as(
          db
            .update(namespaces)
            .set(descendantChanges)
            .where(and(inSubtreeOf(groupId), ne(namespaces.id, groupId)))
            .returning({ id: namespaces.id }),
        ),
    );
  }
  if (rename) {
    const subtree = db.select({ id: namespaces.id }).from(namespaces).where(inSubtreeOf(groupId));
    ctes.push(
      db
        .$with("moved_projects")
        .as(
          db
            .update(projects)
            .set({
              fullPath: sql`${rename.newFullPath} || substr(${projects.fullPath}, char_length(${rename.oldFullPath}) + 1)`,
              nameWithNamespace: sql`${rename.newFullName} || substr(${projects.nameWithNamespace}, char_length(${rename.oldFullName}) + 1)`,
            })
            .where(inArray(projects.namespaceId, subtree))
            .returning({ id: projects.id }),
        ),
    );
  }
  const [row] = await db
    .with(...ctes)
    .update(namespaces)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(namespaces.id, groupId))
    .returning();
  return row;
}

/**
 * Deletes the group and every group below it with their members rows (polymorphic: no foreign key).
 * Their projects go with their namespaces (`projects.namespace_id … ON DELETE CASCADE`), and so do
 * project_group_links naming those projects or groups; the projects' members rows are deleted here.
 */
export async function deleteGroupTree(db: Executor, groupId: number) {
  const subtree = db.select({ id: namespaces.id }).from(namespaces).where(inSubtreeOf(groupId));
  const subtreeProjects = db.select({ id: projects.id }).from(projects).where(inArray(projects.namespaceId, subtree));
  await db
    .delete(members)
    .where(
      or(
        and(eq(members.sourceType, "Namespace"), inArray(members.sourceId, subtree)),
        and(eq(members.sourceType, "Project"), inArray(members.sourceId, subtreeProjects)),
      ),
    );
  await db.delete(namespaces).where(inSubtreeOf(groupId));
}

/** GroupProjectsFinder::DEFAULT_PROJECTS_LIMIT: GroupDetail shows at most 100 of each list. */
export const DETAIL_PROJECTS_LIMIT = 100;

const activeLink = sql`(${projectGroupLinks.expiresAt} IS NULL OR ${projectGroupLinks.expiresAt} > current_date)`;
const projectOwner = alias(users, "owner");

/**
 * GroupDetail's `projects` (the group's own projects) and `shared_projects` (projects shared with it
 * through project_group_links), each the newest 100 the caller may read (GroupProjectsFinder with
 * `only_owned` / `only_shared` and `limit`), in two statements: the projects with their namespace,
 * personal owner and the caller's level; then the group links of all of them whose groups the caller
 * may read (ProjectRow's `sharedWithGroups`), with the group's own shares with groups (GroupDetail's
 * `shared_with_groups`) in the same statement.
 */
export async function detailProjects(
  db: Executor,
  actor: Actor | null,
  groupId: number,
): Promise<{ projects: ProjectRow[]; sharedProjects: ProjectRow[]; sharedWithGroups: SharedWithGroup[] }> {
  const sharedIds = db
    .select({ id: projectGroupLinks.projectId })
    .from(projectGroupLinks)
    .where(and(eq(projectGroupLinks.groupId, groupId), activeLink));
  const own = sql`${projects.namespaceId} = ${groupId}`;
  const ranked = db.$with("ranked").as(
    db
      .select({
        id: projects.id,
        shared: sql<boolean>`NOT ${own}`.as("shared"),
        position: sql<number>`row_number() OVER (PARTITION BY ${own} ORDER BY ${projects.id} DESC)`.as("position"),
      })
      .from(projects)
      .where(and(or(sql`${own}`, inArray(projects.id, sharedIds)), projectIsVisible(actor))),
  );
  const raws = await db
    .with(ranked)
    .select({
      project: projects,
      namespace: namespaces,
      owner: projectOwner,
      accessLevel: projectAccessLevel(actor?.user.id ?? null),
      shared: ranked.shared,
    })
    .from(ranked)
    .innerJoin(projects, eq(projects.id, ranked.id))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .leftJoin(projectOwner, and(eq(namespaces.type, "User"), eq(projectOwner.id, namespaces.ownerId)))
    .where(lte(ranked.position, DETAIL_PROJECTS_LIMIT))
    .orderBy(desc(projects.id));

  // The second statement: the group links of those projects and the group's own shares with groups
  // (GroupDetail's `shared_with_groups`), both limited to groups the caller may read.
  const byProject = new Map<number, SharedGroup[]>();
  const sharedWith: SharedWithGroup[] = [];
  const projectIds = raws.map((r) => r.project.id);
  const projectLinks = db
    .select({
      kind: sql<string>`'project'`.as("kind"),
      linkId: projectGroupLinks.id,
      ownerId: projectGroupLinks.projectId,
      groupAccess: projectGroupLinks.groupAccess,
      expiresAt: projectGroupLinks.expiresAt,
      createdAt: projectGroupLinks.createdAt,
      updatedAt: projectGroupLinks.createdAt,
      group: namespaces,
    })
    .from(projectGroupLinks)
    .innerJoin(namespaces, eq(namespaces.id, projectGroupLinks.groupId))
    .where(and(projectIds.length ? inArray(projectGroupLinks.projectId, projectIds) : sql`false`, activeLink, groupIsVisible(actor)));
  const groupLinks = db
    .select({
      kind: sql<string>`'group'`.as("kind"),
      linkId: groupGroupLinks.id,
      ownerId: groupGroupLinks.sharedGroupId,
      groupAccess: groupGroupLinks.groupAccess,
      expiresAt: groupGroupLinks.expiresAt,
      createdAt: groupGroupLinks.createdAt,
      updatedAt: groupGroupLinks.updatedAt,
      group: namespaces,
    })
    .from(groupGroupLinks)
    .innerJoin(namespaces, eq(namespaces.id, groupGroupLinks.sharedWithGroupId))
    .where(and(eq(groupGroupLinks.sharedGroupId, groupId), groupIsVisible(actor)));
  const links = await projectLinks
    .unionAll(groupLinks)
    // By position: the kind, then the link's id (the union's columns have no unique names).
    .orderBy(sql`1`, sql`2`);
  for (const l of links) {
    if (l.kind === "group") {
      sharedWith.push({
        id: l.linkId,
        sharedGroupId: l.ownerId,
        sharedWithGroupId: l.group.id,
        groupAccess: l.groupAccess,
        expiresAt: l.expiresAt,
        createdAt: l.createdAt,
        updatedAt: l.updatedAt,
        sharedWithGroup: l.group,
      });
      continue;
    }
    const list = byProject.get(l.ownerId) ?? [];
    list.push({ id: l.linkId, projectId: l.ownerId, groupId: l.group.id, groupAccess: l.groupAccess, expiresAt: l.expiresAt, createdAt: l.createdAt, group: l.group });
    byProject.set(l.ownerId, list);
  }
  const rows = raws.map((r) => ({
    shared: Boolean(r.shared),
    row: {
      ...r.project,
      namespace: r.namespace,
      owner: r.owner,
      accessLevel: Number(r.accessLevel),
      sharedWithGroups: byProject.get(r.project.id) ?? [],
    } satisfies ProjectRow,
  }));
  return {
    projects: rows.filter((r) => !r.shared).map((r) => r.row),
    sharedProjects: rows.filter((r) => r.shared).map((r) => r.row),
    sharedWithGroups: sharedWith,
  };
}

// ---------------------------------------------------------------------------------------------
// Sharing a group with a group (group_group_links)

/**
 * GroupDetail's `shared_with_groups` (`shared_with_group_links_visible_to_user`): the shares of the group
 * whose shared-with group the caller may read, oldest first, in one statement.
 */
export async function sharedWithGroups(db: Executor, actor: Actor | null, groupId: number): Promise<SharedWithGroup[]> {
  const rows = await db
    .select({ link: groupGroupLinks, group: namespaces })
    .from(groupGroupLinks)
    .innerJoin(namespaces, eq(namespaces.id, groupGroupLinks.sharedWithGroupId))
    .where(and(eq(groupGroupLinks.sharedGroupId, groupId), groupIsVisible(actor)))
    .orderBy(asc(groupGroupLinks.id));
  return rows.map((r) => ({ ...r.link, sharedWithGroup: r.group }));
}

export type GroupLinkValues = { sharedGroupId: number; sharedWithGroupId: number; groupAccess: number; expiresAt: string | null };

/** Inserts a share; null when the pair is shared already (the unique index). */
export async function insertGroupGroupLink(db: Executor, values: GroupLinkValues) {
  const [row] = await db.insert(groupGroupLinks).values(values).onConflictDoNothing().returning();
  return row ?? null;
}

/** Deletes the share of `sharedGroupId` with `sharedWithGroupId`; false when there was none. */
export async function deleteGroupGroupLink(db: Executor, sharedGroupId: number, sharedWithGroupId: number): Promise<boolean> {
  const rows = await db
    .delete(groupGroupLinks)
    .where(and(eq(groupGroupLinks.sharedGroupId, sharedGroupId), eq(groupGroupLinks.sharedWithGroupId, sharedWithGroupId)))
    .returning({ id: groupGroupLinks.id });
  return rows.length > 0;
}

// ---------------------------------------------------------------------------------------------
// Transfer (Groups::TransferService)

/** Whether a namespace or project other than the group already has this full path (route uniqueness). */
export async function transferPathTaken(db: Executor, fullPath: string, groupId: number): Promise<boolean> {
  const [row] = await db.select({ taken: routeTaken(fullPath, groupId) }).from(sql`(SELECT 1) AS one`);
  return Boolean(row.taken);
}

/** Whether a project of the group or of a group below it has npm packages (GroupPackagesFinder, `package_type: :npm`). */
export async function subtreeHasNpmPackages(db: Executor, groupId: number): Promise<boolean> {
  const result = await db.execute<{ npm: boolean }>(sql`SELECT EXISTS (SELECT 1 FROM packages_packages k
    JOIN projects p ON p.id = k.project_id JOIN namespaces n ON n.id = p.namespace_id
    WHERE ${groupId} = ANY(n.traversal_ids) AND k.package_type = 'npm') AS npm`);
  return !!result.rows[0].npm;
}

export type TransferTarget = {
  parent: Pick<Namespace, "id" | "traversalIds" | "fullPath" | "fullName" | "visibilityLevel" | "shareWithGroupLock"> | null;
  /** The caller, made an owner when the group becomes top-level without any owner (`ensure_ownership`). */
  userId: number;
};

/**
 * Moves the group under `parent` (or to the top level): parent, traversal ids, full path and full name
 * of the group and every group below it, full path and `name_with_namespace` of every project below;
 * visibility lowered to the new parent's where it is higher (`update_children_and_projects_visibility`);
 * the parent's share lock forced on the subtree. Run inside the caller's transaction.
 */
export async function transferGroup(db: Executor, group: Namespace, target: TransferTarget): Promise<Namespace> {
  const { parent } = target;
  const newFullPath = parent ? `${parent.fullPath}/${group.path}` : group.path;
  const newFullName = parent ? `${parent.fullName} / ${group.name}` : group.name;
  const prefix = parent ? parent.traversalIds : [];
  // Everything from this group down keeps its tail of traversal ids (1-based slice from the group's position).
  const from = group.traversalIds.length;
  const subtree = db.select({ id: namespaces.id }).from(namespaces).where(inSubtreeOf(group.id));
  const cap = parent?.visibilityLevel ?? 20;
  await db
    .update(projects)
    .set({
      fullPath: sql`${newFullPath} || substr(${projects.fullPath}, char_length(${group.fullPath}) + 1)`,
      nameWithNamespace: sql`${newFullName} || substr(${projects.nameWithNamespace}, char_length(${group.fullName}) + 1)`,
      visibilityLevel: sql`LEAST(${projects.visibilityLevel}, ${cap}::int)`,
      updatedAt: sql`now()`,
    })
    .where(inArray(projects.namespaceId, subtree));
  await db
    .update(namespaces)
    .set({
      traversalIds: sql`${sql.param(prefix)}::int[] || ${namespaces.traversalIds}[${from}:]`,
      fullPath: sql`${newFullPath} || substr(${namespaces.fullPath}, char_length(${group.fullPath}) + 1)`,
      fullName: sql`${newFullName} || substr(${namespaces.fullName}, char_length(${group.fullName}) + 1)`,
      visibilityLevel: sql`LEAST(${namespaces.visibilityLevel}, ${cap}::int)`,
      ...(parent?.shareWithGroupLock ? { shareWithGroupLock: true } : {}),
    })
    .where(and(inSubtreeOf(group.id), ne(namespaces.id, group.id)));
  const [row] = await db
    .update(namespaces)
    .set({
      parentId: parent?.id ?? null,
      traversalIds: [...prefix, group.id],
      fullPath: newFullPath,
      fullName: newFullName,
      visibilityLevel: Math.min(group.visibilityLevel, cap),
      ...(parent?.shareWithGroupLock ? { shareWithGroupLock: true } : {}),
      updatedAt: sql`now()`,
    })
    .where(eq(namespaces.id, group.id))
    .returning();
  if (!parent) {
    await db.execute(sql`INSERT INTO members (source_type, source_id, user_id, access_level, created_by_id)
      SELECT 'Namespace', ${group.id}, ${target.userId}, 50, ${target.userId}
      WHERE NOT EXISTS (SELECT 1 FROM members m WHERE m.source_type = 'Namespace' AND m.source_id = ${group.id} AND m.access_level = 50)
      ON CONFLICT (source_type, source_id, user_id) DO UPDATE SET access_level = 50, updated_at = now()`);
  }
  return row;
}

/**
 * Groups::AcceptingGroupTransfersFinder (15.4): the groups the user owns, directly or through an
 * ancestor (GroupsFinder `min_access_level: OWNER`, administrators included), but the group itself,
 * its descendants and its parent; `search` matches the full path or full name (`include_parents`);
 * by path, then id.
 */
export async function transferLocations(db: Executor, userId: number, group: { id: number; parentId: number | null }, search: string | undefined, page: Page) {
  const where: SQL[] = [
    sql`EXISTS (SELECT 1 FROM members m WHERE m.user_id = ${userId}::int AND m.source_type = 'Namespace'
      AND m.source_id = ANY(g.traversal_ids) AND m.access_level >= 50 AND (m.expires_at IS NULL OR m.expires_at > current_date))`,
    sql`NOT (${group.id}::int = ANY(g.traversal_ids))`,
  ];
  if (group.parentId !== null) where.push(sql`g.id <> ${group.parentId}::int`);
  return transferLocationGroups(db, where, search, page);
}
