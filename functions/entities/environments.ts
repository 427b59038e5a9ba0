import * as z from "zod";
import type { Environment } from "../../db/schema";
import type { ProjectWithAccess } from "../kernel/abilities";
import type { PresentContext } from "../kernel/present";
import { Deployment, deployment, type DeploymentRow } from "./deployments";
import { EnvironmentBasic, environmentBasic } from "./environment_basic";
import type { GitCommitRow } from "../../db/schema";
import { BasicProjectDetails, projectBasic } from "./projects";

export { EnvironmentBasic, environmentBasic };

/**
 * API::Entities::Environment, with its project (BasicProjectDetails). `last_deployment` (the latest
 * successful one, with its job) on a single read only (`last_deployment: true` in lib/api/environments.rb).
 */
export const EnvironmentEntity = EnvironmentBasic.extend({
  tier: z.string().nullable(),
  project: BasicProjectDetails,
  last_deployment: Deployment.nullable().optional(),
  state: z.string(),
}).meta({ id: "Environment" });
export function environment(
  env: Environment,
  ctx: PresentContext & { project: ProjectWithAccess; single?: boolean; lastDeployment?: DeploymentRow | null; commits?: Map<string, GitCommitRow> },
): z.output<typeof EnvironmentEntity> {
  const last = ctx.lastDeployment ?? null;
  return {
    ...environmentBasic(env),
    tier: env.tier,
    project: projectBasic({ ...ctx.project, owner: null, sharedWithGroups: [] }, ctx),
    ...(ctx.single
      ? { last_deployment: last ? deployment(last, { ...ctx, projectId: ctx.project.id, projectPath: ctx.project.fullPath, commits: ctx.commits ?? new Map() }) : null }
      : {}),
    state: env.state,
  };
}
