import * as z from "zod";
import { Access, Visibility } from "../kernel/access";
import { isoTime, webUrl, type PresentContext } from "../kernel/present";
import { IssuableHead, IssuableReferences, taskSummary, type IssueLabel, type IssueUser } from "./issues";
import { descriptionHtml, LabelBasic, labelBasic } from "./labels";
import { Milestone, milestone, type IssueMilestone } from "./milestones";
import { Pipeline, pipeline, PipelineBasic, pipelineBasic, type PipelineRow } from "./pipelines";
import { IssuableTimeStats, timeStats } from "./time_tracking";
import { UserBasic, userBasic, type UserBasicRow } from "./users";
import { Commit, commit, type CommitContext } from "./commits";
import { Diff, diff, type FileDiff } from "./repository";
import type { GitCommitRow, MergeRequest } from "../../db/schema";
// A version is a merge_request_diffs row (version_queries.ts names it `Version` too).
import type { MergeRequestDiff as Version } from "../../db/schema";

/** The project of a merge request, as references and URLs need it (and the caller's level on it). */
export type MergeRequestProject = {
  id: number;
  path: string;
  fullPath: string;
  namespaceId: number;
  visibilityLevel: number;
  jobsEnabled: boolean;
  publicJobs: boolean;
  archived: boolean;
  accessLevel: number;
  /** The repository, for the mergeability check (`repoOf`). */
  poolId: number | null;
  defaultBranch: string | null;
  emptyRepo: boolean;
};

/** A merge request with everything its entities show, as `loadMergeRequestRows` loads it. */
export type MergeRequestRow = MergeRequest & {
  project: MergeRequestProject;
  author: IssueUser | null;
  /** Ordered by user id (the join tables keep no position). */
  assignees: IssueUser[];
  reviewers: IssueUser[];
  closedBy: IssueUser | null;
  mergedBy: IssueUser | null;
  /** Who set `merge_when_pipeline_succeeds` (`merge_user` before the merge). */
  mergeUser: IssueUser | null;
  /** The newest diff version (`diff_refs`, `changes_count`). */
  latestDiff: { id: number; headCommitSha: string; baseCommitSha: string | null; startCommitSha: string | null; filesCount: number } | null;
  labels: Pick<IssueLabel, "id" | "title" | "color" | "description">[];
  milestone: IssueMilestone | null;
  /** The caller's explicit subscription at the merge request's project (null: none; shared/issuables/subscriptions.ts). */
  actorSubscription: boolean | null;
  /**
   * The stored `merge_status` is out of date: open, and never checked or a branch head moved since the
   * heads the last check recorded (`-` for a missing branch; merge_requests/merging.ts#refreshListed).
   */
  checkStale: boolean;
  /**
   * `allow_collaboration` as MergeRequest#allow_collaboration reads it: the stored flag while
   * `collaborative_push_possible?` (both projects not private, the source branch not protected in the
   * fork); null for a merge request that is not from a fork (`for_fork?`: not shown).
   */
  collaboration: boolean | null;
};

/**
 * Presentation options, as GitLab passes them to the entity: `project` or `group` for the relative
 * references (and `project` for `reference`), `withLabelsDetails`, and `subscribed` exposure.
 */
export type MergeRequestContext = PresentContext & {
  fromProject?: { id: number; namespaceId: number } | null;
  fromGroup?: { id: number } | null;
  withLabelsDetails?: boolean;
  includeSubscribed?: boolean;
  /** `render_html=true` on the single GET: `title_html` and `description_html`. */
  renderHtml?: boolean;
  /** Their HTML as the route rendered it (shared/markdown: the title single-line, the description GFM). */
  renderedHtml?: { title: string; description: string | null };
  /** `include_rebase_in_progress` on the single GET. */
  includeRebaseInProgress?: boolean;
};

/** `Project#to_reference_base(from)`: nothing in the same project, the path next door, else the full path. */
function referenceBase(project: MergeRequestProject, from: MergeRequestContext, full = false): string {
  if (full) return project.fullPath;
  if (from.fromGroup) return project.namespaceId !== from.fromGroup.id ? project.fullPath : project.path;
  if (!from.fromProject) return "";
  if (from.fromProject.namespaceId !== project.namespaceId) return project.fullPath;
  return from.fromProject.id !== project.id ? project.path : "";
}

