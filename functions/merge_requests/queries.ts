import { and, asc, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { mergeRequests, projects } from "../../db/schema";
import { Access } from "../kernel/access";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { fuzzySearch, type SearchOrder } from "../kernel/fuzzy_search";
import { issueIsVisible } from "../shared/issuables/policy";
import { loadMergeRequestRows, mergeRequestRowsQuery, toMergeRequestRow, type MergeRequestRow } from "../shared/issuables/merge_request_preload";
import { cappedCount, type Page } from "../kernel/pagination";
import { projectAccessLevel, projectIsVisible } from "../kernel/visibility";
import type { ListParams } from "./params";
import type { IssueRef } from "./references";

/** One merge request of a project by iid, fully loaded; null when missing. */
export async function mergeRequestByIid(db: Executor, actor: Actor | null, projectId: number, iid: number): Promise<MergeRequestRow | null> {
  const rows = await mergeRequestRowsQuery(db, actor)
    .where(and(eq(mergeRequests.projectId, projectId), eq(mergeRequests.iid, iid)))
    .limit(1);
  return rows[0] ? toMergeRequestRow(rows[0]) : null;
}

/** One merge request by global id, fully loaded (the answer of create and update). */
export async function mergeRequestById(db: Executor, actor: Actor | null, id: number): Promise<MergeRequestRow> {
  const [row] = await loadMergeRequestRows(db, [id], actor);
  return row;
}

// ---------------------------------------------------------------------------------------------
// Who may read merge requests (MergeRequestsFinder's `projects_for_user`, MergeRequestPolicy).

/**
 * WHERE condition over a joined `projects` row: the caller reads that project's merge requests
 * (`read_merge_request`: anyone who reads a public or internal project, reporters and up of a private one).
 */
export function mergeRequestsReadable(actor: Actor | null): SQL {
  return sql`(${projects.mergeRequestsEnabled} AND ${projectIsVisible(actor, projects, Access.REPORTER)})`;
}

// ---------------------------------------------------------------------------------------------
// Lists (MergeRequestsFinder through lib/api/merge_requests.rb)

/** Where a list's merge requests come from: a project, a group with its subgroups, or every readable project. */
export type MergeRequestOwner = { projectId?: number; groupId?: number };

const isNone = (v: unknown) => typeof v === "string" && v.toLowerCase() === "none";
const isAny = (v: unknown) => typeof v === "string" && v.toLowerCase() === "any";

function userIdOf(username: string): SQL {
  return sql`(SELECT u.id FROM users u WHERE lower(u.username) = lower(${username}))`;
}

/** The conditions of the negatable filters (`merge_requests_negatable_params`), each as a positive SQL condition. */
function negatableConditions(f: ListParams, actor: Actor | null): SQL[] {
  const out: SQL[] = [];
  const mr = mergeRequests;
  if (f.author_id !== undefined) out.push(eq(mr.authorId, f.author_id));
  if (f.author_username !== undefined) out.push(sql`${mr.authorId} = ${userIdOf(f.author_username)}`);
  const member = (table: string, user: SQL) =>
    sql`EXISTS (SELECT 1 FROM ${sql.identifier(table)} x WHERE x.merge_request_id = ${mr.id} AND x.user_id = ${user})`;
  const anyMember = (table: string) => sql`EXISTS (SELECT 1 FROM ${sql.identifier(table)} x WHERE x.merge_request_id = ${mr.id})`;
  if (f.assignee_id !== undefined) {
    if (isNone(f.assignee_id)) out.push(sql`NOT ${anyMember("merge_request_assignees")}`);
    else if (isAny(f.assignee_id)) out.push(anyMember("merge_request_assignees"));
    else out.push(member("merge_request_assignees", sql`${f.assignee_id}`));
  }
  for (const username of f.assignee_username ?? []) out.push(member("merge_request_assignees", userIdOf(username)));
  if (f.reviewer_id !== undefined) {
    if (isNone(f.reviewer_id)) out.push(sql`NOT ${anyMember("merge_request_reviewers")}`);
    else if (isAny(f.reviewer_id)) out.push(anyMember("merge_request_reviewers"));
    else out.push(member("merge_request_reviewers", sql`${f.reviewer_id}`));
  }
  if (f.reviewer_username !== undefined) {
    if (isNone(f.reviewer_username)) out.push(sql`NOT ${anyMember("merge_request_reviewers")}`);
    else if (isAny(f.reviewer_username)) out.push(anyMember("merge_request_reviewers"));
    else out.push(member("merge_request_reviewers", userIdOf(f.reviewer_username)));
  }
  if (f.labels?.length) {
    const links = sql`SELECT 1 FROM label_links ll JOIN labels l ON l.id = ll.label_id WHERE ll.target_type = 'MergeRequest' AND ll.target_id = ${mr.id}`;
    if (f.labels.some(isNone)) out.push(sql`NOT EXISTS (${links})`);
    else if (f.labels.some(isAny)) out.push(sql`EXISTS (${links})`);
    else for (const title of new Set(f.labels)) out.push(sql`EXISTS (${links} AND l.title = ${title})`);
  }
  if (f.milestone !== undefined) {
    if (isNone(f.milestone)) out.push(sql`${mr.milestoneId} IS NULL`);
    else if (isAny(f.milestone)) out.push(sql`${mr.milestoneId} IS NOT NULL`);
    else out.push(sql`${mr.milestoneId} IN (SELECT ms.id FROM milestones ms WHERE ms.title = ${f.milestone})`);
  }
  if (f.my_reaction_emoji !== undefined && actor) {
    const awards = sql`SELECT 1 FROM award_emoji ae WHERE ae.awardable_type = 'MergeRequest' AND ae.awardable_id = ${mr.id} AND ae.user_id = ${actor.user.id}`;
    if (isNone(f.my_reaction_emoji)) out.push(sql`NOT EXISTS (${awards})`);
    else if (isAny(f.my_reaction_emoji)) out.push(sql`EXISTS (${awards})`);
    else out.push(sql`EXISTS (${awards} AND ae.name = ${f.my_reaction_emoji})`);
  }
  return out;
}

/** MergeRequestsFinder over the declared list parameters (`find_merge_requests`, lib/api/merge_requests.rb). */
function listCondition(actor: Actor | null, owner: MergeRequestOwner, f: ListParams): SQL {
  const mr = mergeRequests;
  const conditions: (SQL | undefined)[] = [mergeRequestsReadable(actor)];
  if (owner.projectId !== undefined) conditions.push(eq(mr.projectId, owner.projectId));
  if (owner.groupId !== undefined)
    conditions.push(sql`${projects.namespaceId} IN (SELECT g.id FROM namespaces g WHERE g.traversal_ids @> ARRAY[${owner.groupId}]::integer[])`);
  if (f.non_archived) conditions.push(sql`NOT ${projects.archived}`);
  if (f.scope === "created_by_me") conditions.push(actor ? eq(mr.authorId, actor.user.id) : sql`false`);
  if (f.scope === "assigned_to_me")
    conditions.push(
      actor
        ? sql`EXISTS (SELECT 1 FROM merge_request_assignees x WHERE x.merge_request_id = ${mr.id} AND x.user_id = ${actor.user.id})`
        : sql`false`,
    );
  if (f.state !== undefined && f.state !== "all") conditions.push(eq(mr.state, f.state));
  conditions.push(...negatableConditions(f, actor));
  const negated = f.not ? negatableConditions(f.not, actor) : [];
  for (const condition of negated) conditions.push(sql`NOT ${condition}`);
  if (f.search) {
    const searchIn = (f.in ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s === "title" || s === "description");
    const columns = (searchIn.length ? searchIn : ["title", "description"]).map((c) =>
      c === "title" ? sql`${mr.title}` : sql`COALESCE(${mr.description}, '')`,
    );
    conditions.push(fuzzySearch(columns, f.search) ?? undefined);
  }
  if (f.created_after) conditions.push(sql`${mr.createdAt} >= ${f.created_after.toISOString()}`);
  if (f.created_before) conditions.push(sql`${mr.createdAt} <= ${f.created_before.toISOString()}`);
  if (f.updated_after) conditions.push(sql`${mr.updatedAt} >= ${f.updated_after.toISOString()}`);
  if (f.updated_before) conditions.push(sql`${mr.updatedAt} <= ${f.updated_before.toISOString()}`);
  if (f.source_branch !== undefined) conditions.push(eq(mr.sourceBranch, f.source_branch));
  if (f.target_branch !== undefined) conditions.push(eq(mr.targetBranch, f.target_branch));
  if (f.source_project_id !== undefined) conditions.push(eq(mr.sourceProjectId, f.source_project_id));
  if (f.wip) conditions.push(eq(mr.draft, f.wip === "yes"));
  if (f.iids) conditions.push(f.iids.length ? inArray(mr.iid, f.iids) : sql`false`);
  // No deployment exists yet: a deployment filter matches nothing.
  if (f.deployed_before !== undefined || f.deployed_after !== undefined || f.environment !== undefined) conditions.push(sql`false`);
  return and(...conditions)!;
}

function listOrder(f: ListParams) {
  const direction = f.sort === "asc" ? asc : desc;
  const column = f.order_by === "updated_at" ? mergeRequests.updatedAt : f.order_by === "title" ? mergeRequests.title : mergeRequests.createdAt;
  return [direction(column), direction(mergeRequests.id)];
}

/** One page and the capped total: two statements whatever the page size. */
export async function listMergeRequests(
  db: Executor,
  actor: Actor | null,
  owner: MergeRequestOwner,
  f: ListParams,
  page: Page,
): Promise<{ rows: MergeRequestRow[]; total: number }> {
  const where = listCondition(actor, owner, f);
  const counted = db
    .select({ one: sql`1` })
    .from(mergeRequests)
    .innerJoin(projects, eq(projects.id, mergeRequests.projectId))
    .where(where);
  const total = await cappedCount(db, counted, page);
  // The page's ids in a subquery, the rows around it: the rows' per-row subqueries (the latest diff
  // version, the caller's subscription) then run for the page only. Sorted and limited in one query,
  // Postgres ran them for every merge request the filter kept before the sort (2,000 merge requests
  // of one project: 31 ms of a 39 ms statement). Still one statement.
  const pageIds = db
    .select({ id: mergeRequests.id })
    .from(mergeRequests)
    .innerJoin(projects, eq(projects.id, mergeRequests.projectId))
    .where(where)
    .orderBy(...listOrder(f))
    .limit(page.limit)
    .offset(page.offset);
  const rows = await mergeRequestRowsQuery(db, actor)
    .where(inArray(mergeRequests.id, pageIds))
    .orderBy(...listOrder(f));
  return { rows: rows.map(toMergeRequestRow), total };
}

/** `GET …/issues/:iid/closed_by`: merge requests of the issue's project closing it, newest first. */
export async function listClosingMergeRequests(
  db: Executor,
  actor: Actor | null,
  issue: { id: number; projectId: number },
  page: Page,
): Promise<{ rows: MergeRequestRow[]; total: number }> {
  const where = and(
    mergeRequestsReadable(actor),
    eq(mergeRequests.projectId, issue.projectId),
    sql`${mergeRequests.id} IN (SELECT c.merge_request_id FROM merge_requests_closing_issues c WHERE c.issue_id = ${issue.id})`,
  );
  const counted = db.select({ one: sql`1` }).from(mergeRequests).innerJoin(projects, eq(projects.id, mergeRequests.projectId)).where(where);
  const total = await cappedCount(db, counted, page);
  const rows = await mergeRequestRowsQuery(db, actor).where(where).orderBy(desc(mergeRequests.id)).limit(page.limit).offset(page.offset);
  return { rows: rows.map(toMergeRequestRow), total };
}

/**
 * `GET …/issues/:iid/related_merge_requests`: the readable merge requests that reference the issue,
 * sorted as Gitlab::IssuableSorter does: this project's first, then its namespace's, then others,
 * each by reference (path, then iid).
 */
export async function listReferencingMergeRequests(
  db: Executor,
  actor: Actor | null,
  issue: { id: number; projectId: number; namespaceId: number },
  page: Page,
): Promise<{ rows: MergeRequestRow[]; total: number }> {
  const where = and(
    mergeRequestsReadable(actor),
    sql`${mergeRequests.id} IN (SELECT r.merge_request_id FROM issue_merge_request_references r WHERE r.issue_id = ${issue.id})`,
  );
  const counted = db.select({ one: sql`1` }).from(mergeRequests).innerJoin(projects, eq(projects.id, mergeRequests.projectId)).where(where);
  const total = await cappedCount(db, counted, page);
  const level = sql`CASE WHEN ${projects.id} = ${issue.projectId} THEN 0 WHEN ${projects.namespaceId} = ${issue.namespaceId} THEN 1 ELSE 2 END`;
  const path = sql`CASE WHEN ${projects.namespaceId} = ${issue.namespaceId} THEN ${projects.path} ELSE ${projects.fullPath} END`;
  const rows = await mergeRequestRowsQuery(db, actor)
    .where(where)
    .orderBy(asc(level), asc(path), asc(mergeRequests.iid))
    .limit(page.limit)
    .offset(page.offset);
  return { rows: rows.map(toMergeRequestRow), total };
}

// ---------------------------------------------------------------------------------------------
// What a create or update needs to know before writing, in one statement.

export type ResolvedIssue = { id: number; iid: number; projectId: number; fullPath: string; namespaceId: number; path: string };

export type WriteContext = {
  /** The iid of another open merge request with the same branches, if any (validate_branches). */
  duplicateIid: number | null;
  /**
   * The source project is in the target's fork network (`Project#in_fork_network_of?`: both lead to
   * the same root through `forked_from_project_id`) and shares its object pool. True for one project.
   */
  inForkNetwork: boolean;
  /** The given assignee and reviewer ids of users who may read the merge request. */
  readableUserIds: number[];
  /** Mentioned users (by lower-cased username) who may read the merge request. */
  mentioned: { id: number; username: string }[];
  /** The milestone id when it belongs to the project or one of its ancestor groups. */
  milestoneId: number | null;
  /** Labels of the project and its ancestor groups with the given titles. */
  labels: { id: number; title: string }[];
  /** Referenced issues the author may read, with what system notes and references need. */
  issues: ResolvedIssue[];
  /** Users with a pending to-do on this merge request (GitLab keeps one pending to-do per target). */
  pendingTodoUserIds: number[];
  /** The merge request's labels and the issues it already references (updates). */
  labelIds: number[];
  referencedIssueIds: number[];
};

export type WriteLookup = {
  project: { id: number; namespaceTraversalIds: number[] };
  actor: Actor;
  mergeRequestId: number | null;
  /** The project of the source branch (the target project itself, or a fork). */
  sourceProjectId: number;
  branches: { source: string; target: string } | null;
  userIds: number[];
  usernames: string[];
  milestoneId: number | null;
  labelTitles: string[];
  refs: IssueRef[];
};

/** Users who may read the project's merge requests: active, and admins, members or readers by visibility. */
export function readsMergeRequests(userId: SQL): SQL {
  return sql`u.state = 'active' AND projects.merge_requests_enabled AND (u.admin
    OR ${projectAccessLevel(userId)} >= ${Access.REPORTER}
    OR projects.visibility_level = 20 OR (projects.visibility_level = 10 AND NOT u.external))`;
}

export async function lookupForWrite(db: Executor, input: WriteLookup): Promise<WriteContext> {
  const projectId = input.project.id;
  const traversal = sql`${sql.param(input.project.namespaceTraversalIds)}::int[]`;
  const duplicate = input.branches
    ? sql`(SELECT m.iid FROM merge_requests m WHERE m.project_id = ${projectId} AND m.source_project_id = ${input.sourceProjectId}
        AND m.source_branch = ${input.branches.source} AND m.target_branch = ${input.branches.target} AND m.state = 'opened'
        AND m.id <> ${input.mergeRequestId ?? 0} ORDER BY m.id LIMIT 1)`
    : sql`NULL::int`;
  // Each project's root, walking `forked_from_project_id` up (UNION stops on a cycle, which has no root).
  const network =
    input.sourceProjectId === projectId
      ? sql`true`
      : sql`(WITH RECURSIVE up(start, id, parent, pool) AS (
            SELECT p.id, p.id, p.forked_from_project_id, coalesce(p.pool_id, p.id) FROM projects p WHERE p.id IN (${projectId}::int, ${input.sourceProjectId}::int)
            UNION SELECT up.start, p.id, p.forked_from_project_id, up.pool FROM up JOIN projects p ON p.id = up.parent)
          SELECT s.id = t.id AND s.pool = t.pool FROM up s, up t
           WHERE s.start = ${input.sourceProjectId}::int AND s.parent IS NULL AND t.start = ${projectId}::int AND t.parent IS NULL)`;
  const paths = input.refs.map((r) => r.path);
  const iids = input.refs.map((r) => r.iid);
  const result = await db.execute<{
    duplicate_iid: number | null;
    in_fork_network: boolean | null;
    user_ids: number[] | null;
    mentioned: { id: number; username: string }[] | null;
    milestone_id: number | null;
    labels: { id: number; title: string }[] | null;
    issues: { id: number; iid: number; project_id: number; full_path: string; namespace_id: number; path: string }[] | null;
    pending: number[] | null;
    label_ids: number[] | null;
    referenced: number[] | null;
  }>(sql`
    SELECT ${duplicate} AS duplicate_iid, ${network} AS in_fork_network,
      ARRAY(SELECT u.id FROM users u, projects JOIN namespaces ON namespaces.id = projects.namespace_id
        WHERE projects.id = ${projectId} AND u.id = ANY(${sql.param(input.userIds)}::int[]) AND ${readsMergeRequests(sql`u.id`)}) AS user_ids,
      (SELECT json_agg(json_build_object('id', u.id, 'username', lower(u.username))) FROM users u, projects JOIN namespaces ON namespaces.id = projects.namespace_id
        WHERE projects.id = ${projectId} AND lower(u.username) = ANY(${sql.param(input.usernames)}::text[]) AND ${readsMergeRequests(sql`u.id`)}) AS mentioned,
      (SELECT ms.id FROM milestones ms WHERE ms.id = ${input.milestoneId ?? 0}
        AND (ms.project_id = ${projectId} OR ms.group_id = ANY(${traversal}))) AS milestone_id,
      (SELECT json_agg(json_build_object('id', l.id, 'title', l.title) ORDER BY l.project_id NULLS LAST, l.id) FROM labels l
        WHERE (l.project_id = ${projectId} OR l.group_id = ANY(${traversal})) AND l.title = ANY(${sql.param(input.labelTitles)}::text[])) AS labels,
      (SELECT json_agg(json_build_object('id', issues.id, 'iid', issues.iid, 'project_id', issues.project_id,
          'full_path', projects.full_path, 'namespace_id', projects.namespace_id, 'path', projects.path))
        FROM issues JOIN projects ON projects.id = issues.project_id
        JOIN unnest(${sql.param(paths)}::text[], ${sql.param(iids)}::int[]) AS r(path, iid) ON lower(projects.full_path) = r.path AND issues.iid = r.iid
        WHERE ${issueIsVisible(input.actor)}) AS issues,
      ARRAY(SELECT DISTINCT t.user_id FROM todos t WHERE t.state = 'pending' AND t.target_type = 'MergeRequest'
        AND t.target_id = ${input.mergeRequestId ?? 0}) AS pending,
      ARRAY(SELECT ll.label_id FROM label_links ll WHERE ll.target_type = 'MergeRequest' AND ll.target_id = ${input.mergeRequestId ?? 0}
        ORDER BY ll.label_id) AS label_ids,
      ARRAY(SELECT r.issue_id FROM issue_merge_request_references r WHERE r.merge_request_id = ${input.mergeRequestId ?? 0}) AS referenced`);
  const row = result.rows[0];
  return {
    duplicateIid: row.duplicate_iid === null ? null : Number(row.duplicate_iid),
    inForkNetwork: row.in_fork_network === true,
    readableUserIds: (row.user_ids ?? []).map(Number),
    mentioned: (row.mentioned ?? []).map((m) => ({ id: Number(m.id), username: m.username })),
    milestoneId: row.milestone_id === null ? null : Number(row.milestone_id),
    labels: (row.labels ?? []).map((l) => ({ id: Number(l.id), title: l.title })),
    issues: (row.issues ?? []).map((i) => ({
      id: Number(i.id),
      iid: Number(i.iid),
      projectId: Number(i.project_id),
      fullPath: i.full_path,
      namespaceId: Number(i.namespace_id),
      path: i.path,
    })),
    pendingTodoUserIds: (row.pending ?? []).map(Number),
    labelIds: (row.label_ids ?? []).map(Number),
    referencedIssueIds: (row.referenced ?? []).map(Number),
  };
}

/**
 * The search API's merge requests (Gitlab::SearchResults#merge_requests: MergeRequestsFinder with
 * `search` or `iids`, and `state`), in `apply_sort`'s order, without a count (`limit + 1` rows).
 */
export async function searchMergeRequests(
  db: Executor,
  actor: Actor | null,
  owner: MergeRequestOwner,
  f: ListParams,
  order: SearchOrder,
  page: Page,
): Promise<{ rows: MergeRequestRow[]; hasNext: boolean }> {
  const direction = order.dir === "asc" ? asc : desc;
  const column = order.column === "updated_at" ? mergeRequests.updatedAt : order.column === "popularity" ? mergeRequests.upvotes : mergeRequests.createdAt;
  const rows = await mergeRequestRowsQuery(db, actor)
    .where(listCondition(actor, owner, f))
    .orderBy(direction(column), direction(mergeRequests.id))
    .limit(page.limit + 1)
    .offset(page.offset);
  return { rows: rows.slice(0, page.limit).map(toMergeRequestRow), hasNext: rows.length > page.limit };
}
