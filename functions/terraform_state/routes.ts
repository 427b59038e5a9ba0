import * as z from "zod";
import { authorize, type ProjectAbility, type ProjectWithAccess } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { conflict, notFound, recordNotFound } from "../kernel/errors";
import { authorizedProject } from "../kernel/lookup";
import { p, readParams, readParamsWithPath } from "../kernel/params";
import { isoTime } from "../kernel/present";
import { router } from "../kernel/router";
import * as q from "./queries";

/**
 * Terraform state for Terraform's and OpenTofu's `http` backend (lib/api/terraform/state.rb,
 * state_version.rb). Configure `address` = `…/terraform/state/<name>`, `lock_address` and
 * `unlock_address` = `…/lock`, `lock_method=POST`, `unlock_method=DELETE`, and Basic credentials (any
 * username and a personal access token, or `gitlab-ci-token` and a job token), as GitLab documents.
 * The state bytes are kept in R2 (`BLOBS`), every version. Developers read, maintainers write.
 * Deliberate difference: a CI job token also writes the states of its own project, whatever its
 * user's role (GitLab checks the job user's role). Not built: the `LOCK`/`UNLOCK` methods (GitLab
 * answers them as unknown routes too), `DELETE …/versions/:serial`, the states list (GraphQL in GitLab).
 */
export const terraformStateRoutes = router();

const StateParams = z.object({ ID: p.string().optional(), serial: p.int().optional() });
const LockParams = z.object({
  ID: p.string(),
  Operation: p.string(),
  Info: p.string(),
  Who: p.string(),
  Version: p.string(),
  Created: p.string(),
  Path: p.string(),
});
const UnlockParams = z.object({ ID: p.string().optional() });
const VersionParams = z.object({ name: p.string(), serial: p.int() });

/** `authenticate!`, `authorize! :read_terraform_state` (and `ability` for writes); a job token writes its own project's states. */
async function stateProject(c: Ctx, ability: ProjectAbility = "read_terraform_state"): Promise<ProjectWithAccess> {
  const actor = requireUser(c);
  const project = await authorizedProject(c, null);
  if (actor.job?.projectId !== project.id) {
    authorize(c, "read_terraform_state", project);
    authorize(c, ability, project);
  }
  return project;
}

const stateName = (c: Ctx) => c.req.param("name")!;

async function findState(c: Ctx, project: ProjectWithAccess) {
  const state = await q.findState(c.var.db(), project.id, stateName(c));
  if (!state) throw recordNotFound();
  return state;
}

/** GET /projects/:id/terraform/state/:name: the latest version's bytes; 204 before the first one. */
terraformStateRoutes.get("/projects/:id/terraform/state/:name", { params: StateParams }, async (c) => {
  await readParams(c, StateParams);
  const project = await stateProject(c);
  const state = await findState(c, project);
  const latest = await q.latestVersion(c.var.db(), state.id);
  const object = latest ? await c.env.BLOBS.get(latest.r2Key) : null;
  if (!object) return c.body(null, 204);
  return new Response(object.body, { headers: { "Content-Type": "application/octet-stream" } });
});

/** POST /projects/:id/terraform/state/:name?ID=<lock>: a new version (its `serial` read from the JSON body, as Grape does). */
terraformStateRoutes.post("/projects/:id/terraform/state/:name", { params: StateParams }, async (c) => {
  const params = await readParams(c, StateParams);
  const project = await stateProject(c, "admin_terraform_state");
  const data = new Uint8Array(await c.req.arrayBuffer());
  if (data.length === 0) return c.body(null, 204);
  const db = c.var.db();
  const state = await q.createOrFindState(db, project.id, stateName(c));
  // Deliberate difference: a body without `serial` becomes the next version (GitLab stores a null one).
  const version = params.serial ?? ((await q.latestVersion(db, state.id))?.version ?? 0) + 1;
  const r2Key = `terraform/${project.id}/${state.id}/${version}/${crypto.randomUUID()}`;
  await c.env.BLOBS.put(r2Key, data);
  const actor = c.var.actor!;
  const saved = await q.saveVersion(db, state.id, params.ID ?? null, { version, r2Key, size: data.length, createdByUserId: actor.user.id, ciBuildId: actor.job?.id ?? null });
  if (!saved) {
    await c.env.BLOBS.delete(r2Key);
    // RemoteStateHandler::StateLockedError: the state is locked by another ID.
    throw conflict();
  }
  if (saved.replaced) await c.env.BLOBS.delete(saved.replaced);
  return c.body(null, 200);
});

/** DELETE /projects/:id/terraform/state/:name: the state and every version. */
terraformStateRoutes.delete("/projects/:id/terraform/state/:name", { params: StateParams }, async (c) => {
  const params = await readParams(c, StateParams);
  const project = await stateProject(c, "admin_terraform_state");
  const state = await findState(c, project);
  const keys = await q.deleteState(c.var.db(), state.id, params.ID ?? null);
  if (!keys) throw conflict();
  if (keys.length) await c.env.BLOBS.delete(keys);
  return c.body(null, 200);
});

/**
 * POST /projects/:id/terraform/state/:name/lock: 200 with the lock, or 409 when it is held. Either
 * way the body is the request's Operation, Info, Version and Path with the holder's ID, Who and
 * Created, as GitLab answers it.
 */
terraformStateRoutes.post("/projects/:id/terraform/state/:name/lock", { params: LockParams }, async (c) => {
  const params = await readParams(c, LockParams);
  const project = await stateProject(c, "admin_terraform_state");
  const db = c.var.db();
  const state = await q.createOrFindState(db, project.id, stateName(c));
  const taken = await q.lock(db, state.id, params.ID, c.var.actor!.user.id);
  const holder = await q.lockOf(db, state.id);
  const info = { Operation: params.Operation, Info: params.Info, Version: params.Version, Path: params.Path, ID: holder?.lockXid ?? null, Who: holder?.username ?? null, Created: isoTime(holder?.lockedAt) };
  return new Response(JSON.stringify(info), { status: taken ? 200 : 409, headers: { "Content-Type": "application/json" } });
});

/** DELETE /projects/:id/terraform/state/:name/lock: 200; 409 when the ID is not the lock's. */
terraformStateRoutes.delete("/projects/:id/terraform/state/:name/lock", { params: UnlockParams }, async (c) => {
  const params = await readParams(c, UnlockParams);
  const project = await stateProject(c, "admin_terraform_state");
  const state = await findState(c, project);
  const released = await q.unlock(c.var.db(), state.id, params.ID ?? null);
  return c.body(null, released ? 200 : 409);
});

/** GET /projects/:id/terraform/state/:name/versions/:serial (lib/api/terraform/state_version.rb) */
terraformStateRoutes.get("/projects/:id/terraform/state/:name/versions/:serial", { params: VersionParams }, async (c) => {
  const { serial } = await readParamsWithPath(c, VersionParams);
  const project = await stateProject(c);
  const state = await findState(c, project);
  const version = await q.findVersion(c.var.db(), state.id, serial);
  const object = version ? await c.env.BLOBS.get(version.r2Key) : null;
  if (!object) throw notFound("Version");
  return new Response(object.body, { headers: { "Content-Type": "application/octet-stream" } });
});
