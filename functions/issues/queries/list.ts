import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { issueCounts, issues } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import type { Actor } from "../../kernel/env";
import { fuzzySearch, type SearchOrder } from "../../kernel/fuzzy_search";
import { countedIssuesAreVisible, countedIssuesAreVisibleForShape, issueIsVisible, issueIsVisibleForShape } from "../../shared/issuables/policy";
import { pageIdsWithCount, preparedPageIds, type Page } from "../../kernel/pagination";
import { actorPlaceholders, actorShape, type ActorShape } from "../../kernel/visibility";
import { ISSUE_TYPES, type ListParams } from "../params";

/**
 * IssuesFinder with IssuableFinder (app/finders/issues_finder.rb, issuable_finder.rb and their EE
 * prepends) as the API drives them: every filter is one SQL condition on `issues`, so the page and its
 * capped count share the WHERE and relations are loaded afterwards for the page's ids only.
 */

/** Where the issues come from: a project, a group with its subgroups, or every readable project. */
export type IssueOwner = { kind: "project"; projectId: number } | { kind: "group"; groupId: number } | { kind: "all" };

/**
 * The filters are the declared list parameters themselves (params.ts `ListParams`, IssuesFinder's
 * params): `not` holds the negated ones.
 */
type NegatedParams = NonNullable<ListParams["not"]>;

/** `issue_type`, or every type an issue list shows. */
const issueTypesOf = (f: ListParams): string[] => (f.issue_type ? [f.issue_type] : [...ISSUE_TYPES]);

export type IssueSort = { orderBy: string; sort: "asc" | "desc" };

const NONE = sql`false`;

/** Integer parameters compare as bigint: a value beyond int4 then matches nothing instead of failing. */
const big = (n: number) => sql`${n}::bigint`;

const assignedTo = (condition: SQL) =>
  sql`EXISTS (SELECT 1 FROM issue_assignees ia JOIN users au ON au.id = ia.user_id WHERE ia.issue_id = ${issues.id} AND ${condition})`;

const anyAssignee = sql`EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = ${issues.id})`;

const awardedBy = (userId: number, name: string | null) =>
  sql`EXISTS (SELECT 1 FROM award_emoji ae WHERE ae.awardable_type = 'Issue' AND ae.awardable_id = ${issues.id}
    AND ae.user_id = ${userId} ${name === null ? sql`` : sql`AND ae.name = ${name}`})`;

const milestoneOf = (condition: SQL) =>
  sql`EXISTS (SELECT 1 FROM milestones mi WHERE mi.id = ${issues.milestoneId} AND ${condition})`;

const userExists = (condition: SQL) => sql`EXISTS (SELECT 1 FROM users fu WHERE ${condition})`;
const lowerNames = (names: string[]) => sql`${sql.param(names.map((n) => n.toLowerCase()))}::text[]`;

/**
 * `Milestone.upcoming_ids`: per project and group, the active milestone with the nearest due date after
 * today (legacy filtering, as the 15.4 API does).
 */
const upcomingMilestoneIds = sql`(SELECT DISTINCT ON (um.project_id, um.group_id) um.id FROM milestones um
  WHERE um.state = 'active' AND um.due_date > CURRENT_DATE ORDER BY um.project_id, um.group_id, um.due_date)`;

/** `issues.label_ids` (kept by a trigger on label_links) shares a label titled one of `titles`: a GIN index scan. */
const labelledWith = (titles: SQL) =>
  sql`${issues.labelIds} && ARRAY(SELECT l.id FROM labels l WHERE l.title = ANY(${titles}))`;

/** Label titles resolved to the ids of every label with that title (see `resolveLabelTitles`). */
export type LabelIdsByTitle = Map<string, number[]>;

const isWildcardLabel = (name: string) => ["none", "any", "no label"].includes(name.toLowerCase());

/**
 * IssuableFinder::Params label names: `None` (or the deprecated `No Label`) and `Any`, any case.
 * Titles arrive resolved to ids, so the planner sees constant arrays and estimates `&&` from the
 * column's statistics: it then walks the sort index for a page and the GIN index for the count.
 */
