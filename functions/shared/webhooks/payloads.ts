import type { GitCommitRow, Label, Note, Snippet, User } from "../../../db/schema";
import { isoTime, type PresentContext } from "../../kernel/present";
import { avatarUrl } from "../../entities/users";
import type { HookDeployment, HookGroup, HookIssue, HookJob, HookMergeRequest, HookPipeline, HookProject } from "./queries";
import type { HookRelease, HookSubgroup } from "../../kernel/env";

/**
 * GitLab's webhook payloads (lib/gitlab/data_builder/*.rb, lib/gitlab/hook_data/*.rb, doc/user/project/
 * integrations/webhook_events.md), built from rows loaded in bulk by ./queries.ts. Timestamps use
 * GitLab's hook format (`2024-05-01 10:00:00 UTC`) where GitLab's `hook_attrs` serialize Ruby times.
 */
type Ctx = PresentContext;

/** `Time#to_s` in UTC, as `hook_attrs` serialize timestamps: `2024-05-01 10:00:00 UTC`. */
export function hookTime(value: Date | string | null | undefined): string | null {
  const iso = isoTime(value);
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : null;
}

const projectUrl = (ctx: Ctx, p: HookProject) => `${ctx.baseUrl}/${p.fullPath}`;
const sshUrl = (ctx: Ctx, p: HookProject) => `git@${new URL(ctx.baseUrl).hostname}:${p.fullPath}.git`;

/** The `repository` of push and job payloads (`Gitlab::DataBuilder::Push` and `Build`). */
function repositoryAttrs(p: HookProject, ctx: Ctx) {
  return {
    name: p.name,
    url: sshUrl(ctx, p),
    description: p.description,
    homepage: projectUrl(ctx, p),
    git_http_url: `${projectUrl(ctx, p)}.git`,
    git_ssh_url: sshUrl(ctx, p),
    visibility_level: p.visibilityLevel,
  };
}

/** `Project#hook_attrs` */
export function projectAttrs(p: HookProject, ctx: Ctx) {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    web_url: projectUrl(ctx, p),
    avatar_url: p.avatarUrl,
    git_ssh_url: sshUrl(ctx, p),
    git_http_url: `${projectUrl(ctx, p)}.git`,
    namespace: p.namespaceName,
    visibility_level: p.visibilityLevel,
    path_with_namespace: p.fullPath,
    default_branch: p.defaultBranch,
    ci_config_path: null,
    homepage: projectUrl(ctx, p),
    url: sshUrl(ctx, p),
    ssh_url: sshUrl(ctx, p),
    http_url: `${projectUrl(ctx, p)}.git`,
  };
}

/** `repository` of issue, merge request and note payloads (`project.hook_attrs.slice(…)`). */
function shortRepository(p: HookProject, ctx: Ctx) {
  return { name: p.name, url: sshUrl(ctx, p), description: p.description, homepage: projectUrl(ctx, p) };
}

/** `User#hook_attrs` */
export function userAttrs(u: User, ctx: Ctx) {
  return { id: u.id, name: u.name, username: u.username, avatar_url: avatarUrl(u, ctx), email: u.publicEmail || "[REDACTED]" };
}

/** `Label#hook_attrs` */
function labelAttrs(l: Label) {
  return {
    id: l.id,
    title: l.title,
    color: l.color,
    project_id: l.projectId,
    created_at: hookTime(l.createdAt),
    updated_at: hookTime(l.updatedAt),
    template: false,
    description: l.description,
    type: l.projectId ? "ProjectLabel" : "GroupLabel",
    group_id: l.groupId,
  };
}

function humanDuration(seconds: number): string | null {
  if (!seconds) return null;
  const parts: string[] = [];
  const units: [string, number][] = [["w", 5 * 8 * 3600], ["d", 8 * 3600], ["h", 3600], ["m", 60]];
  let rest = seconds;
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    if (n) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return parts.join(" ") || null;
}

const STATE_ID: Record<string, number> = { opened: 1, closed: 2, merged: 3, locked: 4 };

