import * as z from "zod";
import { isoDate, isoTime, webUrl, type PresentContext } from "../kernel/present";

/** An iteration as the queries read it: the state and sequence are computed there (see db/schema/issues.ts). */
export type IterationRow = {
  id: number;
  iid: number;
  sequence: number;
  groupId: number;
  title: string | null;
  description: string | null;
  state: number;
  createdAt: Date | string;
  updatedAt: Date | string;
  startDate: string;
  dueDate: string;
  groupPath: string;
};

/**
 * EE::API::Entities::Iteration (ee/lib/api/entities/iteration.rb): `state` is `state_enum`, an integer
 * (1 upcoming, 2 current, 3 closed); `web_url` is the group's iteration page by id.
 */
export const Iteration = z
  .object({
    id: z.int(),
    iid: z.int(),
    sequence: z.int(),
    group_id: z.int(),
    title: z.string().nullable(),
    description: z.string().nullable(),
    state: z.int(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    start_date: z.string().nullable(),
    due_date: z.string().nullable(),
    web_url: z.string(),
  })
  .meta({ id: "Iteration" });

export function iteration(row: IterationRow, ctx: PresentContext): z.output<typeof Iteration> {
  return {
    id: Number(row.id),
    iid: Number(row.iid),
    sequence: Number(row.sequence),
    group_id: Number(row.groupId),
    title: row.title,
    description: row.description,
    state: Number(row.state),
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
    start_date: isoDate(row.startDate),
    due_date: isoDate(row.dueDate),
    web_url: webUrl(ctx, `groups/${row.groupPath}/-/iterations/${row.id}`),
  };
}
