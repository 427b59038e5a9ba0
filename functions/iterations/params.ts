import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/**
 * `GET /groups/:id/iterations`, `GET /projects/:id/iterations` (ee/lib/api/iterations.rb): `state`
 * (`started` is the old name of `current`; `opened` is upcoming or current), `search` in titles,
 * `include_ancestors` (default true): the iterations of the ancestor groups too.
 */
export const ListIterations = pageParams.extend({
  state: p.oneOf("opened", "upcoming", "started", "current", "closed", "all").default("all").describe("Return opened, upcoming, current, closed, or all iterations"),
  search: p.string().optional().describe("Return only iterations with a title matching the provided string"),
  include_ancestors: p.bool().default(true).describe("Include iterations of the ancestor groups"),
});
export type ListParams = z.output<typeof ListIterations>;

/**
 * `POST /groups/:id/iterations`. Deliberate difference from GitLab: GitLab 15.4 creates iterations
 * through cadences (UI, GraphQL `iterationCreate`); this REST route takes GraphQL's arguments.
 */
export const CreateIteration = z.object({
  title: p.string().optional().describe("The title of the iteration"),
  description: p.string().optional().describe("The description of the iteration"),
  start_date: p.string().optional().describe("The start date (YYYY-MM-DD)"),
  due_date: p.string().optional().describe("The due date (YYYY-MM-DD)"),
});
