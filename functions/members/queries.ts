import { and, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { members, namespaces, users, type Member, type User } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { cappedCount, type Page } from "../kernel/pagination";
import { groupIsVisible } from "../kernel/visibility";
import type { MemberRow } from "../entities/members";
import {
  hierarchyGroupIds,
  inheritedGroupIds,
  isRootGroup,
  type InheritedMembership,
  type MemberSource,
  type OwnerFacts,
} from "./rules";
import type { ListParams } from "./params";

/**
 * Every statement of the members domain. A scope says where the members hang and which groups they
 * inherit from; routes build it from the looked-up group or project.
 */
export type MemberScope = {
  sourceType: "Namespace" | "Project";
  sourceId: number;
  /** EE: a root group's direct list also holds Minimal Access members (`all_group_members`). */
  includeMinimal: boolean;
  /** Ancestor groups whose memberships are inherited (for a project: its group and that group's ancestors). */
  inheritedIds: number[];
  /** The group and its ancestors, whose owner rows decide the last-owner rule (empty for projects). */
  hierarchyIds: number[];
};

export function scopeOf(source: MemberSource): MemberScope {
  return {
    sourceType: source.sourceType,
    sourceId: source.id,
    includeMinimal: isRootGroup(source),
    inheritedIds: inheritedGroupIds(source),
    hierarchyIds: hierarchyGroupIds(source),
  };
}

/** An `int[]` literal parameter (ids are integers we hold, never caller text). */
const intArray = (ids: number[]) => sql`${`{${ids.map((id) => Math.trunc(id)).join(",")}}`}::int[]`;
const active = (m: string) => sql.raw(`(${m}.expires_at IS NULL OR ${m}.expires_at > current_date)`);

/** `source.members` (lib/api/helpers/members_helpers.rb#source_members): the direct rows. */
function directCandidates(scope: MemberScope): SQL {
  return sql`SELECT m.id, m.user_id, m.access_level FROM members m
    WHERE m.source_type = ${scope.sourceType} AND m.source_id = ${scope.sourceId}
    ${scope.includeMinimal ? sql`` : sql`AND m.access_level <> 5`}`;
}

/**
 * GroupMembersFinder with `[:inherited, :direct]`: one row per user among the group's and its ancestors'
 * members, Minimal Access excluded, the highest level winning (`distinct_on_user_with_max_access_level`:
 * `access_level DESC, expires_at DESC, created_at ASC`).
 * Differs from GitLab: groups shared with a group (`group_group_links`, `:shared_with_groups`) do not
 * exist here, so they add nobody.
 */
function groupCandidates(scope: MemberScope): SQL {
  return sql`SELECT DISTINCT ON (m.user_id) m.id, m.user_id, m.access_level FROM members m
    WHERE m.source_type = 'Namespace' AND m.source_id = ANY(${intArray([...scope.inheritedIds, scope.sourceId])})
      AND m.access_level <> 5
    ORDER BY m.user_id, m.access_level DESC, m.expires_at DESC, m.created_at ASC`;
}

/**
 * MembersFinder with `[:inherited, :direct, :invited_groups]`: the project's rows, its groups' rows and
 * the rows of the groups it is shared with (and their ancestors, when the caller can see them); one row
 * per user, the project's own row first. The level shown is the user's effective access (GitLab's
 * `project_authorizations`, a share capped by its `group_access`), else the row's own level.
 */
function projectCandidates(scope: MemberScope, actor: Actor | null): SQL {
  const g = alias(namespaces, "g");
  const rows = sql`
    SELECT m.id, m.user_id, m.access_level, m.expires_at, m.created_at, 1 AS priority, m.access_level AS capped, true AS listed
      FROM members m WHERE m.source_type = 'Project' AND m.source_id = ${scope.sourceId}
    UNION ALL
    SELECT m.id, m.user_id, m.access_level, m.expires_at, m.created_at, 2, m.access_level, m.access_level <> 5
      FROM members m WHERE m.source_type = 'Namespace' AND m.source_id = ANY(${intArray(scope.inheritedIds)})
    UNION ALL
    SELECT m.id, m.user_id, m.access_level, m.expires_at, m.created_at, 2,
        CASE WHEN ${active("l")} THEN LEAST(m.access_level, l.group_access) ELSE 0 END,
        m.access_level <> 5 AND ${groupIsVisible(actor, g as unknown as typeof namespaces)}
      FROM project_group_links l
      JOIN namespaces lg ON lg.id = l.group_id
      JOIN members m ON m.source_type = 'Namespace' AND m.source_id = ANY(lg.traversal_ids)
      JOIN namespaces g ON g.id = m.source_id
      WHERE l.project_id = ${scope.sourceId}`;
  return sql`SELECT DISTINCT ON (r.user_id) r.id, r.user_id, COALESCE(NULLIF(r.effective, 0), r.access_level) AS access_level
    FROM (SELECT x.*, max(CASE WHEN ${active("x")} THEN x.capped ELSE 0 END) OVER (PARTITION BY x.user_id) AS effective
      FROM (${rows}) x) r
    WHERE r.listed
    ORDER BY r.user_id, r.priority, r.access_level DESC, r.expires_at DESC, r.created_at ASC, r.id`;
}

function candidates(scope: MemberScope, deep: boolean, actor: Actor | null): SQL {
  if (!deep) return directCandidates(scope);
  return scope.sourceType === "Project" ? projectCandidates(scope, actor) : groupCandidates(scope);
}

/** Rack/Grape hand the query through; User.search drops one leading `@` and lower-cases it. */
function searchTerm(query: string): string {
  return query.replace(/^@/, "").toLowerCase();
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/**
 * User.search (app/models/user.rb, via search_with_secondary_emails): name or username matching every
 * term of 3+ characters (`ILIKE %term%`), or, without such terms, the whole query case-insensitively;
 * or the e-mail equal to the query.
 */
function searchCondition(query: string): SQL {
  const q = searchTerm(query);
  if (q.trim() === "") return sql`false`;
  const squished = q.trim().replace(/\s+/g, " ");
  const terms = (squished.match(/"[^"]+"|\S+/g) ?? []).map((t) => t.replace(/^"(.*)"$/, "$1")).filter((t) => t.length >= 3);
  const match = (column: SQL) =>
    terms.length
      ? sql.join(terms.map((t) => sql`${column} ILIKE ${`%${escapeLike(t)}%`}`), sql` AND `)
      : sql`${column} ILIKE ${escapeLike(squished)}`;
  return sql`((${match(sql`u.name`)}) OR (${match(sql`u.username`)}) OR lower(u.email) = ${q})`;
}

function filterCondition(f: ListParams): SQL {
  const conditions: SQL[] = [sql`true`];
  if (f.query !== undefined && f.query.trim() !== "") conditions.push(searchCondition(f.query));
  if (f.user_ids?.length) conditions.push(sql`u.id = ANY(${intArray(f.user_ids)})`);
  if (f.skip_users?.length) conditions.push(sql`NOT (u.id = ANY(${intArray(f.skip_users)}))`);
  if (f.state === "awaiting") conditions.push(sql`false`); // no member awaits a seat here
  return sql.join(conditions, sql` AND `);
}

/** Offset pagination orders by id; a search re-orders by exact matches, then name (User.search's reorder). */
function orderBy(f: ListParams): SQL {
  if (f.query === undefined || f.query.trim() === "") return sql`c.id`;
  const q = searchTerm(f.query);
  return sql`CASE WHEN u.name = ${q} THEN 0 WHEN u.username = ${q} THEN 1 WHEN u.public_email = ${q} THEN 2 ELSE 3 END, u.name, c.id`;
}

const createdBy = alias(users, "created_by_user");

/** EE `User#using_license_seat?` on an Ultimate license: active humans whose highest role is above Guest. */
const usingSeat = sql<boolean>`(${users.state} = 'active' AND (${users.userType} IS NULL OR ${users.userType} IN ('human', 'service_user')) AND COALESCE((
  SELECT max(hm.access_level) FROM members hm WHERE hm.user_id = ${users.id} AND ${active("hm")}), 0) > 10)`;

type Picked = { id: number; access_level: number };

/** Loads the picked rows with their users and creators in one statement, keeping the picked order. */
async function preload(db: Executor, picked: Picked[], seatInfo = false): Promise<MemberRow[]> {
  if (picked.length === 0) return [];
  const rows = await db
    .select({ member: members, user: users, createdBy, seat: seatInfo ? usingSeat : sql<boolean>`false` })
    .from(members)
    .innerJoin(users, eq(users.id, members.userId))
    .leftJoin(createdBy, eq(createdBy.id, members.createdById))
    .where(
      inArray(
        members.id,
        picked.map((p) => Number(p.id)),
      ),
    );
  const byId = new Map(rows.map((r) => [r.member.id, r]));
  return picked.flatMap((p) => {
    const r = byId.get(Number(p.id));
    if (!r) return [];
    return [{ member: r.member, user: r.user, createdBy: r.createdBy, accessLevel: Number(p.access_level), isUsingSeat: !!r.seat }];
  });
}

/** `GET …/members` and `GET …/members/all`: a page and its capped total. */
export async function listMembers(
  db: Executor,
  scope: MemberScope,
  opts: { deep: boolean; actor: Actor | null; filters: ListParams; page: Page; seatInfo: boolean },
): Promise<{ rows: MemberRow[]; total: number }> {
  const from = sql`FROM (${candidates(scope, opts.deep, opts.actor)}) c JOIN users u ON u.id = c.user_id
    WHERE ${filterCondition(opts.filters)}`;
  const picked = await db.execute<Picked>(
    sql`SELECT c.id, c.access_level ${from} ORDER BY ${orderBy(opts.filters)} LIMIT ${opts.page.limit} OFFSET ${opts.page.offset}`,
  );
  const total = await cappedCount(db, { limit: (n: number) => sql`SELECT 1 ${from} LIMIT ${n}` }, opts.page);
  return { rows: await preload(db, picked.rows, opts.seatInfo), total };
}

/** `GET …/members/:user_id` and `GET …/members/all/:user_id`. */
export async function findMember(
  db: Executor,
  scope: MemberScope,
  userId: number,
  opts: { deep: boolean; actor: Actor | null },
): Promise<MemberRow | null> {
  const picked = await db.execute<Picked>(
    sql`SELECT c.id, c.access_level FROM (${candidates(scope, opts.deep, opts.actor)}) c WHERE c.user_id = ${userId} LIMIT 1`,
  );
  const rows = await preload(db, picked.rows);
  return rows[0] ?? null;
}

/** Member#highest_group_member: the user's highest row in the inherited groups, with the group's name. */
function inheritedSql(scope: MemberScope, userId: SQL) {
  if (scope.inheritedIds.length === 0) return sql<{ access_level: number; name: string } | null>`NULL::json`;
  return sql<{ access_level: number; name: string } | null>`(SELECT json_build_object('access_level', im.access_level, 'name', ig.name)
    FROM members im JOIN namespaces ig ON ig.id = im.source_id
    WHERE im.source_type = 'Namespace' AND im.source_id = ANY(${intArray(scope.inheritedIds)}) AND im.user_id = ${userId}
    ORDER BY im.access_level DESC, im.id DESC LIMIT 1)`;
}

type RawOwnerFacts = { active_rows: number; target_active: boolean; blocked_rows: number; target_blocked: boolean };

/** The owner rows that decide Group#member_last_owner? / #member_last_blocked_owner? for `userId`. */
function ownerFactsSql(scope: MemberScope, userId: SQL) {
  if (scope.hierarchyIds.length === 0) return sql<RawOwnerFacts | null>`NULL::json`;
  return sql<RawOwnerFacts | null>`(SELECT json_build_object(
      'active_rows', count(*) FILTER (WHERE ou.state = 'active'),
      'target_active', COALESCE(bool_or(om.user_id = ${userId} AND ou.state = 'active'), false),
      'blocked_rows', count(*) FILTER (WHERE ou.state <> 'active' AND om.source_id = ${scope.sourceId}),
      'target_blocked', COALESCE(bool_or(om.user_id = ${userId} AND ou.state <> 'active' AND om.source_id = ${scope.sourceId}), false))
    FROM members om JOIN users ou ON ou.id = om.user_id
    WHERE om.source_type = 'Namespace' AND om.source_id = ANY(${intArray(scope.hierarchyIds)}) AND om.access_level = 50)`;
}

function ownerFacts(raw: RawOwnerFacts | null): OwnerFacts {
  return {
    activeOwnerRows: Number(raw?.active_rows ?? 0),
    targetIsActiveOwner: !!raw?.target_active,
    blockedOwnerRows: Number(raw?.blocked_rows ?? 0),
    targetIsBlockedOwner: !!raw?.target_blocked,
  };
}

function inherited(raw: { access_level: number; name: string } | null): InheritedMembership {
  return raw ? { accessLevel: Number(raw.access_level), groupName: raw.name } : null;
}

/** What adding a user needs to know about them. */
export type Invitee = {
  user: User;
  existing: { id: number; accessLevel: number } | null;
  inherited: InheritedMembership;
  /** Any membership anywhere (project bots may have only their own). */
  hasMembership: boolean;
  owner: OwnerFacts;
};

/** Users to add, by id or e-mail, with their existing row in the source and inherited levels: one statement. */
export async function loadInvitees(db: Executor, scope: MemberScope, ids: number[], emails: string[]): Promise<Invitee[]> {
  const byId = ids.length ? sql`${users.id} = ANY(${intArray(ids)})` : sql`false`;
  const byEmail = emails.length ? inArray(sql`lower(${users.email})`, emails.map((e) => e.toLowerCase())) : sql`false`;
  // Nested so that Drizzle keeps it qualified: a single-table select writes bare column names.
  const userId = sql`${users.id}`;
  const rows = await db
    .select({
      user: users,
      existing: sql<{ id: number; access_level: number } | null>`(SELECT json_build_object('id', em.id, 'access_level', em.access_level)
        FROM members em WHERE em.source_type = ${scope.sourceType} AND em.source_id = ${scope.sourceId} AND em.user_id = ${userId})`,
      inherited: inheritedSql(scope, userId),
      hasMembership: sql<boolean>`EXISTS (SELECT 1 FROM members am WHERE am.user_id = ${userId})`,
      owner: ownerFactsSql(scope, userId),
    })
    .from(users)
    .where(or(byId, byEmail));
  return rows.map((r) => ({
    user: r.user,
    existing: r.existing ? { id: Number(r.existing.id), accessLevel: Number(r.existing.access_level) } : null,
    inherited: inherited(r.inherited),
    hasMembership: !!r.hasMembership,
    owner: ownerFacts(r.owner),
  }));
}

/** A direct member, for PUT and DELETE, with what their rules need: one statement. */
export type LoadedMember = MemberRow & { inherited: InheritedMembership; owner: OwnerFacts };

export async function loadDirectMember(db: Executor, scope: MemberScope, userId: number): Promise<LoadedMember | null> {
  const rows = await db
    .select({
      member: members,
      user: users,
      createdBy,
      inherited: inheritedSql(scope, sql`${members.userId}`),
      owner: ownerFactsSql(scope, sql`${members.userId}`),
    })
    .from(members)
    .innerJoin(users, eq(users.id, members.userId))
    .leftJoin(createdBy, eq(createdBy.id, members.createdById))
    .where(
      and(
        eq(members.sourceType, scope.sourceType),
        eq(members.sourceId, scope.sourceId),
        eq(members.userId, userId),
        scope.includeMinimal ? undefined : sql`${members.accessLevel} <> 5`,
      ),
    )
    .limit(1);
  const r = rows[0];
  if (!r) return null;
  return {
    member: r.member,
    user: r.user,
    createdBy: r.createdBy,
    accessLevel: r.member.accessLevel,
    inherited: inherited(r.inherited),
    owner: ownerFacts(r.owner),
  };
}

export type NewMember = { userId: number; accessLevel: number; expiresAt: string | null; createdById: number };

export async function insertMember(db: Executor, scope: MemberScope, m: NewMember): Promise<Member> {
  const [row] = await db
    .insert(members)
    .values({ sourceType: scope.sourceType, sourceId: scope.sourceId, ...m })
    .returning();
  return row;
}

/**
 * The multi-user add in one statement: new rows are created, existing ones take the new level and
 * expiry and keep their creator (Members::CreatorService#member_attributes).
 */
export async function upsertMembers(db: Executor, scope: MemberScope, list: NewMember[]): Promise<void> {
  if (list.length === 0) return;
  await db
    .insert(members)
    .values(list.map((m) => ({ sourceType: scope.sourceType, sourceId: scope.sourceId, ...m })))
    .onConflictDoUpdate({
      target: [members.sourceType, members.sourceId, members.userId],
      set: {
        accessLevel: sql`excluded.access_level`,
        expiresAt: sql`excluded.expires_at`,
        updatedAt: sql`now()`,
      },
    });
}

export async function updateMember(
  db: Executor,
  id: number,
  set: { accessLevel: number; expiresAt?: string | null },
): Promise<Member> {
  const [row] = await db
    .update(members)
    .set({ ...set, updatedAt: new Date() })
    .where(eq(members.id, id))
    .returning();
  return row;
}

/**
 * Removes a member; for a group member, unless `skip_subresources`, also the user's direct memberships
 * of the group's subgroups and of projects in the group and its subgroups (Members::DestroyService#
 * delete_subresources). One statement.
 * Differs from GitLab: the sub-removals are not re-authorized one by one (GitLab skips a subgroup's
 * last owner there); whoever may remove the group membership removes these too.
 */
export async function deleteMember(
  db: Executor,
  scope: MemberScope,
  member: Member,
  skipSubresources: boolean,
): Promise<void> {
  const cascade =
    scope.sourceType === "Namespace" && !skipSubresources
      ? and(
          eq(members.userId, member.userId),
          or(
            sql`${members.sourceType} = 'Namespace' AND ${members.sourceId} IN (
              SELECT d.id FROM namespaces d WHERE ${scope.sourceId} = ANY(d.traversal_ids) AND d.id <> ${scope.sourceId})`,
            sql`${members.sourceType} = 'Project' AND ${members.sourceId} IN (
              SELECT dp.id FROM projects dp JOIN namespaces dn ON dn.id = dp.namespace_id WHERE ${scope.sourceId} = ANY(dn.traversal_ids))`,
          ),
        )
      : undefined;
  await db.delete(members).where(cascade ? or(eq(members.id, member.id), cascade) : eq(members.id, member.id));
}
