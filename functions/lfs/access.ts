// Who may use Git LFS on a project (app/controllers/concerns/lfs_request.rb and
// Repositories::GitHttpClientController, GitLab 15.4): git's HTTP Basic authentication
// (git_http/access.ts), then `lfs_check_access!`.
import { allowed, canReadProject, type ProjectWithAccess } from "../kernel/abilities";
import { Visibility } from "../kernel/access";
import type { Actor, Ctx } from "../kernel/env";
import { loadProject } from "../kernel/lookup";
import { baseUrl } from "../kernel/present";
import { GitHttpError, actorFromBasic, denied, scopeAllows } from "../shared/git_http/access";
import { projectLfsEnabled } from "../entities/projects";
import { lfsMessage } from "../entities/lfs";
import { throttleGitLfs } from "../shared/settings/throttle";

export type LfsOperation = "download" | "upload";

/** An LFS refusal: GitLab's JSON body (`message`, `documentation_url`) as `application/vnd.git-lfs+json`. */
export class LfsError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409 | 422,
    readonly text: string,
  ) {
    super(text);
  }

  response(c: Ctx): Response {
    return lfsJson(lfsMessage(this.text, `${baseUrl(c)}/help`), this.status);
  }
}

export const LFS_CONTENT_TYPE = "application/vnd.git-lfs+json";

export const lfsJson = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": `${LFS_CONTENT_TYPE}; charset=utf-8` } });

export const lfsNotFound = () => new LfsError(404, "Not found.");
const lfsForbidden = () => new LfsError(403, "Access forbidden. Check your access level.");

/** `Project#lfs_enabled?`: the project's `lfs_enabled`, else its namespace's. */
const lfsEnabled = (project: ProjectWithAccess) => projectLfsEnabled(project);

/**
 * The project behind `/<full_path>.git` if the caller may run `operation` on its LFS objects.
 * Anonymous callers: 401 with the Basic challenge unless they download from a public project
 * (`http_download_allowed?`); signed-in callers: `lfs_check_access!` (403 when they can read the
 * project but may not do this, or LFS is off; 404 when they cannot read it or it does not exist).
 */
export async function lfsAccess(c: Ctx, fullPath: string, operation: LfsOperation): Promise<{ project: ProjectWithAccess; actor: Actor | null }> {
  const actor = await actorFromBasic(c);
  c.set("actor", actor);
  await throttleGitLfs(c, actor);
  const project = fullPath.includes("/") ? await loadProject(c, fullPath) : null;
  if (!actor) {
    if (operation !== "download" || !project || project.visibilityLevel < Visibility.PUBLIC) throw denied();
    if (!lfsEnabled(project)) throw lfsForbidden();
    return { project, actor };
  }
  if (!project) throw lfsNotFound();
  const may =
    lfsEnabled(project) &&
    (operation === "download"
      ? scopeAllows(actor, "git-upload-pack") && allowed(actor, "download_code", project)
      : scopeAllows(actor, "git-receive-pack") && allowed(actor, "push_code", project));
  if (may) return { project, actor };
  if (project.visibilityLevel >= Visibility.PUBLIC || canReadProject(actor, project)) throw lfsForbidden();
  throw lfsNotFound();
}

/** `/<full_path>` of a `/:repo{.+\\.git}/…` route. */
export const repoPath = (c: Ctx) => c.req.param("repo")!.replace(/\.git$/, "");

/** Runs an LFS endpoint, rendering git's and LFS's refusals as GitLab does. */
export async function guarded(c: Ctx, fn: () => Promise<Response>): Promise<Response> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof GitHttpError) return error.response();
    if (error instanceof LfsError) return error.response(c);
    throw error;
  }
}
