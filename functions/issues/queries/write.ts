import { eq, sql, type SQL } from "drizzle-orm";
import { issues } from "../../../db/schema";
import type { ProjectWithAccess } from "../../kernel/abilities";
import type { Executor } from "../../kernel/db";
import { projectAccessLevel } from "../../kernel/visibility";
import { nextIidSql } from "../../shared/issuables/iids";
import { labelEventsCte, milestoneEventsCte, stateEventsCte } from "../../shared/issuables/resource_events";
import { systemNotesCte } from "../../shared/issuables/system_notes";
import { deleteTargetTodosSql, resolveTodosSql, todosCte } from "../../shared/issuables/todos";

/**
 * The writes of issues, each ONE statement (data-modifying CTEs: atomic like a transaction, without
 * BEGIN/COMMIT round trips): the issue row and everything GitLab's Issues::CreateService,
 * UpdateService and Issuable::DestroyService write with it — labels found or created, label links,
 * assignees, resource label/milestone/state events, system notes, to-dos, the user agent detail and
 * the project's open issue counter.
 */

/** A user named by a write (assignee or mention), with what the read rules need. */
export type ContextUser = { id: number; username: string; admin: boolean; external: boolean; access: number };

export type WriteContext = {
  users: ContextUser[];
  /** The milestone asked for, when it belongs to the project or one of its groups. */
  milestoneId: number | null;
  /** The iteration asked for, when it belongs to one of the project's groups. */
  iterationId: number | null;
  /** Available labels (the project's and its groups') among the titles asked for. */
  labels: { id: number; title: string; projectId: number | null }[];
};

/** What a write asks loadWriteContext for. */
export type WriteContextAsk = { userIds: number[]; usernames: string[]; milestoneId: number | null; iterationId?: number | null; labelTitles: string[] };

/**
 * What a write needs to decide, in one statement: the users it names (by id or username; active only),
 * whether the milestone is available (`Milestone.for_projects_and_groups(project, group ancestors)`),
 * and the available labels with the given titles.
 */
export async function loadWriteContext(db: Executor, project: ProjectWithAccess, ask: WriteContextAsk): Promise<WriteContext> {
  const groupIds = project.namespace.type === "Group" ? project.namespace.traversalIds : [];
  const result = await db.execute<{ users: ContextUser[] | null; milestone_id: number | null; iteration_id: number | null; labels: WriteContext["labels"] | null }>(sql`
    SELECT
      (SELECT json_agg(json_build_object('id', u.id, 'username', u.username, 'admin', u.admin, 'external', u.external,
          'access', ${projectAccessLevel(sql`u.id`)}))
        FROM users u WHERE u.state = 'active'
          AND (u.id = ANY(${sql.param(ask.userIds)}::bigint[]) OR lower(u.username) = ANY(${sql.param(ask.usernames.map((n) => n.toLowerCase()))}::text[]))) AS users,
      (SELECT m.id FROM milestones m WHERE m.id = ${ask.milestoneId}::bigint
        AND (m.project_id = projects.id OR m.group_id = ANY(${sql.param(groupIds)}::int[]))) AS milestone_id,
      (SELECT i.id FROM iterations i WHERE i.id = ${ask.iterationId ?? null}::bigint
        AND i.group_id = ANY(${sql.param(groupIds)}::int[])) AS iteration_id,
      (SELECT json_agg(json_build_object('id', l.id, 'title', l.title, 'projectId', l.project_id) ORDER BY l.project_id NULLS LAST, l.id)
        FROM labels l WHERE (l.project_id = projects.id OR l.group_id = ANY(${sql.param(groupIds)}::int[]))
          AND l.title = ANY(${sql.param(ask.labelTitles)}::text[])) AS labels
    FROM projects JOIN namespaces ON namespaces.id = projects.namespace_id WHERE projects.id = ${project.id}`);
  const row = result.rows[0];
  return {
    users: (row?.users ?? []).map((u) => ({ ...u, access: Number(u.access) })),
    milestoneId: row?.milestone_id === null || row?.milestone_id === undefined ? null : Number(row.milestone_id),
    iterationId: row?.iteration_id === null || row?.iteration_id === undefined ? null : Number(row.iteration_id),
    labels: row?.labels ?? [],
  };
}

/** Side effects of a write, decided by services.ts. */
export type IssueEffects = {
  /** Titles of project labels to create (default colour) and apply. */
  createLabels: string[];
  addLabelIds: number[];
  removeLabelIds: number[];
  addAssigneeIds: number[];
  removeAssigneeIds: number[];
  milestoneEvent: { action: "add" | "remove"; milestoneId: number } | null;
  stateEvent: "closed" | "reopened" | null;
  /** System note bodies, in creation order. */
  notes: string[];
  /** To-dos to create (`action` is Todo's number), skipping users with a pending one on the issue. */
  todos: { userId: number; action: number }[];
  /** TodoService#resolve_todos_for_target: the actor's pending to-dos on the issue are done. */
  resolveActorTodos: boolean;
  /** Change of the project's open issues (+1 created or reopened, -1 closed). */
  openIssuesDelta: number;
  userAgent: { userAgent: string; ipAddress: string } | null;
};

