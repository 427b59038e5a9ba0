import type { z } from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/**
 * `GET /projects/:id/environments` (lib/api/environments.rb): Environments::EnvironmentsFinder's params,
 * which the list query reads as declared.
 */
export const ListEnvironments = pageParams.extend({
  name: p.string().optional(),
  search: p.string().optional(),
  states: p.oneOf("available", "stopping", "stopped").optional(),
});

export type ListParams = z.output<typeof ListEnvironments>;
