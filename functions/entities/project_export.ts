import * as z from "zod";
import type { Namespace, Project, ProjectTransferJob } from "../../db/schema";
import { type PresentContext, webUrl } from "../kernel/present";
import { ProjectIdentity, projectIdentity } from "./projects";
import type {
  awardEmoji,
  badges,
  ciBuilds,
  ciPipelines,
  ciStages,
  ciVariables,
  issueAssignees,
  issues,
  labels,
  members,
  mergeRequestAssignees,
  mergeRequestReviewers,
  mergeRequests,
  milestones,
  notes,
  operationsFeatureFlags,
  operationsFeatureFlagScopes,
  operationsScopes,
  operationsStrategies,
  operationsUserLists,
  protectedBranchAccessLevels,
  protectedBranches,
  snippets,
  timelogs,
} from "../../db/schema";

type RowOf<T extends { $inferSelect: unknown }> = T["$inferSelect"];

/** Everything the archive holds, as project_export/queries `exportRelations` loads it (a fixed number of statements). */
export type ExportRelations = {
  project: Project;
  labelRows: RowOf<typeof labels>[];
  milestoneRows: RowOf<typeof milestones>[];
  issueRows: RowOf<typeof issues>[];
  mrRows: RowOf<typeof mergeRequests>[];
  memberRows: { member: RowOf<typeof members>; user: { id: number; username: string; publicEmail: string | null } }[];
  badgeRows: RowOf<typeof badges>[];
  noteRows: RowOf<typeof notes>[];
  snippetRows: RowOf<typeof snippets>[];
  pipelineRows: RowOf<typeof ciPipelines>[];
  stageRows: RowOf<typeof ciStages>[];
  buildRows: RowOf<typeof ciBuilds>[];
  protectedBranchRows: RowOf<typeof protectedBranches>[];
  accessLevelRows: RowOf<typeof protectedBranchAccessLevels>[];
  labelLinkRows: { targetType: string; targetId: number; labelId: number }[];
  awardRows: RowOf<typeof awardEmoji>[];
  issueAssigneeRows: RowOf<typeof issueAssignees>[];
  mrAssigneeRows: RowOf<typeof mergeRequestAssignees>[];
  mrReviewerRows: RowOf<typeof mergeRequestReviewers>[];
  timelogRows: RowOf<typeof timelogs>[];
  /** Links between two issues of the project, each issue by iid. */
  issueLinkRows: { sourceIid: number; targetIid: number; linkType: string; createdAt: Date; updatedAt: Date }[];
  userListRows: RowOf<typeof operationsUserLists>[];
  flagRows: RowOf<typeof operationsFeatureFlags>[];
  strategyRows: { strategy: RowOf<typeof operationsStrategies>; userListIid: number | null }[];
  strategyScopeRows: RowOf<typeof operationsScopes>[];
  legacyScopeRows: RowOf<typeof operationsFeatureFlagScopes>[];
  variableRows: RowOf<typeof ciVariables>[];
};

/** GitLab's export_status (Project#export_status): none, queued, started, finished, regeneration_in_progress, failed. */
export function exportStatus(jobs: ProjectTransferJob[]): string {
  const latest = jobs[0];
  if (!latest) return "none";
  const finishedBefore = jobs.some((j) => j.status === "finished" && j.r2Key);
  if ((latest.status === "queued" || latest.status === "started") && finishedBefore) return "regeneration_in_progress";
  return latest.status;
}

/** API::Entities::ProjectExportStatus: the project's identity, `export_status`, and `_links` once finished. */
export const ProjectExportStatus = ProjectIdentity.extend({
  export_status: z.string(),
  _links: z.object({ api_url: z.string(), web_url: z.string() }).optional(),
}).meta({ id: "ProjectExportStatus" });
export function projectExportStatus(
  row: { project: Project & { namespace: Namespace }; jobs: ProjectTransferJob[] },
  ctx: PresentContext,
): z.output<typeof ProjectExportStatus> {
  const status = exportStatus(row.jobs);
  return {
    ...projectIdentity(row.project),
    export_status: status,
    ...(status === "finished"
      ? {
          _links: {
            api_url: `${ctx.baseUrl}/api/v4/projects/${row.project.id}/export/download`,
            web_url: webUrl(ctx, `${row.project.fullPath}/download_export`),
          },
        }
      : {}),
  };
}

/** The `VERSION` file of GitLab 15's export format (Gitlab::ImportExport.version). */
export const EXPORT_VERSION = "0.2.4";

