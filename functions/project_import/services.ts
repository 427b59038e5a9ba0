import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { strFromU8 } from "fflate";
import { getMimeType } from "hono/utils/mime";
import type { Namespace, User } from "../../db/schema";
import { visibilityLevel, type VisibilityName } from "../kernel/access";
import { isDatabaseUnavailable, type Database, type Executor } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import { ApiError, apiError } from "../kernel/errors";
import { newDiscussionId } from "../shared/issuables/system_notes";
// Deliberate exception to the import rules: an import creates its project with Projects::CreateService
// (GitLab's GitlabProjectsImportService does exactly that), so the project's validations, namespace
// permissions and personal-project limit are the projects domain's own, not a copy.
import { assignTopics, createProject, replaceProject } from "../projects/public";
import type { ProjectRow } from "../entities/projects";
import { EXPORT_VERSION } from "../entities/project_export";
import { ArchiveError, parseBundle, readArchive, relation, type ImportRecord } from "./archive";
import * as q from "./queries";
import { downloadArchive, outboundGuard, RemoteFileError } from "./remote";
import { restoreRepository } from "./repository";
import { PackError } from "../shared/git/pack/pack";
import { TruncatedInput } from "../shared/git/pack/reader";
import { leaseTransferJob } from "../shared/transfer_jobs";
import { avatarErrors, storeAvatar } from "../shared/uploads";

/** Records per transaction (GitLab's relation batches). */
const BATCH = 100;
/** Label::DEFAULT_COLOR, for a label a link names without its color. */
const DEFAULT_LABEL_COLOR = "#6699cc";
const MAINTAINER = 40;

export type OverrideParams = Partial<{
  description: string;
  visibility: VisibilityName;
  issues_enabled: boolean;
  merge_requests_enabled: boolean;
  wiki_enabled: boolean;
  jobs_enabled: boolean;
  snippets_enabled: boolean;
  shared_runners_enabled: boolean;
  public_jobs: boolean;
  request_access_enabled: boolean;
  merge_method: "merge" | "rebase_merge" | "ff";
  squash_option: "never" | "always" | "default_on" | "default_off";
  remove_source_branch_after_merge: boolean;
  only_allow_merge_if_pipeline_succeeds: boolean;
  topics: string[];
}>;

/** The `override_params` that replace a project column as they are (visibility and topics are not plain). */
const OVERRIDDEN_COLUMNS = [
  ["description", "description"], ["issues_enabled", "issuesEnabled"], ["merge_requests_enabled", "mergeRequestsEnabled"],
  ["wiki_enabled", "wikiEnabled"], ["jobs_enabled", "jobsEnabled"], ["snippets_enabled", "snippetsEnabled"],
  ["shared_runners_enabled", "sharedRunnersEnabled"], ["public_jobs", "publicJobs"], ["request_access_enabled", "requestAccessEnabled"],
  ["merge_method", "mergeMethod"], ["squash_option", "squashOption"], ["remove_source_branch_after_merge", "removeSourceBranchAfterMerge"],
  ["only_allow_merge_if_pipeline_succeeds", "onlyAllowMergeIfPipelineSucceeds"],
] as const satisfies readonly (readonly [keyof OverrideParams, keyof q.ProjectSettings])[];

/** Rails' `full_messages.first` of a validation hash: `{path: ["has already been taken"]}` → "Path has already been taken". */
function firstFullMessage(errors: Record<string, string[]>): string {
  const [key, messages] = Object.entries(errors)[0] ?? ["base", ["is invalid"]];
  const attribute = key.replace(/[._]/g, " ");
  return `${attribute.charAt(0).toUpperCase()}${attribute.slice(1)} ${messages[0]}`;
}

export const importKey = (projectId: number, token: string) => `imports/project-${projectId}/${token}.tar.gz`;

/**
 * POST /projects/import's work (Import::GitlabProjects::CreateProjectService): creates the empty
 * project as Projects::CreateService does, stores the archive in R2 and schedules the job. A project
 * GitLab would refuse answers 400 with the first full message, as GitLab does.
 */
export async function scheduleImport(
  db: Database,
  env: Bindings,
  actor: User,
  input: {
    path: string;
    name?: string;
    namespace: Namespace | null;
    /** The uploaded archive, or the URL the job downloads it from (`remote-import`, `remote-import-s3`). */
    file: Uint8Array | { remoteUrl: string };
    override: OverrideParams;
    overwrite: boolean;
    correlationId: string;
    baseUrl: string;
  },
): Promise<ProjectRow & { jobId: number }> {
  // `overwrite_project?`: with `overwrite` and a project at the path, the import goes into a project at a
  // temporary path (`<path>-<SecureRandom.hex>`), which takes the old one's place once imported.
  let path = input.path;
  let originalPath: string | null = null;
  if (input.overwrite && (await q.projectAtPath(db, input.namespace ? { namespaceId: input.namespace.id } : { ownerId: actor.id }, input.path))) {
    originalPath = input.path;
    const hex = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
    path = `${input.path}-${hex}`;
  }
  let created: ProjectRow;
  try {
    created = await createProject(
      db,
      actor,
      {
        name: input.name,
        path,
        namespaceId: input.namespace?.id,
        description: input.override.description,
        visibility: input.override.visibility,
      },
      { limitForbidden: false, accessLevelOf: () => 0, baseUrl: input.baseUrl },
    );
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) {
      const message = (error.body as { message?: unknown }).message;
      if (message && typeof message === "object" && !Array.isArray(message)) throw apiError(firstFullMessage(message as Record<string, string[]>), 400);
    }
    throw error;
  }
  let key: string | null = null;
  if (input.file instanceof Uint8Array) {
    key = importKey(created.id, crypto.randomUUID());
    await env.BLOBS.put(key, input.file, { httpMetadata: { contentType: "application/gzip" } });
  }
  const job = await q.createImportJob(db, {
    projectId: created.id,
    userId: actor.id,
    r2Key: key,
    correlationId: input.correlationId,
    options: {
      override_params: input.override,
      overwrite: input.overwrite,
      ...(originalPath ? { original_path: originalPath } : {}),
      ...(input.file instanceof Uint8Array ? {} : { remote_url: input.file.remoteUrl }),
    },
  });
  return { ...created, jobId: job.id };
}

