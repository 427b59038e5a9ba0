import * as z from "zod";
import { generateToken, sha256Hex } from "../kernel/auth";
import { pipelineStub } from "../shared/ci/coordinator";
import { jobStatusChanged } from "../shared/ci/finished";
import type { Ctx } from "../kernel/env";
import { ApiError, badRequest, conflict, forbidden, notFound, paramsError, tooLarge } from "../kernel/errors";
import { streamForm } from "../kernel/multipart";
import { p, rawParams, readParams } from "../kernel/params";
import { baseUrl } from "../kernel/present";
import { router } from "../kernel/router";
import { parseDuration } from "../shared/ci/yaml";
import { R2PartWriter } from "../shared/r2_parts";
import { loadSettings } from "../shared/settings/load";
import { dependencyIds, FAILURE_REASONS, jobPayload } from "./payload";
import { listProtections } from "../shared/protected_branches/access";
import { refMatches } from "../shared/protected_branches/rules";
import { tagList } from "./params";
import * as q from "./queries";

/**
 * The runner protocol (lib/api/ci/runner.rb; docs/ci.md, "Runner protocol"); administration is in
 * admin.ts. Not built: `POST /jobs/:id/artifacts/authorize` (the runner uploads directly).
 */
export const runnerProtocolRoutes = router({ tokenInBody: true, anyScope: true });

const TRACE_LIMIT = 16 * 1024 * 1024;
/** What a multipart body may carry beside the file (its delimiters, heads and text fields). */
const FIELDS_SLACK = 1024 * 1024;
const LONG_POLL_MS = 20_000;

export const runnerOptions = {
  description: p.string().optional(),
  tag_list: tagList.optional(),
  run_untagged: p.bool().optional(),
  locked: p.bool().optional(),
  access_level: p.oneOf("not_protected", "ref_protected").optional(),
  maximum_timeout: p.int().optional(),
  paused: p.bool().optional(),
  active: p.bool().optional(),
  info: p.hash().optional(),
};
const Register = z.object({ token: p.string(), ...runnerOptions });
type RunnerOptions = z.output<z.ZodObject<typeof runnerOptions>>;

/** A runner's authentication token: `glrt-` and random characters (only its digest is stored). */
export const newRunnerToken = () => generateToken("glrt-");

/**
 * A runner made from the options both registration paths take, and its new `glrt-` token (only its
 * digest is stored), as `{id, token, token_expires_at}`.
 */
export async function createRunnerWithToken(c: Ctx, params: RunnerOptions, rest: Pick<q.NewRunner, "runnerType" | "active" | "info" | "projectId" | "namespaceId">) {
  const token = newRunnerToken();
  const runner = await q.createRunner(c.var.db(), {
    digest: await sha256Hex(token),
    description: params.description,
    tagList: params.tag_list ?? [],
    runUntagged: params.run_untagged ?? true,
    locked: params.locked ?? false,
    accessLevel: params.access_level ?? "not_protected",
    maximumTimeout: params.maximum_timeout ?? null,
    ...rest,
  });
  return { id: runner.id, token, token_expires_at: null };
}
const Verify = z.object({ token: p.string(), system_id: p.string().optional() });
const TokenOnly = z.object({ token: p.string() });

function runnerInfo(info: Record<string, unknown> | undefined): q.RunnerInfo | undefined {
  if (!info) return undefined;
  const s = (k: string) => (typeof info[k] === "string" ? (info[k] as string) : undefined);
  return { name: s("name"), version: s("version"), revision: s("revision"), platform: s("platform"), architecture: s("architecture") };
}

/** JSON with exactly `application/json`: the runner rejects other types on 201. */
const json = (c: Ctx, body: unknown, status: 200 | 201) => c.json(body as object, status);

/** POST /runners: registers a runner with a registration token. */
runnerProtocolRoutes.post("/runners", { params: Register }, async (c) => {
  const params = await readParams(c, Register);
  const registration = await q.findRegistrationToken(c.var.db(), await sha256Hex(params.token));
  if (!registration) throw forbidden();
  const created = await createRunnerWithToken(c, params, {
    runnerType: registration.projectId ? "project_type" : registration.namespaceId ? "group_type" : "instance_type",
    active: !(params.paused ?? (params.active === undefined ? false : !params.active)),
    info: runnerInfo(params.info),
    projectId: registration.projectId,
    namespaceId: registration.namespaceId,
  });
  return json(c, created, 201);
});

