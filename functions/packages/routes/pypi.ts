import * as z from "zod";
import { callerMay, callerReadsGroup, type ProjectWithAccess } from "../../kernel/abilities";
import { requireUserOrDeployToken } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { apiError, badRequest, forbidden, notFound, paramsError, unauthorizedBasic } from "../../kernel/errors";
import { streamForm } from "../../kernel/multipart";
import { loadGroup, loadProject } from "../../kernel/lookup";
import { p, validateParams } from "../../kernel/params";
import { baseUrl } from "../../kernel/present";
import { router } from "../../kernel/router";
import { pypiSimpleIndex, pypiSimplePackage } from "../../entities/packages_pypi";
import * as q from "../queries";
import { MAX_FILE_BYTES, streamFile } from "../services";

/**
 * The PyPI registry (lib/api/pypi_packages.rb): `twine upload` POSTs one file at a time, pip reads the
 * PEP 503 simple API and downloads. Credentials are HTTP Basic with a personal access token as the
 * password (any user name), `gitlab-ci-token:<job token>` (kernel/auth.ts `BASIC_AUTH_ROUTES`), or a
 * deploy token as `<its username>:<token>` (kernel/auth.ts `DEPLOY_TOKEN_ROUTES`).
 * Not built: the PEP 691 JSON variant (GitLab 16.x), `POST …/authorize` (a Workhorse step), and
 * forwarding unknown names to pypi.org.
 */
export const pypiPackagesRoutes = router();

