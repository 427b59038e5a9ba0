import * as z from "zod";
import type { Issue as IssueModel, Label as LabelModel, User } from "../../db/schema";
import { epicBase, type IssueEpic } from "./epic_base";
import { mentionedUsernames } from "./mentions";
import { isoDate, isoTime, webUrl, type PresentContext } from "../kernel/present";
import { LabelBasic, labelBasic } from "./labels";
import { Milestone, milestone, type IssueMilestone, type MilestoneRow } from "./milestones";
import { Iteration, iteration, type IterationRow } from "./iterations";
import { IssuableTimeStats, timeStats } from "./time_tracking";
import { UserBasic, userBasic } from "./users";

/**
 * The issue entities of lib/api/entities/issue_basic.rb and issue.rb with their EE prepends. Rows come
 * from shared/issuables/issue_preload.ts (`loadIssueRows`): other domains that embed issues (issue links, to-dos)
 * load rows there and present them with `issue` (or `issueBasic`) from this file; the row types are here.
 */

/** The user columns `userBasic` reads (functions/entities/users.ts `UserBasicRow`). */
export type IssueUser = Pick<User, "id" | "username" | "name" | "state" | "avatarUrl" | "email">;
/** A label as the issue entities show it (LabelBasic). */
export type IssueLabel = Pick<LabelModel, "id" | "title" | "color" | "description" | "projectId" | "groupId" | "priority">;

/** An issue with everything its entities show, as `loadIssueRows` loads it. */
export type IssueRow = IssueModel & {
  project: { id: number; path: string; fullPath: string; namespaceId: number; namespaceType: string };
  author: IssueUser | null;
  closedBy: IssueUser | null;
  /** Ordered by user id (issue_assignees has no position). */
  assignees: IssueUser[];
  /** Ordered by title, as GitLab sorts them in the entity. */
  labels: IssueLabel[];
  milestone: IssueMilestone | null;
  /** EE: the issue's iteration (only group iterations exist). */
  iteration: IterationRow | null;
  /** Merge requests closing the issue, in projects the caller may read (`issuable_metadata`). */
  mergeRequestsCount: number;
  /** Open issues this issue blocks (EE `blocking_issues_count`). */
  blockingIssuesCount: number;
  /** Whether the caller commented on the issue (a participant, for `subscribed`). */
  actorCommented: boolean;
  /** The caller's explicit subscription at the issue's project (null: none; see shared/issuables/subscriptions.ts). */
  actorSubscription: boolean | null;
  /** The issue's epic when the caller may read it (`authorized_epic_for`: `read_epic`), else null. */
  epic: IssueEpic | null;
};

/** Where the request comes from, for `references.relative` (IssuableReferences). */
export type ReferenceFrom = { kind: "project"; id: number; namespaceId: number } | { kind: "group"; id: number } | null;

export type IssueContext = PresentContext & {
  /** The requesting project (project endpoints) or group (group list); absent for `GET /issues`. */
  from?: ReferenceFrom;
  /** `with_labels_details=true`: labels as LabelBasic objects instead of names. */
  withLabelsDetails?: boolean;
  /** Lists pass `include_subscribed: false` (computing it per issue is too costly in GitLab). */
  includeSubscribed?: boolean;
};

// ---------------------------------------------------------------------------------------------
// Task lists (app/models/concerns/taskable.rb)

/** Taskable::ITEM_PATTERN: a list item (`-`, `+`, `*`, `1.`) with a checkbox followed by some text. */
const TASK_ITEM = /^(?:(?:>\s{0,4})*)((?:[ \t]*(?:[-+*]|(?:\d+\.)))+)[ \t]+(\[[ \t]\]|\[[xX]\])([ \t].+)/gm;

export type TaskSummary = { count: number; completed: number };

