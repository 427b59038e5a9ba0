import type { z } from "zod";
import * as zod from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/** Deployment.statuses (app/models/deployment.rb). */
export const DEPLOYMENT_STATUSES = ["created", "running", "success", "failed", "canceled", "skipped", "blocked"] as const;
/** What the API may set (`values: %w[running success failed canceled]`). */
const SETTABLE = ["running", "success", "failed", "canceled"] as const;

/** `GET /projects/:id/deployments` (lib/api/deployments.rb): DeploymentsFinder's params, read as declared. */
export const ListDeployments = pageParams.extend({
  order_by: p
    .oneOf("id", "iid", "created_at", "updated_at", "finished_at", "ref")
    .default("id")
    .describe("Return deployments ordered by `id`, `iid`, `created_at`, `updated_at`, `finished_at` or `ref`"),
  sort: p.oneOf("asc", "desc").default("asc").describe("`asc` or `desc`"),
  updated_after: p.datetime().optional().describe("Deployments updated at or after this time (ISO 8601)"),
  updated_before: p.datetime().optional().describe("Deployments updated at or before this time (ISO 8601)"),
  finished_after: p.datetime().optional().describe("Deployments finished at or after this time (ISO 8601); needs `order_by=finished_at` and `status=success`"),
  finished_before: p.datetime().optional().describe("Deployments finished before this time (ISO 8601); needs `order_by=finished_at` and `status=success`"),
  environment: p.string().optional().describe("The name of the environment"),
  status: p.oneOf(...DEPLOYMENT_STATUSES).optional().describe("One of `created`, `running`, `success`, `failed`, `canceled`, `skipped` or `blocked`"),
});
export type ListParams = z.output<typeof ListDeployments>;

export const DeploymentPath = zod.object({ deployment_id: p.id().describe("The ID of the deployment") });

/** `POST /projects/:id/deployments` */
export const CreateDeployment = zod.object({
  environment: p.string().describe("The name of the environment to create the deployment for"),
  sha: p.string().describe("The SHA of the commit that is deployed"),
  ref: p.string().describe("The name of the branch or tag that is deployed"),
  tag: p.bool().describe("Whether the deployed ref is a tag"),
  status: p.oneOf(...SETTABLE).describe("One of `running`, `success`, `failed` or `canceled`"),
});

/** `PUT /projects/:id/deployments/:deployment_id` */
export const UpdateDeployment = zod.object({
  deployment_id: p.id().describe("The ID of the deployment"),
  status: p.oneOf(...SETTABLE).describe("The new status: `running`, `success`, `failed` or `canceled`"),
});