function labelCondition(names: string[], resolved: LabelIdsByTitle, labelIds: SQLWrapper = issues.labelIds): SQL | null {
  if (names.some((n) => ["none", "no label"].includes(n.toLowerCase()))) return sql`${labelIds} = '{}'::integer[]`;
  if (names.some((n) => n.toLowerCase() === "any")) return sql`${labelIds} <> '{}'::integer[]`;
  // AND semantics: one test per title (exact, case-sensitive as `labels.title = ?`).
  return sql.join(
    [...new Set(names)].map((title) => sql`${labelIds} && ${sql.param(resolved.get(title) ?? [])}::integer[]`),
    sql` AND `,
  );
}

/** The ids of the labels titled as the filter asks (one statement; none when the filter has no titles). */
export async function resolveLabelTitles(db: Executor, names: string[] | undefined): Promise<LabelIdsByTitle> {
  const titles = [...new Set((names ?? []).filter((n) => !isWildcardLabel(n)))];
  const resolved: LabelIdsByTitle = new Map();
  if (titles.length === 0 || (names ?? []).some(isWildcardLabel)) return resolved;
  const rows = await db.execute<{ title: string; ids: number[] }>(
    sql`SELECT l.title, array_agg(l.id) AS ids FROM labels l WHERE l.title = ANY(${sql.param(titles)}::text[]) GROUP BY l.title`,
  );
  for (const row of rows.rows) resolved.set(row.title, row.ids.map(Number));
  return resolved;
}

function milestoneCondition(title: string | undefined, wildcard: ListParams["milestone_id"]): SQL | null {
  if (title === undefined && wildcard === undefined) return null;
  const t = title ?? "";
  if (wildcard === "None" || t.toLowerCase() === "none" || t === "No Milestone") return sql`${issues.milestoneId} IS NULL`;
  if (wildcard === "Any" || t.toLowerCase() === "any" || t === "Any Milestone") return sql`${issues.milestoneId} IS NOT NULL`;
  if (wildcard === "Upcoming" || t === "#upcoming") return sql`${issues.milestoneId} IN ${upcomingMilestoneIds}`;
  if (wildcard === "Started" || t === "#started") return milestoneOf(sql`mi.state = 'active' AND mi.start_date <= CURRENT_DATE`);
  return milestoneOf(sql`mi.title = ${t}`);
}

/** `by_negated_milestone` (legacy): upcoming and started negate the timebox; a title keeps unset ones. */
function negatedMilestone(title: string | undefined, wildcard: NegatedParams["milestone_id"]): SQL | null {
  if (title === undefined && wildcard === undefined) return null;
  if (wildcard === "Upcoming" || title === "#upcoming") return milestoneOf(sql`mi.state = 'active' AND mi.due_date <= CURRENT_DATE`);
  if (wildcard === "Started" || title === "#started") return milestoneOf(sql`mi.state = 'active' AND mi.start_date > CURRENT_DATE`);
  // Differs from GitLab: 15.4 reads `not[milestone_id]=None|Any` as a title and returns issues without a
  // milestone for both; here they negate the wildcard.
  if (wildcard === "None") return sql`${issues.milestoneId} IS NOT NULL`;
  if (wildcard === "Any") return sql`${issues.milestoneId} IS NULL`;
  return sql`(${issues.milestoneId} IS NULL OR NOT ${milestoneOf(sql`mi.title = ${title}`)})`;
}

function wildcardColumn(column: SQL, value: number | "none" | "any" | undefined): SQL | null {
  if (value === undefined) return null;
  if (value === "none") return sql`${column} IS NULL`;
  if (value === "any") return sql`${column} IS NOT NULL`;
  return sql`${column} = ${big(value)}`;
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const addDays = (d: Date, n: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + n));

/** IssuesFinder#by_due_date with Rails' Monday-based weeks, in UTC. */
function dueDateCondition(value: string | undefined, now: Date): SQL | null {
  if (!value) return null;
  const column = issues.dueDate;
  const today = addDays(now, 0);
  const between = (from: Date, to: Date) => sql`${column} BETWEEN ${isoDay(from)} AND ${isoDay(to)}`;
  switch (value) {
    case "0":
      return sql`${column} IS NULL`;
    case "any":
      return sql`${column} IS NOT NULL`;
    case "overdue":
      return sql`${column} < ${isoDay(today)}`;
    case "today":
      return sql`${column} = ${isoDay(today)}`;
    case "tomorrow":
      return sql`${column} = ${isoDay(addDays(today, 1))}`;
    case "week": {
      const monday = addDays(today, -((today.getUTCDay() + 6) % 7));
      return between(monday, addDays(monday, 6));
    }
    case "month":
      return between(
        new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1)),
        new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 0)),
      );
    case "next_month_and_previous_two_weeks":
      return between(addDays(today, -14), new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 2, 0)));
    default:
      return NONE;
  }
}

