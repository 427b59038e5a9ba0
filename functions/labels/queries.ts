import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { labels, type Label } from "../../db/schema";
import type { Namespace } from "../../db/schema";
import type { GroupWithAccess, ProjectWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { fuzzySearch } from "../kernel/fuzzy_search";
import { issueIsVisible } from "../shared/issuables/policy";
import { subscriptionSql } from "../shared/issuables/subscriptions";
import { cappedCount, type Page } from "../kernel/pagination";
import { projectIsVisible } from "../kernel/visibility";
import type { LabelRow } from "./entities";

/**
 * LabelsFinder for a project (app/finders/labels_finder.rb): its own labels and, with
 * `include_ancestor_groups`, the labels of the groups above it.
 */
function availableTo(project: ProjectWithAccess, includeAncestorGroups: boolean): SQL {
  const own = eq(labels.projectId, project.id);
  const groupIds = project.namespace.type === "Group" ? project.namespace.traversalIds : [];
  if (!includeAncestorGroups || groupIds.length === 0) return own;
  return sql`(${own} OR ${labels.groupId} = ANY(${sql.param(groupIds)}::int[]))`;
}

/**
 * `Label#open_issues_count(user)` and friends: what the caller may see, by state. The label's id is
 * nested SQL: in a single-table select Drizzle writes top-level columns of a selection unqualified.
 */
const labelId = sql`${labels.id}`;

function counts(actor: Actor | null) {
  const issueCount = (state: string) => sql<number>`(SELECT count(*)::int FROM label_links ll JOIN issues ON issues.id = ll.target_id
    WHERE ll.label_id = ${labelId} AND ll.target_type = 'Issue' AND issues.state = ${state} AND ${issueIsVisible(actor)})`;
  return {
    openIssues: issueCount("opened"),
    closedIssues: issueCount("closed"),
    openMergeRequests: sql<number>`(SELECT count(*)::int FROM label_links ll JOIN merge_requests mr ON mr.id = ll.target_id
      JOIN projects ON projects.id = mr.project_id
      WHERE ll.label_id = ${labelId} AND ll.target_type = 'MergeRequest' AND mr.state = 'opened'
        AND projects.merge_requests_enabled AND ${projectIsVisible(actor)})`,
  };
}

export type LabelListOptions = { includeAncestorGroups: boolean; search?: string; withCounts: boolean };

/** `GET /projects/:id/labels`: ordered by title (LabelsFinder's default). */
export async function listLabels(
  db: Executor,
  project: ProjectWithAccess,
  opts: LabelListOptions,
  actor: Actor | null,
  page: Page,
): Promise<{ rows: LabelRow[]; total: number }> {
  const where = and(availableTo(project, opts.includeAncestorGroups), fuzzySearch([labels.title, labels.description], opts.search) ?? undefined);
  const c = counts(actor);
  const rows = await db
    .select({
      label: labels,
      openIssues: opts.withCounts ? c.openIssues : sql<number | null>`NULL`,
      closedIssues: opts.withCounts ? c.closedIssues : sql<number | null>`NULL`,
      openMergeRequests: opts.withCounts ? c.openMergeRequests : sql<number | null>`NULL`,
      subscribed: subscriptionSql("Label", labelId, actor?.user.id ?? null, project.id),
    })
    .from(labels)
    .where(where)
    .orderBy(asc(labels.title), asc(labels.id))
    .limit(page.limit)
    .offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(labels).where(where), page);
  return {
    rows: rows.map((r) => ({
      ...r.label,
      counts: opts.withCounts
        ? { openIssues: Number(r.openIssues), closedIssues: Number(r.closedIssues), openMergeRequests: Number(r.openMergeRequests) }
        : null,
      subscribed: r.subscribed === true,
    })),
    total,
  };
}

/**
 * `find_label` (lib/api/helpers/label_helpers.rb): by id among the available labels, else by title
 * (exact, case-sensitive); one statement.
 */