/** API::Entities::IssuableReferences for a merge request (`!1`, `proj!1`, `group/proj!1`). */
export function mergeRequestReferences(mr: MergeRequestRow, ctx: MergeRequestContext): z.output<typeof IssuableReferences> {
  const short = `!${mr.iid}`;
  return {
    short,
    relative: `${referenceBase(mr.project, ctx)}${short}`,
    full: `${mr.project.fullPath}${short}`,
  };
}

export function mergeRequestUrl(mr: { iid: number; project: { fullPath: string } }, ctx: PresentContext): string {
  return webUrl(ctx, `${mr.project.fullPath}/-/merge_requests/${mr.iid}`);
}

/** `Taskable#task_completion_status`, counted as the issue entities count task list items. */
const TaskCompletionStatus = z.object({ count: z.int(), completed_count: z.int() });
export function taskCompletionStatus(description: string | null): z.output<typeof TaskCompletionStatus> {
  const tasks = taskSummary(description);
  return { count: tasks.count, completed_count: tasks.completed };
}

const user = (row: UserBasicRow | null, ctx: PresentContext) => (row ? userBasic(row, ctx) : null);

/** API::Entities::IssuableEntity's head (`IssuableHead`), shared by the simple and the full views (and the approvals answers). */
export function issuableHead(
  mr: Pick<MergeRequestRow, "id" | "iid" | "projectId" | "title" | "description" | "state" | "createdAt" | "updatedAt">,
): z.output<typeof IssuableHead> {
  return {
    id: mr.id,
    iid: mr.iid,
    project_id: mr.projectId,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: isoTime(mr.createdAt),
    updated_at: isoTime(mr.updatedAt),
  };
}

/** API::Entities::MergeRequestSimple (`view=simple`). */
export const MergeRequestSimple = IssuableHead.extend({ web_url: z.string() }).meta({ id: "MergeRequestSimple" });
export function mergeRequestSimple(mr: MergeRequestRow, ctx: MergeRequestContext): z.output<typeof MergeRequestSimple> {
  return { ...issuableHead(mr), web_url: mergeRequestUrl(mr, ctx) };
}

/**
 * `detailed_merge_status` (MergeRequests::Mergeability::DetailedMergeStatusService, 15.6+; the task
 * asks for it on 15.4's entity), in the service's order: not open, checking, draft, broken, then EE's
 * approvals (`not_approved`). `approved` is the approval state where the caller computed it (the single
 * GET and the merge endpoint do).
 * Differs from GitLab: conflicts and a missing branch both read `broken_status` (15.x's `broken?`
 * covers both); `need_rebase` / `ci_must_pass` are only found by the merge endpoint, which checks them
 * when asked to merge; lists do not compute approval states, so they never say `not_approved`.
 */
export function detailedMergeStatus(mr: MergeRequestRow & { approved?: boolean }): string {
  if (mr.state !== "opened") return "not_open";
  if (mr.mergeStatus === "unchecked" || mr.mergeStatus === "checking") return mr.mergeStatus;
  if (mr.draft) return "draft_status";
  if (mr.mergeStatus === "cannot_be_merged") return "broken_status";
  if (mr.approved === false) return "not_approved";
  return "mergeable";
}

/** Files a diff shows before it overflows (`Gitlab::Diff::FileCollection` default `max_files`). */
export const DIFF_MAX_FILES = 1000;

/**
 * API::Entities::MergeRequestBasic (lib/api/entities/merge_request_basic.rb, with EE's
 * `approvals_before_merge`), as 15.4 exposes it: what lists and `closed_by` show. `merge_status` is
 * the stored result of the last mergeability check (the single GET, the merge and the lists run one
 * when a head moved: merging.ts#refreshMergeRequest, #refreshListed).
 */
