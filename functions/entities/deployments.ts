import * as z from "zod";
import type { Deployment as DeploymentModel, Environment as EnvironmentModel, User as UserModel } from "../../db/schema";
import { isoTime, type PresentContext } from "../kernel/present";
import { EnvironmentBasic, environmentBasic } from "./environment_basic";
import { Job, job, type JobContext, type JobRow } from "./jobs";
import { UserBasic, userBasic } from "./users";

/** A deployment with what its entity shows, preloaded: the environment, the user and the job (`deployable`). */
export type DeploymentRow = DeploymentModel & { environment: EnvironmentModel; user: UserModel | null; deployable: JobRow | null };

/**
 * API::Entities::Deployment (lib/api/entities/deployment.rb); DeploymentExtended adds approvals, which
 * exist only with protected environments (not built), so the single and created deployment are this too.
 */
export const Deployment = z
  .object({
    id: z.int(),
    iid: z.int(),
    ref: z.string(),
    sha: z.string(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    user: UserBasic.nullable(),
    environment: EnvironmentBasic,
    deployable: Job.nullable(),
    status: z.string(),
  })
  .meta({ id: "Deployment" });
export function deployment(row: DeploymentRow, ctx: PresentContext & Omit<JobContext, keyof PresentContext>): z.output<typeof Deployment> {
  return {
    id: row.id,
    iid: row.iid,
    ref: row.ref,
    sha: row.sha,
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
    user: row.user ? userBasic(row.user, ctx) : null,
    environment: environmentBasic(row.environment),
    deployable: row.deployable ? job(row.deployable, ctx) : null,
    status: row.status,
  };
}
