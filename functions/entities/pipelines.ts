import * as z from "zod";
import type { CiPipeline, CiPipelineVariable, User } from "../../db/schema";
import { isoTime, webUrl, type PresentContext } from "../kernel/present";
import { UserBasic, userBasic } from "./users";

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
export const DetailedStatus = z
  .object({
    icon: z.string(),
    text: z.string(),
    label: z.string(),
    group: z.string(),
    tooltip: z.string(),
    has_details: z.boolean(),
    details_path: z.string(),
    illustration: z.record(z.string(), z.unknown()).nullable(),
    favicon: z.string(),
  })
  .meta({ id: "DetailedStatus" });
export function detailedStatus(status: string, detailsPath: string): z.output<typeof DetailedStatus> {
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
export const PipelineBasic = z
  .object({
    id: z.int(),
    iid: z.int(),
    project_id: z.int(),
    sha: z.string(),
    ref: z.string(),
    status: z.string(),
    source: z.string(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    web_url: z.string(),
  })
  .meta({ id: "PipelineBasic" });
export function pipelineBasic(row: CiPipeline, ctx: PipelineContext): z.output<typeof PipelineBasic> {
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
export const Pipeline = PipelineBasic.extend({
  before_sha: z.string(),
  tag: z.boolean(),
  yaml_errors: z.string().nullable(),
  user: UserBasic.nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  committed_at: z.string().nullable(),
  duration: z.int().nullable(),
  queued_duration: z.number().nullable(),
  coverage: z.string().nullable(),
  detailed_status: DetailedStatus,
}).meta({ id: "Pipeline" });
export function pipeline(row: PipelineRow, ctx: PipelineContext): z.output<typeof Pipeline> {
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
export const PipelineVariable = z.object({ variable_type: z.string(), key: z.string(), value: z.string() }).meta({ id: "PipelineVariable" });
export function pipelineVariable(row: CiPipelineVariable): z.output<typeof PipelineVariable> {
  return { variable_type: row.variableType, key: row.key, value: row.value };
}
