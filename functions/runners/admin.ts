import * as z from "zod";
import { authorize } from "../kernel/abilities";
import { generateToken, requireAdmin, requireUser, sha256Hex } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { badRequest, forbidden, notFound, validation } from "../kernel/errors";
import { authorizedGroup, authorizedProject, findProject, loadGroup, loadProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { RunnerBasic, runnerBasic, RunnerDetails, runnerDetails } from "../entities/runners";
import { JobBasicWithProject, jobBasicWithProject } from "../entities/jobs";
import { ListAllRunners, ListOwnedRunners, ListRunners, tagList } from "./params";
import * as q from "./queries";
import { createRunnerWithToken, newRunnerToken, runnerOptions } from "./routes";

/** Runner administration (lib/api/ci/runners.rb, lib/api/user_runners.rb). */
export const runnersRoutes = router();

/** A new registration token: GitLab's start GR1348941; never `glrt-`, which runners verify instead. */
const registrationToken = () => `GR1348941${generateToken("").replace(/[-_]/g, "x")}`;


/** POST /runners/reset_registration_token (admin): a new instance registration token. */
runnersRoutes.post("/runners/reset_registration_token", async (c) => {
  requireAdmin(c);
  const token = registrationToken();
  await q.resetRegistrationToken(c.var.db(), await sha256Hex(token), null);
  return c.json({ token, token_expires_at: null }, 201);
});

/** POST /projects/:id/runners/reset_registration_token (maintainers). */
runnersRoutes.post("/projects/:id/runners/reset_registration_token", async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "admin_runner", project);
  const token = registrationToken();
  // The project deleted since it was found: as if it had not been found.
  if (!(await q.resetRegistrationToken(c.var.db(), await sha256Hex(token), project.id))) throw notFound("Project");
  return c.json({ token, token_expires_at: null }, 201);
});

const CreateUserRunner = z.object({
  runner_type: p.oneOf("instance_type", "group_type", "project_type"),
  group_id: p.int().optional(),
  project_id: p.int().optional(),
  ...runnerOptions,
});

/** POST /user/runners: a runner and its `glrt-` token, created by a user (15.10+ workflow). */
runnersRoutes.post("/user/runners", { params: CreateUserRunner }, async (c) => {
  const actor = requireUser(c);
  const params = await readParams(c, CreateUserRunner);
  let projectId: number | null = null;
  let namespaceId: number | null = null;
  if (params.runner_type === "instance_type") {
    if (!actor.isAdmin) throw forbidden();
  } else if (params.runner_type === "project_type") {
    if (params.project_id === undefined) throw badRequest("project_id is required for project_type");
    const project = await findProject(c, String(params.project_id));
    authorize(c, "admin_runner", project);
    projectId = project.id;
  } else {
    if (params.group_id === undefined) throw badRequest("group_id is required for group_type");
    const group = await loadGroup(c, String(params.group_id));
    if (!group) throw notFound("Group");
    if (!actor.isAdmin && group.accessLevel < 50) throw forbidden();
    namespaceId = group.id;
  }
  // Created by a user: `paused` alone decides `active`, and there is no runner `info` yet.
  return c.json(await createRunnerWithToken(c, params, { runnerType: params.runner_type, active: !(params.paused ?? false), info: undefined, projectId, namespaceId }), 201);
});


/**
 * GET /runners (lib/api/ci/runners.rb): the caller's owned runners (`ci_owned_runners`): those of the
 * projects the caller maintains and of the groups the caller owns, and their subgroups. Deliberate
 * difference: a group shared with one of the caller's groups gives no runners.
 */
runnersRoutes.get("/runners", { params: ListOwnedRunners, response: [RunnerBasic], paginated: true }, async (c) => {
  const actor = requireUser(c);
  const params = await readParams(c, ListOwnedRunners);
  const page = pageOf(params);
  const list = await q.listRunners(c.var.db(), { ownedBy: actor.user.id }, params, page);
  paginate(c, page, list.total);
  return present(c, list.rows, runnerBasic);
});

/** GET /runners/all (admin) */
runnersRoutes.get("/runners/all", { params: ListAllRunners, response: [RunnerBasic], paginated: true }, async (c) => {
  requireAdmin(c);
  const params = await readParams(c, ListAllRunners);
  const page = pageOf(params);
  const list = await q.listRunners(c.var.db(), {}, params, page);
  paginate(c, page, list.total);
  return present(c, list.rows, runnerBasic);
});