function ownerCondition(owner: IssueOwner, nonArchived: boolean, projectId: SQLWrapper = issues.projectId): SQL | null {
  const archived = nonArchived ? sql`AND NOT op.archived` : sql``;
  if (owner.kind === "project") return sql`${projectId} = ${owner.projectId}`;
  if (owner.kind === "group")
    return sql`${projectId} IN (SELECT op.id FROM projects op JOIN namespaces ons ON ons.id = op.namespace_id
      WHERE ons.traversal_ids @> ARRAY[${owner.groupId}]::integer[] ${archived})`;
  return nonArchived ? sql`${projectId} IN (SELECT op.id FROM projects op WHERE NOT op.archived)` : null;
}

/** The WHERE of a list: visibility (`issueIsVisible`, shared/issuables/policy.ts), owner, issue types, then every filter. */
export function listCondition(owner: IssueOwner, f: ListParams, actor: Actor | null, now: Date, labelIds: LabelIdsByTitle): SQL {
  return joinedCondition(owner, f, actor, narrowingConditions(f, actor, now, labelIds));
}

function joinedCondition(owner: IssueOwner, f: ListParams, actor: Actor | null, narrowing: SQL[]): SQL {
  const c = [issueIsVisible(actor), ownerCondition(owner, !!f.non_archived), issueTypeCondition(sql.param(issueTypesOf(f))), ...narrowing];
  return sql.join(c.filter((x): x is SQL => x !== null), sql` AND `);
}

/** `types`: a parameter or a placeholder holding the issue types. */
const issueTypeCondition = (types: SQLWrapper, issueType: SQLWrapper = issues.issueType) => sql`${issueType} = ANY(${types}::text[])`;

/** The sum of `issue_counts` rows matching `conditions` (on that table), as a scalar subquery. */
const countedIssues = (conditions: (SQL | null)[]) =>
  sql`(SELECT coalesce(sum(${issueCounts.count}), 0) FROM ${issueCounts}
    WHERE ${sql.join(conditions.filter((x): x is SQL => x !== null), sql` AND `)})`;

/**
 * A lower bound of the list's size from `issue_counts` (kernel/pagination.ts `pageIdsWithCount`), when
 * the list filters on state and labels only: the counters keep nothing else. The rows are those every
 * issue of which the actor reads (`countedIssuesAreVisible`), so the sum never exceeds the list. For a
 * list that no other filter narrows (`uncountedConditions` is empty).
 */
function countedLowerBound(owner: IssueOwner, f: ListParams, actor: Actor | null, labelIds: LabelIdsByTitle): SQL {
  return countedIssues([
    countedIssuesAreVisible(actor),
    ownerCondition(owner, !!f.non_archived, issueCounts.projectId),
    issueTypeCondition(sql.param(issueTypesOf(f)), issueCounts.issueType),
    ...countedFilterConditions(f, labelIds, issueCounts),
  ]);
}

/** The conditions of the filters that narrow a list (none when the caller filters nothing). */
function narrowingConditions(f: ListParams, actor: Actor | null, now: Date, labelIds: LabelIdsByTitle): SQL[] {
  return [...countedFilterConditions(f, labelIds, issues), ...uncountedConditions(f, actor, now)];
}

/** The filters `issue_counts` keeps, state and labels, on the columns of `issues` or of `issue_counts`. */
function countedFilterConditions(f: ListParams, labelIds: LabelIdsByTitle, rows: { state: SQLWrapper; labelIds: SQLWrapper }): SQL[] {
  const c: (SQL | null)[] = [];
  if (f.state === "opened" || f.state === "closed") c.push(sql`${rows.state} = ${f.state}`);
  if (f.labels?.length) c.push(labelCondition(f.labels, labelIds, rows.labelIds));
  return c.filter((x): x is SQL => x !== null);
}

