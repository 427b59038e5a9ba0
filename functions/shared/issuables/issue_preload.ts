import { and, eq, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { epics, issues, namespaces, projects, type Issue } from "../../../db/schema";
import { subscriptionSql } from "./subscriptions";
import { preparedQuery, type Executor } from "../../kernel/db";
import type { Actor } from "../../kernel/env";
import { actorPlaceholders, actorShape, groupAccessLevel, groupIsVisibleForShape, projectIsVisibleForShape, userIdPlaceholder, type ActorShape } from "../../kernel/visibility";
import { isRowId } from "../../kernel/params";
import type { IssueLabel, IssueRow, IssueUser } from "../../entities/issues";
import type { IssueMilestone } from "../../entities/milestones";
import type { IterationRow } from "../../entities/iterations";
import type { IssueEpic } from "../../entities/epic_base";
import { inheritedDates } from "./epic_preload";

export type { IssueLabel, IssueMilestone, IssueRow, IssueUser };

/**
 * Everything the issue entities (functions/entities/issues.ts) need, loaded in ONE statement for any
 * number of issues: the row, its project's paths, author, closer, assignees, labels, milestone and the
 * two counts GitLab computes per request. Domains that present issues (issue links, to-dos, notes,
 * milestones) select the ids they need, then call `loadIssueRows`; they never query relations themselves.
 */

/** SQL for user `alias` as the JSON object `IssueUser` (UserBasic's columns). */
export const userJson = (alias: string) =>
  sql.raw(`json_build_object('id', ${alias}.id, 'username', ${alias}.username, 'name', ${alias}.name,
    'state', ${alias}.state, 'avatarUrl', ${alias}.avatar_url, 'email', ${alias}.email)`);

/**
 * SQL for iteration `alias` as the JSON object `IterationRow` (issues and board lists embed it): the
 * state from its dates against today, the sequence by start date inside its group.
 */
export function iterationJson(alias: string): SQL {
  const i = sql.raw(alias);
  return sql`json_build_object('id', ${i}.id, 'iid', ${i}.iid, 'groupId', ${i}.group_id, 'title', ${i}.title,
    'description', ${i}.description, 'createdAt', ${i}.created_at, 'updatedAt', ${i}.updated_at,
    'startDate', ${i}.start_date::text, 'dueDate', ${i}.due_date::text,
    'groupPath', (SELECT ig.full_path FROM namespaces ig WHERE ig.id = ${i}.group_id),
    'state', CASE WHEN ${i}.start_date > current_date THEN 1 WHEN ${i}.due_date >= current_date THEN 2 ELSE 3 END,
    'sequence', (SELECT count(*) FROM iterations s WHERE s.group_id = ${i}.group_id AND (s.start_date, s.id) <= (${i}.start_date, ${i}.id)))`;
}

/**
 * SQL for milestone `alias` as the JSON object `IssueMilestone` (milestones and issues present it the
 * same way), with its web path (Gitlab::UrlBuilder: the project or group milestone page).
 */
export function milestoneJson(alias: string): SQL {
  const m = alias;
  return sql.raw(`json_build_object('id', ${m}.id, 'iid', ${m}.iid, 'projectId', ${m}.project_id, 'groupId', ${m}.group_id,
    'title', ${m}.title, 'description', ${m}.description, 'state', ${m}.state, 'dueDate', ${m}.due_date,
    'startDate', ${m}.start_date, 'createdAt', ${m}.created_at, 'updatedAt', ${m}.updated_at,
    'webPath', CASE WHEN ${m}.project_id IS NOT NULL
      THEN (SELECT wp.full_path FROM projects wp WHERE wp.id = ${m}.project_id) || '/-/milestones/' || ${m}.iid
      ELSE 'groups/' || (SELECT wg.full_path FROM namespaces wg WHERE wg.id = ${m}.group_id) || '/-/milestones/' || ${m}.iid END)`);
}

/** The group of an issue's epic, named apart from the issue's own namespace. */
// (Its FROM item is written out, `namespaces eg`: Drizzle writes an alias as its bare name.)
const epicGroup = alias(namespaces, "eg") as unknown as typeof namespaces;

/** EpicPolicy `read_epic` on the issue's epic: its group readable; a confidential epic for reporters. */
function epicReadable(shape: ActorShape): SQL {
  if (shape === "admin") return sql`true`;
  if (shape === "anonymous") return sql`(${epicGroup.visibilityLevel} = 20 AND NOT ${epics.confidential})`;
  return sql`(${groupIsVisibleForShape(shape, epicGroup)} AND (NOT ${epics.confidential} OR ${groupAccessLevel(userIdPlaceholder, epicGroup)} >= 20))`;
}

/**
 * The issue's epic (epic_issues) as `IssueEpic`, when readable, with Epic#start_date / #end_date: the
 * fixed dates, else those inherited from milestones and child epics (epic_preload.ts `inheritedDates`,
 * which reads the epic as `epics`).
 */
function issueEpicJson(shape: ActorShape): SQL<IssueEpic | null> {
  return sql<IssueEpic | null>`(SELECT json_build_object('id', ${epics.id}, 'iid', ${epics.iid}, 'title', ${epics.title},
      'groupId', ${epics.groupId}, 'groupFullPath', ${epicGroup.fullPath},
      'startDate', CASE WHEN ${epics.startDateIsFixed} THEN ${epics.startDate}::text ELSE dates.d[2] END,
      'endDate', CASE WHEN ${epics.dueDateIsFixed} THEN ${epics.dueDate}::text ELSE dates.d[4] END)
    FROM epic_issues ei JOIN ${epics} ON ${epics.id} = ei.epic_id JOIN namespaces eg ON eg.id = ${epics.groupId}
      CROSS JOIN LATERAL (SELECT ${inheritedDates} AS d) dates
    WHERE ei.issue_id = ${issues.id} AND ${epicReadable(shape)})`;
}

/** The project of a closing merge request, named so that the visibility SQL can address it. */
const mrProject = alias(projects, "mp");

/** The selection for one issue row with its relations (used by `loadIssueRows` and `loadProjectIssue`). */
function selection(shape: ActorShape) {
  return {
    issue: issues,
    project: {
      id: projects.id,
      path: projects.path,
      fullPath: projects.fullPath,
      namespaceId: projects.namespaceId,
      namespaceType: namespaces.type,
    },
    author: sql<IssueUser | null>`(SELECT ${userJson("u")} FROM users u WHERE u.id = ${issues.authorId})`,
    closedBy: sql<IssueUser | null>`(SELECT ${userJson("u")} FROM users u WHERE u.id = ${issues.closedById})`,
    assignees: sql<IssueUser[]>`COALESCE((SELECT json_agg(${userJson("u")} ORDER BY u.id)
      FROM issue_assignees ia JOIN users u ON u.id = ia.user_id WHERE ia.issue_id = ${issues.id}), '[]'::json)`,
    labels: sql<IssueLabel[]>`COALESCE((SELECT json_agg(json_build_object('id', l.id, 'title', l.title, 'color', l.color,
        'description', l.description, 'projectId', l.project_id, 'groupId', l.group_id, 'priority', l.priority) ORDER BY l.title, l.id)
      FROM label_links ll JOIN labels l ON l.id = ll.label_id
      WHERE ll.target_type = 'Issue' AND ll.target_id = ${issues.id}), '[]'::json)`,
    milestone: sql<IssueMilestone | null>`(SELECT ${milestoneJson("m")}
      FROM milestones m WHERE m.id = ${issues.milestoneId})`,
    // The issue's iteration as the iterations domain reads it (state from the dates, sequence by start date).
    iteration: sql<IterationRow | null>`(SELECT ${iterationJson("i")} FROM iterations i WHERE i.id = ${issues.iterationId})`,
    mergeRequestsCount: sql<number>`(SELECT count(*)::int FROM merge_requests_closing_issues c
      JOIN merge_requests mr ON mr.id = c.merge_request_id
      JOIN projects mp ON mp.id = mr.project_id
      WHERE c.issue_id = ${issues.id} AND mp.merge_requests_enabled AND ${projectIsVisibleForShape(shape, mrProject as unknown as typeof projects)})`,
    blockingIssuesCount: sql<number>`(SELECT count(*)::int FROM issue_links il JOIN issues t ON t.id = il.target_id
      WHERE il.source_id = ${issues.id} AND il.link_type = 'blocks' AND t.state = 'opened')`,
    actorCommented:
      shape === "anonymous"
        ? sql<boolean>`false`
        : sql<boolean>`EXISTS (SELECT 1 FROM notes n WHERE n.noteable_type = 'Issue' AND n.noteable_id = ${issues.id}
            AND n.author_id = ${sql.placeholder("userId")}::int AND NOT n.system)`,
    actorSubscription: subscriptionSql("Issue", sql`${issues.id}`, shape === "anonymous" ? null : sql`${sql.placeholder("userId")}::int`, sql`${issues.projectId}`),
    epic: issueEpicJson(shape),
  };
}

type Selected = { issue: Issue } & Omit<IssueRow, keyof Issue>;

function toRow(r: Selected): IssueRow {
  return {
    ...r.issue,
    project: r.project,
    author: r.author,
    closedBy: r.closedBy,
    assignees: r.assignees ?? [],
    labels: r.labels ?? [],
    milestone: r.milestone,
    iteration: r.iteration ?? null,
    mergeRequestsCount: Number(r.mergeRequestsCount),
    blockingIssuesCount: Number(r.blockingIssuesCount),
    actorCommented: !!r.actorCommented,
    actorSubscription: r.actorSubscription ?? null,
    epic: r.epic ? { ...r.epic, id: Number(r.epic.id), iid: Number(r.epic.iid), groupId: Number(r.epic.groupId) } : null,
  };
}

function base(db: Executor, shape: ActorShape) {
  return db
    .select(selection(shape))
    .from(issues)
    .innerJoin(projects, eq(projects.id, issues.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId));
}

/**
 * The two loaders every issue page and issue read runs, prepared once per actor shape (kernel/db.ts
 * `preparedQuery`): their SQL, with its subqueries, cost more CPU to write than the database spends on it.
 */
function preparedRowsByIds(shape: ActorShape) {
  return preparedQuery((db) => base(db, shape).where(sql`${issues.id} = ANY(${sql.placeholder("ids")}::int[])`));
}
function preparedRowByProjectIid(shape: ActorShape) {
  return preparedQuery((db) =>
    base(db, shape)
      .where(and(eq(issues.projectId, sql`${sql.placeholder("projectId")}::int`), eq(issues.iid, sql`${sql.placeholder("iid")}::int`)))
      .limit(1),
  );
}
const rowsByIds = { anonymous: preparedRowsByIds("anonymous"), admin: preparedRowsByIds("admin"), user: preparedRowsByIds("user") };
const rowByProjectIid = {
  anonymous: preparedRowByProjectIid("anonymous"),
  admin: preparedRowByProjectIid("admin"),
  user: preparedRowByProjectIid("user"),
};

/**
 * The issues with these ids, in the order of `ids` (one statement). Visibility is the caller's
 * business: select readable ids first (shared/issuables/policy.ts `issueIsVisible`, `canReadIssue`).
 */
export async function loadIssueRows(db: Executor, ids: number[], actor: Actor | null): Promise<IssueRow[]> {
  if (ids.length === 0) return [];
  const rows = await rowsByIds[actorShape(actor)](db, { ids, ...actorPlaceholders(actor) });
  const byId = new Map(rows.map((r) => [r.issue.id, toRow(r as Selected)]));
  return ids.map((id) => byId.get(id)).filter((r): r is IssueRow => !!r);
}

/** One issue of a project by iid, with its relations (one statement); null when missing. */
export async function loadProjectIssue(db: Executor, projectId: number, iid: number, actor: Actor | null): Promise<IssueRow | null> {
  if (!isRowId(iid)) return null;
  const rows = await rowByProjectIid[actorShape(actor)](db, { projectId, iid, ...actorPlaceholders(actor) });
  return rows[0] ? toRow(rows[0] as Selected) : null;
}

/** Same, by any condition on `issues` (e.g. the global id of `GET /issues/:id`). */
export async function loadIssueWhere(db: Executor, where: SQL, actor: Actor | null): Promise<IssueRow | null> {
  const rows = await base(db, actorShape(actor)).where(where).limit(1).execute(actorPlaceholders(actor));
  return rows[0] ? toRow(rows[0] as Selected) : null;
}

/** One issue by its global id, as `actor` sees it (null when missing). */
export function loadIssueById(db: Executor, id: number, actor: Actor | null): Promise<IssueRow | null> {
  return loadIssueWhere(db, sql`issues.id = ${id}`, actor);
}
