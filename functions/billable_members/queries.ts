import { and, eq, sql, type SQL } from "drizzle-orm";
import { billableMemberRefreshes, billableMembers, users, type User } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { cappedCount, type Page } from "../kernel/pagination";
import type { BillableRow, MembershipRow } from "../entities/billable_members";

/** The only Drizzle code of billable members: the per-root-group snapshot and its refresh. */

const active = (alias: string) => sql.raw(`(${alias}.expires_at IS NULL OR ${alias}.expires_at > current_date)`);

/** Ultimate does not bill guests: true unless the current license has another plan. */
const excludeGuests = sql`coalesce((SELECT l.plan = 'ultimate' FROM licenses l WHERE l.starts_at <= current_date ORDER BY l.id DESC LIMIT 1), true)`;

/**
 * `Group#billed_user_ids` of one root group as CTEs ending in `billable (user_id, lvl, type, joined)`:
 * direct members of the group and its subgroups, members of their projects at any depth, and members
 * of groups those projects are shared with; active humans only, guests left out under Ultimate.
 * `onlyUser` narrows every branch to one user (the live check of one user).
 */
function billedUsers(rootGroupId: number, onlyUser?: number): SQL {
  const user = (alias: string) => (onlyUser === undefined ? sql`` : sql`AND ${sql.raw(alias)}.user_id = ${onlyUser}`);
  return sql`hierarchy AS (SELECT n.id FROM namespaces n WHERE n.type = 'Group' AND n.traversal_ids[1] = ${rootGroupId}),
    hprojects AS (SELECT p.id FROM projects p WHERE p.namespace_id IN (SELECT id FROM hierarchy)),
    found AS (
      SELECT m.user_id, m.access_level, m.created_at, 1 AS kind FROM members m
        WHERE m.source_type = 'Namespace' AND m.source_id IN (SELECT id FROM hierarchy) AND ${active("m")} ${user("m")}
      UNION ALL
      SELECT m.user_id, m.access_level, m.created_at, 2 FROM members m
        WHERE m.source_type = 'Project' AND m.source_id IN (SELECT id FROM hprojects) AND ${active("m")} ${user("m")}
      UNION ALL
      SELECT m.user_id, LEAST(m.access_level, l.group_access), m.created_at, 4 FROM project_group_links l
        JOIN namespaces g ON g.id = l.group_id
        JOIN members m ON m.source_type = 'Namespace' AND m.source_id = ANY(g.traversal_ids) AND ${active("m")} ${user("m")}
        WHERE l.project_id IN (SELECT id FROM hprojects) AND ${active("l")}
    ),
    agg AS (SELECT user_id, max(access_level) AS lvl, min(kind) AS kind, min(created_at) AS joined FROM found GROUP BY user_id),
    billable AS (
      SELECT a.user_id, a.lvl, CASE a.kind WHEN 1 THEN 'group_member' WHEN 2 THEN 'project_member' ELSE 'project_invite' END AS type, a.joined
      FROM agg a JOIN users u ON u.id = a.user_id
      WHERE u.state = 'active' AND u.user_type IS NULL AND (a.lvl > 10 OR NOT ${excludeGuests})
    )`;
}

/** Recomputes the snapshot of one root group in one statement (the list's daily refresh). Idempotent. */
export async function refreshSnapshot(db: Executor, rootGroupId: number): Promise<void> {
  await db.execute(sql`
    WITH ${billedUsers(rootGroupId)},
    -- Rows of users no longer billable go; the others are upserted (disjoint rows, so one statement is safe).
    cleared AS (DELETE FROM billable_members b WHERE b.root_group_id = ${rootGroupId} AND b.user_id NOT IN (SELECT user_id FROM billable)),
    refreshed AS (
      INSERT INTO billable_member_refreshes (root_group_id, refreshed_at) VALUES (${rootGroupId}, now())
      ON CONFLICT (root_group_id) DO UPDATE SET refreshed_at = now()
    )
    INSERT INTO billable_members (root_group_id, user_id, max_access_level, membership_type, joined_at)
    SELECT ${rootGroupId}, user_id, lvl, type, joined FROM billable
    ON CONFLICT (root_group_id, user_id) DO UPDATE SET max_access_level = excluded.max_access_level,
      membership_type = excluded.membership_type, joined_at = excluded.joined_at`);
}