/** Every other filter's condition: when there is none, `issue_counts` bounds the list's count. */
function uncountedConditions(f: ListParams, actor: Actor | null, now: Date): SQL[] {
  const c: (SQL | null | undefined)[] = [];
  const userId = actor?.user.id ?? null;
  if (f.scope === "created_by_me" || f.scope === "assigned_to_me") {
    if (userId === null) c.push(NONE);
    else c.push(f.scope === "created_by_me" ? sql`${issues.authorId} = ${userId}` : assignedTo(sql`ia.user_id = ${userId}`));
  }
  if (f.created_after) c.push(sql`${issues.createdAt} >= ${f.created_after}`);
  if (f.created_before) c.push(sql`${issues.createdAt} <= ${f.created_before}`);
  if (f.updated_after) c.push(sql`${issues.updatedAt} >= ${f.updated_after}`);
  if (f.updated_before) c.push(sql`${issues.updatedAt} <= ${f.updated_before}`);
  if (f.author_id !== undefined) c.push(sql`${issues.authorId} = ${big(f.author_id)}`);
  if (f.author_username !== undefined)
    c.push(sql`${issues.authorId} = (SELECT fu.id FROM users fu WHERE lower(fu.username) = lower(${f.author_username}))`);
  if (f.assignee_id === "none") c.push(sql`NOT ${anyAssignee}`);
  else if (f.assignee_id === "any") c.push(anyAssignee);
  else if (f.assignee_id !== undefined) c.push(assignedTo(sql`ia.user_id = ${big(f.assignee_id)}`));
  // EE: several usernames mean issues assigned to all of them.
  for (const name of new Set((f.assignee_username ?? []).map((n) => n.toLowerCase()))) c.push(assignedTo(sql`lower(au.username) = ${name}`));
  if (f.iids?.length) c.push(sql`${issues.iid} = ANY(${sql.param(f.iids)}::bigint[])`);
  c.push(milestoneCondition(f.milestone, f.milestone_id));
  if (f.my_reaction_emoji !== undefined && userId !== null) {
    const lower = f.my_reaction_emoji.toLowerCase();
    if (lower === "none") c.push(sql`NOT ${awardedBy(userId, null)}`);
    else if (lower === "any") c.push(awardedBy(userId, null));
    else c.push(awardedBy(userId, f.my_reaction_emoji));
  }
  if (f.confidential !== undefined) c.push(sql`${issues.confidential} = ${f.confidential}`);
  c.push(dueDateCondition(f.due_date, now));
  c.push(wildcardColumn(sql`${issues.weight}`, f.weight));
  // No issue belongs to an epic yet (epic issues are not built): `None` keeps all, anything else none.
  if (f.epic_id !== undefined && f.epic_id !== "none") c.push(NONE);
  if (f.health_status !== undefined) {
    const lower = f.health_status.toLowerCase();
    c.push(wildcardColumn(sql`${issues.healthStatus}`, lower === "none" || lower === "any" ? lower : undefined) ?? sql`${issues.healthStatus} = ${f.health_status}`);
  }
  c.push(iterationCondition(f.iteration_id, f.iteration_title));
  if (f.not) c.push(...negatedConditions(f.not, userId));
  const matched = (f.in ?? "").split(",").map((s) => s.trim()).filter((s) => s === "title" || s === "description");
  // The title through its stored lower-case copy (`title_lower`, migration 0058): the same rows as `title ILIKE`.
  const title = { lowered: issues.titleLower };
  const columns = matched.length ? [...new Set(matched)].map((col) => (col === "title" ? title : issues.description)) : [title, issues.description];
  c.push(fuzzySearch(columns, f.search));
  return c.filter((x): x is SQL => !!x);
}

/**
 * EE iterations. Differs from GitLab: there are no cadences, and `Current` and `iteration_title`
 * match nothing (not built); a number matches the issue's stored `iteration_id`.
 */
function iterationCondition(id: ListParams["iteration_id"], title: string | undefined): SQL | null {
  if (title !== undefined) return NONE;
  if (id === "current") return NONE;
  return wildcardColumn(sql`${issues.iterationId}`, id);
}

