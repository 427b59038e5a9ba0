import * as z from "zod";
import { authorize, type ProjectWithAccess } from "../kernel/abilities";
import { pipelineStub } from "../shared/ci/coordinator";
import type { Ctx } from "../kernel/env";
import { apiError, forbidden, recordNotFound } from "../kernel/errors";
import { findProject, authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams } from "../kernel/params";
import { baseUrl, present } from "../kernel/present";
import { router } from "../kernel/router";
import { pipeline, pipelineBasic, pipelineVariable, Pipeline, PipelineBasic, PipelineVariable } from "../entities/pipelines";
import { buildSuite, testReport } from "./junit";
import { ListPipelines } from "./params";
import * as q from "./queries";
import { repoOf, resolveRevisions } from "../shared/git";
import { persistPipeline, buildPipeline, PipelineCreationError } from "../shared/ci/create";

/**
 * Pipelines (lib/api/ci/pipelines.rb). Not built: `test_report_summary`,
 * pipeline `PUT .../metadata`.
 */
export const pipelinesRoutes = router();

const CreatePipeline = z.object({
  ref: p.string().describe("Reference"),
  variables: p.hashes({ key: p.string(), value: p.string(), variable_type: p.oneOf("env_var", "file").optional() }).optional().describe("Array of variables available in the pipeline"),
});

const ctxOf = (project: ProjectWithAccess) => ({ projectPath: project.fullPath });

async function loadPipeline(c: Ctx, project: ProjectWithAccess) {
  const id = Number(c.req.param("pipeline_id"));
  const row = /^\d+$/.test(c.req.param("pipeline_id") ?? "") ? await q.findPipeline(c.var.db(), project.id, id) : null;
  if (!row) throw recordNotFound();
  return row;
}

/** GET /projects/:id/pipelines (lib/api/ci/pipelines.rb) */
pipelinesRoutes.get("/projects/:id/pipelines", { params: ListPipelines, response: [PipelineBasic] }, async (c) => {
  const params = await readParams(c, ListPipelines);
  const project = await authorizedProject(c, "read_pipeline");
  const page = pageOf(params);
  const list = await q.listPipelines(c.var.db(), project.id, params, page);
  paginate(c, page, list.total);
  return present(c, list.rows, pipelineBasic, ctxOf(project));
});

/** POST /projects/:id/pipeline (lib/api/ci/pipelines.rb): created, processed, then answered (`pending`). */
pipelinesRoutes.post("/projects/:id/pipeline", { params: CreatePipeline, response: Pipeline }, async (c) => {
  const params = await readParams(c, CreatePipeline);
  const project = await authorizedProject(c, "create_pipeline");
  const actor = c.var.actor!;
  const input = {
    project: { id: project.id, name: project.name, path: project.path, fullPath: project.fullPath, namespaceFullPath: project.namespace.fullPath, visibilityLevel: project.visibilityLevel, defaultBranch: project.defaultBranch, poolId: project.poolId },
    ref: params.ref,
    source: "api" as const,
    user: { id: actor.user.id, username: actor.user.username, name: actor.user.name, email: actor.user.email },
    variables: (params.variables ?? []).map((v) => ({ key: v.key, value: v.value, variable_type: v.variable_type })),
    baseUrl: baseUrl(c),
  };
  let created;
  try {
    created = await persistPipeline(c.var.db(), input, await buildPipeline(c.var.db(), input));
  } catch (error) {
    if (error instanceof PipelineCreationError) throw apiError({ base: [error.message] }, 400);
    throw error;
  }
  await pipelineStub(c.env, created.id).process();
  const row = await q.findPipeline(c.var.db(), project.id, created.id);
  return present(c, row!, pipeline, ctxOf(project), 201);
});

const LatestPipeline = z.object({ ref: p.string().optional() });

/**
 * GET /projects/:id/pipelines/latest (lib/api/ci/pipelines.rb): `Project#latest_pipeline(ref)`, the
 * newest pipeline of the ref (default branch when blank) at the ref's current commit. None is
 * `authorize! :read_pipeline, nil`: 403, as GitLab 15.4 answers.
 */
pipelinesRoutes.get("/projects/:id/pipelines/latest", { params: LatestPipeline, response: Pipeline }, async (c) => {
  const params = await readParams(c, LatestPipeline);
  const project = await authorizedProject(c, null);
  const ref = params.ref || project.defaultBranch;
  const sha = ref ? (await resolveRevisions(c.var.db(), repoOf(project), [ref])).get(ref) : null;
  const row = ref && sha ? await q.latestPipeline(c.var.db(), project.id, ref, sha) : null;
  if (!row) throw forbidden();
  authorize(c, "read_pipeline", project);
  return present(c, row, pipeline, ctxOf(project));
});

/** GET /projects/:id/pipelines/:pipeline_id */
pipelinesRoutes.get("/projects/:id/pipelines/:pipeline_id", { response: Pipeline }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_pipeline", project);
  return present(c, await loadPipeline(c, project), pipeline, ctxOf(project));
});

/** GET /projects/:id/pipelines/:pipeline_id/variables */
pipelinesRoutes.get("/projects/:id/pipelines/:pipeline_id/variables", { response: [PipelineVariable], paginated: false }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_pipeline_variable", project);
  const row = await loadPipeline(c, project);
  return present(c, await q.listPipelineVariables(c.var.db(), row.id), pipelineVariable);
});

/** GET /projects/:id/pipelines/:pipeline_id/test_report */
pipelinesRoutes.get("/projects/:id/pipelines/:pipeline_id/test_report", async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_build", project);
  const row = await loadPipeline(c, project);
  const artifacts = await q.junitArtifacts(c.var.db(), row.id);
  const byJob = new Map<string, Uint8Array[]>();
  for (const a of artifacts) {
    const object = await c.env.BLOBS.get(a.r2Key);
    if (!object) continue;
    byJob.set(a.jobName, [...(byJob.get(a.jobName) ?? []), new Uint8Array(await object.arrayBuffer())]);
  }
  const suites = [];
  for (const [name, files] of byJob) suites.push(await buildSuite(name, files));
  return c.json(testReport(suites));
});

/** POST /projects/:id/pipelines/:pipeline_id/retry */
pipelinesRoutes.post("/projects/:id/pipelines/:pipeline_id/retry", { response: Pipeline }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "update_pipeline", project);
  const row = await loadPipeline(c, project);
  await pipelineStub(c.env, row.id).retry(c.var.actor!.user.id);
  return present(c, (await q.findPipeline(c.var.db(), project.id, row.id))!, pipeline, ctxOf(project), 201);
});

/** POST /projects/:id/pipelines/:pipeline_id/cancel */
pipelinesRoutes.post("/projects/:id/pipelines/:pipeline_id/cancel", { response: Pipeline, status: 200 }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "update_pipeline", project);
  const row = await loadPipeline(c, project);
  await pipelineStub(c.env, row.id).cancel();
  return present(c, (await q.findPipeline(c.var.db(), project.id, row.id))!, pipeline, ctxOf(project));
});

/** DELETE /projects/:id/pipelines/:pipeline_id: 204 (owners). */
pipelinesRoutes.delete("/projects/:id/pipelines/:pipeline_id", async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "destroy_pipeline", project);
  const row = await loadPipeline(c, project);
  await q.deletePipeline(c.var.db(), row.id);
  return c.body(null, 204);
});
