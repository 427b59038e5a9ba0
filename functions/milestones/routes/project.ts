import { z } from "zod";
import { allowedOnGroup, authorize } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { apiError, forbidden, recordNotFound } from "../../kernel/errors";
import { findProject, loadGroup } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { p, readParamsWithPath } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { milestone } from "../entities";
import * as q from "../queries";
import { castDate, inspectErrors, milestoneErrors, milestoneTitle } from "../rules";
import { promoteMilestone } from "../services";
import { presentIssues, presentMergeRequests } from "./issuables";

/**
 * Project milestones (lib/api/milestones.rb, lib/api/milestone_responses.rb). Every endpoint needs a
 * signed-in caller (`before { authenticate! }`). `:milestone_id` is the milestone's global id.
 * Not built: `burndown_events` (EE).
 */
export const projectMilestoneRoutes = router();

const ListMilestones = pageParams.extend({
  state: p.oneOf("active", "closed", "all").optional(),
  iids: p.ids({ comma: true }).optional(),
  title: p.string().optional(),
  search: p.string().optional(),
  include_parent_milestones: p.bool().optional(),
});

const OneMilestone = z.object({ milestone_id: p.int() });
const MilestoneIssuables = OneMilestone.extend(pageParams.shape);

const CreateMilestone = z.object({
  title: p.string(),
  description: p.string().nullable().optional(),
  due_date: p.string().nullable().optional(),
  start_date: p.string().nullable().optional(),
});

const UpdateMilestone = z.object({
  milestone_id: p.int(),
  title: p.string().optional(),
  state_event: p.oneOf("close", "activate").optional(),
  description: p.string().nullable().optional(),
  due_date: p.string().nullable().optional(),
  start_date: p.string().nullable().optional(),
});

/** GET /projects/:id/milestones (lib/api/milestones.rb) */
projectMilestoneRoutes.get("/projects/:id/milestones", async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, ListMilestones);
  const project = await findProject(c, c.req.param("id"));
  authorize(c, "read_milestone", project);
  const page = pageOf(params);
  const filters = {
    state: params.state,
    iids: params.iids,
    title: params.title,
    search: params.search,
    includeParentMilestones: !!params.include_parent_milestones,
  };
  const list = await q.listMilestones(c.var.db(), project, filters, page);
  paginate(c, page, list.total);
  return present(c, list.rows, milestone);
});

/** GET /projects/:id/milestones/:milestone_id (lib/api/milestones.rb) */
projectMilestoneRoutes.get("/projects/:id/milestones/:milestone_id", async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, OneMilestone);
  const project = await findProject(c, c.req.param("id"));
  authorize(c, "read_milestone", project);
  const row = await q.findMilestone(c.var.db(), project.id, params.milestone_id);
  if (!row) throw recordNotFound();
  return present(c, row, milestone);
});

/** POST /projects/:id/milestones (lib/api/milestones.rb, Milestones::CreateService) */
projectMilestoneRoutes.post("/projects/:id/milestones", async (c) => {
  const params = await readParamsWithPath(c, CreateMilestone);
  const project = await findProject(c, c.req.param("id"));
  authorize(c, "admin_milestone", project);
  const db = c.var.db();
  const values = {
    title: milestoneTitle(params.title),
    description: params.description ?? null,
    dueDate: castDate(params.due_date),
    startDate: castDate(params.start_date),
  };
  const taken = values.title !== null && (await q.titleTaken(db, project, values.title, null));
  const errors = milestoneErrors({ ...values, titleTaken: taken });
  if (Object.keys(errors).length) throw apiError(`Failed to create milestone ${inspectErrors(errors)}`, 400);
  const created = await q.insertMilestone(db, project.id, { ...values, title: values.title! });
  if (!created) throw apiError(`Failed to create milestone ${inspectErrors(milestoneErrors({ ...values, titleTaken: true }))}`, 400);
  return present(c, created, milestone, {}, 201);
});

