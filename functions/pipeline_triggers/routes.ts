import * as z from "zod";
import { type ProjectWithAccess } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import { apiError, forbidden, notFound } from "../kernel/errors";
import { loadProject, authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams, readParamsWithPath } from "../kernel/params";
import { baseUrl, present } from "../kernel/present";
import { router } from "../kernel/router";
import { pipeline, Pipeline } from "../entities/pipelines";
import { PipelineCreationError } from "../shared/ci/create";
import { trigger, Trigger } from "../entities/pipeline_triggers";
import * as q from "./queries";
import { newTriggerToken, runTrigger } from "./services";

/**
 * Pipeline trigger tokens and the trigger endpoint (lib/api/ci/triggers.rb; app/policies/ci/trigger_policy.rb,
 * app/services/ci/pipeline_trigger_service.rb). Tokens are managed by maintainers (`admin_build`); the
 * token is shown in full to its owner only (`admin_trigger`). The trigger endpoint authenticates by the
 * trigger token alone, so anonymous POSTs reach it (`tokenInBody`); the management routes ask for a
 * user themselves, as GitLab's `authenticate!` does.
 */
export const pipelineTriggersRoutes = router({ tokenInBody: true });

const TriggerId = z.object({ trigger_id: p.id() });
const CreateTrigger = z.object({ description: p.string() });
const UpdateTrigger = z.object({ trigger_id: p.id(), description: p.string().optional() });
const TriggerPipeline = z.object({ ref: p.nonBlank(), token: p.string(), variables: p.hash().optional() });

const viewer = (c: Ctx) => ({ viewerId: c.var.actor?.user.id ?? null });

async function loadTrigger(c: Ctx, project: ProjectWithAccess, id: number) {
  const row = await q.findTrigger(c.var.db(), project.id, id);
  if (!row) throw notFound("Trigger");
  return row;
}

/**
 * POST /projects/:id/trigger/pipeline and POST /projects/:id/ref/:ref/trigger/pipeline (the webhook
 * form, `?token=…`): 201 with the pipeline. An unknown project or a token that is not one of its
 * triggers is `404 Not Found` alike, whatever the project's visibility.
 * Differs from GitLab: a CI job token (`CI_JOB_TOKEN`, multi-project pipelines) is not accepted here.
 */
async function triggerPipeline(c: Ctx) {
  const params = await readParamsWithPath(c, TriggerPipeline);
  // A pipeline hook delivered back to this endpoint would loop (`gitlab_pipeline_hook_request?`).
  if (c.req.header("x-gitlab-event") === "Pipeline Hook") throw forbidden();
  const variables = params.variables ?? {};
  if (!Object.values(variables).every((v) => typeof v === "string")) throw apiError("variables needs to be a map of key-valued strings", 400);
  const project = await loadProject(c, c.req.param("id")!);
  if (!project) throw notFound();
  const found = await q.triggerByToken(c.var.db(), project.id, params.token);
  if (!found) throw notFound();
  let id: number;
  try {
    id = await runTrigger(c.env, c.var.db(), project, found, { ref: params.ref, variables: variables as Record<string, string>, baseUrl: baseUrl(c) });
  } catch (error) {
    if (error instanceof PipelineCreationError) throw apiError({ base: [error.message] }, 400);
    throw error;
  }
  return present(c, (await q.pipelineForEntity(c.var.db(), id))!, pipeline, { projectPath: project.fullPath }, 201);
}

pipelineTriggersRoutes.post("/projects/:id/trigger/pipeline", { params: TriggerPipeline, response: Pipeline }, triggerPipeline);
pipelineTriggersRoutes.post("/projects/:id/ref/:ref{.+}/trigger/pipeline", { params: TriggerPipeline, response: Pipeline }, triggerPipeline);

/** GET /projects/:id/triggers */
pipelineTriggersRoutes.get("/projects/:id/triggers", { params: pageParams, response: [Trigger] }, async (c) => {
  const params = await readParams(c, pageParams);
  const project = await authorizedProject(c, "admin_build", { signedIn: true });
  const page = pageOf(params);
  const list = await q.listTriggers(c.var.db(), project.id, page);
  paginate(c, page, list.total);
  return present(c, list.rows, trigger, viewer(c));
});

/** GET /projects/:id/triggers/:trigger_id */
pipelineTriggersRoutes.get("/projects/:id/triggers/:trigger_id", { params: TriggerId, response: Trigger }, async (c) => {
  const { trigger_id } = await readParamsWithPath(c, TriggerId);
  const project = await authorizedProject(c, "admin_build", { signedIn: true });
  return present(c, await loadTrigger(c, project, trigger_id), trigger, viewer(c));
});

/** POST /projects/:id/triggers: 201; the caller owns the new token. */
pipelineTriggersRoutes.post("/projects/:id/triggers", { params: CreateTrigger, response: Trigger }, async (c) => {
  const params = await readParams(c, CreateTrigger);
  const project = await authorizedProject(c, "admin_build", { signedIn: true });
  const id = await q.insertTrigger(c.var.db(), { projectId: project.id, ownerId: c.var.actor!.user.id, description: params.description, token: newTriggerToken() });
  return present(c, (await q.findTrigger(c.var.db(), project.id, id))!, trigger, viewer(c), 201);
});

/** PUT /projects/:id/triggers/:trigger_id: maintainers, and only the trigger's owner (`admin_trigger`, else 403). */
pipelineTriggersRoutes.put("/projects/:id/triggers/:trigger_id", { params: UpdateTrigger, response: Trigger }, async (c) => {
  const params = await readParamsWithPath(c, UpdateTrigger);
  const project = await authorizedProject(c, "admin_build", { signedIn: true });
  const row = await loadTrigger(c, project, params.trigger_id);
  if (row.ownerId !== null && row.ownerId !== c.var.actor!.user.id) throw forbidden();
  if (params.description !== undefined) await q.updateTrigger(c.var.db(), row.id, { description: params.description });
  return present(c, (await q.findTrigger(c.var.db(), project.id, row.id))!, trigger, viewer(c));
});

/** DELETE /projects/:id/triggers/:trigger_id: 204 */
pipelineTriggersRoutes.delete("/projects/:id/triggers/:trigger_id", { params: TriggerId }, async (c) => {
  const { trigger_id } = await readParamsWithPath(c, TriggerId);
  const project = await authorizedProject(c, "admin_build", { signedIn: true });
  const row = await loadTrigger(c, project, trigger_id);
  await q.deleteTrigger(c.var.db(), row.id);
  return c.body(null, 204);
});