/** POST /runners/verify */
runnerProtocolRoutes.post("/runners/verify", { params: Verify }, async (c) => {
  const params = await readParams(c, Verify);
  const runner = await q.findRunnerByDigest(c.var.db(), await sha256Hex(params.token));
  if (!runner) throw forbidden();
  return json(c, { id: runner.id, token: params.token, token_expires_at: null }, 200);
});

/**
 * POST /runners/reset_authentication_token {token} (lib/api/ci/runner.rb, GitLab 15.3+): the runner
 * swaps its current token for a new one, 201 `{token, token_expires_at}`; an unknown token is 403.
 */
runnerProtocolRoutes.post("/runners/reset_authentication_token", { params: TokenOnly }, async (c) => {
  const params = await readParams(c, TokenOnly);
  const token = newRunnerToken();
  const id = await q.resetRunnerToken(c.var.db(), { current: await sha256Hex(params.token) }, await sha256Hex(token));
  if (id === null) throw forbidden();
  return json(c, { token, token_expires_at: null }, 201);
});

/** DELETE /runners: unregisters the runner of the token (204). */
runnerProtocolRoutes.delete("/runners", { params: TokenOnly }, async (c) => {
  const params = await readParams(c, TokenOnly);
  if (!(await q.deleteRunnerByDigest(c.var.db(), await sha256Hex(params.token)))) throw forbidden();
  return c.body(null, 204);
});

const RequestJob = z.object({ token: p.string(), last_update: p.string().optional(), system_id: p.string().optional(), info: p.hash().optional() });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * POST /jobs/request: claims the oldest pending job the runner may take (201); 204 with the queue version
 * when there is none; 409 when pending jobs existed but concurrent transactions held them (the runner
 * retries at once; lib/api/ci/runner.rb `conflict!`, no X-GitLab-Last-Update).
 */
runnerProtocolRoutes.post("/jobs/request", { params: RequestJob }, async (c) => {
  const params = await readParams(c, RequestJob);
  const db = c.var.db();
  const runner = await q.touchRunner(db, await sha256Hex(params.token), runnerInfo(params.info), c.req.header("x-forwarded-for") ?? null);
  if (!runner) throw forbidden();
  let version = runner.queueVersion;
  const none = () => {
    c.header("X-GitLab-Last-Update", version);
    return c.body(null, 204);
  };
  if (!runner.active) return none();
  const token = generateToken("glcbt-");
  const digest = await sha256Hex(token);
  let job = await q.claimJob(db, runner, digest);
  // Long polling: a runner that has seen the current version and finds nothing waits here until the
  // queue moves. The claim comes first: a runner that got 409 asks again with the same `last_update`,
  // and waiting on the version before claiming left pending jobs unclaimed (bench:ci stalled with 301
  // pending jobs and 16 runners long-polling on an unchanged version).
  if (job === null && params.last_update !== undefined && params.last_update === version) {
    const until = Date.now() + LONG_POLL_MS;
    while (Date.now() < until && version === params.last_update) {
      await sleep(500);
      version = await q.queueVersion(db);
    }
    if (version === params.last_update) return none();
    job = await q.claimJob(db, runner, digest);
  }
  if (job === "conflict") throw conflict();
  if (!job) return none();
  // The claim wrote `running` (pending → running): its Job Hook goes through the one reporter.
  c.executionCtx.waitUntil(jobStatusChanged(c.env, [{ id: job.id, projectId: job.projectId, type: job.type, status: job.status }]));
  const context = await q.jobContext(db, job);
  const variables = await q.jobVariables(db, job.projectId, job.pipelineId);
  // Protected variables reach jobs of protected branches only (Ci::Build#protected; no protected tags yet).
  const protectedRef = !context.pipeline.tag && (await listProtections(db, job.projectId)).some((p) => refMatches(p.name, context.pipeline.ref));
  const candidates = await q.dependencyCandidates(db, job.pipelineId);
  const ids = dependencyIds(job, candidates);
  const payload = jobPayload({
    job,
    token,
    runner,
    baseUrl: baseUrl(c),
    pipeline: context.pipeline,
    project: context.project,
    namespacePath: context.namespacePath,
    user: context.user,
    commit: context.commit,
    variables,
    protectedRef,
    dependencies: candidates.filter((d) => ids.includes(d.id)),
    // Smart HTTP is served (functions/git_http) and takes the job token as `gitlab-ci-token`: runners clone.
    gitHttp: true,
  });
  c.executionCtx.waitUntil(pipelineStub(c.env, job.pipelineId).process().catch(() => undefined));
  c.header("X-GitLab-Last-Update", version);
  return json(c, payload, 201);
});

/** A job token's job; 403 with `Job-Status` when the job does not run or the token is wrong. */
async function runningJob(c: Ctx, token: string | null) {
  return tokenJob(await buildOfPath(c), token, token ? await sha256Hex(token) : null);
}