/** PUT /projects/:id/milestones/:milestone_id (lib/api/milestones.rb, Milestones::UpdateService) */
projectMilestoneRoutes.put("/projects/:id/milestones/:milestone_id", async (c) => {
  const params = await readParamsWithPath(c, UpdateMilestone, [{ atLeastOneOf: ["title", "description", "start_date", "due_date", "state_event"] }]);
  const project = await findProject(c, c.req.param("id"));
  authorize(c, "admin_milestone", project);
  const db = c.var.db();
  const current = await q.findMilestone(db, project.id, params.milestone_id);
  if (!current) throw recordNotFound();
  const changes: q.MilestoneChanges = {};
  // `Timebox#title=` ignores a blank title.
  const title = params.title === undefined ? null : milestoneTitle(params.title);
  if (title !== null && title !== current.title) changes.title = title;
  if (params.description !== undefined) changes.description = params.description;
  if (params.due_date !== undefined) changes.dueDate = castDate(params.due_date);
  if (params.start_date !== undefined) changes.startDate = castDate(params.start_date);
  if (params.state_event) changes.state = params.state_event === "close" ? "closed" : "active";
  const startDate = changes.startDate !== undefined ? changes.startDate : current.startDate;
  const dueDate = changes.dueDate !== undefined ? changes.dueDate : current.dueDate;
  const taken = changes.title !== undefined && (await q.titleTaken(db, project, changes.title, current.id));
  const errors = milestoneErrors({ title: changes.title ?? current.title, startDate, dueDate, titleTaken: taken });
  if (Object.keys(errors).length) throw apiError(`Failed to update milestone ${inspectErrors(errors)}`, 400);
  if (Object.keys(changes).length === 0) return present(c, current, milestone);
  const updated = await q.updateMilestone(db, current.id, changes);
  if (!updated) throw apiError(`Failed to update milestone ${inspectErrors({ title: ["already being used for another group or project milestone."] })}`, 400);
  return present(c, updated, milestone);
});

/** DELETE /projects/:id/milestones/:milestone_id (lib/api/milestones.rb): 204. */
projectMilestoneRoutes.delete("/projects/:id/milestones/:milestone_id", async (c) => {
  const params = await readParamsWithPath(c, OneMilestone);
  const project = await findProject(c, c.req.param("id"));
  authorize(c, "admin_milestone", project);
  if (!(await q.deleteMilestone(c.var.db(), project.id, params.milestone_id))) throw recordNotFound();
  return c.body(null, 204);
});

/** GET /projects/:id/milestones/:milestone_id/issues (lib/api/milestones.rb, `milestone_issuables_for`): IssueBasic. */
projectMilestoneRoutes.get("/projects/:id/milestones/:milestone_id/issues", async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, MilestoneIssuables);
  const project = await findProject(c, c.req.param("id"));
  authorize(c, "read_milestone", project);
  const row = await q.findMilestone(c.var.db(), project.id, params.milestone_id);
  if (!row) throw recordNotFound();
  const from = { kind: "project" as const, id: project.id, namespaceId: project.namespaceId };
  return presentIssues(c, row, { projectId: project.id }, pageOf(params), from);
});

/** GET /projects/:id/milestones/:milestone_id/merge_requests (lib/api/milestones.rb): MergeRequestBasic. */
projectMilestoneRoutes.get("/projects/:id/milestones/:milestone_id/merge_requests", async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, MilestoneIssuables);
  const project = await findProject(c, c.req.param("id"));
  authorize(c, "read_milestone", project);
  const row = await q.findMilestone(c.var.db(), project.id, params.milestone_id);
  if (!row) throw recordNotFound();
  return presentMergeRequests(c, row, { projectId: project.id }, pageOf(params), { fromProject: { id: project.id, namespaceId: project.namespaceId } });
});

/**
 * POST /projects/:id/milestones/:milestone_id/promote (lib/api/milestones.rb, Milestones::PromoteService):
 * `admin_milestone` on the project and on its group (403 for a personal project); answers 200 with the
 * body `200`, the value of Grape's `status(200)` as GitLab renders it.
 */
projectMilestoneRoutes.post("/projects/:id/milestones/:milestone_id/promote", async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, OneMilestone);
  const project = await findProject(c, c.req.param("id"));
  authorize(c, "admin_milestone", project);
  const group = project.namespace.type === "Group" ? await loadGroup(c, String(project.namespace.id)) : null;
  if (!group || !allowedOnGroup(c.var.actor, "admin_milestone", group)) throw forbidden();
  const db = c.var.db();
  const row = await q.findMilestone(db, project.id, params.milestone_id);
  if (!row) throw recordNotFound();
  if (!(await promoteMilestone(db, row, group.id)))
    throw apiError(`Failed to promote milestone ${inspectErrors({ title: ["already being used for another group or project milestone."] })}`, 400);
  return c.json(200, 200);
});
