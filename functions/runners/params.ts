import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/** `tag_list`: an array, or a comma-separated string. */
export const tagList = z.preprocess((v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v), p.strings());

/** `Ci::Runner::AVAILABLE_STATUSES_INCL_DEPRECATED` (15.4): `active`, `paused` and `not_connected` are deprecated. */
export const RUNNER_STATUSES = ["active", "paused", "online", "offline", "not_connected", "never_contacted", "stale"] as const;
const TYPES = ["instance_type", "group_type", "project_type"] as const;

/**
 * `filter_params` of lib/api/ci/runners.rb (GitLab 15.4), which the list query reads as declared:
 * `GET /groups/:id/runners`.
 */
export const ListRunners = pageParams.extend({
  type: p.oneOf(...TYPES).optional(),
  paused: p.bool().optional(),
  status: p.oneOf(...RUNNER_STATUSES).optional(),
  tag_list: tagList.optional(),
});

/** `GET /runners`: `filter_params` and the deprecated `scope`, a status. */
export const ListOwnedRunners = pageParams.extend({ scope: p.oneOf(...RUNNER_STATUSES).optional(), ...ListRunners.shape });

/**
 * `GET /runners/all`, `GET /projects/:id/runners`: `scope` is any of `Ci::Runner::AVAILABLE_SCOPES`,
 * the legacy types (`specific`, `shared`), the types and the statuses.
 */
export const ListAllRunners = pageParams.extend({ scope: p.oneOf("specific", "shared", ...TYPES, ...RUNNER_STATUSES).optional(), ...ListRunners.shape });

export type ListParams = z.output<typeof ListRunners> & { scope?: z.output<typeof ListAllRunners>["scope"] };
