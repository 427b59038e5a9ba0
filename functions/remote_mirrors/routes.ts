import * as z from "zod";
import { allowed, type ProjectWithAccess } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import { apiError, recordNotFound, unauthorized, validation } from "../kernel/errors";
import { authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, pathRowId, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { loadSettings } from "../shared/settings/load";
import { splitCredentials, syncMirror, urlErrors } from "../shared/remote_mirrors";
import { RemoteMirror, remoteMirror } from "../entities/remote_mirrors";
import * as q from "./queries";

/**
 * Push mirrors (lib/api/remote_mirrors.rb, GitLab 15.4; `sync` from 16.11). Every endpoint needs
 * `admin_remote_mirror` (Maintainer): a readable project without it answers 401, as GitLab's `before`
 * block does (`unauthorized!`). The updates themselves run in the `edgeforge-mirrors` queue
 * (functions/shared/remote_mirrors); docs/remote_mirrors.md has the whole design.
 */
export const remoteMirrorsRoutes = router();

const bool = () => p.bool().optional();
const CreateMirror = z.object({
  url: p.string().describe("The URL to push to, with its user and password (`https://user:token@host/path.git`)"),
  enabled: bool().describe("Determines if the mirror is enabled (default false)"),
  only_protected_branches: bool().describe("Determines if only protected branches are mirrored"),
  keep_divergent_refs: bool().describe("Determines if divergent refs are skipped"),
});
const UpdateMirror = CreateMirror.omit({ url: true });

/** `user_project` (404), then `unauthorized! unless can?(current_user, :admin_remote_mirror, user_project)`. */
async function mirrorProject(c: Ctx): Promise<ProjectWithAccess> {
  const project = await authorizedProject(c, null);
  if (!allowed(c.var.actor, "admin_remote_mirror", project)) throw unauthorized();
  return project;
}

/** `remote_mirrors.find(params[:mirror_id])`: anything else is `404 Not found`. */
async function findMirror(c: Ctx, project: ProjectWithAccess): Promise<q.RemoteMirror> {
  const id = pathRowId(c.req.param("mirror_id"));
  const found = id === null ? null : await q.findMirror(c.var.db(), project.id, id);
  if (!found) throw recordNotFound();
  return found;
}

const values = (params: z.output<typeof UpdateMirror>): q.MirrorValues => ({
  enabled: params.enabled,
  onlyProtectedBranches: params.only_protected_branches,
  keepDivergentRefs: params.keep_divergent_refs,
});

/** GET /projects/:id/remote_mirrors */
remoteMirrorsRoutes.get("/projects/:id/remote_mirrors", { params: pageParams, paginated: true, response: [RemoteMirror], errors: [401] }, async (c) => {
  const project = await mirrorProject(c);
  const page = pageOf(await readParams(c, pageParams));
  const list = await q.listMirrors(c.var.db(), project.id, page);
  paginate(c, page, list.total);
  return present(c, list.rows, remoteMirror);
});

/** GET /projects/:id/remote_mirrors/:mirror_id */
remoteMirrorsRoutes.get("/projects/:id/remote_mirrors/:mirror_id", { response: RemoteMirror, errors: [401] }, async (c) => {
  const project = await mirrorProject(c);
  return present(c, await findMirror(c, project), remoteMirror);
});

/**
 * POST /projects/:id/remote_mirrors: 201; the URL's validations are `400 {"message":{"url":[…]}}`
 * (`render_validation_error!`). An enabled mirror is pushed at once (Differs from GitLab, which waits
 * for the next change).
 */
remoteMirrorsRoutes.post("/projects/:id/remote_mirrors", { params: CreateMirror, response: RemoteMirror, status: 201, errors: [400, 401] }, async (c) => {
  const project = await mirrorProject(c);
  const params = await readParams(c, CreateMirror);
  const db = c.var.db();
  const settings = await loadSettings(db);
  const errors = urlErrors(params.url, {
    allowLocal: settings.allow_local_requests_from_web_hooks_and_services as boolean,
    allowlist: settings.outbound_local_requests_whitelist as string[],
  });
  if (errors.length) throw validation({ url: errors });
  const row = await q.insertMirror(db, project.id, { ...values(params), ...splitCredentials(params.url) });
  if (row.enabled) c.executionCtx.waitUntil(syncMirror(c.env, row.id));
  return present(c, row, remoteMirror, undefined, 201);
});

/** PUT /projects/:id/remote_mirrors/:mirror_id: a mirror turned on is pushed at once. */
remoteMirrorsRoutes.put("/projects/:id/remote_mirrors/:mirror_id", { params: UpdateMirror, response: RemoteMirror, errors: [401] }, async (c) => {
  const project = await mirrorProject(c);
  // Grape validates the parameters before the route's `find`.
  const params = await readParams(c, UpdateMirror);
  const found = await findMirror(c, project);
  const row = await q.updateMirror(c.var.db(), found.id, values(params));
  if (row.enabled && !found.enabled) c.executionCtx.waitUntil(syncMirror(c.env, row.id));
  return present(c, row, remoteMirror);
});

/** DELETE /projects/:id/remote_mirrors/:mirror_id (14.10+): 204 */
remoteMirrorsRoutes.delete("/projects/:id/remote_mirrors/:mirror_id", { errors: [401] }, async (c) => {
  const project = await mirrorProject(c);
  const found = await findMirror(c, project);
  await q.deleteMirror(c.var.db(), found.id);
  return c.body(null, 204);
});

/**
 * POST /projects/:id/remote_mirrors/:mirror_id/sync (16.11+, RemoteMirrors::SyncService): queues an
 * update and answers 204; a disabled mirror is `400 {"message":"Mirror is not enabled"}`.
 */
remoteMirrorsRoutes.post("/projects/:id/remote_mirrors/:mirror_id/sync", { status: 204, errors: [400, 401] }, async (c) => {
  const project = await mirrorProject(c);
  const found = await findMirror(c, project);
  if (!found.enabled) throw apiError("Mirror is not enabled", 400);
  await syncMirror(c.env, found.id);
  return c.body(null, 204);
});