export async function findLabel(
  db: Executor,
  project: ProjectWithAccess,
  idOrTitle: string,
  includeAncestorGroups: boolean,
  actor: Actor | null = null,
): Promise<(Label & { subscribed: boolean }) | null> {
  const byId = /^\d+$/.test(idOrTitle) && Number(idOrTitle) <= 2147483647 ? Number(idOrTitle) : null;
  const rows = await db
    .select({ label: labels, subscribed: subscriptionSql("Label", labelId, actor?.user.id ?? null, project.id) })
    .from(labels)
    .where(and(availableTo(project, includeAncestorGroups), byId === null ? eq(labels.title, idOrTitle) : sql`(${labels.id} = ${byId} OR ${labels.title} = ${idOrTitle})`))
    .orderBy(byId === null ? asc(labels.id) : sql`(${labels.id} = ${byId}) DESC`)
    .limit(1);
  return rows[0] ? { ...rows[0].label, subscribed: rows[0].subscribed === true } : null;
}

/** `available_labels_for(parent).find_by_title(title)`: exact title, ancestor group labels included. */
export async function findLabelByTitle(db: Executor, project: ProjectWithAccess, title: string): Promise<Label | null> {
  const rows = await db
    .select()
    .from(labels)
    .where(and(availableTo(project, true), eq(labels.title, title)))
    .limit(1);
  return rows[0] ?? null;
}

export type LabelValues = { title: string; color: string; description: string | null; priority: number | null };

/** Inserts a project label; null when the project has one with this title already (unique index). */
export async function insertLabel(db: Executor, projectId: number, values: LabelValues): Promise<Label | null> {
  const rows = await db
    .insert(labels)
    .values({ projectId, ...values })
    .onConflictDoNothing()
    .returning();
  return rows[0] ?? null;
}

/** Updates the sent attributes; null when another label of the project has the new title. */
export async function updateLabel(db: Executor, labelId: number, values: Partial<LabelValues>): Promise<Label | null> {
  try {
    const rows = await db
      .update(labels)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(labels.id, labelId))
      .returning();
    return rows[0] ?? null;
  } catch (e) {
    if (uniqueViolation(e)) return null;
    throw e;
  }
}

/** Postgres 23505, also when Drizzle wraps the driver's error in `cause`. */
export function uniqueViolation(e: unknown): boolean {
  for (let err = e as { code?: unknown; cause?: unknown } | undefined; err; err = err.cause as typeof err) {
    if (err.code === "23505") return true;
  }
  return false;
}

/** Label links cascade; resource label events keep their row with a null label (as GitLab). */
export async function deleteLabel(db: Executor, labelId: number): Promise<void> {
  await db.delete(labels).where(eq(labels.id, labelId));
}

// ---------------------------------------------------------------------------------------------
// Group labels (lib/api/group_labels.rb)

export type GroupLabelScope = {
  includeAncestorGroups: boolean;
  includeDescendantGroups: boolean;
  /** False: also the labels of the projects in the groups (those the caller may read). */
  onlyGroupLabels: boolean;
};

/**
 * LabelsFinder with `group_id` (app/finders/labels_finder.rb): the group's labels, its ancestors' and
 * descendants' on request, and with `only_group_labels=false` the labels of projects in the group (and
 * in its descendants when they are included) that the caller may read.
 */
function availableToGroup(group: GroupWithAccess, scope: GroupLabelScope, actor: Actor | null): SQL {
  const groupIds = sql`(SELECT g.id FROM namespaces g WHERE g.id = ${group.id}
    ${scope.includeAncestorGroups ? sql`OR g.id = ANY(${sql.param(group.traversalIds)}::int[])` : sql``}
    ${scope.includeDescendantGroups ? sql`OR g.traversal_ids @> ARRAY[${group.id}]::int[]` : sql``})`;
  const own = sql`${labels.groupId} IN ${groupIds}`;
  if (scope.onlyGroupLabels) return own;
  const projectGroups = scope.includeDescendantGroups
    ? sql`(SELECT g.id FROM namespaces g WHERE g.traversal_ids @> ARRAY[${group.id}]::int[])`
    : sql`(${group.id})`;
  return sql`(${own} OR ${labels.projectId} IN (SELECT projects.id FROM projects WHERE projects.namespace_id IN ${projectGroups}
    AND ${projectIsVisible(actor)}))`;
}

