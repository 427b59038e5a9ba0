// External commit statuses inside the pipeline engine (GenericCommitStatus, `POST /projects/:id/statuses/:sha`,
// lib/api/commit_statuses.rb and Ci::Pipelines::AddJobService, GitLab 15.4). The rows live in
// `ci_commit_statuses`, linked to their pipeline by `pipeline_id`; the statements that write them are
// here and run only inside the pipeline's coordinator (coordinator.ts#postStatus), which then processes
// the pipeline: an external status moves the pipeline's status through the same owner as a job does.
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { ciCommitStatuses, ciPipelines, type CiCommitStatus } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import { matchingPipelines, transition, type RequestedState, type StatusState } from "./commit_status";

/** GenericCommitStatus::EXTERNAL_STAGE_IDX: after every stage of the configuration. */
export const EXTERNAL_STAGE_IDX = 1_000_000;

/** What a status post asks for (`state` and the updatable attributes `target_url`, `description`, `coverage`). */
export type ExternalStatusInput = {
  projectId: number;
  sha: string;
  ref: string;
  name: string;
  state: RequestedState;
  userId: number;
  targetUrl?: string;
  description?: string;
  coverage?: number;
};

export type ExternalStatusResult = { ok: true; row: CiCommitStatus } | { ok: false; status: 400 | 409; message: string };

/**
 * `all_matching_pipelines.first` (newest first), else a new `external` pipeline on `ref`
 * (`ci_pipelines.build(source: :external, …)` with its iid). Runs in the project's coordinator, so two
 * posts for one commit do not make two pipelines.
 */
export async function externalPipelineFor(
  db: Executor,
  create: (input: { projectId: number; sha: string; ref: string; userId: number }) => Promise<{ id: number }>,
  input: { projectId: number; sha: string; ref: string; userId: number; match: { ref?: string; pipelineId?: number } },
): Promise<number> {
  const [found] = await db
    .select({ id: ciPipelines.id })
    .from(ciPipelines)
    .where(matchingPipelines(input.projectId, input.sha, input.match))
    .orderBy(desc(ciPipelines.id))
    .limit(1);
  return found ? found.id : (await create(input)).id;
}

/**
 * `GenericCommitStatus.running_or_pending.find_or_initialize_by(pipeline:, name:, ref:, user:)`, moved
 * by the requested state (shared/ci/commit_status.ts), then `update_older_statuses_retried!` as a read
 * rule: the newest status of a name in a pipeline is its latest (`latestExternalStatuses`).
 * An InvalidTransition is GitLab's 400.
 */
export async function writeExternalStatus(db: Executor, pipelineId: number, input: ExternalStatusInput): Promise<ExternalStatusResult> {
  const [open] = await db
    .select()
    .from(ciCommitStatuses)
    .where(
      and(
        eq(ciCommitStatuses.projectId, input.projectId),
        eq(ciCommitStatuses.sha, input.sha),
        eq(ciCommitStatuses.pipelineId, pipelineId),
        eq(ciCommitStatuses.name, input.name),
        eq(ciCommitStatuses.ref, input.ref),
        eq(ciCommitStatuses.userId, input.userId),
        inArray(ciCommitStatuses.status, ["pending", "running"]),
      ),
    )
    .orderBy(asc(ciCommitStatuses.id))
    .limit(1);
  const from: StatusState = (open?.status as StatusState | undefined) ?? "created";
  const next = transition(from, input.state);
  if (!next.ok) return { ok: false, status: 400, message: next.message };
  const fields = {
    ...(input.targetUrl !== undefined ? { targetUrl: input.targetUrl } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.coverage !== undefined ? { coverage: input.coverage } : {}),
  };
  if (open) {
    // The coordinator serialises writers of this pipeline; the status guard keeps an older row safe anyway.
    const [row] = await db
      .update(ciCommitStatuses)
      .set({
        status: next.status,
        ...fields,
        ...(next.started ? { startedAt: sql`now()` } : {}),
        ...(next.finished ? { finishedAt: sql`now()` } : {}),
        updatedAt: sql`now()`,
      })
      .where(and(eq(ciCommitStatuses.id, open.id), eq(ciCommitStatuses.status, from)))
      .returning();
    return row ? { ok: true, row } : { ok: false, status: 409, message: "Status was updated by another request" };
  }
  const [row] = await db
    .insert(ciCommitStatuses)
    .values({
      projectId: input.projectId,
      pipelineId,
      sha: input.sha,
      ref: input.ref,
      name: input.name,
      status: next.status,
      ...fields,
      userId: input.userId,
      startedAt: next.started ? sql`now()` : null,
      finishedAt: next.finished ? sql`now()` : null,
    })
    .returning();
  return { ok: true, row };
}

/**
 * The latest external statuses of a pipeline (the newest of each name: older ones are retried), as
 * processing counts them with its jobs. Read through the pipeline's project and sha, which the
 * statuses' index starts with.
 */
export async function latestExternalStatuses(db: Executor, pipelineId: number): Promise<CiCommitStatus[]> {
  const rows = await db
    .selectDistinctOn([ciCommitStatuses.name], { status: ciCommitStatuses })
    .from(ciCommitStatuses)
    .innerJoin(ciPipelines, and(eq(ciPipelines.projectId, ciCommitStatuses.projectId), eq(ciPipelines.sha, ciCommitStatuses.sha)))
    .where(and(eq(ciPipelines.id, pipelineId), eq(ciCommitStatuses.pipelineId, pipelineId)))
    .orderBy(ciCommitStatuses.name, desc(ciCommitStatuses.id));
  return rows.map((r) => r.status);
}