// ---------------------------------------------------------------------------------------------
// The consumer's work

type Mapper = { userId: (oldId: unknown) => number; mapped: (oldId: unknown) => boolean };

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const rec = (v: unknown): ImportRecord | null => (v && typeof v === "object" && !Array.isArray(v) ? (v as ImportRecord) : null);
const list = (v: unknown): ImportRecord[] => (Array.isArray(v) ? v.map(rec).filter((r): r is ImportRecord => r !== null) : []);

/**
 * Runs `work` over `records` in batches, each in one transaction; a batch that fails is retried one
 * record per transaction, and each record that still fails becomes a failed relation (ImportFailure)
 * instead of failing the import.
 */
async function inBatches<T>(
  db: Database,
  job: { id: number; projectId: number },
  relationKey: string,
  records: T[],
  work: (tx: Executor, batch: T[]) => Promise<void>,
): Promise<void> {
  for (let i = 0; i < records.length; i += BATCH) {
    const batch = records.slice(i, i + BATCH);
    try {
      await db.transaction((tx) => work(tx, batch));
      continue;
    } catch (error) {
      if (batch.length === 1) {
        await fail(db, job, relationKey, error);
        continue;
      }
    }
    for (const one of batch) {
      try {
        await db.transaction((tx) => work(tx, [one]));
      } catch (error) {
        await fail(db, job, relationKey, error);
      }
    }
  }
}

async function fail(db: Database, job: { id: number; projectId: number }, relationKey: string, error: unknown) {
  const err = error instanceof Error ? error : new Error(String(error));
  // The database's reason, when there is one (drizzle wraps it with the statement).
  const cause = (err as { cause?: unknown }).cause;
  const message = cause instanceof Error ? cause.message : err.message;
  await q.recordFailure(db, {
    projectId: job.projectId,
    jobId: job.id,
    relationKey,
    source: "process_relation_item!",
    exceptionClass: (cause instanceof Error ? cause : err).constructor.name,
    exceptionMessage: message.slice(0, 1000),
  });
}

/**
 * Gitlab::ImportExport::MembersMapper: exported members are matched to users by their public email;
 * matched users become members (Owner capped at Maintainer unless the importer is an admin), the
 * importer becomes a Maintainer, and every user reference that matches no one becomes the importer.
 */
async function restoreMembers(db: Database, projectId: number, importer: User, records: ImportRecord[]): Promise<Mapper> {
  const byEmail = new Map<string, ImportRecord>();
  for (const member of records) {
    const email = str(rec(member.user)?.public_email) ?? str(rec(member.user)?.email);
    if (email) byEmail.set(email.toLowerCase(), member);
  }
  const found = await q.usersByEmail(db, [...byEmail.keys()]);
  const map = new Map<number, number>();
  const rows: { userId: number; accessLevel: number; expiresAt: string | null; createdById: number }[] = [
    { userId: importer.id, accessLevel: MAINTAINER, expiresAt: null, createdById: importer.id },
  ];
  for (const user of found) {
    const member = byEmail.get(user.email.toLowerCase())!;
    const oldId = Number(rec(member.user)?.id ?? member.user_id);
    if (Number.isInteger(oldId)) map.set(oldId, user.id);
    if (user.id === importer.id) continue;
    const level = Number(member.access_level);
    if (!Number.isInteger(level) || level <= 0) continue;
    rows.push({
      userId: user.id,
      accessLevel: importer.admin ? level : Math.min(level, MAINTAINER),
      expiresAt: str(member.expires_at),
      createdById: importer.id,
    });
  }
  await db.transaction((tx) => q.insertMembers(tx, projectId, rows));
  return {
    userId: (oldId) => map.get(Number(oldId)) ?? importer.id,
    mapped: (oldId) => map.has(Number(oldId)),
  };
}

/** The labels an issuable's links name: by nested label (GitLab's layout), else by the exported id. */
function linkedLabels(record: ImportRecord, labelTitleById: Map<number, string>): { title: string; label: ImportRecord | null }[] {
  const out: { title: string; label: ImportRecord | null }[] = [];
  for (const link of list(record.label_links)) {
    const label = rec(link.label);
    const title = str(label?.title) ?? labelTitleById.get(Number(link.label_id));
    if (title) out.push({ title, label });
  }
  return out;
}

