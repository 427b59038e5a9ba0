import * as z from "zod";
import type { ProjectWithAccess } from "../kernel/abilities";
import { authorize } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { apiError, badRequest, checkUnmodifiedSince, forbidden, recordNotFound, validation } from "../kernel/errors";
import { authorizedProject } from "../kernel/lookup";
import { pageOf, paginate } from "../kernel/pagination";
import { readParams, readParamsWithPath } from "../kernel/params";
import { baseUrl, present } from "../kernel/present";
import { router } from "../kernel/router";
import { deployment, Deployment } from "../entities/deployments";
import { MergeRequestBasic, MergeRequestSimple } from "../entities/merge_requests";
import { MR_LIST_RULES, ListProjectMergeRequests, respondMergeRequestList } from "../merge_requests/public";
import { ensureEnvironment } from "../shared/environments";
import { nameErrors } from "../shared/environments/rules";
import { hookEvent } from "../shared/webhooks";
import { CreateDeployment, DeploymentPath, ListDeployments, UpdateDeployment, type ListParams } from "./params";
import * as q from "./queries";

/**
 * Deployments (lib/api/deployments.rb, docs/deployments.md). Every endpoint needs a signed-in caller.
 * Deployments of CI jobs are made with their pipeline and follow their job (shared/environments and
 * the trigger of migration 0051); these routes read them, and create, update and delete the others.
 * Not built: approvals (they need protected environments, which Edgeforge has not).
 */
export const deploymentsRoutes = router();

/** DeploymentsFinder#validate!: GitLab's InefficientQueryError messages, answered with 400. */
function finderError(f: ListParams): string | null {
  const updated = !!(f.updated_after || f.updated_before);
  const finished = !!(f.finished_after || f.finished_before);
  if (updated && finished) return "Both `updated_at` filter and `finished_at` filter can not be specified";
  if (finished !== (f.order_by === "finished_at")) return "`finished_at` filter and `finished_at` sorting must be paired";
  if (finished && f.status !== "success") return "`finished_at` filter must be combined with `success` status filter.";
  return null;
}

async function findDeployment(c: Ctx, project: ProjectWithAccess) {
  const { deployment_id } = await readParamsWithPath(c, DeploymentPath);
  const found = await q.findDeployment(c.var.db(), project.id, deployment_id);
  if (!found) throw recordNotFound();
  return found;
}

const show = (c: Ctx, project: ProjectWithAccess, found: { row: q.DeploymentRow; commits: Map<string, q.GitCommitRow> }, status: 200 | 201 = 200) =>
  present(c, found.row, deployment, { projectId: project.id, projectPath: project.fullPath, commits: found.commits }, status);

/**
 * Deployment#after_transition (Deployments::HooksWorker): a deployment written through the API that moved
 * into `status` is a Deployment Hook event. A job's deployment is reported with its job (functions/index.ts).
 */
const statusChanged = (c: Ctx, projectId: number, id: number, status: string) =>
  hookEvent(c.env, baseUrl(c), { kind: "deployment", projectId, id, status, statusChangedAt: new Date().toISOString() });

/** The state machine's events: which statuses each may leave (app/models/deployment.rb). */
const EVENTS: Record<string, { name: string; from: (status: string) => boolean }> = {
  running: { name: "run", from: (s) => s === "created" },
  success: { name: "succeed", from: (s) => s !== "success" },
  failed: { name: "drop", from: (s) => s !== "failed" },
  canceled: { name: "cancel", from: (s) => s !== "canceled" },
};

/** GET /projects/:id/deployments (lib/api/deployments.rb) */
deploymentsRoutes.get("/projects/:id/deployments", { params: ListDeployments, response: [Deployment] }, async (c) => {
  requireUser(c);
  const params = await readParams(c, ListDeployments);
  const project = await authorizedProject(c, "read_deployment");
  const error = finderError(params);
  if (error) throw badRequest(error);
  const page = pageOf(params);
  const list = await q.listDeployments(c.var.db(), project.id, params, page);
  paginate(c, page, list.total);
  return present(c, list.rows, deployment, { projectId: project.id, projectPath: project.fullPath, commits: list.commits });
});

/** GET /projects/:id/deployments/:deployment_id (lib/api/deployments.rb) */
deploymentsRoutes.get("/projects/:id/deployments/:deployment_id", { params: DeploymentPath, response: Deployment }, async (c) => {
  const project = await authorizedProject(c, "read_deployment", { signedIn: true });
  return show(c, project, await findDeployment(c, project));
});