/** IssuableFinder#filter_negated_items with the EE negations. */
function negatedConditions(n: NegatedParams, userId: number | null): SQL[] {
  const c: (SQL | null)[] = [];
  if (n.author_id !== undefined) c.push(sql`${issues.authorId} <> ${big(n.author_id)} AND ${userExists(sql`fu.id = ${big(n.author_id)}`)}`);
  if (n.author_username !== undefined)
    c.push(sql`${issues.authorId} <> (SELECT fu.id FROM users fu WHERE lower(fu.username) = lower(${n.author_username}))`);
  if (n.assignee_id !== undefined)
    c.push(sql`NOT ${assignedTo(sql`ia.user_id = ${big(n.assignee_id)}`)} AND ${userExists(sql`fu.id = ${big(n.assignee_id)}`)}`);
  if (n.assignee_username?.length) {
    const names = lowerNames(n.assignee_username);
    c.push(sql`NOT ${assignedTo(sql`lower(au.username) = ANY(${names})`)} AND ${userExists(sql`lower(fu.username) = ANY(${names})`)}`);
  }
  if (n.labels?.length) c.push(sql`NOT ${labelledWith(sql`${sql.param(n.labels)}::text[]`)}`);
  c.push(negatedMilestone(n.milestone, n.milestone_id));
  if (n.iids?.length) c.push(sql`${issues.iid} <> ALL(${sql.param(n.iids)}::bigint[])`);
  if (n.weight !== undefined) c.push(sql`${issues.weight} <> ${big(n.weight)}`);
  if (n.iteration_id === "none") c.push(sql`${issues.iterationId} IS NOT NULL`);
  else if (n.iteration_id === "any") c.push(sql`${issues.iterationId} IS NULL`);
  else if (typeof n.iteration_id === "number") c.push(sql`${issues.iterationId} IS DISTINCT FROM ${big(n.iteration_id)}`);
  if (n.my_reaction_emoji !== undefined && userId !== null) c.push(sql`NOT ${awardedBy(userId, n.my_reaction_emoji)}`);
  return c.filter((x): x is SQL => x !== null);
}

/**
 * The highest priority (lowest number) among the issue's labels, the filtered-on labels excluded
 * (`highest_label_priority(excluded_labels:)`).
 */
function labelPriority(excluded: string[]): SQL {
  return sql`(SELECT min(l.priority) FROM label_links ll JOIN labels l ON l.id = ll.label_id
    WHERE ll.target_type = 'Issue' AND ll.target_id = ${issues.id}
      AND l.title <> ALL(${sql.param(excluded)}::text[]))`;
}

const milestoneDue = sql`(SELECT mi.due_date FROM milestones mi WHERE mi.id = ${issues.milestoneId})`;

/**
 * `Issue.sort_by_attribute("#{order_by}_#{sort}")` then `with_order_id_desc`: each order ends in
 * `id DESC`, except `relative_position` ascending (`id ASC`).
 */
export function orderOf(s: IssueSort, excludedLabels: string[]): SQL[] {
  const dir = sql.raw(s.sort === "asc" ? "ASC" : "DESC");
  const idDesc = sql`${issues.id} DESC`;
  switch (s.orderBy) {
    case "created_at":
      return [sql`${issues.createdAt} ${dir}`, idDesc];
    case "updated_at":
      return [sql`${issues.updatedAt} ${dir}`, idDesc];
    case "due_date":
      return [sql`${issues.dueDate} ${dir} NULLS LAST`, idDesc];
    case "relative_position":
      return s.sort === "asc" ? [sql`${issues.relativePosition} ASC NULLS LAST`, sql`${issues.id} ASC`] : [idDesc];
    case "label_priority":
      return [sql`${labelPriority(excludedLabels)} ${dir} NULLS LAST`, idDesc];
    case "milestone_due":
      return [sql`${milestoneDue} IS NULL`, sql`${issues.milestoneId} IS NULL`, sql`${milestoneDue} ${dir}`, idDesc];
    case "popularity":
      return [sql`${issues.upvotes} ${dir}`, idDesc];
    case "priority":
      return [sql`${milestoneDue} ${dir} NULLS LAST`, sql`${labelPriority(excludedLabels)} ${dir} NULLS LAST`, idDesc];
    case "title":
      return [sql`${issues.title} ${dir}`, idDesc];
    case "weight":
      return [sql`${issues.weight} ${dir} NULLS LAST`, idDesc];
    default:
      return [sql`${issues.createdAt} ${dir}`, idDesc];
  }
}

