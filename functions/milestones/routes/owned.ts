import { MergeRequestBasic } from "../../entities/merge_requests";
import { IssueBasic } from "../../entities/issues";
import * as z from "zod";
import { authorize, authorizeGroup } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { apiError, recordNotFound } from "../../kernel/errors";
import { findGroup, findProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { castDate, p, readParamsWithPath } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { milestone, Milestone } from "../../entities/milestones";
import { ListMilestones } from "../params";
import * as q from "../queries";
import { inspectErrors, milestoneErrors, milestoneTitle } from "../rules";
import { presentIssues, presentMergeRequests } from "./issuables";

/**
 * The endpoints project milestones (lib/api/milestones.rb) and group milestones
 * (lib/api/group_milestones.rb) share through lib/api/milestone_responses.rb, written once and mounted
 * under `/projects/:id` and `/groups/:id` (`project.ts`, `group.ts`). Every endpoint needs a signed-in
 * caller (`before { authenticate! }`). `:milestone_id` is the milestone's global id.
 * Not built: `burndown_events` (EE), `updated_before` / `updated_after`.
 */

/** How a parent is found and authorized: the project or group of `:id`, as a milestone owner. */
export type MilestoneParent = {
  path: "/projects/:id" | "/groups/:id";
  load(c: Ctx, ability: "read_milestone" | "admin_milestone"): Promise<q.MilestoneOwner>;
};

export const projectParent: MilestoneParent = {
  path: "/projects/:id",
  async load(c, ability) {
    const project = await findProject(c, c.req.param("id")!);
    authorize(c, ability, project);
    return { kind: "project", project };
  },
};

export const groupParent: MilestoneParent = {
  path: "/groups/:id",
  async load(c, ability) {
    const group = await findGroup(c, c.req.param("id")!);
    authorizeGroup(c, ability, group);
    return { kind: "group", group };
  },
};

export const OneMilestone = z.object({ milestone_id: p.int() });
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

/** The milestone of `:milestone_id` inside the owner, or 404. */
async function findOr404(c: Ctx, owner: q.MilestoneOwner, id: number) {
  const row = await q.findMilestone(c.var.db(), owner, id);
  if (!row) throw recordNotFound();
  return row;
}

/** `milestone_issuables_for` answers in the owner's reference frame. */
function issuableScope(owner: q.MilestoneOwner) {
  if (owner.kind === "group") {
    const id = owner.group.id;
    return { scope: { groupId: id }, issuesFrom: { kind: "group" as const, id }, mergeRequestsFrom: { fromGroup: { id } } };
  }
  const { id, namespaceId } = owner.project;
  return {
    scope: { projectId: id },
    issuesFrom: { kind: "project" as const, id, namespaceId },
    mergeRequestsFrom: { fromProject: { id, namespaceId } },
  };
}

const TAKEN = { title: ["already being used for another group or project milestone."] };

/** The shared endpoints under `parent.path`. */
export function milestoneRoutes(parent: MilestoneParent) {
  const routes = router();
  const base = `${parent.path}/milestones`;

  /** GET /projects/:id/milestones, GET /groups/:id/milestones (see `q.listMilestones` for the orders) */
  routes.get(base, { params: ListMilestones, response: [Milestone] }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, ListMilestones);
    const owner = await parent.load(c, "read_milestone");
    const page = pageOf(params);
    const list = await q.listMilestones(c.var.db(), owner, params, page);
    paginate(c, page, list.total);
    return present(c, list.rows, milestone);
  });

  /** GET /projects/:id/milestones/:milestone_id, GET /groups/:id/milestones/:milestone_id */
  routes.get(`${base}/:milestone_id`, { params: OneMilestone, response: Milestone }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, OneMilestone);
    const owner = await parent.load(c, "read_milestone");
    return present(c, await findOr404(c, owner, params.milestone_id), milestone);
  });

  /** POST /projects/:id/milestones, POST /groups/:id/milestones (Milestones::CreateService): 201. */
  routes.post(base, { params: CreateMilestone, response: Milestone }, async (c) => {
    const params = await readParamsWithPath(c, CreateMilestone);
    const owner = await parent.load(c, "admin_milestone");
    const db = c.var.db();
    const values = {
      title: milestoneTitle(params.title),
      description: params.description ?? null,
      dueDate: castDate(params.due_date),
      startDate: castDate(params.start_date),
    };
    const taken = values.title !== null && (await q.titleTaken(db, owner, values.title, null));
    const errors = milestoneErrors({ ...values, titleTaken: taken });
    if (Object.keys(errors).length) throw apiError(`Failed to create milestone ${inspectErrors(errors)}`, 400);
    const created = await q.insertMilestone(db, owner, { ...values, title: values.title! });
    if (!created) throw apiError(`Failed to create milestone ${inspectErrors(milestoneErrors({ ...values, titleTaken: true }))}`, 400);
    return present(c, created, milestone, {}, 201);
  });

  /** PUT /projects/:id/milestones/:milestone_id, PUT /groups/:id/milestones/:milestone_id (Milestones::UpdateService) */
  routes.put(`${base}/:milestone_id`, { params: UpdateMilestone, response: Milestone }, async (c) => {
    const params = await readParamsWithPath(c, UpdateMilestone, [{ atLeastOneOf: ["title", "description", "start_date", "due_date", "state_event"] }]);
    const owner = await parent.load(c, "admin_milestone");
    const db = c.var.db();
    const current = await findOr404(c, owner, params.milestone_id);
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
    const taken = changes.title !== undefined && (await q.titleTaken(db, owner, changes.title, current.id));
    const errors = milestoneErrors({ title: changes.title ?? current.title, startDate, dueDate, titleTaken: taken });
    if (Object.keys(errors).length) throw apiError(`Failed to update milestone ${inspectErrors(errors)}`, 400);
    if (Object.keys(changes).length === 0) return present(c, current, milestone);
    const updated = await q.updateMilestone(db, current.id, changes);
    if (!updated) throw apiError(`Failed to update milestone ${inspectErrors(TAKEN)}`, 400);
    return present(c, updated, milestone);
  });

  /** DELETE /projects/:id/milestones/:milestone_id, DELETE /groups/:id/milestones/:milestone_id (Milestones::DestroyService): 204. */
  routes.delete(`${base}/:milestone_id`, { params: OneMilestone }, async (c) => {
    const params = await readParamsWithPath(c, OneMilestone);
    const owner = await parent.load(c, "admin_milestone");
    if (!(await q.deleteMilestone(c.var.db(), owner, params.milestone_id))) throw recordNotFound();
    return c.body(null, 204);
  });

  /** GET /projects/:id/milestones/:milestone_id/issues, GET /groups/:id/milestones/:milestone_id/issues: IssueBasic. */
  routes.get(`${base}/:milestone_id/issues`, { params: MilestoneIssuables, response: [IssueBasic] }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, MilestoneIssuables);
    const owner = await parent.load(c, "read_milestone");
    const row = await findOr404(c, owner, params.milestone_id);
    const s = issuableScope(owner);
    return presentIssues(c, row, s.scope, pageOf(params), s.issuesFrom);
  });

  /** GET /projects/:id/milestones/:milestone_id/merge_requests, GET /groups/:id/milestones/:milestone_id/merge_requests: MergeRequestBasic. */
  routes.get(`${base}/:milestone_id/merge_requests`, { params: MilestoneIssuables, response: [MergeRequestBasic] }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, MilestoneIssuables);
    const owner = await parent.load(c, "read_milestone");
    const row = await findOr404(c, owner, params.milestone_id);
    const s = issuableScope(owner);
    return presentMergeRequests(c, row, s.scope, pageOf(params), s.mergeRequestsFrom);
  });

  return routes;
}
