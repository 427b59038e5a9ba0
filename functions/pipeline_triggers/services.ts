import type { Database } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import { Access } from "../kernel/access";
import type { ProjectWithAccess } from "../kernel/abilities";
import { pipelineStub } from "../shared/ci/coordinator";
import { createPipeline, PipelineCreationError } from "../shared/ci/create";
import { TRIGGER_TOKEN_PREFIX } from "../entities/pipeline_triggers";
import * as q from "./queries";

/** Ci::Trigger's token: the prefix and 20 random bytes in hex (`SecureRandom.hex(20)`). */
export function newTriggerToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  return TRIGGER_TOKEN_PREFIX + [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

type Trigger = NonNullable<Awaited<ReturnType<typeof q.triggerByToken>>>;

/**
 * Ci::PipelineTriggerService#create_pipeline_from_trigger: a `trigger` pipeline as the trigger's owner
 * with the request's variables as pipeline variables (so `rules:if` and the jobs see them). Refusals
 * throw PipelineCreationError (the route's 400); a configuration error stores a failed pipeline,
 * which is answered as created, as GitLab does. Answers the pipeline id.
 */
export async function runTrigger(
  env: Bindings,
  db: Database,
  project: ProjectWithAccess,
  trigger: Trigger,
  input: { ref: string; variables: Record<string, string>; baseUrl: string },
): Promise<number> {
  const owner = trigger.owner;
  // Gitlab::Ci::Pipeline::Chain::Validate::Abilities: the owner must still be allowed to create pipelines.
  const mayCreate = owner !== null && owner.state === "active" && project.jobsEnabled && !project.archived && (owner.admin || trigger.ownerAccess >= Access.DEVELOPER);
  if (!mayCreate) throw new PipelineCreationError("Insufficient permissions to create a new pipeline", "ref");
  const created = await createPipeline(db, {
    project: { id: project.id, name: project.name, path: project.path, fullPath: project.fullPath, namespaceFullPath: project.namespace.fullPath, visibilityLevel: project.visibilityLevel, defaultBranch: project.defaultBranch, poolId: project.poolId },
    ref: input.ref,
    source: "trigger",
    user: { id: owner.id, username: owner.username, name: owner.name, email: owner.email },
    variables: Object.entries(input.variables).map(([key, value]) => ({ key, value })),
    baseUrl: input.baseUrl,
    triggerId: trigger.id,
  });
  if (!created) throw new PipelineCreationError("Missing CI config file", "filtered");
  await q.touchTrigger(db, trigger.id);
  if (created.status !== "failed") await pipelineStub(env, created.id).process();
  return created.id;
}