/**
 * One page of issue ids and the capped total (one statement, two with a `labels` filter);
 * relations come from `loadIssueRows`.
 */
export async function listIssueIds(
  db: Executor,
  owner: IssueOwner,
  filters: ListParams,
  sort: IssueSort,
  actor: Actor | null,
  page: Page,
  now: Date,
): Promise<{ ids: number[]; total: number }> {
  const labelIds = await resolveLabelTitles(db, filters.labels);
  const uncounted = uncountedConditions(filters, actor, now);
  const narrowing = [...countedFilterConditions(filters, labelIds, issues), ...uncounted];
  if (owner.kind === "project" && narrowing.length === 0) {
    // A project's issues with no filter (the common call): the same statement as below, prepared.
    const values = { projectId: owner.projectId, issueTypes: issueTypesOf(filters), ...actorPlaceholders(actor) };
    return unfilteredProjectPageIds(db, [actorShape(actor), sort.orderBy, sort.sort], values, page);
  }
  const where = joinedCondition(owner, filters, actor, narrowing);
  const excluded = filters.labels?.filter((l) => !isWildcardLabel(l)) ?? [];
  const ordered = db
    .select({ id: issues.id })
    .from(issues)
    .where(where)
    .orderBy(...orderOf(sort, excluded))
    .limit(page.limit)
    .offset(page.offset);
  const lowerBound = uncounted.length === 0 ? countedLowerBound(owner, filters, actor, labelIds) : undefined;
  return pageIdsWithCount(db, db.select({ one: sql`1` }).from(issues).where(where), ordered, page, lowerBound);
}

/**
 * The ids and capped count of one project's issues with no narrowing filter, prepared per actor shape and
 * sort: placeholders `projectId`, `issueTypes` and the actor's.
 */
const unfilteredProjectPageIds = preparedPageIds((db, window, shape: ActorShape, orderBy: IssueSort["orderBy"], direction: IssueSort["sort"]) => {
  const where = sql.join(
    [issueIsVisibleForShape(shape), sql`${issues.projectId} = ${sql.placeholder("projectId")}::int`, issueTypeCondition(sql.placeholder("issueTypes"))],
    sql` AND `,
  );
  const ordered = db
    .select({ id: issues.id })
    .from(issues)
    .where(where)
    .orderBy(...orderOf({ orderBy, sort: direction }, []))
    .limit(window.limit)
    .offset(window.offset);
  const lowerBound = countedIssues([
    countedIssuesAreVisibleForShape(shape),
    sql`${issueCounts.projectId} = ${sql.placeholder("projectId")}::int`,
    issueTypeCondition(sql.placeholder("issueTypes"), issueCounts.issueType),
  ]);
  return { filtered: db.select({ one: sql`1` }).from(issues).where(where), ordered, lowerBound };
});

/**
 * Gitlab::IssuablesCountForState over the list's filters (any state): all, closed and opened issues in
 * one statement (two with a `labels` filter).
 */
export async function issueStatistics(
  db: Executor,
  owner: IssueOwner,
  filters: ListParams,
  actor: Actor | null,
  now: Date,
): Promise<{ all: number; closed: number; opened: number }> {
  const where = listCondition(owner, { ...filters, state: "all" }, actor, now, await resolveLabelTitles(db, filters.labels));
  const [row] = await db
    .select({
      all: sql<number>`count(*)::int`,
      closed: sql<number>`(count(*) FILTER (WHERE ${issues.state} = 'closed'))::int`,
      opened: sql<number>`(count(*) FILTER (WHERE ${issues.state} = 'opened'))::int`,
    })
    .from(issues)
    .where(where);
  return { all: Number(row?.all ?? 0), closed: Number(row?.closed ?? 0), opened: Number(row?.opened ?? 0) };
}

