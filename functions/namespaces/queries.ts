import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { namespaces, users } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { escapeLike, fuzzySearch } from "../kernel/fuzzy_search";
import { cappedCount, type Page } from "../kernel/pagination";
import type { NamespaceRow } from "../entities/namespaces";

const owner = alias(users, "owner");

/** `max_member_access_for_user`: the caller's best membership in the group or an ancestor (0 when none). */
function memberLevel(userId: number | null): SQL<number> {
  if (userId === null) return sql<number>`0`;
  return sql<number>`(CASE WHEN ${namespaces.type} = 'Group' THEN COALESCE((SELECT max(m.access_level) FROM members m
    WHERE m.source_type = 'Namespace' AND m.source_id = ANY(${namespaces.traversalIds}) AND m.user_id = ${userId}
      AND (m.expires_at IS NULL OR m.expires_at > current_date)), 0) ELSE 0 END)::int`;
}

/** `users_with_descendants.count`: distinct members of the group and its subgroups. */
const membersWithDescendants = sql<number>`(CASE WHEN ${namespaces.type} = 'Group' THEN (SELECT count(DISTINCT m.user_id)
  FROM members m JOIN namespaces d ON d.id = m.source_id
  WHERE m.source_type = 'Namespace' AND ${namespaces.id} = ANY(d.traversal_ids)) END)::int`;

function selectRows(db: Executor, actor: Actor | null) {
  return db
    .select({
      namespace: namespaces,
      owner,
      memberLevel: memberLevel(actor?.user.id ?? null),
      membersCount: membersWithDescendants,
    })
    .from(namespaces)
    .leftJoin(owner, and(eq(namespaces.type, "User"), eq(owner.id, namespaces.ownerId)));
}

type Raw = Awaited<ReturnType<ReturnType<typeof selectRows>["where"]>>[number];

const toRow = (r: Raw): NamespaceRow => ({
  ...r.namespace,
  owner: r.owner,
  memberLevel: Number(r.memberLevel),
  membersCount: r.membersCount === null ? null : Number(r.membersCount),
});

/**
 * `current_user.admin ? Namespace.all : current_user.namespaces(owned_only:)`: the caller's personal
 * namespace and the groups they are a direct member of (owners only with `owned_only`), `search`
 * on name and path; GitLab sets no order, so rows come by id.
 */
export async function listNamespaces(db: Executor, actor: Actor, f: { search?: string; ownedOnly: boolean }, page: Page) {
  const where: SQL[] = [];
  if (!actor.isAdmin) {
    const level = f.ownedOnly ? 50 : 0;
    where.push(sql`(${namespaces.ownerId} = ${actor.user.id} AND ${namespaces.type} = 'User'
      OR ${namespaces.id} IN (SELECT m.source_id FROM members m WHERE m.source_type = 'Namespace' AND m.user_id = ${actor.user.id}
        AND m.access_level >= ${level} AND (m.expires_at IS NULL OR m.expires_at > current_date)))`);
  }
  const match = fuzzySearch([namespaces.name, namespaces.path], f.search);
  if (match) where.push(match);
  const cond = where.length ? and(...where) : undefined;
  const raws = await selectRows(db, actor).where(cond).orderBy(asc(namespaces.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(namespaces).where(cond), page);
  return { rows: raws.map(toRow), total };
}

/** One namespace with what its entity shows. */
export async function loadNamespace(db: Executor, actor: Actor | null, id: number): Promise<NamespaceRow | null> {
  const raws = await selectRows(db, actor).where(eq(namespaces.id, id)).limit(1);
  return raws[0] ? toRow(raws[0]) : null;
}

/** `Namespace.by_parent(parent_id).filter_by_path(path).exists?` (top-level namespaces without a parent). */
export async function pathExists(db: Executor, path: string, parentId: number | null): Promise<boolean> {
  const parent = parentId === null ? sql`n.parent_id IS NULL` : sql`n.parent_id = ${parentId}`;
  const result = await db.execute<{ found: boolean }>(
    sql`SELECT EXISTS (SELECT 1 FROM namespaces n WHERE ${parent} AND lower(n.path) = lower(${path})) AS found`,
  );
  return !!result.rows[0].found;
}

/**
 * What Uniquify (`clean_path`'s `find_by_path_or_name`) must avoid: the lower-cased paths and names of
 * every namespace that start with `base`, instance-wide.
 */
export async function takenLike(db: Executor, base: string): Promise<Set<string>> {
  const prefix = `${escapeLike(base.toLowerCase())}%`;
  const result = await db.execute<{ taken: string }>(sql`SELECT lower(n.path) AS taken FROM namespaces n WHERE lower(n.path) LIKE ${prefix}
    UNION SELECT lower(n.name) FROM namespaces n WHERE lower(n.name) LIKE ${prefix}`);
  return new Set(result.rows.map((r) => r.taken));
}