/** `Gitlab::HookData::IssueBuilder#build` */
export function issueAttrs(i: HookIssue, p: HookProject, ctx: Ctx) {
  return {
    author_id: i.authorId,
    closed_at: hookTime(i.closedAt),
    confidential: i.confidential,
    created_at: hookTime(i.createdAt),
    description: i.description,
    discussion_locked: i.discussionLocked,
    due_date: i.dueDate,
    id: i.id,
    iid: i.iid,
    last_edited_at: null,
    last_edited_by_id: null,
    milestone_id: i.milestoneId,
    moved_to_id: i.movedToId,
    duplicated_to_id: i.duplicatedToId,
    project_id: i.projectId,
    relative_position: i.relativePosition,
    state_id: STATE_ID[i.state] ?? 1,
    time_estimate: i.timeEstimate,
    title: i.title,
    updated_at: hookTime(i.updatedAt),
    updated_by_id: null,
    weight: i.weight,
    health_status: i.healthStatus,
    url: `${projectUrl(ctx, p)}/-/issues/${i.iid}`,
    total_time_spent: i.totalTimeSpent,
    time_change: 0,
    human_total_time_spent: humanDuration(i.totalTimeSpent),
    human_time_change: null,
    human_time_estimate: humanDuration(i.timeEstimate),
    assignee_ids: i.assigneeIds,
    assignee_id: i.assigneeIds[0] ?? null,
    labels: i.labels.map(labelAttrs),
    state: i.state,
    severity: "unknown",
  };
}

/**
 * `Gitlab::HookData::MergeRequestBuilder#build`. `source`: the source project (a fork's, or `p` itself;
 * null when the fork is gone, as `source_project.try(:hook_attrs)`).
 */
export function mergeRequestAttrs(m: HookMergeRequest, p: HookProject, ctx: Ctx, lastCommit: GitCommitRow | null, source: HookProject | null = p) {
  return {
    assignee_id: m.assigneeIds[0] ?? null,
    author_id: m.authorId,
    created_at: hookTime(m.createdAt),
    description: m.description,
    head_pipeline_id: null,
    id: m.id,
    iid: m.iid,
    last_edited_at: null,
    last_edited_by_id: null,
    merge_commit_sha: m.mergeCommitSha,
    merge_error: null,
    merge_params: { force_remove_source_branch: m.forceRemoveSourceBranch ? "1" : "0" },
    merge_status: m.mergeStatus,
    merge_user_id: null,
    merge_when_pipeline_succeeds: m.mergeWhenPipelineSucceeds,
    milestone_id: m.milestoneId,
    source_branch: m.sourceBranch,
    source_project_id: m.sourceProjectId,
    state_id: STATE_ID[m.state] ?? 1,
    target_branch: m.targetBranch,
    target_project_id: m.projectId,
    time_estimate: m.timeEstimate,
    title: m.title,
    updated_at: hookTime(m.updatedAt),
    updated_by_id: null,
    url: `${projectUrl(ctx, p)}/-/merge_requests/${m.iid}`,
    source: source ? projectAttrs(source, ctx) : null,
    target: projectAttrs(p, ctx),
    last_commit: lastCommit ? commitAttrs(lastCommit, p, ctx) : null,
    work_in_progress: m.draft,
    total_time_spent: m.totalTimeSpent,
    time_change: 0,
    human_total_time_spent: humanDuration(m.totalTimeSpent),
    human_time_change: null,
    human_time_estimate: humanDuration(m.timeEstimate),
    assignee_ids: m.assigneeIds,
    reviewer_ids: m.reviewerIds,
    labels: m.labels.map(labelAttrs),
    state: m.state,
    blocking_discussions_resolved: true,
    first_contribution: false,
  };
}

/** `Commit#hook_attrs` (`added`/`modified`/`removed` only on push payloads). */
export function commitAttrs(c: GitCommitRow, p: HookProject, ctx: Ctx, files?: { added: string[]; modified: string[]; removed: string[] }) {
  const title = c.message.split("\n")[0] ?? "";
  return {
    id: c.oid.trim(),
    message: c.message,
    title,
    timestamp: isoTime(c.authoredAt)!.replace(/\.\d{3}Z$/, "+00:00"),
    url: `${projectUrl(ctx, p)}/-/commit/${c.oid.trim()}`,
    author: { name: c.authorName, email: c.authorEmail },
    ...(files ?? {}),
  };
}