export const MergeRequestBasic = IssuableHead.extend({
  merged_by: UserBasic.nullable(),
  merge_user: UserBasic.nullable(),
  merged_at: z.string().nullable(),
  closed_by: UserBasic.nullable(),
  closed_at: z.string().nullable(),
  title_html: z.string().nullable().optional(),
  description_html: z.string().nullable().optional(),
  target_branch: z.string(),
  source_branch: z.string(),
  user_notes_count: z.int(),
  upvotes: z.int(),
  downvotes: z.int(),
  author: UserBasic.nullable(),
  assignees: z.array(UserBasic),
  assignee: UserBasic.nullable(),
  reviewers: z.array(UserBasic),
  source_project_id: z.int(),
  target_project_id: z.int(),
  /** Names, or LabelBasic with `with_labels_details=true`. */
  labels: z.union([z.array(z.string()), z.array(LabelBasic)]),
  draft: z.boolean(),
  work_in_progress: z.boolean(),
  milestone: Milestone.nullable(),
  merge_when_pipeline_succeeds: z.boolean(),
  merge_status: z.string(),
  detailed_merge_status: z.string(),
  sha: z.string().nullable(),
  merge_commit_sha: z.string().nullable(),
  squash_commit_sha: z.string().nullable(),
  discussion_locked: z.boolean().nullable(),
  should_remove_source_branch: z.boolean().nullable(),
  force_remove_source_branch: z.boolean().nullable(),
  allow_collaboration: z.boolean().optional(),
  allow_maintainer_to_push: z.boolean().optional(),
  reference: z.string(),
  references: IssuableReferences,
  web_url: z.string(),
  time_stats: IssuableTimeStats,
  squash: z.boolean(),
  task_completion_status: TaskCompletionStatus,
  has_conflicts: z.boolean(),
  blocking_discussions_resolved: z.boolean(),
  approvals_before_merge: z.int().nullable(),
}).meta({ id: "MergeRequestBasic" });
export function mergeRequestBasic(mr: MergeRequestRow & { approved?: boolean }, ctx: MergeRequestContext): z.output<typeof MergeRequestBasic> {
  const labels = [...mr.labels].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
  const short = `!${mr.iid}`;
  return {
    ...issuableHead(mr),
    merged_by: user(mr.mergedBy, ctx),
    merge_user: user(mr.mergedBy ?? mr.mergeUser, ctx),
    merged_at: isoTime(mr.mergedAt),
    closed_by: user(mr.closedBy, ctx),
    closed_at: isoTime(mr.closedAt),
    ...(ctx.renderHtml
      ? {
          title_html: ctx.renderedHtml ? ctx.renderedHtml.title : descriptionHtml(mr.title),
          description_html: ctx.renderedHtml ? ctx.renderedHtml.description : descriptionHtml(mr.description),
        }
      : {}),
    target_branch: mr.targetBranch,
    source_branch: mr.sourceBranch,
    user_notes_count: mr.userNotesCount,
    upvotes: mr.upvotes,
    downvotes: mr.downvotes,
    author: user(mr.author, ctx),
    assignees: mr.assignees.map((a) => userBasic(a, ctx)),
    assignee: mr.assignees[0] ? userBasic(mr.assignees[0], ctx) : null,
    reviewers: mr.reviewers.map((r) => userBasic(r, ctx)),
    source_project_id: mr.sourceProjectId,
    target_project_id: mr.projectId,
    labels: ctx.withLabelsDetails ? labels.map((l) => labelBasic(l, ctx)) : labels.map((l) => l.title),
    draft: mr.draft,
    work_in_progress: mr.draft,
    milestone: mr.milestone ? milestone(mr.milestone, ctx) : null,
    merge_when_pipeline_succeeds: mr.mergeWhenPipelineSucceeds,
    merge_status: mr.mergeStatus,
    detailed_merge_status: detailedMergeStatus(mr),
    sha: mr.sha,
    merge_commit_sha: mr.mergeCommitSha,
    squash_commit_sha: mr.squashCommitSha,
    discussion_locked: mr.discussionLocked,
    // `merge_params['should_remove_source_branch']`: set when merging (or asking to merge on success).
    should_remove_source_branch: mr.shouldRemoveSourceBranch,
    force_remove_source_branch: mr.forceRemoveSourceBranch,
    // `if: for_fork?`; `allow_maintainer_to_push` is its deprecated name.
    ...(mr.collaboration !== null ? { allow_collaboration: mr.collaboration, allow_maintainer_to_push: mr.collaboration } : {}),
    reference: `${referenceBase(mr.project, { ...ctx, fromGroup: null })}${short}`,
    references: mergeRequestReferences(mr, ctx),
    web_url: mergeRequestUrl(mr, ctx),
    time_stats: timeStats(mr),
    squash: mr.squash,
    task_completion_status: taskCompletionStatus(mr.description),
    has_conflicts: mr.mergeStatus === "cannot_be_merged",
    blocking_discussions_resolved: true,
    approvals_before_merge: mr.approvalsBeforeMerge,
  };
}

