import * as z from "zod";
import type { Milestone as MilestoneModel } from "../../db/schema";
import { isoDate, isoTime, webUrl, type PresentContext } from "../kernel/present";

/**
 * A milestone as loaded through JSON (timestamps arrive as strings), with the path of its web page
 * (`<project>/-/milestones/<iid>` or `groups/<group>/-/milestones/<iid>`).
 */
export type IssueMilestone = Omit<MilestoneModel, "createdAt" | "updatedAt"> & {
  createdAt: Date | string;
  updatedAt: Date | string;
  webPath: string;
};

/** A milestone with the path of its web page (queries compute it; issue rows carry the same shape). */
export type MilestoneRow = IssueMilestone;

/** `Timebox#expired?`: null without a due date, else whether it is before today (UTC). */
function expired(dueDate: string | null, now: Date): boolean | null {
  if (!dueDate) return null;
  return dueDate < now.toISOString().slice(0, 10);
}

/**
 * API::Entities::Milestone (lib/api/entities/milestone.rb): `project_id` for project milestones,
 * `group_id` for group milestones, each only when set.
 */
export const Milestone = z
  .object({
    id: z.int(),
    iid: z.int(),
    project_id: z.int().optional(),
    group_id: z.int().optional(),
    title: z.string(),
    description: z.string().nullable(),
    state: z.string(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    due_date: z.string().nullable(),
    start_date: z.string().nullable(),
    expired: z.boolean().nullable(),
    web_url: z.string(),
  })
  .meta({ id: "Milestone" });
export function milestone(row: MilestoneRow, ctx: PresentContext): z.output<typeof Milestone> {
  return {
    id: row.id,
    iid: row.iid,
    ...(row.projectId !== null ? { project_id: row.projectId } : {}),
    ...(row.groupId !== null ? { group_id: row.groupId } : {}),
    title: row.title,
    description: row.description,
    state: row.state,
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
    due_date: isoDate(row.dueDate),
    start_date: isoDate(row.startDate),
    expired: expired(row.dueDate, ctx.now),
    web_url: webUrl(ctx, row.webPath),
  };
}
