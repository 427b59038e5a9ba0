import type { z } from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/**
 * `GET /projects/:id/milestones`, `GET /groups/:id/milestones` (lib/api/milestone_responses.rb
 * `list_params`): MilestonesFinder's params, which the list query reads as declared.
 * `include_parent_milestones`: also the milestones of the project's group and its ancestors.
 */
export const ListMilestones = pageParams.extend({
  state: p.oneOf("active", "closed", "all").optional(),
  iids: p.ids({ comma: true }).optional(),
  title: p.string().optional(),
  search: p.string().optional(),
  include_parent_milestones: p.bool().default(false),
});

export type ListParams = z.output<typeof ListMilestones>;