/** The page of a note's noteable (Gitlab::UrlBuilder): issue and merge request by iid, snippet by id, commit by sha. */
function noteUrl(n: Note, p: HookProject, ctx: Ctx, noteable: HookNoteable): string {
  const path =
    noteable.kind === "issue"
      ? `issues/${noteable.issue.iid}`
      : noteable.kind === "merge_request"
        ? `merge_requests/${noteable.mr.iid}`
        : noteable.kind === "snippet"
          ? `snippets/${noteable.snippet.id}`
          : `commit/${noteable.commit.oid.trim()}`;
  return `${projectUrl(ctx, p)}/-/${path}#note_${n.id}`;
}

/** `Note#hook_attrs` plus `url` (Gitlab::HookData::NoteBuilder). */
export function noteAttrs(n: Note, p: HookProject, ctx: Ctx, noteable: HookNoteable) {
  return {
    attachment: null,
    author_id: n.authorId,
    change_position: null,
    commit_id: n.commitId,
    created_at: hookTime(n.createdAt),
    discussion_id: n.discussionId,
    id: n.id,
    line_code: n.lineCode,
    note: n.note,
    noteable_id: n.noteableId,
    noteable_type: n.noteableType,
    original_position: null,
    position: null,
    project_id: n.projectId,
    resolved_at: hookTime(n.resolvedAt),
    resolved_by_id: n.resolvedById,
    resolved_by_push: null,
    st_diff: null,
    system: n.system,
    type: n.type,
    updated_at: hookTime(n.updatedAt),
    updated_by_id: n.updatedById,
    description: n.note,
    url: noteUrl(n, p, ctx, noteable),
  };
}

/** `Snippet#hook_attrs` of a project snippet. */
function snippetAttrs(s: Snippet, p: HookProject, ctx: Ctx) {
  return {
    id: s.id,
    title: s.title,
    content: s.content,
    author_id: s.authorId,
    project_id: s.projectId,
    created_at: hookTime(s.createdAt),
    updated_at: hookTime(s.updatedAt),
    file_name: s.fileName,
    type: "ProjectSnippet",
    visibility_level: s.visibilityLevel,
    description: s.description,
    url: `${projectUrl(ctx, p)}/-/snippets/${s.id}`,
  };
}

/** What a note is on, as the note payload shows it (`issue`, `merge_request`, `snippet` or `commit`). */
export type HookNoteable =
  | { kind: "issue"; issue: HookIssue }
  | { kind: "merge_request"; mr: HookMergeRequest; lastCommit: GitCommitRow | null; source?: HookProject | null }
  | { kind: "snippet"; snippet: Snippet }
  | { kind: "commit"; commit: GitCommitRow };

/** Changes between the attributes before and after an update: `{key: {previous, current}}`. */
export function changesOf(before: Record<string, unknown> | null, after: Record<string, unknown>): Record<string, { previous: unknown; current: unknown }> {
  const out: Record<string, { previous: unknown; current: unknown }> = {};
  if (!before) return out;
  for (const [key, previous] of Object.entries(before)) {
    const current = after[key];
    if (JSON.stringify(previous) !== JSON.stringify(current)) out[key] = { previous, current };
  }
  return out;
}

/** What `Gitlab::DataBuilder::Issuable#build` writes first for issues and merge requests alike. */
function issuableHead(kind: string, eventType: string, p: HookProject, ctx: Ctx, user: User, action: string, attrs: { labels: unknown }, before: Record<string, unknown> | null) {
  return {
    object_kind: kind,
    event_type: eventType,
    user: userAttrs(user, ctx),
    project: projectAttrs(p, ctx),
    object_attributes: { ...attrs, action },
    labels: attrs.labels,
    changes: changesOf(before, attrs),
    repository: shortRepository(p, ctx),
  };
}

/** `Gitlab::DataBuilder::Issuable#build` for issues (`object_kind` issue; `event_type` may be confidential). */
export function issuePayload(i: HookIssue, p: HookProject, ctx: Ctx, user: User, action: string, users: Map<number, User>, before: Record<string, unknown> | null) {
  const attrs = issueAttrs(i, p, ctx);
  return {
    ...issuableHead("issue", i.confidential ? "confidential_issue" : "issue", p, ctx, user, action, attrs, before),
    assignees: i.assigneeIds.map((id) => users.get(id)).filter((u): u is User => !!u).map((u) => userAttrs(u, ctx)),
  };
}