/** The job of the path's `:id` (404 when there is none). */
async function buildOfPath(c: Ctx) {
  const raw = c.req.param("id") ?? "";
  const job = /^\d+$/.test(raw) ? await q.findBuild(c.var.db(), Number(raw)) : null;
  if (!job) throw notFound();
  return job;
}

/** The job, when `token` (digest given) is its token and it is running; else 403 with its status. */
function tokenJob<J extends { tokenDigest: string | null; status: string }>(job: J, token: string | null, digest: string | null): J {
  if (!token || job.tokenDigest !== digest || (job.status !== "running" && job.status !== "canceling"))
    throw new ApiError(403, { message: "403 Forbidden" }, { "Job-Status": job.status });
  return job;
}

const UpdateJob = z.object({
  token: p.string().optional(),
  state: p.oneOf("running", "success", "failed").optional(),
  failure_reason: p.string().optional(),
  exit_code: p.int().optional(),
  checksum: p.string().optional(),
  output: p.hash().optional(),
});

/** Coverage (lib/gitlab/ci/trace.rb): last matching line, its last match, first number in it. */
function coverageOf(trace: string, regex: string): number | null {
  let re: RegExp;
  try {
    re = new RegExp(regex, "g");
  } catch {
    return null;
  }
  const lines = trace.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const matches = [...lines[i].matchAll(re)];
    if (!matches.length) continue;
    const last = matches[matches.length - 1];
    const text = last.length > 1 ? (last[last.length - 1] ?? last[0]) : last[0];
    const number = /\d+(\.\d+)?/.exec(text);
    return number ? Number(number[0]) : null;
  }
  return null;
}

/** PUT /jobs/:id: keep-alive (`running`) or the final state, which goes through the pipeline's object. */
runnerProtocolRoutes.put("/jobs/:id", { params: UpdateJob }, async (c) => {
  const params = await readParams(c, UpdateJob);
  const job = await runningJob(c, params.token ?? c.req.header("job-token") ?? null);
  if (!params.state || params.state === "running") {
    await q.keepAlive(c.var.db(), job.id);
    c.header("Job-Status", job.status);
    return c.text("200", 200);
  }
  if (job.coverageRegex) {
    const coverage = coverageOf(new TextDecoder().decode(await q.readTrace(c.var.db(), job.id)), job.coverageRegex);
    if (coverage !== null) await q.setCoverage(c.var.db(), job.id, coverage);
  }
  const reason = params.failure_reason && FAILURE_REASONS.includes(params.failure_reason) ? params.failure_reason : "unknown_failure";
  const outcome = params.state === "success" ? { state: "success" as const } : { state: "failed" as const, failureReason: reason, exitCode: params.exit_code ?? null };
  const result = await pipelineStub(c.env, job.pipelineId).finishJob(job.id, outcome);
  c.header("Job-Status", result.status);
  return c.text("200", 200);
});

/** PATCH /jobs/:id/trace: appends at `Content-Range` start (202), 416 on a gap. */
runnerProtocolRoutes.patch("/jobs/:id/trace", async (c) => {
  const range = c.req.header("content-range");
  const job = await runningJob(c, c.req.header("job-token") ?? ((await rawParams(c)).token as string | undefined) ?? null);
  if (!range) throw badRequest("Missing header Content-Range");
  const m = /^(\d+)-(\d+)$/.exec(range.trim());
  if (!m) throw new ApiError(416, { message: "416 Range Not Satisfiable" }, { Range: `0-${job.traceSize}` });
  const start = Number(m[1]);
  const body = new Uint8Array(await c.req.arrayBuffer());
  const size = await q.appendTrace(c.var.db(), job.id, start, body, TRACE_LIMIT);
  if (size === null) {
    const now = await q.findBuild(c.var.db(), job.id);
    if (!now || (now.status !== "running" && now.status !== "canceling"))
      throw new ApiError(403, { message: "403 Forbidden" }, { "Job-Status": now?.status ?? "failed" });
    if (start === now.traceSize && now.traceSize + body.length > TRACE_LIMIT) {
      await pipelineStub(c.env, job.pipelineId).finishJob(job.id, { state: "failed", failureReason: "trace_size_exceeded", exitCode: null });
      throw new ApiError(403, { message: "403 Forbidden" }, { "Job-Status": "failed" });
    }
    throw new ApiError(416, { message: "416 Range Not Satisfiable" }, { Range: `0-${now.traceSize}` });
  }
  c.header("Job-Status", job.status);
  c.header("Range", `0-${size}`);
  c.header("X-GitLab-Trace-Update-Interval", "3");
  return c.body(null, 202);
});