/** Gitlab::Regex.pypi_package_name_regex (PEP 508 names). */
const NAME = /^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$/i;
/** Gitlab::Regex.pypi_version_regex: PEP 440 public and local versions. */
const VERSION =
  /^v?(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?(?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?(?:[-_.]?dev[-_.]?[0-9]*)?(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?$/i;

/** PEP 503 normalization of a requested name. */
const normalize = (name: string) => name.toLowerCase().replace(/[-_.]+/g, "-");

/**
 * `project!` of the PyPI API (BasicAuthHelpers#authorized_user_project): a missing project is 404; one
 * the caller cannot use is 401 for anonymous callers (so that pip sends its credentials), else 404.
 * A deploy token sees only the projects it reaches (its own, or its group's: kernel/abilities.ts).
 */
async function pypiProject(c: Ctx): Promise<ProjectWithAccess> {
  const project = await loadProject(c, c.req.param("id") ?? "");
  if (!project) throw notFound("Project");
  if (!callerMay(c, "read_project", project)) {
    if (anonymous(c)) throw unauthorizedBasic();
    throw notFound("Project");
  }
  return project;
}

const anonymous = (c: Ctx) => !c.var.actor && !c.var.deployToken;

/** `authorize_read_package!`: 401 for anonymous callers (Basic challenge), 403 otherwise. */
function authorizeRead(c: Ctx, project: ProjectWithAccess): void {
  if (callerMay(c, "read_package", project)) return;
  if (anonymous(c)) throw unauthorizedBasic();
  throw forbidden();
}

/** `ensure_group!`: 404 for a missing group, 401 for anonymous callers who cannot read it, else 404. */
async function pypiGroup(c: Ctx) {
  const group = await loadGroup(c, c.req.param("id") ?? "");
  if (!group) throw notFound("Group");
  if (!callerReadsGroup(c, group)) {
    if (anonymous(c)) throw unauthorizedBasic();
    throw notFound("Group");
  }
  return group;
}

/** Whose packages a group's registry shows: a deploy token that reads the group reads every project below it. */
const groupOwner = (c: Ctx, groupId: number): q.PypiOwner => ({ groupId, actor: c.var.actor, everyProject: !!c.var.deployToken });

const html = (c: Ctx, body: string) => c.body(body, 200, { "Content-Type": "text/html; charset=utf-8" });

async function sendFile(c: Ctx, file: { fileStore: string; fileName: string; size: number } | null): Promise<Response> {
  const object = file ? await c.env.BLOBS.get(file.fileStore) : null;
  if (!file || !object) throw notFound("Package");
  return new Response(object.body, {
    headers: {
      "Content-Type": "application/octet-stream",
      "Content-Length": String(file.size),
      "Content-Disposition": `attachment; filename="${file.fileName}"; filename*=UTF-8''${encodeURIComponent(file.fileName)}`,
    },
  });
}

const projectUrl = (c: Ctx, id: number) => `${baseUrl(c)}/api/v4/projects/${id}/packages/pypi`;
const groupUrl = (c: Ctx, id: number) => `${baseUrl(c)}/api/v4/groups/${id}/-/packages/pypi`;

/** GET /groups/:id/-/packages/pypi/files/:sha256/*file_identifier (lib/api/pypi_packages.rb) */
pypiPackagesRoutes.get("/groups/:id/-/packages/pypi/files/:sha256/:file_identifier", async (c) => {
  const group = await pypiGroup(c);
  const file = await q.findPypiFile(c.var.db(), groupOwner(c, group.id), c.req.param("sha256")!, c.req.param("file_identifier")!);
  return sendFile(c, file);
});

/** GET /groups/:id/-/packages/pypi/simple (lib/api/pypi_packages.rb): the names of the group's packages the caller reads. */
pypiPackagesRoutes.get("/groups/:id/-/packages/pypi/simple", async (c) => {
  const group = await pypiGroup(c);
  const names = await q.pypiNames(c.var.db(), groupOwner(c, group.id));
  return html(c, pypiSimpleIndex(group.name, names, `${groupUrl(c, group.id)}/simple`));
});

/** GET /groups/:id/-/packages/pypi/simple/*package_name (lib/api/pypi_packages.rb) */
pypiPackagesRoutes.get("/groups/:id/-/packages/pypi/simple/:package_name", async (c) => {
  const group = await pypiGroup(c);
  const found = await q.pypiFiles(c.var.db(), groupOwner(c, group.id), normalize(c.req.param("package_name")!));
  if (!found.files.length) throw notFound("Package");
  return html(c, pypiSimplePackage(found.name, found.files, `${groupUrl(c, group.id)}/files`));
});

/** GET /projects/:id/packages/pypi/files/:sha256/*file_identifier (lib/api/pypi_packages.rb) */
pypiPackagesRoutes.get("/projects/:id/packages/pypi/files/:sha256/:file_identifier", async (c) => {
  const project = await pypiProject(c);
  authorizeRead(c, project);
  const file = await q.findPypiFile(c.var.db(), { projectId: project.id }, c.req.param("sha256")!, c.req.param("file_identifier")!);
  return sendFile(c, file);
});

/** GET /projects/:id/packages/pypi/simple (lib/api/pypi_packages.rb): one link per package name. */
pypiPackagesRoutes.get("/projects/:id/packages/pypi/simple", async (c) => {
  const project = await pypiProject(c);
  authorizeRead(c, project);
  const names = await q.pypiNames(c.var.db(), { projectId: project.id });
  return html(c, pypiSimpleIndex(project.name, names, `${projectUrl(c, project.id)}/simple`));
});

/** GET /projects/:id/packages/pypi/simple/*package_name (lib/api/pypi_packages.rb): every file of the package. */
pypiPackagesRoutes.get("/projects/:id/packages/pypi/simple/:package_name", async (c) => {
  const project = await pypiProject(c);
  authorizeRead(c, project);
  const found = await q.pypiFiles(c.var.db(), { projectId: project.id }, normalize(c.req.param("package_name")!));
  if (!found.files.length) throw notFound("Package");
  return html(c, pypiSimplePackage(found.name, found.files, `${projectUrl(c, project.id)}/files`));
});

const HEX64 = /^[0-9a-f]{64}$/i;
const Upload = z.object({
  content: p.file(),
  name: p.string(),
  version: p.string(),
  requires_python: p.string().optional(),
  md5_digest: p.string().optional(),
  sha256_digest: p.string().refine((v) => HEX64.test(v), { message: "is invalid" }).optional(),
  // twine sends the whole core metadata; GitLab 15.4 declares these and keeps none of them.
  metadata_version: p.string().optional(),
  author_email: p.string().optional(),
  description: p.string().optional(),
  description_content_type: p.string().optional(),
  summary: p.string().optional(),
  keywords: p.string().optional(),
});

/**
 * POST /projects/:id/packages/pypi (lib/api/pypi_packages.rb, Packages::Pypi::CreatePackageService):
 * 201. A version takes any number of files, each file name once (`Validation failed: File name has
 * already been taken`). Deliberate difference from GitLab, which stores the client's digests as
 * given: the digests are computed from the bytes, and a `sha256_digest` or `md5_digest` that does not
 * match them is refused (400) before anything is kept.
 */
pypiPackagesRoutes.post("/projects/:id/packages/pypi", { params: Upload }, async (c) => {
  const actor = requireUserOrDeployToken(c);
  // Differs from GitLab (Grape validates parameters first): the caller is authorized before the body
  // is read, since the file streams into R2 as it arrives (docs/uploads.md) and a stranger's bytes
  // must never be stored; bad parameters are still 400, after that.
  const project = await pypiProject(c);
  if (!callerMay(c, "create_package", project)) throw forbidden();
  const form = await streamForm(c, {
    file: "content",
    limit: MAX_FILE_BYTES,
    onFile: (file) => streamFile(c.env.BLOBS, project.id, file.filename ?? "", file.chunks),
    onFailure: ({ writer }) => writer.abort(),
  });
  const upload = form.file;
  try {
    // The bytes are in R2 already, not yet visible: the schema checks a stand-in with the file's name.
    const params = validateParams({ ...form.fields, content: upload ? new File([], upload.stored.fileName) : undefined }, Upload);
    if (!upload) throw paramsError("content is missing");
    if (!NAME.test(params.name)) throw apiError("Validation failed: Name is invalid", 400);
    if (!VERSION.test(params.version)) throw apiError("Validation failed: Version is invalid", 400);
    const requiredPython = params.requires_python ?? "";
    if (requiredPython.length > 255) throw apiError("Validation failed: Required python is too long (maximum is 255 characters)", 400);
    const { stored, writer } = upload;
    const sha256Wrong = params.sha256_digest && params.sha256_digest.toLowerCase() !== stored.fileSha256;
    if (sha256Wrong || (params.md5_digest && params.md5_digest.toLowerCase() !== stored.fileMd5))
      throw badRequest(`${sha256Wrong ? "sha256_digest" : "md5_digest"} does not match the file`);
    await writer.close();
    const outcome = await q
      .addPypiFile(c.var.db(), project.id, actor?.user.id ?? null, { name: params.name, version: params.version, requiredPython, pipelineId: actor?.job?.pipelineId ?? null }, stored)
      .catch(async (error) => {
        await c.env.BLOBS.delete(stored.fileStore);
        throw error;
      });
    if (outcome !== "created") {
      await c.env.BLOBS.delete(stored.fileStore);
      if (outcome === "taken") throw apiError("Validation failed: File name has already been taken", 400);
      throw apiError("Validation failed: Version has already been taken", 400);
    }
  } catch (error) {
    await upload?.writer.abort();
    throw error;
  }
  return c.json({ message: "201 Created" }, 201); // `created!`
});