/**
 * How many of the newest issues (in the search's order, within the project when it searches one) the
 * search walks per row it needs before it gives up the walk: 25, so a term on at least 1 issue in 25 of
 * the newest is found by the walk (a first page of 20 needs 21 rows: 525 walked at most). Pages that
 * need more than SEARCH_WALK_MAX_ROWS rows (past the first 100) do not walk.
 */
const SEARCH_WALK_PER_ROW = 25;
const SEARCH_WALK_MAX_ROWS = 101;

/**
 * The search API's issues (Gitlab::SearchResults#issues: IssuesFinder with `search`, or `iids` for a
 * `#<iid>` query, `state` and `confidential`), in `apply_sort`'s order; no count: `limit + 1` ids say
 * whether another page exists (Kaminari's `without_count`). Visibility is the lists' (`issueIsVisible`).
 *
 * One statement, two ways, and the database picks by what it finds, not by estimates: how many issues a
 * term matches, and where, is not in the statistics (a token on 1 issue in 100 is estimated at 100 rows
 * or at 1% depending on ANALYZE's sample; at 1% the planner walks the order's index, which is right if
 * the matches are spread out and hundreds of milliseconds if they are all older than the newest 90,000).
 * - `walk`: the newest SEARCH_WALK_PER_ROW issues per row the page needs, in the order's index
 *   (`index_issues_on_created_at_and_id`, `…updated_at_and_id`, or the project's), filtered. When they
 *   hold every row up to the end of the page, those are the answer: no issue before them was skipped.
 * - otherwise (the branch's one-time filter is false until then) every match, as the planner finds them
 *   all best (the trigram indexes of migrations 0043 and 0058, a project's index for a small visible set),
 *   then the page's top rows; `OFFSET 0` keeps the planner from walking the order's index unbounded.
 * Same rows in the same order either way. `popularity` has no index to walk and deep pages are not
 * worth a walk: they run the plain statement.
 */
export async function searchIssueIds(
  db: Executor,
  owner: IssueOwner,
  filters: ListParams,
  order: SearchOrder,
  actor: Actor | null,
  page: Page,
  now: Date,
): Promise<{ ids: number[]; hasNext: boolean }> {
  const where = listCondition(owner, filters, actor, now, new Map());
  const dir = sql.raw(order.dir === "asc" ? "ASC" : "DESC");
  const column = order.column === "updated_at" ? issues.updatedAt : order.column === "popularity" ? issues.upvotes : issues.createdAt;
  const need = page.offset + page.limit + 1;
  if (order.column === "popularity" || filters.search === undefined || need > SEARCH_WALK_MAX_ROWS) {
    const rows = await db.select({ id: issues.id }).from(issues).where(where).orderBy(sql`${column} ${dir}`, sql`${issues.id} ${dir}`).limit(page.limit + 1).offset(page.offset);
    return { ids: rows.slice(0, page.limit).map((r) => r.id), hasNext: rows.length > page.limit };
  }
  const orderBy = sql`${column} ${dir}, ${issues.id} ${dir}`;
  // The walked rows are named `issues`, so that `where` (written against the table) filters them.
  const newest = owner.kind === "project" ? sql`WHERE ${issues.projectId} = ${owner.projectId}` : sql``;
  const result = await db.execute<{ id: number }>(sql`WITH walk AS MATERIALIZED (
      SELECT ${issues.id} AS id, ${column} AS k
      FROM (SELECT * FROM ${issues} ${newest} ORDER BY ${orderBy} LIMIT ${need * SEARCH_WALK_PER_ROW}) AS ${issues}
      WHERE ${where} ORDER BY ${orderBy} LIMIT ${need})
    SELECT id FROM (
      SELECT id, k FROM walk WHERE (SELECT count(*) FROM walk) = ${need}
      UNION ALL
      (SELECT id, k FROM (SELECT ${issues.id} AS id, ${column} AS k FROM ${issues} WHERE (SELECT count(*) FROM walk) < ${need} AND ${where} OFFSET 0) AS every
        ORDER BY k ${dir}, id ${dir} LIMIT ${need})
    ) AS found ORDER BY k ${dir}, id ${dir} LIMIT ${page.limit + 1} OFFSET ${page.offset}`);
  const ids = result.rows.map((r) => Number(r.id));
  return { ids: ids.slice(0, page.limit), hasNext: ids.length > page.limit };
}