export function mergeRequestPayload(
  m: HookMergeRequest,
  p: HookProject,
  ctx: Ctx,
  user: User,
  action: string,
  users: Map<number, User>,
  lastCommit: GitCommitRow | null,
  before: Record<string, unknown> | null,
  source: HookProject | null = p,
) {
  const attrs = mergeRequestAttrs(m, p, ctx, lastCommit, source);
  const people = (ids: number[]) => ids.map((id) => users.get(id)).filter((u): u is User => !!u).map((u) => userAttrs(u, ctx));
  return {
    ...issuableHead("merge_request", "merge_request", p, ctx, user, action, attrs, before),
    assignees: people(m.assigneeIds),
    reviewers: people(m.reviewerIds),
  };
}

/** `Gitlab::DataBuilder::Note#build`: the note, and the issue, merge request, snippet or commit it is on. */
export function notePayload(n: Note, p: HookProject, ctx: Ctx, user: User, noteable: HookNoteable) {
  const confidential = n.confidential || (noteable.kind === "issue" && noteable.issue.confidential);
  return {
    object_kind: "note",
    event_type: confidential ? "confidential_note" : "note",
    user: userAttrs(user, ctx),
    project_id: p.id,
    project: projectAttrs(p, ctx),
    object_attributes: noteAttrs(n, p, ctx, noteable),
    repository: shortRepository(p, ctx),
    ...(noteable.kind === "issue"
      ? { issue: issueAttrs(noteable.issue, p, ctx) }
      : noteable.kind === "merge_request"
        ? { merge_request: mergeRequestAttrs(noteable.mr, p, ctx, noteable.lastCommit, noteable.source === undefined ? p : noteable.source) }
        : noteable.kind === "snippet"
          ? { snippet: snippetAttrs(noteable.snippet, p, ctx) }
          : { commit: commitAttrs(noteable.commit, p, ctx) }),
  };
}

/** `Gitlab::DataBuilder::Push#build` (push and tag_push). */
export function pushPayload(
  e: { ref: string; before: string; after: string },
  p: HookProject,
  ctx: Ctx,
  user: User | null,
  commits: { row: GitCommitRow; files: { added: string[]; modified: string[]; removed: string[] } }[],
  totalCommits: number,
) {
  const tag = e.ref.startsWith("refs/tags/");
  const deleted = /^0{40}$/.test(e.after);
  return {
    object_kind: tag ? "tag_push" : "push",
    event_name: tag ? "tag_push" : "push",
    before: e.before,
    after: e.after,
    ref: e.ref,
    checkout_sha: deleted ? null : e.after,
    message: null,
    user_id: user?.id ?? null,
    user_name: user?.name ?? null,
    user_username: user?.username ?? null,
    user_email: user ? user.publicEmail || "[REDACTED]" : null,
    user_avatar: user ? avatarUrl(user, ctx) : null,
    project_id: p.id,
    project: projectAttrs(p, ctx),
    commits: commits.map((c) => commitAttrs(c.row, p, ctx, c.files)),
    total_commits_count: totalCommits,
    push_options: {},
    repository: repositoryAttrs(p, ctx),
  };
}

/** `X-Gitlab-Event` for each payload kind. */
export const EVENT_HEADER = {
  push: "Push Hook",
  tag_push: "Tag Push Hook",
  issue: "Issue Hook",
  confidential_issue: "Confidential Issue Hook",
  note: "Note Hook",
  confidential_note: "Confidential Note Hook",
  merge_request: "Merge Request Hook",
  pipeline: "Pipeline Hook",
  job: "Job Hook",
  wiki_page: "Wiki Page Hook",
  subgroup: "Subgroup Hook",
  release: "Release Hook",
  deployment: "Deployment Hook",
} as const;

/**
 * Gitlab::DataBuilder::Release (15.4): `Release#hook_attrs`, the project, the release page, the action
 * (`create`, `update`, `delete`), the assets (links' `hook_attrs` and the archive sources) and the commit.
 * Differs from GitLab: sources point at the API's archive endpoint, as the Release entity's do.
 */