const TYPES: Record<string, string> = { archive: "zip", junit: "gzip", metadata: "gzip", trace: "raw" };

/**
 * POST /jobs/:id/artifacts: multipart `file`, streamed into R2 (kernel/multipart.ts, shared/r2_parts.ts;
 * docs/uploads.md): nothing holds the whole file, the limit is GitLab's 413 the moment the bytes pass it,
 * the object becomes visible only once every field is read and checked, and the row is written only
 * after R2 completed it; any failure aborts the upload (no row, no object). A job token sent before the
 * file (the `JOB-TOKEN` header, as the runner sends it, or a `token` field first) is checked before any
 * byte is stored; one sent after the file, once the body is read. Fields after the file are read too.
 */
runnerProtocolRoutes.post("/jobs/:id/artifacts", async (c) => {
  const target = await buildOfPath(c);
  // `max_artifacts_size(job)`: the instance's `max_artifacts_size` (MB). Differs from GitLab: there is
  // no project or group override (`closest_setting`), as projects and groups have no such column.
  const limit = Number((await loadSettings(c.var.db())).max_artifacts_size) * 1024 * 1024;
  if (Number(c.req.header("content-length") ?? 0) > limit + FIELDS_SLACK) throw tooLarge();
  const header = c.req.header("job-token");
  let job = header ? tokenJob(target, header, await sha256Hex(header)) : null;
  const form = await streamForm(c, {
    file: "file",
    limit,
    onFile: async (file, before) => {
      if (!job && typeof before.token === "string") job = tokenJob(target, before.token, await sha256Hex(before.token));
      // A key of its own per upload (the type may come after the file): a failed re-upload never
      // touches the object the current row names.
      const writer = new R2PartWriter(c.env.BLOBS, `artifacts/${target.projectId}/${target.id}/${crypto.randomUUID()}/${file.filename || "file"}`);
      await writer.drain(file.chunks);
      return { writer, filename: file.filename ?? "" };
    },
    onFailure: ({ writer }) => writer.abort(),
  });
  const upload = form.file;
  try {
    const raw = form.fields;
    const token = typeof raw.token === "string" ? raw.token : null;
    job ??= tokenJob(target, token, token ? await sha256Hex(token) : null);
    if (!upload) throw paramsError("file is missing");
    const type = typeof raw.artifact_type === "string" ? raw.artifact_type : "archive";
    if (!(type in TYPES)) throw paramsError("artifact_type does not have a valid value");
    const format = typeof raw.artifact_format === "string" ? raw.artifact_format : TYPES[type];
    const expireIn = typeof raw.expire_in === "string" ? raw.expire_in : "30 days";
    const seconds = expireIn === "never" ? null : (parseDuration(expireIn) ?? 30 * 86400);
    const filename = upload.filename || (type === "archive" ? "artifacts.zip" : `${type}.gz`);
    const { writer } = upload;
    await writer.close();
    const artifact = { jobId: job.id, projectId: job.projectId, fileType: type, fileFormat: format, filename, size: writer.size, r2Key: writer.key };
    const replaced = await q.saveArtifact(c.var.db(), { ...artifact, expireAt: seconds === null ? null : new Date(Date.now() + seconds * 1000) }).catch(async (error) => {
      await c.env.BLOBS.delete(writer.key);
      throw error;
    });
    if (replaced && replaced !== writer.key) await c.env.BLOBS.delete(replaced);
  } catch (error) {
    await upload?.writer.abort();
    throw error;
  }
  return c.body("201", 201);
});

/** GET /jobs/:id/artifacts: a dependency's archive, for a running job of the same project. */
runnerProtocolRoutes.get("/jobs/:id/artifacts", async (c) => {
  const token = c.req.header("job-token") ?? ((await rawParams(c)).token as string | undefined) ?? null;
  if (!token) throw forbidden();
  const raw = c.req.param("id") ?? "";
  const target = /^\d+$/.test(raw) ? await q.findBuild(c.var.db(), Number(raw)) : null;
  if (!target) throw notFound();
  const owner = await q.findRunningJobByToken(c.var.db(), await sha256Hex(token));
  if (!owner || owner.projectId !== target.projectId) throw forbidden();
  const archive = await q.archiveOf(c.var.db(), target.id);
  const object = archive ? await c.env.BLOBS.get(archive.r2Key) : null;
  if (!archive || !object) throw notFound();
  return new Response(object.body, { headers: { "Content-Type": "application/octet-stream", "Content-Disposition": `attachment; filename="${archive.filename}"` } });
});
