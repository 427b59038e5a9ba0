import type { CiPipeline, CiPipelineVariable, User } from "../../db/schema";
import { isoTime, webUrl, type PresentContext } from "../kernel/present";
import { userBasic } from "./users";

export type PipelineContext = PresentContext & { projectPath: string };
export type PipelineRow = CiPipeline & { user?: User | null; committedAt?: Date | null };

const LABELS: Record<string, { text: string; label: string; icon: string }> = {
  created: { text: "created", label: "created", icon: "status_created" },
  waiting_for_resource: { text: "waiting", label: "waiting for resource", icon: "status_pending" },
  preparing: { text: "preparing", label: "preparing", icon: "status_preparing" },
  pending: { text: "pending", label: "pending", icon: "status_pending" },
  running: { text: "running", label: "running", icon: "status_running" },
  success: { text: "passed", label: "passed", icon: "status_success" },
  failed: { text: "failed", label: "failed", icon: "status_failed" },
  canceled: { text: "canceled", label: "canceled", icon: "status_canceled" },
  skipped: { text: "skipped", label: "skipped", icon: "status_skipped" },
  manual: { text: "blocked", label: "waiting for manual action", icon: "status_manual" },
  scheduled: { text: "delayed", label: "waiting for delayed job", icon: "status_scheduled" },
};

/** Gitlab::Ci::Status::Pipeline factories, rendered by DetailedStatusEntity (the common subset). */
export function detailedStatus(status: string, detailsPath: string) {
  const l = LABELS[status] ?? { text: status, label: status, icon: `status_${status}` };
  return {
    icon: l.icon,
    text: l.text,
    label: l.label,
    group: status,
    tooltip: l.label,
    has_details: true,
    details_path: detailsPath,
    illustration: null,
    favicon: `/assets/ci_favicons/favicon_${l.icon}.png`,
  };
}

/** API::Entities::Ci::PipelineBasic (lib/api/entities/ci/pipeline_basic.rb). */
export function pipelineBasic(row: CiPipeline, ctx: PipelineContext) {
  return {
    id: row.id,
    iid: row.iid,
    project_id: row.projectId,
    sha: row.sha,
    ref: row.ref,
    status: row.status,
    source: row.source,
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
    web_url: webUrl(ctx, `${ctx.projectPath}/-/pipelines/${row.id}`),
  };
}

/** Seconds between two instants, as a float (`duration`, `queued_duration`), or null. */
export function secondsBetween(from: Date | string | null, to: Date | string | null): number | null {
  if (!from || !to) return null;
  return (new Date(to).getTime() - new Date(from).getTime()) / 1000;
}

/** API::Entities::Ci::Pipeline (lib/api/entities/ci/pipeline.rb). */
export function pipeline(row: PipelineRow, ctx: PipelineContext) {
  const queued = row.startedAt ? Math.round(secondsBetween(row.createdAt, row.startedAt)!) : null;
  return {
    ...pipelineBasic(row, ctx),
    before_sha: row.beforeSha,
    tag: row.tag,
    yaml_errors: row.yamlErrors,
    user: row.user ? userBasic(row.user, ctx) : null,
    started_at: isoTime(row.startedAt),
    finished_at: isoTime(row.finishedAt),
    committed_at: isoTime(row.committedAt ?? null),
    duration: row.duration,
    queued_duration: queued ? queued : null,
    coverage: row.coverage,
    detailed_status: detailedStatus(row.status, `/${ctx.projectPath}/-/pipelines/${row.id}`),
  };
}

/** API::Entities::Ci::Variable as the pipeline variables list shows it. */
export function pipelineVariable(row: CiPipelineVariable) {
  return { variable_type: row.variableType, key: row.key, value: row.value };
}