export function releasePayload(r: HookRelease, p: HookProject, ctx: Ctx, action: string, commit: GitCommitRow | null) {
  const sources = ["zip", "tar.gz", "tar.bz2", "tar"].map((format) => ({
    format,
    url: `${ctx.baseUrl}/api/v4/projects/${p.id}/repository/archive.${format}?sha=${encodeURIComponent(r.tag)}`,
  }));
  return {
    id: r.id,
    created_at: hookTime(r.createdAt),
    description: r.description,
    name: r.name,
    released_at: hookTime(r.releasedAt),
    tag: r.tag,
    object_kind: "release",
    project: projectAttrs(p, ctx),
    url: `${projectUrl(ctx, p)}/-/releases/${encodeURIComponent(r.tag)}`,
    action,
    assets: {
      count: r.links.length + sources.length,
      links: r.links.map((l) => ({ id: l.id, external: !l.url.startsWith(projectUrl(ctx, p)), link_type: l.linkType, name: l.name, url: l.url })),
      sources,
    },
    commit: commit ? commitAttrs(commit, p, ctx) : null,
  };
}

/** A wiki page as its hook sees it (WikiPage#hook_attrs, Gitlab::HookData::WikiPageBuilder). */
export type HookWikiPage = { title: string; content: string; format: string; slug: string; message: string; versionId: string };

/**
 * Gitlab::DataBuilder::WikiPage (15.4): the user, the project, the wiki's own attributes (Wiki#hook_attrs)
 * and the page's with its URL and the action (`create`, `update`, `delete`).
 */
export function wikiPagePayload(page: HookWikiPage, p: HookProject, ctx: Ctx, user: User, action: string, wikiDefaultBranch: string) {
  return {
    object_kind: "wiki_page",
    user: userAttrs(user, ctx),
    project: projectAttrs(p, ctx),
    wiki: wikiAttrs(ctx, projectUrl(ctx, p), p.fullPath, wikiDefaultBranch),
    object_attributes: wikiPageAttrs(page, `${projectUrl(ctx, p)}/-/wikis`, action),
  };
}

/**
 * The Wiki Page Hook of a group wiki's page, for group hooks. Differs from GitLab: 15.4 sends none
 * (Gitlab::DataBuilder::WikiPage returns `{}` for a group wiki, issue 216904); this payload is the
 * project one's with `group` (the fields of group member events' payloads, and its full path and web
 * URL) in place of `project`, and the group wiki's own URLs.
 */
export function groupWikiPagePayload(page: HookWikiPage, g: HookGroup, ctx: Ctx, user: User, action: string, wikiDefaultBranch: string) {
  const groupUrl = `${ctx.baseUrl}/groups/${g.fullPath}`;
  return {
    object_kind: "wiki_page",
    user: userAttrs(user, ctx),
    group: { group_id: g.id, group_name: g.name, group_path: g.path, full_path: g.fullPath, web_url: groupUrl },
    wiki: wikiAttrs(ctx, groupUrl, g.fullPath, wikiDefaultBranch),
    object_attributes: wikiPageAttrs(page, `${groupUrl}/-/wikis`, action),
  };
}

/** Wiki#hook_attrs: its home page, its repository's URLs and default branch. */
function wikiAttrs(ctx: Ctx, containerUrl: string, fullPath: string, defaultBranch: string) {
  return {
    web_url: `${containerUrl}/-/wikis/home`,
    git_ssh_url: `git@${new URL(ctx.baseUrl).hostname}:${fullPath}.wiki.git`,
    git_http_url: `${ctx.baseUrl}/${fullPath}.wiki.git`,
    path_with_namespace: `${fullPath}.wiki`,
    default_branch: defaultBranch,
  };
}

/** WikiPage#hook_attrs with the page's URL and the action. */
function wikiPageAttrs(page: HookWikiPage, wikiUrl: string, action: string) {
  return {
    title: page.title,
    content: page.content,
    format: page.format,
    message: page.message,
    slug: page.slug,
    url: `${wikiUrl}/${page.slug}`,
    action,
    version_id: page.versionId,
  };
}

/**
 * `detailed_status(nil).label` of a pipeline (Gitlab::Ci::Status::Pipeline::Factory: Blocked, Delayed).
 * Differs from GitLab: no "passed with warnings" for a success with allowed failures.
 */
const STATUS_LABEL: Record<string, string> = {
  success: "passed",
  waiting_for_resource: "waiting for resource",
  manual: "waiting for manual action",
  scheduled: "waiting for delayed job",
};

