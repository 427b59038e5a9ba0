import * as z from "zod";
import type { Environment } from "../../db/schema";
import type { ProjectWithAccess } from "../kernel/abilities";
import { isoTime, type PresentContext } from "../kernel/present";
import { BasicProjectDetails, projectBasic } from "./projects";

/** API::Entities::EnvironmentBasic */
export const EnvironmentBasic = z
  .object({ id: z.int(), name: z.string(), slug: z.string(), external_url: z.string().nullable(), created_at: z.string().nullable(), updated_at: z.string().nullable() })
  .meta({ id: "EnvironmentBasic" });
export function environmentBasic(env: Environment): z.output<typeof EnvironmentBasic> {
  return {
    id: env.id,
    name: env.name,
    slug: env.slug,
    external_url: env.externalUrl,
    created_at: isoTime(env.createdAt),
    updated_at: isoTime(env.updatedAt),
  };
}

/**
 * API::Entities::Environment, with its project (BasicProjectDetails). `last_deployment` on a single
 * read: there are no deployments yet, so it is null.
 */
export const EnvironmentEntity = EnvironmentBasic.extend({
  tier: z.string().nullable(),
  project: BasicProjectDetails,
  last_deployment: z.null().optional(),
  state: z.string(),
}).meta({ id: "Environment" });
export function environment(env: Environment, ctx: PresentContext & { project: ProjectWithAccess; single?: boolean }): z.output<typeof EnvironmentEntity> {
  return {
    ...environmentBasic(env),
    tier: env.tier,
    project: projectBasic({ ...ctx.project, owner: null, sharedWithGroups: [] }, ctx),
    ...(ctx.single ? { last_deployment: null } : {}),
    state: env.state,
  };
}
