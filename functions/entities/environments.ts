import type { Environment } from "../../db/schema";
import type { ProjectWithAccess } from "../kernel/abilities";
import { isoTime, type PresentContext } from "../kernel/present";
import { projectBasic } from "./projects";

/** API::Entities::EnvironmentBasic */
export function environmentBasic(env: Environment) {
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
export function environment(env: Environment, ctx: PresentContext & { project: ProjectWithAccess; single?: boolean }) {
  return {
    ...environmentBasic(env),
    tier: env.tier,
    project: projectBasic({ ...ctx.project, owner: null, sharedWithGroups: [] }, ctx),
    ...(ctx.single ? { last_deployment: null } : {}),
    state: env.state,
  };
}
