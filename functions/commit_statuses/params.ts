import type { z } from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/** `GET /projects/:id/repository/commits/:sha/statuses` (lib/api/commit_statuses.rb): the list's filters. */
export const ListStatuses = pageParams.extend({
  ref: p.string().optional(),
  stage: p.string().optional(),
  name: p.string().optional(),
  all: p.bool().optional(),
});

export type ListParams = z.output<typeof ListStatuses>;
