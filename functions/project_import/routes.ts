import * as z from "zod";
import { allowed } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import { apiError, forbidden } from "../kernel/errors";
import { findNamespace, findProject } from "../kernel/lookup";
import { p, readParams } from "../kernel/params";
import { baseUrl, present } from "../kernel/present";
import { router } from "../kernel/router";
import { loadSettings } from "../shared/settings/load";
import { projectImportStatus, ProjectImportStatus } from "../entities/project_import";
import type { Actor, Ctx } from "../kernel/env";
import * as q from "./queries";
import { guardedFetch, outboundGuard, remoteFileErrors, remoteHeaders, remoteUrlBlocked, type RemoteHeaders } from "./remote";
import { presignedGet, signedHead } from "./s3";
import { scheduleImport } from "./services";

/**
 * Project import (lib/api/project_import.rb): `POST /projects/import` creates the project
 * and schedules the archive's import in the `edgeforge-exports` queue (consumer.ts); `GET
 * /projects/:id/import` reads its state; `POST /projects/remote-import` and `remote-import-s3` take the
 * archive from a URL or an S3 bucket (remote.ts, s3.ts). `POST /projects/import/authorize` (Workhorse) is not built.
 */
export const projectImportRoutes = router();

const bool = () => p.bool().optional();
const OverrideParams = z
  .object({
    description: p.string().optional(),
    visibility: p.oneOf("private", "internal", "public").optional(),
    issues_enabled: bool(),
    merge_requests_enabled: bool(),
    wiki_enabled: bool(),
    jobs_enabled: bool(),
    snippets_enabled: bool(),
    shared_runners_enabled: bool(),
    public_jobs: bool(),
    request_access_enabled: bool(),
    merge_method: p.oneOf("merge", "rebase_merge", "ff").optional(),
    squash_option: p.oneOf("never", "always", "default_on", "default_off").optional(),
    remove_source_branch_after_merge: bool(),
    only_allow_merge_if_pipeline_succeeds: bool(),
    topics: p.strings({ comma: true }).optional(),
  })
  .optional();
type OverrideParamsInput = z.output<typeof OverrideParams>;
const StartImport = z.object({
  path: p.string(),
  file: p.file(),
  name: p.string().optional(),
  namespace: p.string().optional(),
  overwrite: p.bool().optional(),
  // `use :optional_project_params`: the settings an import may override.
  override_params: OverrideParams,
});

/** ImportExportUploader::EXTENSION_ALLOWLIST, as `File.extname` reads a name (`x.tar.gz` → `gz`). */
const ALLOWED_EXTENSIONS = ["gz"];

/** POST /projects/import: 201 with ProjectImportStatus (`import_status: "scheduled"`). */
projectImportRoutes.post("/projects/import", { params: StartImport, response: ProjectImportStatus }, async (c) => {
  const actor = requireUser(c);
  // `before { forbidden! unless import_sources.include?('gitlab_project') }`, ahead of the parameters.
  const settings = await loadSettings(c.var.db());
  if (!(settings.import_sources as string[]).includes("gitlab_project")) throw forbidden();
  const params = await readParams(c, StartImport);
  // `validate_file!`.
  const extension = /\.([^./]+)$/.exec(params.file.name)?.[1] ?? "";
  if (!ALLOWED_EXTENSIONS.includes(extension)) throw apiError("The file is invalid", 400);
  return scheduleFrom(c, actor, params, new Uint8Array(await params.file.arrayBuffer()));
});

/** GET /projects/:id/import: `present user_project, with: ProjectImportStatus` (readers of the project). */
projectImportRoutes.get("/projects/:id/import", { response: ProjectImportStatus }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  const db = c.var.db();
  const job = await q.latestImportJob(db, project.id);
  const failures = job ? await q.failedRelations(db, job.id) : [];
  return present(c, { project, job, failures, mayReadError: allowed(c.var.actor, "admin_project", project) }, projectImportStatus);
});

const RemoteImport = z.object({
  url: p.string().describe("URL for the file"),
  path: p.string().describe("Name and path for the new project"),
  name: p.string().optional().describe("The name of the project to import. Defaults to the path of the project"),
  namespace: p.string().optional().describe("The ID or path of the namespace to import the project to. Defaults to the current user's namespace"),
  overwrite: p.bool().optional().describe("Whether to overwrite a project with the same path when importing"),
  override_params: OverrideParams,
});

const RemoteImportS3 = z.object({
  region: p.string().describe("AWS S3 region name where the file is stored"),
  bucket_name: p.string().describe("AWS S3 bucket name where the file is stored"),
  file_key: p.string().describe("AWS S3 file key to identify the file"),
  access_key_id: p.string().describe("AWS S3 access key ID"),
  secret_access_key: p.string().describe("AWS S3 secret access key"),
  path: p.string().describe("Full path of the new project"),
  name: p.string().optional().describe("The name of the project to import. Defaults to the path of the project"),
  namespace: p.string().optional().describe("The ID or path of the namespace to import the project to. Defaults to the current user's namespace"),
});

/** `before { forbidden! unless import_sources.include?('gitlab_project') }` and `authenticate!`. */
async function importAllowed(c: Ctx) {
  const actor = requireUser(c);
  const settings = await loadSettings(c.var.db());
  if (!(settings.import_sources as string[]).includes("gitlab_project")) throw forbidden();
  return actor;
}