export function taskSummary(description: string | null): TaskSummary {
  if (!description || description.trim() === "") return { count: 0, completed: 0 };
  let count = 0;
  let completed = 0;
  for (const match of description.matchAll(TASK_ITEM)) {
    count += 1;
    if (/x/i.test(match[2])) completed += 1;
  }
  return { count, completed };
}

/** `Taskable#task_status`: "1 of 3 tasks completed". */
function taskStatus(summary: TaskSummary): string {
  return `${summary.completed} of ${summary.count} ${summary.count === 1 ? "task" : "tasks"} completed`;
}

// ---------------------------------------------------------------------------------------------
// References (lib/api/entities/issuable_references.rb, Issue#to_reference, Project#to_reference_base)

function reference(row: IssueRow, from: ReferenceFrom | "full"): string {
  const local = `#${row.iid}`;
  if (from === "full") return `${row.project.fullPath}${local}`;
  if (!from) return local;
  if (from.kind === "project") {
    if (from.id === row.project.id) return local;
    return from.namespaceId === row.project.namespaceId ? `${row.project.path}${local}` : `${row.project.fullPath}${local}`;
  }
  // From a group: the project path when the project sits directly in it, else the full path.
  return from.id === row.project.namespaceId ? `${row.project.path}${local}` : `${row.project.fullPath}${local}`;
}

/** API::Entities::IssuableReferences. */
export const IssuableReferences = z.object({ short: z.string(), relative: z.string(), full: z.string() }).meta({ id: "IssuableReferences" });
export function issueReferences(row: IssueRow, ctx: IssueContext): z.output<typeof IssuableReferences> {
  return { short: reference(row, null), relative: reference(row, ctx.from ?? null), full: reference(row, "full") };
}

// ---------------------------------------------------------------------------------------------

function users(list: IssueUser[], ctx: PresentContext) {
  return list.map((u) => userBasic(u, ctx));
}

/** Ruby's `Array#sort` of strings: by code units. */
function byTitle(a: IssueLabel, b: IssueLabel): number {
  return a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id;
}

export function issueWebUrl(row: Pick<IssueRow, "iid" | "project">, ctx: PresentContext): string {
  return webUrl(ctx, `${row.project.fullPath}/-/issues/${row.iid}`);
}

