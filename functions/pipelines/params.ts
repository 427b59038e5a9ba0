import type { z } from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

const STATUSES = ["created", "waiting_for_resource", "preparing", "pending", "running", "success", "failed", "canceled", "skipped", "manual", "scheduled"] as const;
const SOURCES = ["push", "web", "trigger", "schedule", "api", "external", "pipeline", "chat", "webide", "merge_request_event", "external_pull_request_event", "parent_pipeline", "ondemand_dast_scan", "ondemand_dast_validation"] as const;

/**
 * `GET /projects/:id/pipelines` (lib/api/ci/pipelines.rb), in its order: Ci::PipelinesFinder's params,
 * which the list query reads as declared.
 */
export const ListPipelines = pageParams.extend({
  scope: p.oneOf("running", "pending", "finished", "branches", "tags").optional(),
  status: p.oneOf(...STATUSES).optional(),
  source: p.oneOf(...SOURCES).optional(),
  ref: p.string().optional(),
  sha: p.string().optional(),
  yaml_errors: p.bool().optional(),
  name: p.string().optional(),
  username: p.string().optional(),
  updated_before: p.datetime().optional(),
  updated_after: p.datetime().optional(),
  order_by: p.oneOf("id", "status", "ref", "updated_at", "user_id").default("id"),
  sort: p.oneOf("asc", "desc").default("desc"),
});

export type ListParams = z.output<typeof ListPipelines>;