/** Creates the project and schedules the job that downloads `remoteUrl`; 201 with ProjectImportStatus. */
/** ImportService for an uploaded archive or one at `{ remoteUrl }`; 201 with the project as scheduled. */
async function scheduleFrom(c: Ctx, actor: Actor, params: { path: string; name?: string; namespace?: string; overwrite?: boolean; override_params?: OverrideParamsInput }, file: Uint8Array | { remoteUrl: string }) {
  const namespace = params.namespace !== undefined ? await findNamespace(c, params.namespace) : null;
  const project = await scheduleImport(c.var.db(), c.env, actor.user, {
    path: params.path,
    name: params.name,
    namespace,
    file,
    override: params.override_params ?? {},
    overwrite: params.overwrite ?? false,
    correlationId: c.var.requestId,
    baseUrl: baseUrl(c),
  });
  // The job as scheduled, read before the message goes out: GitLab presents the project as ImportService
  // left it (`scheduled`), and the consumer may start before this response is written.
  const job = await q.latestImportJob(c.var.db(), project.id);
  await c.env.EXPORTS_QUEUE.send({ kind: "import", id: project.jobId });
  return present(c, { project, job, failures: [], mayReadError: true }, projectImportStatus, {}, 201);
}

/** The first of the strategy's validation messages as CreateProjectService answers it: 400 `{"message"}`. */
function refuse(errors: string[]) {
  if (errors.length > 0) throw apiError(errors[0], 400);
}

/**
 * POST /projects/remote-import (GitLab 15.4, RemoteFile strategy): the URL is checked by the outbound
 * guard and by its HEAD (an S3 answer is sent to remote-import-s3; the type must be a tar.gz, the size
 * at most 10 GB); the import job downloads it (remote.ts).
 */
projectImportRoutes.post("/projects/remote-import", { params: RemoteImport, response: ProjectImportStatus }, async (c) => {
  const actor = await importAllowed(c);
  const params = await readParams(c, RemoteImport);
  const guard = await outboundGuard(c.var.db());
  const blocked = remoteUrlBlocked(params.url, guard);
  refuse(blocked ? [`File url is blocked: ${blocked}`] : []);
  let headers: RemoteHeaders;
  try {
    headers = remoteHeaders(await guardedFetch(new Request(params.url, { method: "HEAD" }), guard, HEAD_TIMEOUT_MS));
  } catch (error) {
    throw apiError(`Failed to retrive headers: ${(error as Error).message}`, 400); // sic, GitLab's spelling
  }
  refuse([...(headers.s3 ? ["To import from AWS S3 use `projects/remote-import-s3`"] : []), ...remoteFileErrors(headers)]);
  return scheduleFrom(c, actor, params, { remoteUrl: params.url });
});

/**
 * POST /projects/remote-import-s3 (RemoteFileS3 strategy): a signed HEAD (`object.exists?`) reads the
 * object's type and size; the job downloads it through a presigned URL valid for 28 hours. The endpoint
 * is AWS's, or `IMPORT_S3_ENDPOINT` (s3.ts).
 */
projectImportRoutes.post("/projects/remote-import-s3", { params: RemoteImportS3, response: ProjectImportStatus }, async (c) => {
  const actor = await importAllowed(c);
  const params = await readParams(c, RemoteImportS3);
  // `validates_presence_of :region, :bucket_name, :file_key, :access_key_id, :secret_access_key`.
  const blank = (["region", "bucket_name", "file_key", "access_key_id", "secret_access_key"] as const).find((k) => params[k].trim() === "");
  if (blank) throw apiError(`${blank.charAt(0).toUpperCase()}${blank.slice(1).replace(/_/g, " ")} can't be blank`, 400);
  const object = { region: params.region, bucket: params.bucket_name, key: params.file_key, accessKeyId: params.access_key_id, secretAccessKey: params.secret_access_key };
  // What aws-sdk refuses before any request (the bucket becomes part of the host name).
  if (!VALID_BUCKET.test(params.bucket_name) || !VALID_REGION.test(params.region))
    throw apiError(`Failed to open '${params.file_key}' in '${params.bucket_name}': ${VALID_REGION.test(params.region) ? "Invalid bucket name" : "Invalid region"}`, 400);
  const now = new Date();
  const fileUrl = await presignedGet(object, now, c.env.IMPORT_S3_ENDPOINT);
  const guard = await outboundGuard(c.var.db());
  const blocked = remoteUrlBlocked(fileUrl, guard);
  refuse(blocked ? [`File url is blocked: ${blocked}`] : []);
  let head: Response;
  try {
    head = await guardedFetch(await signedHead(object, now, c.env.IMPORT_S3_ENDPOINT), guard, HEAD_TIMEOUT_MS);
  } catch (error) {
    throw apiError(`Failed to open '${params.file_key}' in '${params.bucket_name}': ${(error as Error).message}`, 400);
  }
  if (head.status === 404) throw apiError(`File not found '${params.file_key}' in '${params.bucket_name}'`, 400);
  if (!head.ok) throw apiError(`Failed to open '${params.file_key}' in '${params.bucket_name}': ${s3ErrorName(head.status)}`, 400);
  refuse(remoteFileErrors(remoteHeaders(head)));
  return scheduleFrom(c, actor, params, { remoteUrl: fileUrl });
});

/** S3's bucket naming rules (3 to 63 lower-case letters, digits, dots and hyphens) and a region's shape. */
const VALID_BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const VALID_REGION = /^[a-z0-9-]{1,32}$/;

/** How long the HEAD may take (GitLab: 1 second; a Worker's first request to a host may need more). */
const HEAD_TIMEOUT_MS = 10_000;

/** The aws-sdk error class a HEAD's status becomes (a HEAD has no body to name it). */
function s3ErrorName(status: number): string {
  return { 400: "Aws::S3::Errors::BadRequest", 403: "Aws::S3::Errors::Forbidden", 301: "Aws::S3::Errors::PermanentRedirect" }[status] ?? `Aws::S3::Errors::Http${status}Error`;
}