export const noEffects = (): IssueEffects => ({
  createLabels: [],
  addLabelIds: [],
  removeLabelIds: [],
  addAssigneeIds: [],
  removeAssigneeIds: [],
  milestoneEvent: null,
  stateEvent: null,
  notes: [],
  todos: [],
  resolveActorTodos: false,
  openIssuesDelta: 0,
  userAgent: null,
});

/** Label#color default (app/models/label.rb). */
const DEFAULT_LABEL_COLOR = "#6699cc";

const ints = (list: number[]) => sql`${sql.param(list)}::int[]`;

/**
 * The CTEs of the side effects of a write on issue `issue` (a CTE named so with an `id` column).
 * Data-modifying CTEs run to completion whether or not the final SELECT reads them; each sees the
 * database as it was before the statement (hence `all_added`, built from the new labels' RETURNING).
 */
function effectCtes(e: IssueEffects, ctx: { projectId: number; actorId: number; now: Date; issueState: SQL }): SQL[] {
  const projectId = sql`${ctx.projectId}::int`;
  const now = sql`${ctx.now}::timestamptz`;
  const ctes: SQL[] = [];
  ctes.push(sql`new_labels AS (INSERT INTO labels (project_id, title, color, created_at, updated_at)
    SELECT ${projectId}, t, ${DEFAULT_LABEL_COLOR}::text, ${now}, ${now} FROM unnest(${sql.param(e.createLabels)}::text[]) t
    ON CONFLICT DO NOTHING RETURNING id)`);
  ctes.push(sql`all_added AS (SELECT unnest(${ints(e.addLabelIds)}) AS id UNION SELECT id FROM new_labels)`);
  ctes.push(sql`unlinked AS (DELETE FROM label_links WHERE target_type = 'Issue' AND target_id = (SELECT id FROM issue)
    AND label_id = ANY(${ints(e.removeLabelIds)}))`);
  ctes.push(sql`linked AS (INSERT INTO label_links (label_id, target_type, target_id, created_at)
    SELECT a.id, 'Issue', issue.id, ${now} FROM all_added a, issue ON CONFLICT DO NOTHING)`);
  ctes.push(
    labelEventsCte(
      "label_events",
      "Issue",
      sql`SELECT 'add', issue.id, a.id FROM all_added a, issue UNION ALL SELECT 'remove', issue.id, r FROM unnest(${ints(e.removeLabelIds)}) r, issue`,
      ctx.actorId,
      now,
    ),
  );
  ctes.push(sql`unassigned AS (DELETE FROM issue_assignees WHERE issue_id = (SELECT id FROM issue)
    AND user_id = ANY(${ints(e.removeAssigneeIds)}))`);
  ctes.push(sql`assigned AS (INSERT INTO issue_assignees (issue_id, user_id)
    SELECT issue.id, u FROM issue, unnest(${ints(e.addAssigneeIds)}) u ON CONFLICT DO NOTHING)`);
  if (e.milestoneEvent)
    ctes.push(
      milestoneEventsCte(
        "milestone_event",
        "Issue",
        sql`SELECT ${e.milestoneEvent.action}::text, issue.id, ${e.milestoneEvent.milestoneId}::int, ${ctx.issueState} FROM issue`,
        ctx.actorId,
        now,
      ),
    );
  if (e.stateEvent) ctes.push(stateEventsCte("state_event", "Issue", sql`SELECT ${e.stateEvent}::text, issue.id FROM issue`, ctx.actorId, now));
  if (e.notes.length)
    ctes.push(
      systemNotesCte(
        "system_notes",
        e.notes.map((body) => ({ noteableType: "Issue" as const, noteableId: sql`issue.id`, projectId: ctx.projectId, body })),
        { authorId: ctx.actorId, from: sql`issue`, at: now },
      ),
    );
  if (e.resolveActorTodos)
    ctes.push(sql`resolved_todos AS (${resolveTodosSql(ctx.actorId, "Issue", sql`(SELECT id FROM issue)`, { at: now })})`);
  if (e.todos.length)
    ctes.push(
      todosCte("new_todos", {
        from: sql`issue, unnest(${ints(e.todos.map((t) => t.userId))}, ${ints(e.todos.map((t) => t.action))}) AS t(user_id, action)`,
        userId: sql`t.user_id`,
        action: sql`t.action`,
        targetType: "Issue",
        targetId: sql`issue.id`,
        projectId: ctx.projectId,
        authorId: ctx.actorId,
        at: now,
        // The actor's own were just resolved (above), which this statement's snapshot does not see.
        skipPending: e.resolveActorTodos ? { except: ctx.actorId } : {},
      }),
    );
  if (e.userAgent)
    ctes.push(sql`agent AS (INSERT INTO user_agent_details (subject_type, subject_id, user_agent, ip_address, created_at)
      SELECT 'Issue', issue.id, ${e.userAgent.userAgent}::text, ${e.userAgent.ipAddress}::text, ${now} FROM issue)`);
  if (e.openIssuesDelta !== 0)
    ctes.push(sql`counter AS (UPDATE projects SET open_issues_count = GREATEST(open_issues_count + ${e.openIssuesDelta}::int, 0) WHERE id = ${projectId})`);
  return ctes;
}