/** ProjectPolicy `read_pipeline`: reporters, or anyone who reads the project when jobs are public. */
function readsPipelines(project: MergeRequestProject, ctx: PresentContext): boolean {
  if (!project.jobsEnabled) return false;
  if (ctx.actor?.isAdmin || project.accessLevel >= Access.REPORTER) return true;
  if (!project.publicJobs) return false;
  if (project.accessLevel >= Access.GUEST || project.visibilityLevel >= Visibility.PUBLIC) return true;
  return project.visibilityLevel >= Visibility.INTERNAL && !!ctx.actor && !ctx.actor.user.external;
}

/**
 * `can_be_merged_by?`: who may push to the target branch.
 * Differs from GitLab until protected branches exist: developers and up may merge into any branch.
 */
function canMerge(mr: MergeRequestRow, ctx: PresentContext): boolean {
  if (!ctx.actor || mr.state !== "opened" || mr.project.archived) return false;
  return ctx.actor.isAdmin || mr.project.accessLevel >= Access.DEVELOPER;
}

/** `Issuable#subscribed?`: the explicit subscription, else whether the caller is a participant. */
export function mergeRequestSubscribed(mr: MergeRequestRow, ctx: Pick<PresentContext, "actor">): boolean {
  const actorId = ctx.actor?.user.id;
  if (actorId === undefined) return false;
  if (mr.actorSubscription !== null) return mr.actorSubscription;
  return mr.authorId === actorId || mr.assignees.some((a) => a.id === actorId) || mr.reviewers.some((r) => r.id === actorId);
}

/**
 * API::Entities::MergeRequest (lib/api/entities/merge_request.rb): single GET, create, update,
 * related merge requests and to-do targets. Pipeline fields are shown where GitLab shows them (the
 * caller reads the project's builds); `headPipeline` is preloaded by the single GET only (elsewhere null).
 * Differs from GitLab: `pipeline` and `latest_build_*` come from the head pipeline once it has started
 * (GitLab's merge request metrics keep the last head pipeline that ran, even after the head moved).
 * `subscribed`: the caller's explicit subscription, else true for participants (`Issuable#subscribed?`).
 * Differs from GitLab: participants are the author, assignees and reviewers; commenters and mentioned
 * users do not count.
 */
export const MergeRequestEntity = MergeRequestBasic.extend({
  subscribed: z.boolean().optional(),
  changes_count: z.string().nullable(),
  latest_build_started_at: z.string().nullable().optional(),
  latest_build_finished_at: z.string().nullable().optional(),
  first_deployed_to_production_at: z.string().nullable().optional(),
  pipeline: PipelineBasic.nullable().optional(),
  head_pipeline: Pipeline.nullable().optional(),
  diff_refs: z.object({ base_sha: z.string().nullable(), head_sha: z.string(), start_sha: z.string().nullable() }).nullable(),
  merge_error: z.string().nullable(),
  rebase_in_progress: z.boolean().optional(),
  diverged_commits_count: z.int().optional(),
  user: z.object({ can_merge: z.boolean() }),
}).meta({ id: "MergeRequest" });
export function mergeRequest(
  mr: MergeRequestRow & { headPipeline?: MergeRequestPipelineRow | null; approved?: boolean; divergedCommits?: number },
  ctx: MergeRequestContext,
): z.output<typeof MergeRequestEntity> {
  const head = mr.headPipeline ?? null;
  const ran = head && (head.startedAt || head.finishedAt) ? head : null;
  const builds = ctx.fromProject ? mr.project.jobsEnabled : false;
  return {
    ...mergeRequestBasic(mr, ctx),
    ...(ctx.includeSubscribed === false ? {} : { subscribed: mergeRequestSubscribed(mr, ctx) }),
    // `merge_request_diff.real_size`: the changed files of the newest version, "1000+" past the limit.
    changes_count: mr.latestDiff ? (mr.latestDiff.filesCount > DIFF_MAX_FILES ? `${DIFF_MAX_FILES}+` : String(mr.latestDiff.filesCount)) : null,
    ...(builds
      ? {
          latest_build_started_at: isoTime(ran?.startedAt),
          latest_build_finished_at: isoTime(ran?.finishedAt),
          first_deployed_to_production_at: null,
          pipeline: ran ? pipelineBasic(ran, { ...ctx, projectPath: ran.projectPath }) : null,
        }
      : {}),
    ...(ctx.fromProject && readsPipelines(mr.project, ctx) ? { head_pipeline: head ? pipeline(head, { ...ctx, projectPath: head.projectPath }) : null } : {}),
    diff_refs: mr.latestDiff
      ? { base_sha: mr.latestDiff.baseCommitSha, head_sha: mr.latestDiff.headCommitSha, start_sha: mr.latestDiff.startCommitSha }
      : null,
    merge_error: mr.mergeError,
    // Rebases run during `PUT …/rebase` (synchronously), so none is ever in progress when this is read.
    ...(ctx.includeRebaseInProgress ? { rebase_in_progress: false } : {}),
    // `include_diverged_commits_count=true` on the single GET: the caller computed it (merging.ts).
    ...(mr.divergedCommits !== undefined ? { diverged_commits_count: mr.divergedCommits } : {}),
    user: { can_merge: canMerge(mr, ctx) },
  };
}

