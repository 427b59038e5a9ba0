import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { labels, type Label } from "../../db/schema";
import type { Namespace } from "../../db/schema";
import type { GroupWithAccess, ProjectWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import { isUniqueViolation } from "../kernel/errors";
import type { Actor } from "../kernel/env";
import { fuzzySearch } from "../kernel/fuzzy_search";
import { issueIsVisible } from "../shared/issuables/policy";
import { subscriptionSql } from "../shared/issuables/subscriptions";
import { cappedCount, type Page } from "../kernel/pagination";
import { projectIsVisible } from "../kernel/visibility";
import type { LabelRow } from "../entities/labels";
import { pathRowId } from "../kernel/params";

/**
 * Who a label is read through: a project (lib/api/labels.rb) or a group (lib/api/group_labels.rb), with
 * the LabelsFinder options each takes. The statements below take it, so the two APIs share one
 * implementation.
 */
export type LabelOwner =
  | { kind: "project"; project: ProjectWithAccess; includeAncestorGroups: boolean }
  | { kind: "group"; group: GroupWithAccess; scope: GroupLabelScope };

export type GroupLabelScope = {
  includeAncestorGroups: boolean;
  includeDescendantGroups: boolean;
  /** False: also the labels of the projects in the groups (those the caller may read). */
  onlyGroupLabels: boolean;
};

/**
 * LabelsFinder for a project (app/finders/labels_finder.rb): its own labels and, with
 * `include_ancestor_groups`, the labels of the groups above it.
 */
function availableToProject(project: ProjectWithAccess, includeAncestorGroups: boolean): SQL {
  const own = eq(labels.projectId, project.id);
  const groupIds = project.namespace.type === "Group" ? project.namespace.traversalIds : [];
  if (!includeAncestorGroups || groupIds.length === 0) return own;
  return sql`(${own} OR ${labels.groupId} = ANY(${sql.param(groupIds)}::int[]))`;
}

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

function availableTo(owner: LabelOwner, actor: Actor | null): SQL {
  return owner.kind === "project" ? availableToProject(owner.project, owner.includeAncestorGroups) : availableToGroup(owner.group, owner.scope, actor);
}

/**
 * The caller's subscription to a label, from `subscriptions` rows (Subscribable#subscribed?: the row's
 * `subscribed`, no row false for labels). `here` is the level subscribe/unsubscribe write and check
 * (lib/api/subscriptions.rb: the project for a project's labels, no project for a group's); `shown` is
 * Entities::Label#subscribed: the group level (`subscribed?(user)`), or the project's row for a project.
 */
function subscription(owner: LabelOwner, actor: Actor | null) {
  const user = actor?.user.id ?? null;
  const groupLevel = subscriptionSql("Label", labelId, user, null);
  if (owner.kind === "group") return { here: groupLevel, shown: groupLevel };
  const atProject = subscriptionSql("Label", labelId, user, owner.project.id);
  if (user === null) return { here: atProject, shown: atProject };
  return { here: atProject, shown: sql<boolean | null>`(COALESCE(${groupLevel}, false) OR COALESCE(${atProject}, false))` };
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

export type LabelListOptions = { search?: string; withCounts: boolean };

/** `GET /projects/:id/labels`, `GET /groups/:id/labels`: ordered by title (LabelsFinder's default). */
export async function listLabels(
  db: Executor,
  owner: LabelOwner,
  opts: LabelListOptions,
  actor: Actor | null,
  page: Page,
): Promise<{ rows: LabelRow[]; total: number }> {
  const where = and(availableTo(owner, actor), fuzzySearch([labels.title, labels.description], opts.search) ?? undefined);
  const c = counts(actor);
  const rows = await db
    .select({
      label: labels,
      openIssues: opts.withCounts ? c.openIssues : sql<number | null>`NULL`,
      closedIssues: opts.withCounts ? c.closedIssues : sql<number | null>`NULL`,
      openMergeRequests: opts.withCounts ? c.openMergeRequests : sql<number | null>`NULL`,
      subscribed: subscription(owner, actor).shown,
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
  owner: LabelOwner,
  idOrTitle: string,
  actor: Actor | null = null,
): Promise<(Label & { subscribed: boolean; subscribedHere: boolean }) | null> {
  const byId = pathRowId(idOrTitle);
  const s = subscription(owner, actor);
  const rows = await db
    .select({ label: labels, subscribed: s.shown, here: s.here })
    .from(labels)
    .where(and(availableTo(owner, actor), byId === null ? eq(labels.title, idOrTitle) : sql`(${labels.id} = ${byId} OR ${labels.title} = ${idOrTitle})`))
    .orderBy(byId === null ? asc(labels.id) : sql`(${labels.id} = ${byId}) DESC`)
    .limit(1);
  const row = rows[0];
  return row ? { ...row.label, subscribed: row.subscribed === true, subscribedHere: row.here === true } : null;
}

/**
 * `available_labels_for(parent).find_by_title(title)`: exact title among the project's labels and its
 * groups', or the group's and its ancestors' (group labels only).
 */
export async function findLabelByTitle(db: Executor, parent: { project: ProjectWithAccess } | { group: GroupWithAccess }, title: string): Promise<Label | null> {
  const available =
    "project" in parent
      ? availableToProject(parent.project, true)
      : availableToGroup(parent.group, { includeAncestorGroups: true, includeDescendantGroups: false, onlyGroupLabels: true }, null);
  const rows = await db
    .select()
    .from(labels)
    .where(and(available, eq(labels.title, title)))
    .limit(1);
  return rows[0] ?? null;
}

export type LabelValues = { title: string; color: string; description: string | null; priority: number | null };

/**
 * Inserts a project or group label; null when the owner has one with this title already (unique index).
 * Only project labels keep a priority (`label_create_params` declares it for both).
 */
export async function insertLabel(db: Executor, owner: { projectId: number } | { groupId: number }, values: LabelValues): Promise<Label | null> {
  const row = "projectId" in owner ? { projectId: owner.projectId, ...values } : { groupId: owner.groupId, ...values, priority: null };
  const rows = await db.insert(labels).values(row).onConflictDoNothing().returning();
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
    if (isUniqueViolation(e)) return null;
    throw e;
  }
}

/** Label links cascade; resource label events keep their row with a null label (as GitLab). */
export async function deleteLabel(db: Executor, labelId: number): Promise<void> {
  await db.delete(labels).where(eq(labels.id, labelId));
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