const seconds = (from: Date | string | null, to: Date | string | null) =>
  from && to ? (new Date(to).getTime() - new Date(from).getTime()) / 1000 : null;

/**
 * Gitlab::DataBuilder::Pipeline#build. `status` is the one the event carries (the transition that sent
 * it), not the row's, so a pending event stays pending when the consumer runs after the job started.
 * Differs from GitLab: `merge_request` is always null (no merge request pipelines yet); jobs have no
 * `environment` deployment tier (`deployment_tier: null`).
 */
export function pipelinePayload(hp: HookPipeline, p: HookProject, ctx: Ctx, status: string, users: Map<number, User>, commit: GitCommitRow | null) {
  const pl = hp.pipeline;
  const now = new Date();
  const user = (id: number | null) => {
    const u = id === null ? undefined : users.get(id);
    return u ? userAttrs(u, ctx) : null;
  };
  return {
    object_kind: "pipeline",
    object_attributes: {
      id: pl.id,
      iid: pl.iid,
      ref: pl.ref,
      tag: pl.tag,
      sha: pl.sha,
      before_sha: pl.beforeSha,
      source: pl.source,
      status,
      detailed_status: STATUS_LABEL[status] ?? status,
      stages: hp.stages,
      created_at: hookTime(pl.createdAt),
      finished_at: hookTime(pl.finishedAt),
      duration: pl.duration,
      // Ci::Pipeline#queued_duration: from creation to the start of its first job.
      queued_duration: pl.startedAt ? Math.floor(seconds(pl.createdAt, pl.startedAt)!) : null,
      variables: hp.variables.map((v) => ({ key: v.key, value: v.value })),
    },
    merge_request: null,
    user: user(pl.userId),
    project: projectAttrs(p, ctx),
    commit: commit ? commitAttrs(commit, p, ctx) : null,
    builds: hp.builds.map((b) => {
      const runner = b.runnerId === null ? undefined : hp.runners.get(b.runnerId);
      const environment = b.options.environment as { name?: string; action?: string } | string | null | undefined;
      return {
        id: b.id,
        stage: b.stage,
        name: b.name,
        status: b.status,
        created_at: hookTime(b.createdAt),
        started_at: hookTime(b.startedAt),
        finished_at: hookTime(b.finishedAt),
        duration: b.startedAt ? seconds(b.startedAt, b.finishedAt ?? now) : null,
        queued_duration: b.queuedAt ? seconds(b.queuedAt, b.startedAt ?? now) : null,
        failure_reason: b.status === "failed" ? b.failureReason : null,
        when: b.when,
        manual: b.when === "manual",
        allow_failure: b.allowFailure,
        user: user(b.userId),
        runner: runner
          ? { id: runner.id, description: runner.description, runner_type: runner.runnerType, active: runner.active, is_shared: runner.runnerType === "instance_type", tags: runner.tagList }
          : null,
        artifacts_file: { filename: b.artifact?.filename ?? null, size: b.artifact?.size ?? null },
        environment: environment
          ? typeof environment === "string"
            ? { name: environment, action: "start", deployment_tier: null }
            : { name: environment.name ?? null, action: environment.action ?? "start", deployment_tier: null }
          : null,
      };
    }),
  };
}

/**
 * Gitlab::DataBuilder::Build#build (15.4). `status` is the one the event carries (the transition that
 * sent it); times are the row's, serialised as Rails' JSON does (ISO 8601 with milliseconds), not
 * `hook_attrs`' format. `commit` describes the pipeline (GitLab: "commit.id is actually the pipeline id").
 * `authorUrl`: the profile of the user owning the commit's author e-mail, else `mailto:` that address.
 */
