import { unzipSync } from "fflate";
import * as z from "zod";
import type { GitCommitRow } from "./queries";
import { type ProjectWithAccess } from "../kernel/abilities";
import { requireUser, sha256Hex } from "../kernel/auth";
import { pipelineStub } from "../shared/ci/coordinator";
import type { Ctx } from "../kernel/env";
import { badRequest, forbidden, notFound, paramsError, recordNotFound, unauthorized } from "../kernel/errors";
import { jobTokenOf } from "../shared/ci/job_token";
import { loadProject, authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { bridge, job, type JobRow, Job, Bridge } from "../entities/jobs";
import { ListJobs, ListPipelineJobs } from "./params";
import * as q from "./queries";

/**
 * Jobs (lib/api/ci/jobs.rb) and `GET /job` by job token. Not built: `GET /job/allowed_agents`,
 * `PUT /jobs/:id/artifacts/keep`, `DELETE /jobs/:id/artifacts`, `GET /jobs/:id/artifacts/:ref/raw/*`.
 */
export const jobsRoutes = router();

const SCOPES = ["created", "pending", "running", "failed", "success", "canceled", "skipped", "manual", "waiting_for_resource", "preparing", "scheduled"];


function checkScope(scope: string[] | undefined) {
  if (scope && scope.some((s) => !SCOPES.includes(s))) throw paramsError("scope does not have a valid value");
}

const ctxOf = (project: { id: number; fullPath: string }, commits: Map<string, GitCommitRow>) => ({
  projectId: project.id,
  projectPath: project.fullPath,
  commits,
});

/**
 * The project of a request authenticated by a running job's token, or by a user (then `ability`).
 * `signedIn`: lib/api/ci/jobs.rb's `before { authenticate! }` (neither a user nor a job token is 401,
 * even on a public project); the artifact downloads (job_artifacts.rb) let anonymous callers read.
 */
async function projectFor(c: Ctx, ability: "read_build" | "update_build" | "erase_build", opts: { signedIn?: boolean } = {}): Promise<ProjectWithAccess> {
  const token = c.var.actor ? null : await jobTokenOf(c);
  if (opts.signedIn && !c.var.actor && !token) throw unauthorized();
  if (token) {
    const found = await q.findJobByToken(c.var.db(), await sha256Hex(token));
    if (!found) throw unauthorized();
    const project = await loadProject(c, c.req.param("id")!);
    if (!project || project.id !== found.row.projectId) throw notFound("Project");
    return project;
  }
  return authorizedProject(c, ability);
}

async function loadJob(c: Ctx, project: ProjectWithAccess) {
  const raw = c.req.param("job_id") ?? "";
  const found = /^\d+$/.test(raw) ? await q.findJob(c.var.db(), project.id, Number(raw)) : null;
  if (!found) throw recordNotFound();
  return found;
}

/**
 * One kind of job of the project, or of `:pipeline_id` when the path names one (`404 Not found` for a
 * pipeline of another project; retried jobs only with `include_retried`), newest first.
 */
async function listJobs(c: Ctx, type: "build" | "bridge", schema: typeof ListJobs | typeof ListPipelineJobs, inPipeline: boolean) {
  requireUser(c);
  const params: z.output<typeof ListPipelineJobs> = await readParams(c, schema);
  checkScope(params.scope);
  const project = await authorizedProject(c, "read_build");
  const pipelineId = inPipeline ? Number(c.req.param("pipeline_id")) : undefined;
  if (pipelineId !== undefined && !(await q.pipelineExists(c.var.db(), project.id, pipelineId))) throw recordNotFound();
  const page = pageOf(params);
  const list = await q.listJobs(c.var.db(), project.id, { pipelineId, type }, params, page);
  paginate(c, page, list.total);
  return present(c, list.rows, type === "build" ? job : bridge, ctxOf(project, list.commits));
}

/** GET /projects/:id/jobs */
jobsRoutes.get("/projects/:id/jobs", { params: ListJobs, response: [Job] }, (c) => listJobs(c, "build", ListJobs, false));

/** GET /projects/:id/pipelines/:pipeline_id/jobs */
jobsRoutes.get("/projects/:id/pipelines/:pipeline_id/jobs", { params: ListPipelineJobs, response: [Job] }, (c) => listJobs(c, "build", ListPipelineJobs, true));

/** GET /projects/:id/pipelines/:pipeline_id/bridges */
jobsRoutes.get("/projects/:id/pipelines/:pipeline_id/bridges", { params: ListJobs, response: [Bridge] }, (c) => listJobs(c, "bridge", ListJobs, true));

/** GET /job: the job of a job token (`JOB-TOKEN` header or `job_token`). */
jobsRoutes.get("/job", { response: Job }, async (c) => {
  const token = await jobTokenOf(c);
  if (!token) {
    if (c.var.actor) throw notFound("Job");
    throw unauthorized();
  }
  const found = await q.findJobByToken(c.var.db(), await sha256Hex(token));
  if (!found) throw unauthorized();
  const project = { id: found.row.projectId, fullPath: (await loadProject(c, String(found.row.projectId)))!.fullPath };
  return present(c, found.row, job, ctxOf(project, found.commits));
});

/** GET /projects/:id/jobs/:job_id */
jobsRoutes.get("/projects/:id/jobs/:job_id", { response: Job }, async (c) => {
  const project = await projectFor(c, "read_build", { signedIn: true });
  const found = await loadJob(c, project);
  return present(c, found.row, job, ctxOf(project, found.commits));
});

/** POST /projects/:id/jobs/:job_id/cancel: 201, a no-op on finished jobs. */
jobsRoutes.post("/projects/:id/jobs/:job_id/cancel", { response: Job }, async (c) => {
  const project = await authorizedProject(c, "update_build");
  const found = await loadJob(c, project);
  await pipelineStub(c.env, found.row.pipelineId).cancelJob(found.row.id);
  const after = await loadJob(c, project);
  return present(c, after.row, job, ctxOf(project, after.commits), 201);
});

/** POST /projects/:id/jobs/:job_id/retry: 201 with the new job. */
jobsRoutes.post("/projects/:id/jobs/:job_id/retry", { response: Job }, async (c) => {
  const project = await authorizedProject(c, "update_build");
  const found = await loadJob(c, project);
  const retryable = !found.row.retried && ["success", "failed", "canceled"].includes(found.row.status) && found.row.type === "build";
  if (!retryable) throw forbidden("Job is not retryable");
  const id = await pipelineStub(c.env, found.row.pipelineId).retryJob(found.row.id, c.var.actor!.user.id);
  if (id === null) throw forbidden("Job is not retryable");
  const created = await q.findJob(c.var.db(), project.id, id);
  return present(c, created!.row, job, ctxOf(project, created!.commits), 201);
});

/** POST /projects/:id/jobs/:job_id/play: a manual job is enqueued (200). */
jobsRoutes.post("/projects/:id/jobs/:job_id/play", { response: Job, status: 200 }, async (c) => {
  const project = await authorizedProject(c, "update_build");
  const found = await loadJob(c, project);
  if (found.row.status !== "manual") throw badRequest("Unplayable Job");
  const played = await pipelineStub(c.env, found.row.pipelineId).playJob(found.row.id, c.var.actor!.user.id);
  if (!played) throw badRequest("Unplayable Job");
  const after = await loadJob(c, project);
  return present(c, after.row, job, ctxOf(project, after.commits));
});

/** POST /projects/:id/jobs/:job_id/erase: 201; trace and artifacts removed. */
jobsRoutes.post("/projects/:id/jobs/:job_id/erase", { response: Job }, async (c) => {
  const project = await authorizedProject(c, "erase_build");
  const found = await loadJob(c, project);
  const finished = ["success", "failed", "canceled", "skipped"].includes(found.row.status);
  if (!finished || found.row.erasedAt) throw forbidden("Job is not erasable!");
  const keys = await q.eraseJob(c.var.db(), found.row.id, c.var.actor!.user.id);
  if (keys.length) await c.env.BLOBS.delete(keys);
  const after = await loadJob(c, project);
  return present(c, after.row, job, ctxOf(project, after.commits), 201);
});

/** GET /projects/:id/jobs/:job_id/trace: the log as text/plain. */
jobsRoutes.get("/projects/:id/jobs/:job_id/trace", async (c) => {
  const project = await projectFor(c, "read_build", { signedIn: true });
  const found = await loadJob(c, project);
  const trace = await q.readTrace(c.var.db(), found.row.id);
  return new Response(trace, { status: 200, headers: { "Content-Type": "text/plain" } });
});

async function archiveOf(c: Ctx, row: JobRow): Promise<{ object: R2ObjectBody; filename: string } | null> {
  const archive = row.artifacts.find((a) => a.fileType === "archive");
  if (!archive) return null;
  const object = await c.env.BLOBS.get(archive.r2Key);
  if (!object) return null;
  return { object, filename: archive.filename };
}

/** The whole archive, streamed from R2 (an archive may be as large as `max_artifacts_size`). */
function zipResponse({ object, filename }: { object: R2ObjectBody; filename: string }) {
  return new Response(object.body, {
    headers: {
      "Content-Type": "application/octet-stream",
      "Content-Length": String(object.size),
      "Content-Disposition": `attachment; filename="${filename}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
    },
  });
}

/** One member of the archive: the zip is read whole (its central directory is at its end). */
async function fileFromZip({ object }: { object: R2ObjectBody }, path: string): Promise<Response> {
  const files = unzipSync(new Uint8Array(await object.arrayBuffer()), { filter: (f) => f.name === path });
  const file = files[path];
  if (!file) throw notFound();
  const name = path.split("/").pop()!;
  return new Response(file, { headers: { "Content-Type": "application/octet-stream", "Content-Disposition": `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}` } });
}

/** GET /projects/:id/jobs/:job_id/artifacts: the archive. */
jobsRoutes.get("/projects/:id/jobs/:job_id/artifacts", async (c) => {
  const project = await projectFor(c, "read_build");
  const found = await loadJob(c, project);
  const archive = await archiveOf(c, found.row);
  if (!archive) throw notFound();
  return zipResponse(archive);
});

/** GET /projects/:id/jobs/:job_id/artifacts/*artifact_path: one file of the archive. */
jobsRoutes.get("/projects/:id/jobs/:job_id/artifacts/*", async (c) => {
  const project = await projectFor(c, "read_build");
  const found = await loadJob(c, project);
  const prefix = `/jobs/${found.row.id}/artifacts/`;
  const path = decodeURIComponent(new URL(c.req.url).pathname.split(prefix)[1] ?? "");
  const archive = await archiveOf(c, found.row);
  if (!archive || !path) throw notFound();
  return fileFromZip(archive, path);
});

const ByRef = z.object({ job: p.string() });

/** The archive of the newest successful job named `job` on `:ref_name` that kept one (404 for none). */
async function latestArchive(c: Ctx) {
  const params = await readParams(c, ByRef);
  const project = await projectFor(c, "read_build");
  const id = await q.latestJobWithArtifacts(c.var.db(), project.id, c.req.param("ref_name")!, params.job);
  if (id === null) throw notFound();
  const found = await q.findJob(c.var.db(), project.id, id);
  return found ? archiveOf(c, found.row) : null;
}

/** GET /projects/:id/jobs/artifacts/:ref_name/download?job=: the newest successful job's archive. */
jobsRoutes.get("/projects/:id/jobs/artifacts/:ref_name/download", { params: ByRef }, async (c) => {
  const archive = await latestArchive(c);
  if (!archive) throw notFound();
  return zipResponse(archive);
});

/** GET /projects/:id/jobs/artifacts/:ref_name/raw/*artifact_path?job=: one file of it. */
jobsRoutes.get("/projects/:id/jobs/artifacts/:ref_name/raw/*", { params: ByRef }, async (c) => {
  const archive = await latestArchive(c);
  const path = decodeURIComponent(new URL(c.req.url).pathname.split("/raw/")[1] ?? "");
  if (!archive || !path) throw notFound();
  return fileFromZip(archive, path);
});