export type NewIssue = {
  projectId: number;
  /** Owners and admins may choose the iid (`set_issue_iid`); else the next one of the project. */
  iid: number | null;
  title: string;
  description: string | null;
  confidential: boolean;
  authorId: number;
  milestoneId: number | null;
  iterationId?: number | null;
  dueDate: string | null;
  weight: number | null;
  issueType: string;
  discussionLocked: boolean | null;
  createdAt: Date;
  updatedAt: Date;
  /** Issue move and clone (Issuable::Clone): what the copy keeps of the original. */
  copied?: {
    state: string;
    closedAt: Date | null;
    closedById: number | null;
    relativePosition: number | null;
    timeEstimate: number;
    healthStatus: string | null;
  };
};

/**
 * Creates the issue with its effects; returns its id. A taken iid is a unique violation (the caller
 * answers `409 Duplicated issue`). A chosen iid moves the project's counter past it
 * (AtomicInternalId#track_value), so later iids continue after it.
 */
export async function insertIssue(db: Executor, v: NewIssue, e: IssueEffects, now: Date): Promise<number> {
  const insert = db
    .insert(issues)
    .values({
      iid: sql`COALESCE(${v.iid}::int, (SELECT last_value FROM next))`,
      projectId: v.projectId,
      title: v.title,
      description: v.description,
      confidential: v.confidential,
      authorId: v.authorId,
      milestoneId: v.milestoneId,
      iterationId: v.iterationId ?? null,
      dueDate: v.dueDate,
      weight: v.weight,
      issueType: v.issueType,
      discussionLocked: v.discussionLocked,
      createdAt: v.createdAt,
      updatedAt: v.updatedAt,
      ...(v.copied ?? {}),
    })
    .returning({ id: issues.id });
  const ctes = [
    sql`next AS (${nextIidSql("issues", { projectId: v.projectId }, { given: v.iid ?? null })})`,
    sql`issue AS ${insert}`,
    ...effectCtes(e, { projectId: v.projectId, actorId: v.authorId, now, issueState: sql`'opened'` }),
  ];
  const result = await db.execute<{ id: number }>(sql`WITH ${sql.join(ctes, sql`, `)} SELECT id FROM issue`);
  return Number(result.rows[0].id);
}

/** The columns an update may set (only the keys present change). */
export type IssueChanges = Partial<{
  title: string;
  description: string | null;
  confidential: boolean;
  discussionLocked: boolean | null;
  dueDate: string | null;
  weight: number | null;
  issueType: string;
  milestoneId: number | null;
  iterationId: number | null;
  state: "opened" | "closed";
  closedAt: Date | null;
  closedById: number | null;
  /** Issues::MoveService#mark_as_moved. */
  movedToId: number;
  relativePosition: number | null;
  updatedAt: Date;
}>;

/** Updates the issue and writes the effects, in one statement. */
export async function updateIssue(
  db: Executor,
  issue: { id: number; projectId: number; state: string },
  changes: IssueChanges,
  e: IssueEffects,
  actorId: number,
  now: Date,
): Promise<void> {
  const update = db.update(issues).set(changes).where(eq(issues.id, issue.id)).returning({ id: issues.id, state: issues.state });
  const ctes = [sql`issue AS ${update}`, ...effectCtes(e, { projectId: issue.projectId, actorId, now, issueState: sql`issue.state` })];
  await db.execute(sql`WITH ${sql.join(ctes, sql`, `)} SELECT id FROM issue`);
}

/**
 * Issuable::DestroyService: the issue (assignees, events, links, timelogs cascade) and its polymorphic
 * rows (label links, notes with their award emoji, award emoji, to-dos, the user agent detail), and
 * the open issue counter; one statement.
 */
export async function deleteIssue(db: Executor, issue: { id: number; projectId: number; state: string }): Promise<void> {
  const id = issue.id;
  await db.execute(sql`
    WITH issue_notes AS (DELETE FROM notes WHERE noteable_type = 'Issue' AND noteable_id = ${id} RETURNING id),
    note_awards AS (DELETE FROM award_emoji WHERE awardable_type = 'Note' AND awardable_id IN (SELECT id FROM issue_notes)),
    awards AS (DELETE FROM award_emoji WHERE awardable_type = 'Issue' AND awardable_id = ${id}),
    links AS (DELETE FROM label_links WHERE target_type = 'Issue' AND target_id = ${id}),
    issue_todos AS (${deleteTargetTodosSql("Issue", id)}),
    agent AS (DELETE FROM user_agent_details WHERE subject_type = 'Issue' AND subject_id = ${id}),
    counter AS (UPDATE projects SET open_issues_count = GREATEST(open_issues_count - 1, 0)
      WHERE id = ${issue.projectId} AND ${issue.state === "opened"})
    DELETE FROM issues WHERE id = ${id}`);
}