/** API::Entities::MergeRequestChanges: the merge request with its diffs as `changes` and `overflow`. */
export const MergeRequestChanges = MergeRequestEntity.extend({ changes: z.array(Diff), overflow: z.boolean() }).meta({ id: "MergeRequestChanges" });
export function mergeRequestChanges(
  mr: MergeRequestRow & { changes: FileDiff[]; overflow: boolean },
  ctx: MergeRequestContext,
): z.output<typeof MergeRequestChanges> {
  return { ...mergeRequest(mr, ctx), changes: mr.changes.map((file) => diff(file)), overflow: mr.overflow };
}

/** API::Entities::MergeRequestDiff (lib/api/entities/merge_request_diff.rb): one version. */
export const MergeRequestDiff = z
  .object({
    id: z.int(),
    head_commit_sha: z.string(),
    base_commit_sha: z.string().nullable(),
    start_commit_sha: z.string().nullable(),
    created_at: z.string().nullable(),
    merge_request_id: z.int(),
    state: z.string(),
    real_size: z.string(),
  })
  .meta({ id: "MergeRequestDiff" });
export function mergeRequestDiff(version: Version, _ctx?: PresentContext): z.output<typeof MergeRequestDiff> {
  return {
    id: version.id,
    head_commit_sha: version.headCommitSha,
    base_commit_sha: version.baseCommitSha,
    start_commit_sha: version.startCommitSha,
    created_at: isoTime(version.createdAt),
    merge_request_id: version.mergeRequestId,
    state: version.state,
    // `real_size`: a string, "1000+" past the file limit.
    real_size: version.filesCount > DIFF_MAX_FILES ? `${DIFF_MAX_FILES}+` : String(version.filesCount),
  };
}

/** API::Entities::MergeRequestDiffFull: the version with its commits (newest first) and all its diffs. */
export const MergeRequestDiffFull = MergeRequestDiff.extend({ commits: z.array(Commit), diffs: z.array(Diff) }).meta({ id: "MergeRequestDiffFull" });
export function mergeRequestDiffFull(
  version: Version & { commits: GitCommitRow[]; diffs: FileDiff[] },
  ctx: CommitContext,
): z.output<typeof MergeRequestDiffFull> {
  return {
    ...mergeRequestDiff(version, ctx),
    commits: version.commits.map((row) => commit(row, ctx)),
    diffs: version.diffs.map((file) => diff(file)),
  };
}

/** The body of `PUT …/rebase`: `rebase_in_progress?`, false once our synchronous rebase has finished. */
export const RebaseInProgress = z.object({ rebase_in_progress: z.boolean() }).meta({ id: "RebaseInProgress" });
export function rebaseAccepted(): z.output<typeof RebaseInProgress> {
  return { rebase_in_progress: false };
}

/**
 * `POST …/cancel_merge_when_pipeline_succeeds`: what AutoMergeService#cancel returns, as Grape writes a
 * service's result hash (ServiceResponse-style `success` / `error(message, 406)`), not the merge request.
 */
export function autoMergeCancelResult(cancelled: boolean) {
  return cancelled ? { status: "success" } : { status: "error", message: "Can't cancel the automatic merge", http_status: 406 };
}

/** A pipeline of a merge request's source project, with that project's path for its `web_url`. */
export type MergeRequestPipelineRow = PipelineRow & { projectPath: string };

/** `GET …/merge_requests/:iid/pipelines`: API::Entities::Ci::PipelineBasic. */
export function mergeRequestPipeline(row: MergeRequestPipelineRow, ctx: PresentContext): z.output<typeof PipelineBasic> {
  return pipelineBasic(row, { ...ctx, projectPath: row.projectPath });
}