/** Notes as RelationFactory#setup_note restores them: mapped authors, GitLab's note for a missing one. */
function noteRows(record: ImportRecord, users: Mapper): q.NoteRow[] {
  return list(record.notes).map((note) => {
    const row = q.columnsFrom("notes", note, ["noteableType", "noteableId", "projectId", "authorId", "resolvedById", "updatedById"]);
    let body = str(note.note) ?? "";
    const authorName = str(rec(note.author)?.name);
    if (!users.mapped(note.author_id) && authorName) {
      if (body.trim() === "") body = "*Blank note*";
      const stamp = (str(note.updated_at) ?? str(note.created_at) ?? "").split(".")[0];
      body = `*By ${authorName} on ${stamp} (imported from GitLab)*\n\n${body}`;
    }
    const discussionId = str(note.discussion_id);
    // Differs from GitLab: diff notes (DiffNote, positions on a merge request's diff) come back as
    // discussion notes; Edgeforge keeps no diff positions.
    const type = str(note.type);
    return {
      ...row,
      note: body,
      authorId: users.userId(note.author_id),
      resolvedById: note.resolved_by_id == null ? null : users.userId(note.resolved_by_id),
      updatedById: null,
      type: type === null ? null : "DiscussionNote",
      discussionId: discussionId && /^[0-9a-f]{40}$/.test(discussionId) ? discussionId : newDiscussionId(),
    };
  });
}

/** `issue_assignees`, `merge_request_assignees`, `merge_request_reviewers`: `user_id`s, mapped. */
function userList(records: unknown, users: Mapper): number[] {
  return list(records).flatMap((r) => (r.user_id == null ? [] : [users.userId(r.user_id)]));
}

/** Time logs (`timelogs`), their users mapped; a log without a positive time does not fit and is left out. */
function timelogRows(record: ImportRecord, users: Mapper): q.TimelogRow[] {
  return list(record.timelogs).flatMap((t) => {
    const seconds = Number(t.time_spent);
    if (!Number.isInteger(seconds) || seconds === 0) return [];
    const date = (v: unknown) => (v == null || Number.isNaN(new Date(String(v)).getTime()) ? null : new Date(String(v)));
    const createdAt = date(t.created_at);
    return [{ timeSpent: seconds, userId: users.userId(t.user_id), spentAt: date(t.spent_at), summary: str(t.summary), ...(createdAt ? { createdAt } : {}) }];
  });
}

function awardRows(record: ImportRecord, users: Mapper): q.AwardRow[] {
  return list(record.award_emoji).flatMap((a) => (str(a.name) ? [{ name: str(a.name)!, userId: users.userId(a.user_id) }] : []));
}