export function jobPayload(hj: HookJob, p: HookProject, ctx: Ctx, status: string, user: User | null, commit: GitCommitRow | null, authorUrl: string | null) {
  const { job, pipeline, runner } = hj;
  const now = new Date();
  const environment = job.options.environment as { name?: string; action?: string } | string | null | undefined;
  return {
    object_kind: "build",
    ref: pipeline.ref,
    tag: pipeline.tag,
    before_sha: pipeline.beforeSha,
    sha: pipeline.sha,
    build_id: job.id,
    build_name: job.name,
    build_stage: job.stage,
    build_status: status,
    build_created_at: isoTime(job.createdAt),
    build_started_at: isoTime(job.startedAt),
    build_finished_at: isoTime(job.finishedAt),
    build_duration: job.startedAt ? seconds(job.startedAt, job.finishedAt ?? now) : null,
    build_queued_duration: job.queuedAt ? seconds(job.queuedAt, job.startedAt ?? now) : null,
    build_allow_failure: job.allowFailure,
    build_failure_reason: job.status === "failed" ? job.failureReason : null,
    pipeline_id: pipeline.id,
    runner: runner
      ? { id: runner.id, description: runner.description, runner_type: runner.runnerType, active: runner.active, is_shared: runner.runnerType === "instance_type", tags: runner.tagList }
      : null,
    project_id: p.id,
    project_name: `${p.namespaceFullName} / ${p.name}`,
    user: user ? userAttrs(user, ctx) : null,
    commit: {
      id: pipeline.id,
      sha: pipeline.sha,
      message: commit?.message ?? null,
      author_name: commit?.authorName ?? null,
      author_email: commit?.authorEmail ?? null,
      author_url: authorUrl,
      status: pipeline.status,
      duration: pipeline.duration,
      started_at: isoTime(pipeline.startedAt),
      finished_at: isoTime(pipeline.finishedAt),
    },
    repository: repositoryAttrs(p, ctx),
    environment: environment
      ? typeof environment === "string"
        ? { name: environment, action: "start" }
        : { name: environment.name ?? null, action: environment.action ?? "start" }
      : null,
  };
}

/** Time#xmlschema of a UTC time: `2021-01-20T09:40:12Z`. */
const xmlschema = (value: string) => `${new Date(value).toISOString().slice(0, 19)}Z`;

/**
 * Gitlab::HookData::SubgroupBuilder (EE, 15.4): the subgroup's times, `subgroup_create` or
 * `subgroup_destroy`, the subgroup and its parent.
 */
export function subgroupPayload(sub: HookSubgroup, parent: HookGroup, action: "create" | "destroy") {
  return {
    created_at: xmlschema(sub.createdAt),
    updated_at: xmlschema(sub.updatedAt),
    event_name: `subgroup_${action}`,
    name: sub.name,
    path: sub.path,
    full_path: sub.fullPath,
    group_id: sub.id,
    parent_group_id: parent.id,
    parent_name: parent.name,
    parent_path: parent.path,
    parent_full_path: parent.fullPath,
  };
}

/**
 * `status_changed_at` as GitLab's Deployments::HooksWorker hands it to the builder (`String#to_time`, a
 * local time, whose `to_s` the payload shows: `2021-04-28 21:50:00 +0200` in GitLab's sample); here UTC.
 */
function offsetTime(value: string): string {
  return `${new Date(value).toISOString().slice(0, 19).replace("T", " ")} +0000`;
}

/**
 * Gitlab::DataBuilder::Deployment#build: `status` and `status_changed_at` are those of the transition
 * the event reports, not the row's (a deployment that ran and succeeded before the consumer read it sends
 * `running` then `success`). `user` is Deployment#deployed_by (the job's user, else the deployment's);
 * `commit_url` and `commit_title` are null when the commit is gone, `deployable_url` without a job.
 */
export function deploymentPayload(hd: HookDeployment, p: HookProject, ctx: Ctx, status: string, statusChangedAt: string, user: User | null, commitTitle: string | null) {
  const { deployment: d, environment: env } = hd;
  return {
    object_kind: "deployment",
    status,
    status_changed_at: offsetTime(statusChangedAt),
    deployment_id: d.id,
    deployable_id: d.deployableId,
    deployable_url: d.deployableId !== null ? `${projectUrl(ctx, p)}/-/jobs/${d.deployableId}` : null,
    environment: env.name,
    environment_tier: env.tier,
    environment_slug: env.slug,
    environment_external_url: env.externalUrl,
    project: projectAttrs(p, ctx),
    short_sha: d.sha.trim().slice(0, 8),
    user: user ? userAttrs(user, ctx) : null,
    user_url: user ? `${ctx.baseUrl}/${user.username}` : null,
    commit_url: commitTitle !== null ? `${projectUrl(ctx, p)}/-/commit/${d.sha.trim()}` : null,
    commit_title: commitTitle,
    ref: d.ref,
  };
}
