import type { z } from "zod";
import { ACTION_NAMES } from "../entities/todos";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/** TodosFinder.todo_types of 15.4 with EE's `Epic`. */
const TYPES = ["Issue", "MergeRequest", "DesignManagement::Design", "AlertManagement::Alert", "Epic"] as const;

/** `use :pagination, :todo_filters`, in Grape's order. */
export const ListTodos = pageParams.extend({
  action: p.oneOf(...Object.values(ACTION_NAMES)).optional(),
  author_id: p.int().optional(),
  project_id: p.int().optional(),
  group_id: p.int().optional(),
  state: p.oneOf("pending", "done").optional(),
  type: p.oneOf(...TYPES).optional(),
});

export type ListParams = z.output<typeof ListTodos>;