/**
 * POST /projects/:id/deployments (lib/api/deployments.rb): the environment is found or created by name;
 * `sha` and `ref` must name commits (Deployment#valid_sha, #valid_ref).
 */
deploymentsRoutes.post("/projects/:id/deployments", { params: CreateDeployment, response: Deployment }, async (c) => {
  const user = requireUser(c);
  const params = await readParams(c, CreateDeployment);
  const project = await authorizedProject(c, "create_deployment");
  authorize(c, "create_environment", project);
  const name = params.environment.trim();
  const nameProblems = nameErrors(name);
  if (nameProblems.length) throw validation({ name: nameProblems });
  const resolved = await q.resolveCommits(c.var.db(), project, [params.sha, params.ref]);
  const errors: Record<string, string[]> = {};
  if (!resolved.get(params.sha)) errors.sha = ["The commit does not exist"];
  if (!resolved.get(params.ref)) errors.ref = ["The branch or tag does not exist"];
  if (Object.keys(errors).length) throw validation(errors);
  const db = c.var.db();
  const id = await db.transaction(async (tx) => {
    const env = await ensureEnvironment(tx, project.id, name, null);
    return q.insertDeployment(tx, { projectId: project.id, environmentId: env.id, ref: params.ref, tag: params.tag, sha: params.sha, status: params.status, userId: user.user.id });
  });
  // Deployments::CreateService builds the row `created` and moves it to `status` (Deployment#update_status).
  await statusChanged(c, project.id, id, params.status);
  return show(c, project, (await q.findDeployment(db, project.id, id))!, 201);
});

/** PUT /projects/:id/deployments/:deployment_id (lib/api/deployments.rb): only deployments without a job. */
deploymentsRoutes.put("/projects/:id/deployments/:deployment_id", { params: UpdateDeployment, response: Deployment }, async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, UpdateDeployment);
  const project = await authorizedProject(c, "read_deployment");
  const found = await findDeployment(c, project);
  authorize(c, "update_deployment", project);
  if (found.row.deployableId !== null) throw forbidden("Deployments created using GitLab CI can not be updated using the API");
  const event = EVENTS[params.status];
  // An event the state machine refuses is a validation error on `status` (state_machines' invalid transition).
  if (!event.from(found.row.status)) throw validation({ status: [`cannot transition via "${event.name}"`] });
  if (!(await q.updateDeploymentStatus(c.var.db(), found.row.id, found.row.status, params.status)))
    throw validation({ status: [`cannot transition via "${event.name}"`] });
  await statusChanged(c, project.id, found.row.id, params.status);
  return show(c, project, (await q.findDeployment(c.var.db(), project.id, found.row.id))!);
});

/** DELETE /projects/:id/deployments/:deployment_id (lib/api/deployments.rb, Ci::Deployments::DestroyService) */
deploymentsRoutes.delete("/projects/:id/deployments/:deployment_id", { params: DeploymentPath }, async (c) => {
  const project = await authorizedProject(c, null, { signedIn: true });
  const found = await findDeployment(c, project);
  authorize(c, "destroy_deployment", project);
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), found.row.updatedAt);
  if (found.row.status === "running") throw apiError("Cannot destroy running deployment", 400);
  if ((await q.lastDeploymentId(c.var.db(), found.row.environmentId)) === found.row.id) throw apiError("Deployment currently deployed to environment", 400);
  await q.deleteDeployment(c.var.db(), found.row.id);
  return c.body(null, 204);
});

const DeploymentMergeRequests = ListProjectMergeRequests.extend(DeploymentPath.shape);

/**
 * GET /projects/:id/deployments/:deployment_id/merge_requests (lib/api/deployments.rb): the merge
 * requests the deployment shipped (queries.ts#shippedMergeRequestIids), with every filter of the
 * project's merge request list.
 */
deploymentsRoutes.get(
  "/projects/:id/deployments/:deployment_id/merge_requests",
  { params: DeploymentMergeRequests, response: [z.union([MergeRequestBasic, MergeRequestSimple])] },
  async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, DeploymentMergeRequests, MR_LIST_RULES);
    const project = await authorizedProject(c, "read_deployment");
    const found = await findDeployment(c, project);
    const shipped = await q.shippedMergeRequestIids(c.var.db(), project, found.row);
    const iids = params.iids ? params.iids.filter((i) => shipped.includes(i)) : shipped;
    return respondMergeRequestList(c, { ...params, iids }, { projectId: project.id }, { fromProject: { id: project.id, namespaceId: project.namespaceId } }, { project });
  },
);