const snake = (key: string) => key.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`);

/**
 * A row as GitLab's exporter writes a model: its attributes in snake_case, times in ISO 8601, minus
 * what import_export.yml excludes (`except`). This is the exporter's generic attribute dump, not an API
 * entity: GitLab writes `as_json` of the model here.
 */
export function attributes(row: object, except: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    const name = snake(key);
    if (except.includes(name)) continue;
    out[name] = value instanceof Date ? value.toISOString() : value;
  }
  return out;
}

// import_export.yml: tokens, counters and caches are never exported; neither is the database's own
// search vector.
const PROJECT_EXCEPT = ["id", "namespace_id", "creator_id", "pool_id", "runners_token", "star_count", "forks_count", "search_vector", "full_path", "name_with_namespace"];
const ISSUABLE_EXCEPT = ["search_vector", "title_html", "description_html"];
// import_export.yml `excluded_attributes`: ci_pipelines, stages and statuses lose their links to rows the
// archive does not carry (schedules, triggers, push events, runners) and every token; builds' traces and
// artifacts are not exported (GitLab: "Build traces and artifacts" are not exported).
const PIPELINE_EXCEPT = ["project_id", "push_event_id", "parent_pipeline_id", "source_job_id", "pipeline_schedule_id", "trigger_id"];
const STAGE_EXCEPT = ["pipeline_id"];
const STATUS_EXCEPT = ["pipeline_id", "project_id", "stage_id", "token_digest", "runner_id", "processed", "trace_size", "type"];
const SNIPPET_EXCEPT = ["project_id"];

/** Edgeforge's `ci_builds.type` as GitLab's STI class name (import_export.yml `methods: statuses: type`). */
export const STATUS_TYPE = { build: "Ci::Build", bridge: "Ci::Bridge" } as const;

/**
 * The archive's files in GitLab's ndjson layout: `tree/project.json` (the project's attributes) and one
 * `tree/project/<relation>.ndjson` per relation, each line one record with its sub-relations nested
 * (issues carry their notes, label links with the label, award emoji, assignees and time logs; merge
 * requests their notes, label links, assignees, reviewers and time logs; snippets their award emoji and
 * notes; pipelines their stages and each stage's statuses; protected branches their access levels), as
 * GitLab's import_export.yml nests them.
 *
 * Deliberate difference from GitLab: GitLab's archive has no issue links, feature flags, user lists or
 * CI/CD variables (import_export.yml has no such relations); Edgeforge adds
 * `tree/project/issue_links.ndjson`, `operations_user_lists.ndjson`, `operations_feature_flags.ndjson`
 * and `ci_variables.ndjson`, which GitLab's importer ignores as unknown files. Issue links name both
 * issues by iid; a link to another project's issue is skipped (and counted nowhere). Variable values are
 * written as stored: only Maintainers may export, and they read the same values through the API.
 */
export function exportTree(data: ExportRelations): { path: string; lines: unknown[] | null; json?: unknown }[] {
  const labelsById = new Map(data.labelRows.map((l) => [l.id, l]));
  const group = <T>(rows: T[], key: (row: T) => string) => {
    const out = new Map<string, T[]>();
    for (const row of rows) {
      const list = out.get(key(row));
      if (list) list.push(row);
      else out.set(key(row), [row]);
    }
    return out;
  };
  const links = group(data.labelLinkRows, (l) => `${l.targetType}:${l.targetId}`);
  const notes = group(data.noteRows, (n) => `${n.noteableType}:${n.noteableId}`);
  const awards = group(data.awardRows, (a) => `${a.awardableType}:${a.awardableId}`);
  const linksOf = (type: string, id: number) =>
    (links.get(`${type}:${id}`) ?? []).map((l) => ({ target_type: type, label: attributes(labelsById.get(l.labelId) ?? { id: l.labelId }, ["search_vector"]) }));
  const notesOf = (type: string, id: number) => (notes.get(`${type}:${id}`) ?? []).map((n) => attributes(n));
  const issueAssignees = group(data.issueAssigneeRows, (a) => String(a.issueId));
  const mrAssignees = group(data.mrAssigneeRows, (a) => String(a.mergeRequestId));
  const mrReviewers = group(data.mrReviewerRows, (r) => String(r.mergeRequestId));
  const timelogs = group(data.timelogRows, (t) => (t.issueId !== null ? `Issue:${t.issueId}` : `MergeRequest:${t.mergeRequestId}`));
  const timelogsOf = (type: string, id: number) => (timelogs.get(`${type}:${id}`) ?? []).map((t) => attributes(t, ["issue_id", "merge_request_id"]));
  const usersOf = (rows: { userId: number }[] | undefined) => (rows ?? []).map((r) => ({ user_id: r.userId }));
  const stages = group(data.stageRows, (s) => String(s.pipelineId));
  const statuses = group(data.buildRows, (b) => `${b.pipelineId}:${b.stageId ?? b.stage}`);
  const levels = group(data.accessLevelRows, (l) => `${l.protectedBranchId}:${l.action}`);
  const strategies = group(data.strategyRows, (s) => String(s.strategy.featureFlagId));
  const strategyScopes = group(data.strategyScopeRows, (s) => String(s.strategyId));
  const legacyScopes = group(data.legacyScopeRows, (s) => String(s.featureFlagId));
  const levelsOf = (branchId: number, action: string) => (levels.get(`${branchId}:${action}`) ?? []).map((l) => attributes(l, ["id", "protected_branch_id", "action"]));
  return [
    { path: "tree/project.json", lines: null, json: attributes(data.project, PROJECT_EXCEPT) },
    { path: "tree/project/labels.ndjson", lines: data.labelRows.map((l) => ({ ...attributes(l, ["search_vector"]), type: "ProjectLabel" })) },
    { path: "tree/project/milestones.ndjson", lines: data.milestoneRows.map((m) => attributes(m)) },
    {
      path: "tree/project/issues.ndjson",
      lines: data.issueRows.map((i) => ({
        ...attributes(i, ISSUABLE_EXCEPT),
        notes: notesOf("Issue", i.id),
        label_links: linksOf("Issue", i.id),
        award_emoji: (awards.get(`Issue:${i.id}`) ?? []).map((a) => attributes(a)),
        issue_assignees: usersOf(issueAssignees.get(String(i.id))),
        timelogs: timelogsOf("Issue", i.id),
      })),
    },
    {
      path: "tree/project/merge_requests.ndjson",
      lines: data.mrRows.map((m) => ({
        ...attributes(m, ISSUABLE_EXCEPT),
        notes: notesOf("MergeRequest", m.id),
        label_links: linksOf("MergeRequest", m.id),
        merge_request_assignees: usersOf(mrAssignees.get(String(m.id))),
        merge_request_reviewers: usersOf(mrReviewers.get(String(m.id))),
        timelogs: timelogsOf("MergeRequest", m.id),
      })),
    },
    {
      path: "tree/project/project_members.ndjson",
      lines: data.memberRows.map((m) => ({ ...attributes(m.member), user: { id: m.user.id, username: m.user.username, public_email: m.user.publicEmail } })),
    },
    { path: "tree/project/project_badges.ndjson", lines: data.badgeRows.map((b) => attributes(b)) },
    {
      // import_export.yml: `snippets: [award_emoji, notes]`; a snippet's one file is its `file_name` and
      // `content` columns (GitLab 15 also writes `snippets/<id>.bundle`; Edgeforge has no snippet repositories).
      path: "tree/project/snippets.ndjson",
      lines: data.snippetRows.map((s) => ({
        ...attributes(s, SNIPPET_EXCEPT),
        award_emoji: (awards.get(`Snippet:${s.id}`) ?? []).map((a) => attributes(a)),
        notes: notesOf("Snippet", s.id),
      })),
    },
    {
      // import_export.yml (GitLab 15.4): `ci_pipelines: [stages: [statuses]]`, each status with its `type`.
      path: "tree/project/ci_pipelines.ndjson",
      lines: data.pipelineRows.map((p) => ({
        ...attributes(p, PIPELINE_EXCEPT),
        stages: (stages.get(String(p.id)) ?? []).map((s) => ({
          ...attributes(s, STAGE_EXCEPT),
          statuses: [...(statuses.get(`${p.id}:${s.id}`) ?? []), ...(statuses.get(`${p.id}:${s.name}`) ?? [])].map((b) => ({
            ...attributes(b, STATUS_EXCEPT),
            type: STATUS_TYPE[b.type as keyof typeof STATUS_TYPE] ?? b.type,
          })),
        })),
      })),
    },
    {
      // import_export.yml: `protected_branches: [merge_access_levels, push_access_levels]` (and EE's
      // `unprotect_access_levels`).
      path: "tree/project/protected_branches.ndjson",
      lines: data.protectedBranchRows.map((b) => ({
        ...attributes(b, ["project_id"]),
        merge_access_levels: levelsOf(b.id, "merge"),
        push_access_levels: levelsOf(b.id, "push"),
        unprotect_access_levels: levelsOf(b.id, "unprotect"),
      })),
    },
    // Edgeforge's extensions (see above): GitLab's importer ignores these files.
    {
      path: "tree/project/issue_links.ndjson",
      lines: data.issueLinkRows.map((l) => ({
        source_issue_iid: l.sourceIid,
        target_issue_iid: l.targetIid,
        link_type: l.linkType,
        created_at: l.createdAt.toISOString(),
        updated_at: l.updatedAt.toISOString(),
      })),
    },
    { path: "tree/project/operations_user_lists.ndjson", lines: data.userListRows.map((l) => attributes(l, ["id", "project_id"])) },
    {
      // A flag with its strategies (each with its user list by iid and its environment scopes) and, for
      // legacy flags, its legacy scopes: the feature flags domain's tables.
      path: "tree/project/operations_feature_flags.ndjson",
      lines: data.flagRows.map((f) => ({
        ...attributes(f, ["id", "project_id"]),
        strategies: (strategies.get(String(f.id)) ?? []).map(({ strategy, userListIid }) => ({
          name: strategy.name,
          parameters: strategy.parameters,
          user_list: userListIid === null ? null : { iid: userListIid },
          scopes: (strategyScopes.get(String(strategy.id)) ?? []).map((sc) => ({ environment_scope: sc.environmentScope })),
        })),
        scopes: (legacyScopes.get(String(f.id)) ?? []).map((sc) => attributes(sc, ["id", "feature_flag_id"])),
      })),
    },
    { path: "tree/project/ci_variables.ndjson", lines: data.variableRows.map((v) => attributes(v, ["id", "project_id"])) },
  ];
}
