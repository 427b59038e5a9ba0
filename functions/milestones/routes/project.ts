import { allowedOnGroup } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import { apiError, forbidden, recordNotFound } from "../../kernel/errors";
import { loadGroup, authorizedProject } from "../../kernel/lookup";
import { readParamsWithPath } from "../../kernel/params";
import * as q from "../queries";
import { inspectErrors } from "../rules";
import { promoteMilestone } from "../services";
import { milestoneRoutes, OneMilestone, projectParent } from "./owned";

/**
 * Project milestones (lib/api/milestones.rb): the endpoints it shares with group milestones
 * (`owned.ts`), and promote, which only project milestones have.
 */
export const projectMilestoneRoutes = milestoneRoutes(projectParent);

/**
 * POST /projects/:id/milestones/:milestone_id/promote (lib/api/milestones.rb, Milestones::PromoteService):
 * `admin_milestone` on the project and on its group (403 for a personal project); answers 200 with the
 * body `200`, the value of Grape's `status(200)` as GitLab renders it.
 */
projectMilestoneRoutes.post("/projects/:id/milestones/:milestone_id/promote", { params: OneMilestone }, async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, OneMilestone);
  const project = await authorizedProject(c, "admin_milestone");
  const group = project.namespace.type === "Group" ? await loadGroup(c, String(project.namespace.id)) : null;
  if (!group || !allowedOnGroup(c.var.actor, "admin_milestone", group)) throw forbidden();
  const db = c.var.db();
  const row = await q.findMilestone(db, { kind: "project", project }, params.milestone_id);
  if (!row) throw recordNotFound();
  if (!(await promoteMilestone(db, row, group.id)))
    throw apiError(`Failed to promote milestone ${inspectErrors({ title: ["already being used for another group or project milestone."] })}`, 400);
  return c.json(200, 200);
});