/**
 * Whether the user is billed by the root group now (`group.billed_user_ids[:user_ids].include?`): the
 * memberships endpoint checks the hierarchy as it is, not the daily snapshot the list serves, so a user
 * who joined since the last refresh is found.
 */
export async function isBilledNow(db: Executor, rootGroupId: number, userId: number): Promise<boolean> {
  const rows = await db.execute<{ one: number }>(sql`WITH ${billedUsers(rootGroupId, userId)} SELECT 1 AS one FROM billable LIMIT 1`);
  return rows.rows.length > 0;
}

export async function hasSnapshot(db: Executor, rootGroupId: number): Promise<boolean> {
  const rows = await db.select({ id: billableMemberRefreshes.rootGroupId }).from(billableMemberRefreshes).where(eq(billableMemberRefreshes.rootGroupId, rootGroupId)).limit(1);
  return rows.length > 0;
}

/** Root groups whose snapshot is missing or older than `before`, oldest first, at most `limit`. */
export async function staleRootGroups(db: Executor, before: Date, limit: number): Promise<number[]> {
  const rows = await db.execute<{ id: number }>(sql`SELECT n.id FROM namespaces n
    LEFT JOIN billable_member_refreshes r ON r.root_group_id = n.id
    WHERE n.type = 'Group' AND n.parent_id IS NULL AND (r.refreshed_at IS NULL OR r.refreshed_at < ${before.toISOString()})
    ORDER BY r.refreshed_at ASC NULLS FIRST, n.id LIMIT ${limit}`);
  return rows.rows.map((r) => Number(r.id));
}

export type BillableSort =
  | "access_level_asc" | "access_level_desc" | "last_joined" | "name_asc" | "name_desc" | "oldest_joined" | "oldest_sign_in" | "recent_sign_in" | "id_asc";

const ORDER: Record<BillableSort, SQL[]> = {
  id_asc: [sql`${users.id} ASC`],
  access_level_asc: [sql`${billableMembers.maxAccessLevel} ASC`, sql`${users.id} ASC`],
  access_level_desc: [sql`${billableMembers.maxAccessLevel} DESC`, sql`${users.id} ASC`],
  last_joined: [sql`${billableMembers.joinedAt} DESC`, sql`${users.id} DESC`],
  oldest_joined: [sql`${billableMembers.joinedAt} ASC`, sql`${users.id} ASC`],
  name_asc: [sql`lower(${users.name}) ASC`, sql`${users.id} ASC`],
  name_desc: [sql`lower(${users.name}) DESC`, sql`${users.id} DESC`],
  recent_sign_in: [sql`${users.lastSignInAt} DESC NULLS LAST`, sql`${users.id} ASC`],
  oldest_sign_in: [sql`${users.lastSignInAt} ASC NULLS LAST`, sql`${users.id} ASC`],
};

/** The page of the snapshot, with users and whether each is the root group's last owner, plus the capped count. */
export async function listBillable(
  db: Executor,
  rootGroupId: number,
  opts: { search?: string; sort: BillableSort },
  page: Page,
): Promise<{ rows: BillableRow[]; total: number }> {
  const term = opts.search ? `%${opts.search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%` : null;
  const where = and(
    eq(billableMembers.rootGroupId, rootGroupId),
    term ? sql`(${users.name} ILIKE ${term} OR ${users.username} ILIKE ${term} OR ${users.email} ILIKE ${term})` : undefined,
  );
  const owners = sql`(SELECT array_agg(m.user_id) FROM members m WHERE m.source_type = 'Namespace' AND m.source_id = ${rootGroupId}
    AND m.access_level = 50 AND ${active("m")})`;
  const list = await db
    .select({
      user: users,
      membershipType: billableMembers.membershipType,
      maxAccessLevel: billableMembers.maxAccessLevel,
      isLastOwner: sql<boolean>`coalesce(${owners} = ARRAY[${users.id}], false)`,
    })
    .from(billableMembers)
    .innerJoin(users, eq(users.id, billableMembers.userId))
    .where(where)
    .orderBy(...ORDER[opts.sort])
    .limit(page.limit)
    .offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(billableMembers).innerJoin(users, eq(users.id, billableMembers.userId)).where(where), page);
  return {
    rows: list.map((r) => ({ ...r.user, membershipType: r.membershipType, maxAccessLevel: r.maxAccessLevel, isLastOwner: !!r.isLastOwner })),
    total,
  };
}

