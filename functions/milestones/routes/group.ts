import { z } from "zod";
import { authorizeGroup } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import { apiError, recordNotFound } from "../../kernel/errors";
import { findGroup } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { p, readParamsWithPath } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { milestone } from "../entities";
import * as q from "../queries";
import { castDate, inspectErrors, milestoneErrors, milestoneTitle } from "../rules";
import { presentIssues, presentMergeRequests } from "./issuables";

/**
 * Group milestones (lib/api/group_milestones.rb, lib/api/milestone_responses.rb). Every endpoint needs
 * a signed-in caller (`before { authenticate! }`). `:milestone_id` is the milestone's global id.
 * Not built: `burndown_events` (EE), `updated_before` / `updated_after` (not on project lists either).
 */
export const groupMilestoneRoutes = router();

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

/** GET /groups/:id/milestones (lib/api/group_milestones.rb): newest first (`order_id_desc`). */
groupMilestoneRoutes.get("/groups/:id/milestones", async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, ListMilestones);
  const group = await findGroup(c, c.req.param("id"));
  authorizeGroup(c, "read_milestone", group);
  const page = pageOf(params);
  const filters = {
    state: params.state,
    iids: params.iids,
    title: params.title,
    search: params.search,
    includeParentMilestones: !!params.include_parent_milestones,
  };
  const list = await q.listGroupMilestones(c.var.db(), group, filters, page);
  paginate(c, page, list.total);
  return present(c, list.rows, milestone);
});

/** GET /groups/:id/milestones/:milestone_id (lib/api/group_milestones.rb) */
groupMilestoneRoutes.get("/groups/:id/milestones/:milestone_id", async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, OneMilestone);
  const group = await findGroup(c, c.req.param("id"));
  authorizeGroup(c, "read_milestone", group);
  const row = await q.findGroupMilestone(c.var.db(), group.id, params.milestone_id);
  if (!row) throw recordNotFound();
  return present(c, row, milestone);
});

/** POST /groups/:id/milestones (lib/api/group_milestones.rb, Milestones::CreateService): 201. */
groupMilestoneRoutes.post("/groups/:id/milestones", async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, CreateMilestone);
  const group = await findGroup(c, c.req.param("id"));
  authorizeGroup(c, "admin_milestone", group);
  const db = c.var.db();
  const values = {
    title: milestoneTitle(params.title),
    description: params.description ?? null,
    dueDate: castDate(params.due_date),
    startDate: castDate(params.start_date),
  };
  const taken = values.title !== null && (await q.groupTitleTaken(db, group.id, values.title, null));
  const errors = milestoneErrors({ ...values, titleTaken: taken });
  if (Object.keys(errors).length) throw apiError(`Failed to create milestone ${inspectErrors(errors)}`, 400);
  const created = await q.insertGroupMilestone(db, group.id, { ...values, title: values.title! });
  if (!created) throw apiError(`Failed to create milestone ${inspectErrors(milestoneErrors({ ...values, titleTaken: true }))}`, 400);
  return present(c, created, milestone, {}, 201);
});

/** PUT /groups/:id/milestones/:milestone_id (lib/api/group_milestones.rb, Milestones::UpdateService) */
groupMilestoneRoutes.put("/groups/:id/milestones/:milestone_id", async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, UpdateMilestone, [{ atLeastOneOf: ["title", "description", "start_date", "due_date", "state_event"] }]);
  const group = await findGroup(c, c.req.param("id"));
  authorizeGroup(c, "admin_milestone", group);
  const db = c.var.db();
  const current = await q.findGroupMilestone(db, group.id, params.milestone_id);
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
  const taken = changes.title !== undefined && (await q.groupTitleTaken(db, group.id, changes.title, current.id));
  const errors = milestoneErrors({ title: changes.title ?? current.title, startDate, dueDate, titleTaken: taken });
  if (Object.keys(errors).length) throw apiError(`Failed to update milestone ${inspectErrors(errors)}`, 400);
  if (Object.keys(changes).length === 0) return present(c, current, milestone);
  const updated = await q.updateMilestone(db, current.id, changes);
  if (!updated) throw apiError(`Failed to update milestone ${inspectErrors({ title: ["already being used for another group or project milestone."] })}`, 400);
  return present(c, updated, milestone);
});

/** DELETE /groups/:id/milestones/:milestone_id (lib/api/group_milestones.rb): 204. */
groupMilestoneRoutes.delete("/groups/:id/milestones/:milestone_id", async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, OneMilestone);
  const group = await findGroup(c, c.req.param("id"));
  authorizeGroup(c, "admin_milestone", group);
  if (!(await q.deleteGroupMilestone(c.var.db(), group.id, params.milestone_id))) throw recordNotFound();
  return c.body(null, 204);
});

/** GET /groups/:id/milestones/:milestone_id/issues (`milestone_issuables_for`): IssueBasic, paginated. */
groupMilestoneRoutes.get("/groups/:id/milestones/:milestone_id/issues", async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, MilestoneIssuables);
  const group = await findGroup(c, c.req.param("id"));
  authorizeGroup(c, "read_milestone", group);
  const row = await q.findGroupMilestone(c.var.db(), group.id, params.milestone_id);
  if (!row) throw recordNotFound();
  return presentIssues(c, row, { groupId: group.id }, pageOf(params), { kind: "group", id: group.id });
});

/** GET /groups/:id/milestones/:milestone_id/merge_requests (`milestone_issuables_for`): MergeRequestBasic. */
groupMilestoneRoutes.get("/groups/:id/milestones/:milestone_id/merge_requests", async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, MilestoneIssuables);
  const group = await findGroup(c, c.req.param("id"));
  authorizeGroup(c, "read_milestone", group);
  const row = await q.findGroupMilestone(c.var.db(), group.id, params.milestone_id);
  if (!row) throw recordNotFound();
  return presentMergeRequests(c, row, { groupId: group.id }, pageOf(params), { fromGroup: { id: group.id } });
});