/** GET /projects/:id/runners (maintainers): the project's runners and the instance's. */
runnersRoutes.get("/projects/:id/runners", { params: ListAllRunners, response: [RunnerBasic], paginated: true }, async (c) => {
  const params = await readParams(c, ListAllRunners);
  const project = await authorizedProject(c, "admin_runner");
  const page = pageOf(params);
  const list = await q.listRunners(c.var.db(), { projectId: project.id }, params, page);
  paginate(c, page, list.total);
  return present(c, list.rows, runnerBasic);
});

type Runner = NonNullable<Awaited<ReturnType<typeof q.findRunner>>>;

/** `get_runner`: `404 Runner Not Found`. */
async function findRunner(c: Ctx, raw: string | undefined): Promise<Runner> {
  const runner = raw && /^\d+$/.test(raw) ? await q.findRunner(c.var.db(), Number(raw)) : null;
  if (!runner) throw notFound("Runner");
  return runner;
}

/**
 * RunnerPolicy's owned runner: a project runner of a project the user maintains, or a group runner
 * of a group the user owns (`ci_owned_runners`).
 */
async function ownsRunner(c: Ctx, runner: Runner): Promise<boolean> {
  for (const projectId of runner.projectIds) {
    const project = await loadProject(c, String(projectId));
    if (project && project.accessLevel >= 40) return true;
  }
  for (const groupId of runner.namespaceIds) {
    const group = await loadGroup(c, String(groupId));
    if (group && group.accessLevel >= 50) return true;
  }
  return false;
}

/** `authenticate_show_runner!` / `authenticate_update_runner!` / `authenticate_list_runners_jobs!`. */
async function manageableRunner(c: Ctx) {
  const actor = requireUser(c);
  const runner = await findRunner(c, c.req.param("id"));
  if (actor.isAdmin) return runner;
  if (runner.runnerType === "instance_type") throw forbidden("Runner is instance type");
  if (!(await ownsRunner(c, runner))) throw forbidden("No access granted");
  return runner;
}

/** GET /runners/:id: instance runners are shown to every signed-in user (`authenticate_show_runner!`). */
runnersRoutes.get("/runners/:id", { response: RunnerDetails }, async (c) => {
  const actor = requireUser(c);
  const found = await findRunner(c, c.req.param("id"));
  const runner = found.runnerType === "instance_type" || actor.isAdmin ? found : await manageableRunner(c);
  return present(c, runner, runnerDetails);
});

const UpdateRunner = z.object({
  description: p.string().optional(),
  active: p.bool().optional(),
  paused: p.bool().optional(),
  tag_list: tagList.optional(),
  run_untagged: p.bool().optional(),
  locked: p.bool().optional(),
  access_level: p.oneOf("not_protected", "ref_protected").optional(),
  maximum_timeout: p.int().optional(),
});
// Deliberate difference: GitLab 15.4 also takes `maintenance_note`, which we do not store.
const UPDATE_RULES = [
  { atLeastOneOf: ["description", "active", "paused", "tag_list", "run_untagged", "locked", "access_level", "maximum_timeout"] },
  { mutuallyExclusive: ["active", "paused"] },
];

/** PUT /runners/:id (lib/api/ci/runners.rb): Ci::Runners::UpdateRunnerService, Ci::Runner's validations. */
runnersRoutes.put("/runners/:id", { params: UpdateRunner, response: RunnerDetails }, async (c) => {
  const params = await readParams(c, UpdateRunner, UPDATE_RULES);
  const runner = await manageableRunner(c);
  const changes: q.RunnerChanges = {
    description: params.description,
    active: params.paused === undefined ? params.active : !params.paused,
    tagList: params.tag_list,
    runUntagged: params.run_untagged,
    locked: params.locked,
    accessLevel: params.access_level,
    maximumTimeout: params.maximum_timeout,
  };
  const errors: Record<string, string[]> = {};
  if (params.maximum_timeout !== undefined && params.maximum_timeout < 600) errors.maximum_timeout = ["needs to be at least 10 minutes"];
  // Ci::Runner#tag_constraints
  if (!(changes.runUntagged ?? runner.runUntagged) && (changes.tagList ?? runner.tagList).length === 0)
    errors.tags_list = ["can not be empty when runner is not allowed to pick untagged jobs"];
  if (Object.keys(errors).length) throw validation(errors);
  await q.updateRunner(c.var.db(), runner.id, Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)));
  return present(c, (await q.findRunner(c.var.db(), runner.id))!, runnerDetails);
});

const RunnerJobs = pageParams.extend({
  status: p.oneOf("created", "waiting_for_resource", "preparing", "pending", "running", "success", "failed", "canceled", "skipped", "manual", "scheduled").optional(),
  order_by: p.oneOf("id").optional(),
  sort: p.oneOf("asc", "desc").default("desc"),
});

