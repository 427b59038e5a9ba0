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
import * as q from "./queries";
import { scheduleImport } from "./services";

/**
 * Project import (lib/api/project_import.rb): `POST /projects/import` creates the project
 * and schedules the archive's import in the `edgeforge-exports` queue (consumer.ts); `GET
 * /projects/:id/import` reads its state. `POST /projects/import/authorize` (Workhorse) is not built.
 */
export const projectImportRoutes = router();

const bool = () => p.bool().optional();
const StartImport = z.object({
  path: p.string(),
  file: p.file(),
  name: p.string().optional(),
  namespace: p.string().optional(),
  overwrite: p.bool().optional(),
  // `use :optional_project_params`: the settings an import may override.
  override_params: z
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
    .optional(),
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
  const namespace = params.namespace !== undefined ? await findNamespace(c, params.namespace) : null;
  const project = await scheduleImport(c.var.db(), c.env, actor.user, {
    path: params.path,
    name: params.name,
    namespace,
    file: new Uint8Array(await params.file.arrayBuffer()),
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
});

/** GET /projects/:id/import: `present user_project, with: ProjectImportStatus` (readers of the project). */
projectImportRoutes.get("/projects/:id/import", { response: ProjectImportStatus }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  const db = c.var.db();
  const job = await q.latestImportJob(db, project.id);
  const failures = job ? await q.failedRelations(db, job.id) : [];
  return present(c, { project, job, failures, mayReadError: allowed(c.var.actor, "admin_project", project) }, projectImportStatus);
});
