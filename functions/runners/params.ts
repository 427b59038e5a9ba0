import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/** `tag_list`: an array, or a comma-separated string. */
export const tagList = z.preprocess((v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v), p.strings());

/**
 * `GET /runners/all`, `GET /projects/:id/runners` (lib/api/ci/runners.rb): Ci::RunnersFinder's params,
 * which the list query reads as declared.
 */
export const ListRunners = pageParams.extend({
  type: p.oneOf("instance_type", "group_type", "project_type").optional(),
  paused: p.bool().optional(),
  tag_list: tagList.optional(),
});

export type ListParams = z.output<typeof ListRunners>;