/** GET /runners/:id/jobs (lib/api/ci/runners.rb): Ci::RunnerJobsFinder, jobs of projects the caller reports on. */
runnersRoutes.get("/runners/:id/jobs", { params: RunnerJobs, response: [JobBasicWithProject], paginated: true }, async (c) => {
  const params = await readParams(c, RunnerJobs);
  const runner = await manageableRunner(c);
  const actor = c.var.actor!;
  const page = pageOf(params);
  const list = await q.runnerJobs(c.var.db(), runner.id, actor.user.id, actor.isAdmin, params, page);
  paginate(c, page, list.total);
  const rows = list.rows.map((r) => ({ ...r.job, pipeline: r.pipeline, user: r.user, project: r.project, artifacts: [], runner: null }));
  return present(c, rows, jobBasicWithProject, { commits: list.commits });
});

/**
 * POST /runners/:id/reset_authentication_token (lib/api/ci/runners.rb, `authenticate_update_runner!`):
 * 201 `{token, token_expires_at}`; the old token stops working at once.
 */
runnersRoutes.post("/runners/:id/reset_authentication_token", async (c) => {
  const runner = await manageableRunner(c);
  const token = newRunnerToken();
  // Deleted since it was found: as if it had not been found.
  if ((await q.resetRunnerToken(c.var.db(), { id: runner.id }, await sha256Hex(token))) === null) throw notFound("Runner");
  return c.json({ token, token_expires_at: null }, 201);
});

/** DELETE /runners/:id: 204. */
runnersRoutes.delete("/runners/:id", async (c) => {
  const runner = await manageableRunner(c);
  await q.deleteRunner(c.var.db(), runner.id);
  return c.body(null, 204);
});

/** GET /groups/:id/runners (lib/api/ci/runners.rb): `group_or_instance_wide`, for the group's owners. */
runnersRoutes.get("/groups/:id/runners", { params: ListRunners, response: [RunnerBasic], paginated: true }, async (c) => {
  const params = await readParams(c, ListRunners);
  const group = await authorizedGroup(c, "admin_group");
  const page = pageOf(params);
  const list = await q.listRunners(c.var.db(), { groupTraversalIds: group.traversalIds }, params, page);
  paginate(c, page, list.total);
  return present(c, list.rows, runnerBasic);
});

/** POST /groups/:id/runners/reset_registration_token (owners). */
runnersRoutes.post("/groups/:id/runners/reset_registration_token", async (c) => {
  const group = await authorizedGroup(c, "admin_group");
  const token = registrationToken();
  if (!(await q.resetRegistrationToken(c.var.db(), await sha256Hex(token), null, group.id))) throw notFound("Group");
  return c.json({ token, token_expires_at: null }, 201);
});

const EnableRunner = z.object({ runner_id: p.int() });

/** POST /projects/:id/runners (lib/api/ci/runners.rb): enables a runner in the project. */
runnersRoutes.post("/projects/:id/runners", { params: EnableRunner, response: RunnerBasic }, async (c) => {
  const params = await readParams(c, EnableRunner);
  const project = await authorizedProject(c, "admin_project");
  const runner = await findRunner(c, String(params.runner_id));
  // authenticate_enable_runner!
  if (runner.runnerType === "group_type") throw forbidden("Runner is a group runner");
  if (!c.var.actor!.isAdmin) {
    if (runner.locked) throw forbidden("Runner is locked");
    if (runner.runnerType === "instance_type" || !(await ownsRunner(c, runner))) throw forbidden("No access granted");
  }
  if (!(await q.assignRunner(c.var.db(), runner.id, project.id))) throw validation({ assign_to: ["Validation failed: Runner has already been taken"] });
  return present(c, (await q.findRunner(c.var.db(), runner.id))!, runnerBasic, {}, 201);
});

/** DELETE /projects/:id/runners/:runner_id (lib/api/ci/runners.rb): 204; never the runner's last project. */
runnersRoutes.delete("/projects/:id/runners/:runner_id", async (c) => {
  const project = await authorizedProject(c, "admin_project");
  const raw = c.req.param("runner_id")!;
  const state = /^\d+$/.test(raw) && Number(raw) <= 2147483647 ? await q.unassignRunner(c.var.db(), Number(raw), project.id) : "absent";
  if (state === "absent") throw notFound("Runner");
  if (state === "only") throw forbidden("Only one project associated with the runner. Please remove the runner instead");
  return c.body(null, 204);
});