export async function findUserById(db: Executor, id: number): Promise<User | null> {
  const rows = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return rows[0] ?? null;
}

/** `user.members.in_hierarchy(group)`: the user's direct memberships in the group, its subgroups and their projects. */
export async function membershipsInHierarchy(db: Executor, rootGroupId: number, userId: number, page: Page): Promise<{ rows: MembershipRow[]; total: number }> {
  const base = sql`FROM members m
    LEFT JOIN namespaces g ON m.source_type = 'Namespace' AND g.id = m.source_id
    LEFT JOIN projects p ON m.source_type = 'Project' AND p.id = m.source_id
    LEFT JOIN namespaces pn ON pn.id = p.namespace_id
    WHERE m.user_id = ${userId} AND ((g.id IS NOT NULL AND g.traversal_ids[1] = ${rootGroupId}) OR (p.id IS NOT NULL AND pn.traversal_ids[1] = ${rootGroupId}))`;
  const rows = await db.execute<{
    id: number; source_type: string; source_id: number; full_name: string; full_path: string; access_level: number; created_at: string; expires_at: string | null;
  }>(sql`SELECT m.id, m.source_type, m.source_id, coalesce(g.full_name, p.name_with_namespace) AS full_name,
      coalesce(g.full_path, p.full_path) AS full_path, m.access_level, m.created_at, m.expires_at::text AS expires_at
    ${base} ORDER BY m.id LIMIT ${page.limit} OFFSET ${page.offset}`);
  const count = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM (SELECT 1 ${base} LIMIT 10001) t`);
  return {
    rows: rows.rows.map((r) => ({
      id: Number(r.id),
      sourceType: r.source_type,
      sourceId: Number(r.source_id),
      sourceFullName: r.full_name,
      sourceFullPath: r.full_path,
      accessLevel: Number(r.access_level),
      createdAt: new Date(r.created_at),
      expiresAt: r.expires_at,
    })),
    total: Number(count.rows[0].n),
  };
}

/** Whether the user is the only owner of the root group (direct owners; a group always keeps one). */
export async function isLastOwner(db: Executor, rootGroupId: number, userId: number): Promise<boolean> {
  const rows = await db.execute<{ last: boolean }>(sql`SELECT coalesce(array_agg(m.user_id) = ARRAY[${userId}]::int[], false) AS last
    FROM members m WHERE m.source_type = 'Namespace' AND m.source_id = ${rootGroupId} AND m.access_level = 50 AND ${active("m")}`);
  return !!rows.rows[0]?.last;
}

/**
 * BillableMembers::DestroyService: the user's direct memberships in the root group, its subgroups and
 * their projects (`Member.in_hierarchy(group)`) go, and the user leaves the snapshot at once. One
 * statement; returns how many memberships went (0: the user had none there, and nothing changed).
 */
export async function removeFromHierarchy(db: Executor, rootGroupId: number, userId: number): Promise<number> {
  const rows = await db.execute<{ n: number }>(sql`WITH gone AS (
      DELETE FROM members m USING members x
        LEFT JOIN namespaces g ON x.source_type = 'Namespace' AND g.id = x.source_id
        LEFT JOIN projects p ON x.source_type = 'Project' AND p.id = x.source_id
        LEFT JOIN namespaces pn ON pn.id = p.namespace_id
      WHERE m.id = x.id AND x.user_id = ${userId}
        AND ((g.id IS NOT NULL AND g.traversal_ids[1] = ${rootGroupId}) OR (p.id IS NOT NULL AND pn.traversal_ids[1] = ${rootGroupId}))
      RETURNING m.id),
    unlisted AS (DELETE FROM billable_members b WHERE b.root_group_id = ${rootGroupId} AND b.user_id = ${userId} AND EXISTS (SELECT 1 FROM gone))
    SELECT count(*)::int AS n FROM gone`);
  return Number(rows.rows[0]?.n ?? 0);
}