/** Project attributes from `project.json` (and its `project_feature`/`project_setting`), then `override_params`. */
function projectSettings(json: ImportRecord, override: OverrideParams, namespace: Namespace): q.ProjectSettings {
  const out: q.ProjectSettings = {};
  const bool = (v: unknown) => (typeof v === "boolean" ? v : undefined);
  const feature = rec(json.project_feature);
  const setting = rec(json.project_setting);
  const enabled = (flag: unknown, accessLevel: unknown) => bool(flag) ?? (typeof accessLevel === "number" ? accessLevel > 0 : undefined);
  const assign = <K extends keyof q.ProjectSettings>(key: K, value: q.ProjectSettings[K] | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  assign("description", str(json.description) ?? undefined);
  assign("archived", bool(json.archived));
  assign("issuesEnabled", enabled(json.issues_enabled, feature?.issues_access_level));
  assign("mergeRequestsEnabled", enabled(json.merge_requests_enabled, feature?.merge_requests_access_level));
  assign("wikiEnabled", enabled(json.wiki_enabled, feature?.wiki_access_level));
  assign("jobsEnabled", enabled(json.jobs_enabled, feature?.builds_access_level));
  assign("snippetsEnabled", enabled(json.snippets_enabled, feature?.snippets_access_level));
  assign("sharedRunnersEnabled", bool(json.shared_runners_enabled));
  assign("publicJobs", bool(json.public_jobs) ?? bool(json.public_builds));
  assign("requestAccessEnabled", bool(json.request_access_enabled));
  const method = str(json.merge_method) ?? (json.merge_requests_ff_only_enabled === true ? "ff" : json.merge_requests_rebase_enabled === true ? "rebase_merge" : null);
  if (method === "merge" || method === "rebase_merge" || method === "ff") out.mergeMethod = method;
  const squash = str(json.squash_option) ?? str(setting?.squash_option);
  if (squash && ["never", "always", "default_on", "default_off"].includes(squash)) out.squashOption = squash;
  assign("removeSourceBranchAfterMerge", bool(json.remove_source_branch_after_merge));
  assign("onlyAllowMergeIfPipelineSucceeds", bool(json.only_allow_merge_if_pipeline_succeeds));
  assign("mrDefaultTargetSelf", bool(json.mr_default_target_self));
  const topics = Array.isArray(json.topics) ? json.topics : json.tag_list;
  if (Array.isArray(topics)) out.tagList = topics.filter((t): t is string => typeof t === "string");

  const o = override;
  for (const [param, column] of OVERRIDDEN_COLUMNS) if (o[param] !== undefined) Object.assign(out, { [column]: o[param] });
  if (o.topics) out.tagList = o.topics;

  // ProjectTreeRestorer#visibility_level: the override, else the export's, held to the group's.
  let level = o.visibility ? visibilityLevel(o.visibility) : typeof json.visibility_level === "number" ? json.visibility_level : undefined;
  if (level !== undefined) {
    if (![0, 10, 20].includes(level)) level = 0;
    if (namespace.type === "Group" && level > namespace.visibilityLevel) level = namespace.visibilityLevel;
    out.visibilityLevel = level;
  }
  return out;
}

/** The work of one import job, after its lease: everything but the job's own state. */
async function restore(db: Database, env: Bindings, job: { id: number; projectId: number; userId: number | null; r2Key: string | null; options: Record<string, unknown> }) {
  const target = await q.importTarget(db, job.projectId);
  if (!target) throw new ArchiveError("The project no longer exists");
  const importer = job.userId === null ? null : await q.importer(db, job.userId);
  if (!importer) throw new ArchiveError("The user who started the import no longer exists");
  const files = readArchive(await archiveBytes(db, env, job));

  // Gitlab::ImportExport::VersionChecker.
  const version = files.get("VERSION");
  if (!version) throw new ArchiveError("Invalid file: VERSION is missing");
  const found = strFromU8(version).trim();
  if (found !== EXPORT_VERSION) throw new ArchiveError(`Import version mismatch: Required ${EXPORT_VERSION} but was ${found}`);
  const projectFile = files.get("tree/project.json");
  if (!projectFile) throw new ArchiveError("Invalid file: tree/project.json is missing (only the ndjson layout of GitLab 14.0 and later is read)");
  let projectJson: ImportRecord;
  try {
    projectJson = rec(JSON.parse(strFromU8(projectFile))) ?? {};
  } catch {
    throw new ArchiveError("Invalid file: tree/project.json is not JSON");
  }
  const read = (name: string) => {
    try {
      return relation(files, name);
    } catch {
      throw new ArchiveError(`Invalid file: tree/project/${name}.ndjson is not ndjson`);
    }
  };
  const project = target.project;
  const projectId = project.id;
  const override = (job.options.override_params ?? {}) as OverrideParams;

  // The repository first (GitLab's RepoRestorer runs before the tree): a repository that cannot be
  // restored fails the import.
  const bundleFile = files.get("project.bundle");
  let defaultBranch: string | null = null;
  if (bundleFile) {
    try {
      defaultBranch = await restoreRepository(db, { id: projectId, poolId: project.poolId ?? projectId }, parseBundle(bundleFile), str(projectJson.default_branch));
    } catch (error) {
      // A database error retries the message; anything else is a bundle git cannot read either.
      if (error instanceof ArchiveError || isDatabaseError(error)) throw error;
      throw new ArchiveError(`Failed to restore the repository: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  const users = await restoreMembers(db, projectId, importer, read("project_members"));

  // Labels and milestones, with those that only issuables' links name (by title).
  const labelRecords = read("labels");
  const issueRecords = read("issues");
  const mrRecords = read("merge_requests");
  const labelTitleById = new Map<number, string>();
  for (const l of labelRecords) if (str(l.title)) labelTitleById.set(Number(l.id), str(l.title)!);
  const labelRows = new Map<string, ImportRecord>();
  for (const l of labelRecords) if (str(l.title)) labelRows.set(str(l.title)!, l);
  for (const issuable of [...issueRecords, ...mrRecords])
    for (const { title, label } of linkedLabels(issuable, labelTitleById)) if (!labelRows.has(title)) labelRows.set(title, label ?? { title });
  let labelIds = new Map<string, number>();
  await inBatches(db, job, "labels", [...labelRows.values()], async (tx, batch) => {
    const rows = batch.map((l) => ({ ...q.columnsFrom("labels", l, ["projectId", "groupId"]), color: str(l.color) ?? DEFAULT_LABEL_COLOR }));
    labelIds = await q.insertLabels(tx, projectId, rows);
  });
  if (labelIds.size === 0) labelIds = await q.insertLabels(db, projectId, []);

  const milestoneRecords = read("milestones");
  const milestoneTitleById = new Map<number, string>();
  const milestoneRows = new Map<string, ImportRecord>();
  for (const m of milestoneRecords) {
    if (!str(m.title)) continue;
    milestoneTitleById.set(Number(m.id), str(m.title)!);
    milestoneRows.set(str(m.title)!, m);
  }
  for (const issuable of [...issueRecords, ...mrRecords]) {
    const nested = rec(issuable.milestone);
    if (nested && str(nested.title) && !milestoneRows.has(str(nested.title)!)) milestoneRows.set(str(nested.title)!, nested);
  }
  let nextMilestoneIid = Math.max(0, ...[...milestoneRows.values()].map((m) => Number(m.iid) || 0));
  let milestoneIds = new Map<string, number>();
  await inBatches(db, job, "milestones", [...milestoneRows.values()], async (tx, batch) => {
    const rows = batch.map((m) => ({ ...q.columnsFrom("milestones", m, ["projectId", "groupId"]), iid: Number(m.iid) || ++nextMilestoneIid }));
    milestoneIds = await q.insertMilestones(tx, projectId, rows);
  });
  if (milestoneIds.size === 0) milestoneIds = await q.insertMilestones(db, projectId, []);
  const milestoneOf = (r: ImportRecord) => {
    const title = str(rec(r.milestone)?.title) ?? milestoneTitleById.get(Number(r.milestone_id));
    return title ? (milestoneIds.get(title) ?? null) : null;
  };
  const labelsOf = (r: ImportRecord) => linkedLabels(r, labelTitleById).flatMap(({ title }) => (labelIds.has(title) ? [labelIds.get(title)!] : []));
  const optionalUser = (v: unknown) => (v == null ? null : users.userId(v));

  await inBatches(db, job, "issues", issueRecords, (tx, batch) =>
    q.insertIssuables(
      tx,
      "Issue",
      projectId,
      batch.map((r) => ({
        row: {
          ...q.columnsFrom("issues", r, ISSUE_EXCEPT),
          iid: Number(r.iid),
          authorId: users.userId(r.author_id),
          closedById: optionalUser(r.closed_by_id),
          milestoneId: milestoneOf(r),
        },
        notes: noteRows(r, users),
        labelIds: labelsOf(r),
        awards: awardRows(r, users),
        assignees: userList(r.issue_assignees, users),
        reviewers: [],
        timelogs: timelogRows(r, users),
      })),
    ),
  );

  await inBatches(db, job, "merge_requests", mrRecords, (tx, batch) =>
    q.insertIssuables(
      tx,
      "MergeRequest",
      projectId,
      batch.map((r) => {
        const diff = rec(r.merge_request_diff);
        const metrics = rec(r.metrics);
        return {
          row: {
            ...q.columnsFrom("mergeRequests", r, MR_EXCEPT),
            iid: Number(r.iid),
            // Differs from GitLab: a merge request from another project comes back as one from this
            // project (its source branch, when the bundle has it, is this repository's).
            sourceProjectId: projectId,
            sha: str(r.sha) ?? str(diff?.head_commit_sha) ?? str(r.source_branch_sha),
            authorId: users.userId(r.author_id),
            closedById: optionalUser(r.closed_by_id ?? metrics?.latest_closed_by_id),
            mergedById: optionalUser(r.merged_by_id ?? metrics?.merged_by_id),
            mergeUserId: optionalUser(r.merge_user_id),
            mergedAt: r.merged_at ? new Date(String(r.merged_at)) : metrics?.merged_at ? new Date(String(metrics.merged_at)) : null,
            milestoneId: milestoneOf(r),
          },
          notes: noteRows(r, users),
          labelIds: labelsOf(r),
          awards: awardRows(r, users),
          assignees: userList(r.merge_request_assignees, users),
          reviewers: userList(r.merge_request_reviewers, users),
          timelogs: timelogRows(r, users),
        };
      }),
    ),
  );

  await inBatches(db, job, "project_badges", read("project_badges"), (tx, batch) =>
    q.insertBadges(tx, projectId, batch.map((b) => q.columnsFrom("badges", b, ["projectId", "groupId", "type"]))),
  );

  await inBatches(db, job, "snippets", read("snippets"), (tx, batch) =>
    q.insertSnippets(
      tx,
      projectId,
      batch.map((r) => ({
        row: {
          ...q.columnsFrom("snippets", r, ["projectId", "authorId"]),
          title: str(r.title) ?? "",
          authorId: users.userId(r.author_id),
        },
        notes: noteRows(r, users),
        awards: awardRows(r, users),
      })),
    ),
  );

  const pipelineRecords = read("ci_pipelines");
  let nextPipelineIid = Math.max(0, ...pipelineRecords.map((p) => Number(p.iid) || 0));
  await inBatches(db, job, "ci_pipelines", pipelineRecords, (tx, batch) =>
    q.insertPipelines(tx, projectId, batch.map((r) => pipelineRow(r, users, () => ++nextPipelineIid))),
  );

  await inBatches(db, job, "protected_branches", read("protected_branches"), (tx, batch) =>
    q.insertProtectedBranches(
      tx,
      projectId,
      batch.map((r) => {
        const { name, allowForcePush, codeOwnerApprovalRequired, createdAt, updatedAt } = q.columnsFrom("protectedBranches", r, ["projectId"]);
        return {
          row: { name: name as string, allowForcePush, codeOwnerApprovalRequired, createdAt, updatedAt },
          levels: (["push", "merge", "unprotect"] as const).flatMap((action) =>
            list(r[`${action}_access_levels`]).flatMap((l) => (typeof l.access_level === "number" ? [{ action, accessLevel: l.access_level }] : [])),
          ),
        };
      }),
    ),
  );

  // Edgeforge's extensions of the archive (functions/entities/project_export.ts#exportTree): issue links,
  // user lists, feature flags and CI/CD variables. Deliberate difference from GitLab: GitLab's archive
  // has no such relations, so its importer restores none of them.
  const issueIds = await q.issueIdsByIid(db, projectId);
  await inBatches(db, job, "issue_links", read("issue_links"), (tx, batch) =>
    q.insertIssueLinks(
      tx,
      batch.map((r) => {
        const sourceId = issueIds.get(Number(r.source_issue_iid));
        const targetId = issueIds.get(Number(r.target_issue_iid));
        // A link whose issue did not come back does not fit: its batch records it as a failed relation.
        if (sourceId === undefined || targetId === undefined) throw new Error("An issue link needs both of its issues");
        const { linkType, createdAt, updatedAt } = dated(r);
        if (linkType !== null && !LINK_TYPES.has(linkType)) throw new Error(`Unknown link_type ${linkType}`);
        return { sourceId, targetId, linkType: linkType ?? "relates_to", ...(createdAt ? { createdAt } : {}), ...(updatedAt ? { updatedAt } : {}) };
      }),
    ),
  );

  const userListRecords = read("operations_user_lists");
  let nextListIid = Math.max(0, ...userListRecords.map((l) => Number(l.iid) || 0));
  let userListIds = new Map<number, number>();
  await inBatches(db, job, "operations_user_lists", userListRecords, async (tx, batch) => {
    const rows = batch.map((l) => ({
      ...q.columnsFrom("operationsUserLists", l, ["projectId"]),
      iid: Number.isInteger(l.iid) && Number(l.iid) > 0 ? Number(l.iid) : ++nextListIid,
      name: str(l.name)!,
    }));
    userListIds = await q.insertUserLists(tx, projectId, rows);
  });
  if (userListIds.size === 0) userListIds = await q.insertUserLists(db, projectId, []);

  const flagRecords = read("operations_feature_flags");
  let nextFlagIid = Math.max(0, ...flagRecords.map((f) => Number(f.iid) || 0));
  await inBatches(db, job, "operations_feature_flags", flagRecords, (tx, batch) =>
    q.insertFeatureFlags(
      tx,
      projectId,
      batch.map((r) => ({
        row: {
          ...q.columnsFrom("operationsFeatureFlags", r, ["projectId"]),
          iid: Number.isInteger(r.iid) && Number(r.iid) > 0 ? Number(r.iid) : ++nextFlagIid,
          name: str(r.name)!,
        },
        strategies: list(r.strategies).map((st) => {
          const listIid = rec(st.user_list)?.iid;
          const userListId = listIid == null ? null : (userListIds.get(Number(listIid)) ?? null);
          // A `gitlabUserList` strategy whose list did not come back does not fit (failed relation).
          if (listIid != null && userListId === null) throw new Error("A strategy's user list is missing");
          return {
            name: str(st.name) ?? "default",
            parameters: rec(st.parameters) ?? {},
            userListId,
            scopes: list(st.scopes).flatMap((sc) => (str(sc.environment_scope) ? [str(sc.environment_scope)!] : [])),
          };
        }),
        legacyScopes: list(r.scopes).map((sc) => q.columnsFrom("operationsFeatureFlagScopes", sc, ["featureFlagId"])),
      })),
    ),
  );

  await inBatches(db, job, "ci_variables", read("ci_variables"), (tx, batch) =>
    q.insertVariables(
      tx,
      projectId,
      batch.map((r) => ({ ...q.columnsFrom("ciVariables", r, ["projectId"]), key: str(r.key)!, value: str(r.value)! })),
    ),
  );

  // UploadsManager#restore and LfsRestorer, after the tree as in GitLab's Importer.
  await restoreUploads(db, env.BLOBS, job, projectId, importer.id, files);
  await restoreLfsObjects(db, env.BLOBS, projectId, files);
  await restoreAvatar(db, env.BLOBS, job, projectId, files);

  await db.transaction(async (tx) => {
    const settings = projectSettings(projectJson, override, target.namespace);
    // `default_branch` moves with the repository (restoreRepository picked it); never to a missing branch.
    if (defaultBranch) settings.defaultBranch = defaultBranch;
    // The topics go through the one writer of a project's topics (which keeps `tag_list`).
    const { tagList: topics, ...columns } = settings;
    await q.updateProjectSettings(tx, projectId, columns);
    if (topics) await assignTopics(tx, projectId, topics);
    await q.recount(tx, projectId);
  });

  const originalPath = str(job.options.original_path);
  if (originalPath) await overwrite(db, projectId, originalPath, importer.id);
}

/**
 * Gitlab::ImportExport::Importer#overwrite_project and Projects::OverwriteProjectService: the project
 * at the original path passes its members, shares, stars and forks to the imported one, is destroyed,
 * and the imported one takes its name and path — one transaction, both rows locked, so readers see the
 * old project or the new one at the path, never neither. As in GitLab, nothing happens when the importer
 * may not `admin_namespace` or when the old project is gone (the import keeps its temporary path).
 */
async function overwrite(db: Database, projectId: number, originalPath: string, userId: number) {
  await db.transaction(async (tx) => {
    const old = await q.projectToOverwrite(tx, projectId, originalPath, userId);
    if (!old || !old.mayAdmin) return;
    await q.moveBeforeOverwrite(tx, old.id, projectId);
    await replaceProject(tx, projectId, old);
  });
}

/** FileUploader::DYNAMIC_PATH_PATTERN: `uploads/<secret>/<file name>`, the secret 10 or 32 hex digits. */
const UPLOAD_PATH = /^uploads\/([0-9a-f]{10}|[0-9a-f]{32})\/([^/]+)$/;

/**
 * UploadsManager#restore: each `uploads/<secret>/<file name>` becomes an attachment of the project at
 * the same secret and name (UploadService with the archive's dynamic path), so the Markdown of imported
 * issues and notes still points at it: the bytes in R2 at the uploads domain's key, then the row. A
 * member outside that layout is a failed relation, not a failed import. Deliberate difference: the uploader is the importer, as
 * GitLab's restored uploads have no uploader.
 */
async function restoreUploads(db: Database, bucket: R2Bucket, job: { id: number; projectId: number }, projectId: number, importerId: number, files: Map<string, Uint8Array>) {
  for (const [path, bytes] of files) {
    if (!path.startsWith("uploads/")) continue;
    const match = UPLOAD_PATH.exec(path);
    if (!match) {
      await fail(db, job, "uploads", new Error(`${path} is not an upload path (uploads/<secret>/<filename>)`));
      continue;
    }
    const [, secret, fileName] = match;
    const key = `uploads/${projectId}/${secret}/${fileName}`;
    // The archive does not carry the type the uploader sent: the extension's, without parameters.
    const contentType = getMimeType(fileName)?.split(";")[0] ?? "application/octet-stream";
    await bucket.put(key, bytes, { httpMetadata: { contentType } });
    await q.insertUpload(db, {
      size: bytes.length,
      path: `${secret}/${fileName}`,
      checksum: bytesToHex(sha256(bytes)),
      modelType: "Project",
      modelId: projectId,
      uploader: "FileUploader",
      secret,
      contentType,
      r2Key: key,
      uploadedById: importerId,
    });
  }
}

/**
 * AvatarRestorer: the first `avatar/<filename>` becomes the project's avatar through the one avatar
 * writer (`shared/uploads.ts#storeAvatar`: R2 at AvatarUploader's path, `avatar_url`). An avatar
 * Avatarable refuses (format, 200 KB) is a failed relation instead of a failed import (GitLab's save
 * would fail the import).
 */
async function restoreAvatar(db: Database, bucket: R2Bucket, job: { id: number; projectId: number }, projectId: number, files: Map<string, Uint8Array>) {
  const entry = [...files].find(([path]) => /^avatar\/[^/]+$/.test(path));
  if (!entry) return;
  const file = new File([entry[1]], entry[0].slice("avatar/".length));
  const errors = avatarErrors(file);
  if (errors.length > 0) {
    await fail(db, job, "avatar", new Error(`Avatar ${errors.join(", ")}`));
    return;
  }
  await storeAvatar(db, bucket, "project", projectId, file);
}

/** LfsObjectsProject.repository_types as `lfs-objects.json` writes them (GitLab's enum or its value) → Edgeforge's column (null: the project). */
const REPOSITORY_TYPES: Record<string, number | null> = { project: null, "0": null, wiki: 1, "1": 1, design: 2, "2": 2 };

/**
 * LfsRestorer: each `lfs-objects/<oid>` is an LFS object whose oid is its content's SHA-256 (as GitLab
 * computes it, not the member's name), stored unless this instance has that oid already, and linked to
 * the project with the repository type `lfs-objects.json` gives it (archives without that file: the
 * project). Stored at the LFS domain's key layout. An oid the file does not list is linked as the
 * project's (deliberate difference: GitLab 15.4 fails the import on it); a bad `lfs-objects.json` fails
 * the import with GitLab's "Incorrect JSON format".
 */
async function restoreLfsObjects(db: Database, bucket: R2Bucket, projectId: number, files: Map<string, Uint8Array>) {
  const members = [...files].filter(([path]) => /^lfs-objects\/[^/]+$/.test(path));
  if (members.length === 0) return;
  let types: ImportRecord = {};
  const json = files.get("lfs-objects.json");
  if (json) {
    try {
      types = rec(JSON.parse(strFromU8(json))) ?? {};
    } catch {
      throw new ArchiveError("Incorrect JSON format");
    }
  }
  const objects = members.map(([, bytes]) => ({ oid: bytesToHex(sha256(bytes)), bytes }));
  const stored = await q.lfsObjectsByOid(db, objects.map((o) => o.oid));
  for (const { oid, bytes } of objects) {
    const listed = Array.isArray(types[oid]) ? (types[oid] as unknown[]) : [null];
    const repositoryType = listed.map((t) => REPOSITORY_TYPES[String(t ?? "project")]).find((t) => t !== undefined) ?? null;
    let file: string | null = null;
    if (!stored.has(oid)) {
      file = `lfs-objects/${oid.slice(0, 2)}/${oid.slice(2, 4)}/${oid}-${crypto.randomUUID()}`;
      await bucket.put(file, bytes, { httpMetadata: { contentType: "application/octet-stream" } });
    }
    // A concurrent writer of the same oid may not be visible to the first statement: ask once more.
    const linked = (await q.linkLfsObject(db, projectId, { oid, size: bytes.length, file }, repositoryType)) ?? (await q.linkLfsObject(db, projectId, { oid, size: bytes.length, file }, repositoryType));
    if (!linked) throw new Error(`LFS object ${oid} could not be recorded`);
    if (file && !linked.created) await bucket.delete(file);
  }
}

/** IssueLink.link_types as Edgeforge stores them (`is_blocked_by` is a `blocks` row the other way). */
const LINK_TYPES = new Set(["relates_to", "blocks"]);

/** An issue link's `link_type` and timestamps (unparseable times are left to the defaults). */
function dated(r: ImportRecord): { linkType: string | null; createdAt: Date | null; updatedAt: Date | null } {
  const date = (v: unknown) => (typeof v === "string" && !Number.isNaN(new Date(v).getTime()) ? new Date(v) : null);
  return { linkType: str(r.link_type), createdAt: date(r.created_at), updatedAt: date(r.updated_at) };
}

/** Pipeline and job statuses that are over: anything else would be picked up again here (see below). */
const DONE_STATUSES = new Set(["success", "failed", "canceled", "skipped", "manual"]);
/** GitLab's STI class of a status (`type`) as Edgeforge's `ci_builds.type`; generic commit statuses are not jobs here. */
const JOB_TYPES: Record<string, string> = { "Ci::Build": "build", "Ci::Bridge": "bridge", build: "build", bridge: "bridge" };

/**
 * A `ci_pipelines` record as rows: the pipeline (its user mapped), its stages, and each stage's jobs from
 * `statuses` (GitLab 15.4's layout) or `builds`/`bridges` (the layout of later 15.x exports).
 * Deliberate difference from GitLab: a pipeline or job exported while it was still created, pending,
 * running or scheduled comes back `canceled`. GitLab's imported jobs never run (no Sidekiq job and no
 * queue entry is made for them); here a pending job row is what runners claim, so it may not stay pending.
 */
function pipelineRow(r: ImportRecord, users: Mapper, nextIid: () => number): q.PipelineBatch[number] {
  // A pipeline without its ref or commit does not fit: its batch records it as a failed relation.
  if (!str(r.ref) || !str(r.sha)) throw new Error("A pipeline needs its ref and sha");
  const settle = (status: unknown) => (typeof status === "string" && DONE_STATUSES.has(status) ? status : "canceled");
  const row = q.columnsFrom("ciPipelines", r, ["projectId", "userId", "pushEventId", "parentPipelineId", "sourceJobId", "pipelineScheduleId", "triggerId"]);
  const stages = list(r.stages).map((stage, index) => {
    const name = str(stage.name) ?? `stage-${index}`;
    const position = typeof stage.position === "number" ? stage.position : index;
    const jobs = [...list(stage.statuses), ...list(stage.builds), ...list(stage.bridges)].flatMap((b): q.BuildRow[] => {
      const type = JOB_TYPES[str(b.type) ?? "Ci::Build"];
      if (!type || !str(b.name)) return [];
      const columns = q.columnsFrom("ciBuilds", b, ["pipelineId", "projectId", "stageId", "userId", "runnerId", "tokenDigest", "processed", "traceSize", "type"]);
      return [
        {
          ...columns,
          name: str(b.name)!,
          stage: str(b.stage) ?? name,
          stageIdx: typeof b.stage_idx === "number" ? b.stage_idx : position,
          type,
          status: settle(b.status),
          processed: true,
          userId: b.user_id == null ? null : users.userId(b.user_id),
        },
      ];
    });
    return { row: { name, position, status: settle(stage.status) }, builds: jobs };
  });
  return {
    row: {
      ...row,
      iid: Number.isInteger(Number(r.iid)) && Number(r.iid) > 0 ? Number(r.iid) : nextIid(),
      ref: str(r.ref)!,
      sha: str(r.sha)!,
      source: str(r.source) ?? "push",
      status: settle(r.status),
      userId: r.user_id == null ? null : users.userId(r.user_id),
    },
    stages,
  };
}

// Counters and caches are recomputed; references to other rows are mapped by the caller.
const ISSUE_EXCEPT = ["projectId", "authorId", "closedById", "milestoneId", "movedToId", "duplicatedToId", "iterationId", "labelIds", "userNotesCount", "upvotes", "downvotes", "totalTimeSpent"];
const MR_EXCEPT = [
  "projectId", "sourceProjectId", "authorId", "closedById", "mergedById", "mergeUserId", "milestoneId", "mergeCheckSourceSha", "mergeCheckTargetSha",
  "userNotesCount", "upvotes", "downvotes", "totalTimeSpent",
];

/**
 * Runs one import job (the queue consumer's work): takes its lease (a redelivery of a finished or held
 * job does nothing), clears what an earlier attempt left, restores the archive, and records the
 * outcome. A broken archive fails the job with its `import_error`; a database outage throws, so the
 * queue retries.
 */
export async function runImport(db: Database, env: Bindings, jobId: number, leaseSeconds = 600): Promise<"done" | "skipped" | "failed"> {
  const job = await leaseTransferJob(db, jobId, "import", leaseSeconds);
  if (!job) return "skipped";
  if (job.attempts > 1) await db.transaction((tx) => q.resetImportedRelations(tx, job.projectId, job.id));
  try {
    await restore(db, env, job);
  } catch (error) {
    if (!(error instanceof ArchiveError) && !isArchiveShape(error)) throw error;
    await q.failImportJob(db, job.id, (error as Error).message);
    return "failed";
  }
  await q.finishImportJob(db, job.id);
  // GitLab removes the uploaded archive once the import is done.
  if (job.r2Key) await env.BLOBS.delete(job.r2Key);
  return "done";
}

/**
 * The job's archive: the uploaded file in R2, or the remote file downloaded now (through the outbound
 * guard as it stands at the download). A download that fails fails the import with its reason.
 */
async function archiveBytes(db: Database, env: Bindings, job: { r2Key: string | null; options: Record<string, unknown> }): Promise<Uint8Array> {
  const remoteUrl = job.options.remote_url;
  if (typeof remoteUrl === "string") {
    try {
      return await downloadArchive(remoteUrl, await outboundGuard(db));
    } catch (error) {
      if (isDatabaseError(error)) throw error;
      throw new ArchiveError(error instanceof RemoteFileError ? error.message : `Failed to download the import file: ${(error as Error).message}`);
    }
  }
  const object = job.r2Key ? await env.BLOBS.get(job.r2Key) : null;
  if (!object) throw new ArchiveError("The import file is no longer available");
  return new Uint8Array(await object.arrayBuffer());
}

/** An error the database (or the way to it) raised: a Postgres error code, or the driver failing. */
function isDatabaseError(error: unknown): boolean {
  return isDatabaseUnavailable(error) || (typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string") || (error instanceof Error && (error as { cause?: unknown }).cause !== undefined);
}

/** Errors that mean a malformed archive (a bad pack, bad JSON), not a failing database. */
function isArchiveShape(error: unknown): boolean {
  return error instanceof SyntaxError || error instanceof PackError || error instanceof TruncatedInput;
}