/** `GET /groups/:id/labels`: ordered by title. */
export async function listGroupLabels(
  db: Executor,
  group: GroupWithAccess,
  opts: GroupLabelScope & { search?: string; withCounts: boolean },
  actor: Actor | null,
  page: Page,
): Promise<{ rows: LabelRow[]; total: number }> {
  const where = and(availableToGroup(group, opts, actor), fuzzySearch([labels.title, labels.description], opts.search) ?? undefined);
  const c = counts(actor);
  const rows = await db
    .select({
      label: labels,
      openIssues: opts.withCounts ? c.openIssues : sql<number | null>`NULL`,
      closedIssues: opts.withCounts ? c.closedIssues : sql<number | null>`NULL`,
      openMergeRequests: opts.withCounts ? c.openMergeRequests : sql<number | null>`NULL`,
    })
    .from(labels)
    .where(where)
    .orderBy(asc(labels.title), asc(labels.id))
    .limit(page.limit)
    .offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(labels).where(where), page);
  return {
    rows: rows.map((r) => ({
      ...r.label,
      counts: opts.withCounts
        ? { openIssues: Number(r.openIssues), closedIssues: Number(r.closedIssues), openMergeRequests: Number(r.openMergeRequests) }
        : null,
      subscribed: false,
    })),
    total,
  };
}

/** `find_label` on a group: by id among the available labels, else by exact title; one statement. */
export async function findGroupLabel(db: Executor, group: GroupWithAccess, idOrTitle: string, scope: GroupLabelScope, actor: Actor | null): Promise<Label | null> {
  const byId = /^\d+$/.test(idOrTitle) && Number(idOrTitle) <= 2147483647 ? Number(idOrTitle) : null;
  const rows = await db
    .select()
    .from(labels)
    .where(and(availableToGroup(group, scope, actor), byId === null ? eq(labels.title, idOrTitle) : sql`(${labels.id} = ${byId} OR ${labels.title} = ${idOrTitle})`))
    .orderBy(byId === null ? asc(labels.id) : sql`(${labels.id} = ${byId}) DESC`)
    .limit(1);
  return rows[0] ?? null;
}

/** `available_labels_for(group).find_by_title(title)`: the group's and its ancestors' labels, exact title. */
export async function findGroupLabelByTitle(db: Executor, group: GroupWithAccess, title: string): Promise<Label | null> {
  const scope = { includeAncestorGroups: true, includeDescendantGroups: false, onlyGroupLabels: true };
  const rows = await db.select().from(labels).where(and(availableToGroup(group, scope, null), eq(labels.title, title))).limit(1);
  return rows[0] ?? null;
}

/** Inserts a group label; null when the group has one with this title already (unique index). */
export async function insertGroupLabel(db: Executor, groupId: number, values: Omit<LabelValues, "priority">): Promise<Label | null> {
  const rows = await db
    .insert(labels)
    .values({ groupId, ...values })
    .onConflictDoNothing()
    .returning();
  return rows[0] ?? null;
}

/**
 * Labels::PromoteService in one transaction: the group label of that title (found or made from the
 * project label), then every label of that title in the group's own projects merged into it — label
 * links (an issuable linked to both keeps one link), label events — and the project labels deleted.
 */
export async function promoteLabel(db: Executor, label: Label, group: Pick<Namespace, "id">): Promise<Label> {
  const found = await db.select().from(labels).where(and(eq(labels.groupId, group.id), eq(labels.title, label.title))).limit(1);
  const groupLabel =
    found[0] ??
    (await db.insert(labels).values({ groupId: group.id, title: label.title, color: label.color, description: label.description }).returning())[0];
  const merged = sql`(SELECT l.id FROM labels l JOIN projects p ON p.id = l.project_id WHERE p.namespace_id = ${group.id} AND l.title = ${label.title})`;
  await db.execute(sql`DELETE FROM label_links ll WHERE ll.label_id IN ${merged}
    AND EXISTS (SELECT 1 FROM label_links o WHERE o.target_type = ll.target_type AND o.target_id = ll.target_id AND o.label_id = ${groupLabel.id})`);
  await db.execute(sql`DELETE FROM label_links ll WHERE ll.label_id IN ${merged}
    AND ll.id <> (SELECT min(o.id) FROM label_links o WHERE o.target_type = ll.target_type AND o.target_id = ll.target_id AND o.label_id IN ${merged})`);
  await db.execute(sql`UPDATE label_links SET label_id = ${groupLabel.id} WHERE label_id IN ${merged}`);
  await db.execute(sql`UPDATE resource_label_events SET label_id = ${groupLabel.id} WHERE label_id IN ${merged}`);
  await db.execute(sql`DELETE FROM labels WHERE id IN ${merged}`);
  return groupLabel;
}
