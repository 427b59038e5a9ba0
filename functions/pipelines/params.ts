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
  scope: p.oneOf("running", "pending", "finished", "branches", "tags").optional().describe("The scope of pipelines"),
  status: p.oneOf(...STATUSES).optional().describe("The status of pipelines"),
  source: p.oneOf(...SOURCES).optional().describe("The source of pipelines"),
  ref: p.string().optional().describe("The ref of pipelines"),
  sha: p.string().optional().describe("The sha of pipelines"),
  yaml_errors: p.bool().optional().describe("Returns pipelines with invalid configurations"),
  name: p.string().optional().describe("The name of the user who triggered pipelines"),
  username: p.string().optional().describe("The username of the user who triggered pipelines"),
  updated_before: p.datetime().optional().describe("Return pipelines updated before the specified datetime. Format: ISO 8601 YYYY-MM-DDTHH:MM:SSZ"),
  updated_after: p.datetime().optional().describe("Return pipelines updated after the specified datetime. Format: ISO 8601 YYYY-MM-DDTHH:MM:SSZ"),
  order_by: p.oneOf("id", "status", "ref", "updated_at", "user_id").default("id").describe("Order pipelines"),
  sort: p.oneOf("asc", "desc").default("desc").describe("Sort pipelines"),
});

export type ListParams = z.output<typeof ListPipelines>;
