import * as z from "zod";
import type { CiRunner } from "../../db/schema";

/** A runner with the ids of the projects it is assigned to. */
export type RunnerDetailsRow = CiRunner & { projectIds: number[] };

/** API::Entities::Ci::Runner (lib/api/entities/ci/runner.rb), as listed and as embedded in a job. */
export const RunnerBasic = z
  .object({
    id: z.int(),
    description: z.string(),
    ip_address: z.string().nullable(),
    active: z.boolean(),
    paused: z.boolean(),
    is_shared: z.boolean(),
    runner_type: z.string(),
    name: z.string().nullable(),
    online: z.boolean(),
    status: z.string(),
  })
  .meta({ id: "RunnerBasic" });
export function runnerBasic(r: CiRunner): z.output<typeof RunnerBasic> {
  return {
    id: r.id,
    description: r.description,
    ip_address: r.ipAddress,
    active: r.active,
    paused: !r.active,
    is_shared: r.runnerType === "instance_type",
    runner_type: r.runnerType,
    name: r.name,
    online: !!r.contactedAt && Date.now() - new Date(r.contactedAt).getTime() < 2 * 3600 * 1000,
    status: !r.contactedAt ? "never_contacted" : r.active ? (Date.now() - new Date(r.contactedAt).getTime() < 2 * 3600 * 1000 ? "online" : "offline") : "paused",
  };
}

/** API::Entities::Ci::RunnerDetails (lib/api/entities/ci/runner_details.rb). */
export const RunnerDetails = RunnerBasic.extend({
  tag_list: z.array(z.string()),
  run_untagged: z.boolean(),
  locked: z.boolean(),
  maximum_timeout: z.int().nullable(),
  access_level: z.string(),
  version: z.string().nullable(),
  revision: z.string().nullable(),
  platform: z.string().nullable(),
  architecture: z.string().nullable(),
  contacted_at: z.string().nullable(),
  projects: z.array(z.object({ id: z.int() })),
  groups: z.array(z.object({ id: z.int() })),
}).meta({ id: "RunnerDetails" });
export function runnerDetails(r: RunnerDetailsRow): z.output<typeof RunnerDetails> {
  return {
    ...runnerBasic(r),
    tag_list: r.tagList,
    run_untagged: r.runUntagged,
    locked: r.locked,
    maximum_timeout: r.maximumTimeout,
    access_level: r.accessLevel,
    version: r.version,
    revision: r.revision,
    platform: r.platform,
    architecture: r.architecture,
    contacted_at: r.contactedAt ? new Date(r.contactedAt).toISOString() : null,
    projects: r.projectIds.map((id) => ({ id })),
    groups: [],
  };
}