/** API::Entities::IssuableEntity's head: the fields issues and merge requests both start with. */
export const IssuableHead = z.object({
  id: z.int(),
  iid: z.int(),
  project_id: z.int(),
  title: z.string(),
  description: z.string().nullable(),
  state: z.string(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});

/**
 * API::Entities::IssueBasic with EE::API::Entities::IssueBasic (`weight` unless the issue type has
 * no weight, `blocking_issues_count`). What milestone issue lists and other embeddings show.
 */
export const IssueBasic = IssuableHead.extend({
  closed_at: z.string().nullable(),
  closed_by: UserBasic.nullable(),
  /** Names, or LabelBasic with `with_labels_details=true`. */
  labels: z.union([z.array(z.string()), z.array(LabelBasic)]),
  milestone: Milestone.nullable(),
  assignees: z.array(UserBasic),
  author: UserBasic.nullable(),
  type: z.string(),
  assignee: UserBasic.nullable(),
  user_notes_count: z.int(),
  merge_requests_count: z.int(),
  upvotes: z.int(),
  downvotes: z.int(),
  due_date: z.string().nullable(),
  confidential: z.boolean(),
  discussion_locked: z.boolean().nullable(),
  issue_type: z.string(),
  web_url: z.string(),
  time_stats: IssuableTimeStats,
  task_completion_status: z.object({ count: z.int(), completed_count: z.int() }),
  weight: z.int().nullable().optional(),
  blocking_issues_count: z.int(),
}).meta({ id: "IssueBasic" });
export function issueBasic(row: IssueRow, ctx: IssueContext): z.output<typeof IssueBasic> {
  const labels = [...row.labels].sort(byTitle);
  const tasks = taskSummary(row.description);
  return {
    id: row.id,
    iid: row.iid,
    project_id: row.projectId,
    title: row.title,
    description: row.description,
    state: row.state,
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
    closed_at: isoTime(row.closedAt),
    closed_by: row.closedBy ? userBasic(row.closedBy, ctx) : null,
    labels: ctx.withLabelsDetails ? labels.map((l) => labelBasic(l, ctx)) : labels.map((l) => l.title),
    milestone: row.milestone ? milestone(row.milestone as MilestoneRow, ctx) : null,
    assignees: users(row.assignees, ctx),
    author: row.author ? userBasic(row.author, ctx) : null,
    type: row.issueType.toUpperCase(),
    assignee: row.assignees[0] ? userBasic(row.assignees[0], ctx) : null,
    user_notes_count: row.userNotesCount,
    merge_requests_count: row.mergeRequestsCount,
    upvotes: row.upvotes,
    downvotes: row.downvotes,
    due_date: isoDate(row.dueDate),
    confidential: row.confidential,
    discussion_locked: row.discussionLocked,
    issue_type: row.issueType,
    web_url: issueWebUrl(row, ctx),
    time_stats: timeStats(row),
    task_completion_status: { count: tasks.count, completed_count: tasks.completed },
    // EE: incidents carry no weight (Issue#supports_weight?).
    ...(row.issueType !== "incident" ? { weight: row.weight } : {}),
    blocking_issues_count: row.blockingIssuesCount,
  };
}

/**
 * `Issue#subscribed?`: the caller's explicit subscription (POST …/subscribe, …/unsubscribe), else
 * participants are subscribed (author, assignees, commenters, users mentioned in the description).
 * Differs from GitLab: mentions in comments do not count.
 */
export function issueSubscribed(row: IssueRow, ctx: Pick<PresentContext, "actor">): boolean {
  const user = ctx.actor?.user;
  if (!user) return false;
  if (row.actorSubscription !== null) return row.actorSubscription;
  if (row.authorId === user.id || row.assignees.some((a) => a.id === user.id) || row.actorCommented) return true;
  return mentionedUsernames(`${row.title}\n${row.description ?? ""}`).includes(user.username.toLowerCase());
}

/** API::Entities::Issue (lib/api/entities/issue.rb) with EE::API::Entities::Issue. */
/** EE's EpicBaseEntity (lib/ee/api/entities/epic_base_entity.rb), as an issue's `epic`. */
const EpicBase = z.object({
  id: z.int(),
  iid: z.int(),
  title: z.string(),
  url: z.string(),
  group_id: z.int(),
  human_readable_end_date: z.string().optional(),
  human_readable_timestamp: z.string().nullable().optional(),
});
export const Issue = IssueBasic.extend({
  has_tasks: z.boolean(),
  task_status: z.string().optional(),
  _links: z.object({
    self: z.string(),
    notes: z.string(),
    award_emoji: z.string(),
    project: z.string(),
    closed_as_duplicate_of: z.string().nullable(),
  }),
  references: IssuableReferences,
  severity: z.string(),
  subscribed: z.boolean().optional(),
  moved_to_id: z.int().nullable(),
  service_desk_reply_to: z.string().nullable(),
  epic_iid: z.int().nullable().optional(),
  epic: EpicBase.nullable().optional(),
  iteration: Iteration.nullable().optional(),
  health_status: z.string().nullable(),
}).meta({ id: "Issue" });
export function issue(row: IssueRow, ctx: IssueContext): z.output<typeof Issue> {
  const tasks = taskSummary(row.description);
  const api = `${ctx.baseUrl}/api/v4/projects/${row.projectId}`;
  return {
    ...issueBasic(row, ctx),
    has_tasks: tasks.count > 0,
    ...(tasks.count > 0 ? { task_status: taskStatus(tasks) } : {}),
    _links: {
      self: `${api}/issues/${row.iid}`,
      notes: `${api}/issues/${row.iid}/notes`,
      award_emoji: `${api}/issues/${row.iid}/award_emoji`,
      project: api,
      // The `closed_as_duplicate_of_issues_api` feature flag is off in 15.4.
      closed_as_duplicate_of: null,
    },
    references: issueReferences(row, ctx),
    // Differs from GitLab: severities are set through GraphQL only, which is not built here.
    severity: "UNKNOWN",
    ...(ctx.includeSubscribed === false ? {} : { subscribed: issueSubscribed(row, ctx) }),
    moved_to_id: row.movedToId,
    service_desk_reply_to: null,
    // EE::API::Entities::Issue: for projects of a group, the epic the caller may read (`read_epic`).
    ...(row.project.namespaceType === "Group" ? { epic_iid: row.epic?.iid ?? null, epic: row.epic ? epicBase(row.epic) : null } : {}),
    // EE::API::Entities::Issue `iteration`: shown for projects of a group (iterations belong to groups).
    ...(row.project.namespaceType === "Group" ? { iteration: row.iteration ? iteration(row.iteration, ctx) : null } : {}),
    health_status: row.healthStatus,
  };
}

// ---------------------------------------------------------------------------------------------
// Resource events (lib/api/entities/resource_label_event.rb, resource_state_event.rb,
// resource_milestone_event.rb)

type EventRow = { id: number; user: IssueUser | null; createdAt: Date | string; resourceType: "Issue" | "MergeRequest" | "Epic"; resourceId: number };

const ResourceEventBase = z.object({
  id: z.int(),
  user: UserBasic.nullable(),
  created_at: z.string().nullable(),
  resource_type: z.enum(["Issue", "MergeRequest", "Epic"]),
  resource_id: z.int(),
});
function eventBase(row: EventRow, ctx: PresentContext): z.output<typeof ResourceEventBase> {
  return {
    id: row.id,
    user: row.user ? userBasic(row.user, ctx) : null,
    created_at: isoTime(row.createdAt),
    resource_type: row.resourceType,
    resource_id: row.resourceId,
  };
}

export const ResourceLabelEvent = ResourceEventBase.extend({ label: LabelBasic.nullable(), action: z.string() }).meta({ id: "ResourceLabelEvent" });
export function resourceLabelEvent(row: EventRow & { action: string; label: IssueLabel | null }, ctx: PresentContext): z.output<typeof ResourceLabelEvent> {
  return { ...eventBase(row, ctx), label: row.label ? labelBasic(row.label, ctx) : null, action: row.action };
}

export const ResourceStateEvent = ResourceEventBase.extend({ state: z.string() }).meta({ id: "ResourceStateEvent" });
export function resourceStateEvent(row: EventRow & { state: string }, ctx: PresentContext): z.output<typeof ResourceStateEvent> {
  return { ...eventBase(row, ctx), state: row.state };
}

export const ResourceMilestoneEvent = ResourceEventBase.extend({
  milestone: Milestone.nullable(),
  action: z.string(),
  state: z.string(),
}).meta({ id: "ResourceMilestoneEvent" });
export function resourceMilestoneEvent(
  row: EventRow & { action: string; state: string; milestone: MilestoneRow | null },
  ctx: PresentContext,
): z.output<typeof ResourceMilestoneEvent> {
  return {
    ...eventBase(row, ctx),
    milestone: row.milestone ? milestone(row.milestone, ctx) : null,
    action: row.action,
    state: row.state,
  };
}

/** `issues_statistics` (lib/api/issues.rb), presented as a plain hash. */
export const IssuesStatistics = z
  .object({ statistics: z.object({ counts: z.object({ all: z.int(), closed: z.int(), opened: z.int() }) }) })
  .meta({ id: "IssuesStatistics" });
export function issuesStatistics(counts: { all: number; closed: number; opened: number }): z.output<typeof IssuesStatistics> {
  return { statistics: { counts: { all: counts.all, closed: counts.closed, opened: counts.opened } } };
}
