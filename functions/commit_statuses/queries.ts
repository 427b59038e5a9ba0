// Commit statuses' SQL: the statuses of one commit with their authors, the open (pending or running)
// status a POST updates, and its insert or update.
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { ciCommitStatuses, users } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { CommitStatusRow } from "../entities/commit_statuses";
import type { StatusState } from "./rules";

const authorColumns = { id: users.id, username: users.username, name: users.name, state: users.state, avatarUrl: users.avatarUrl, email: users.email };

/** Every status of `sha` in the project (filtered), oldest first, with authors. One statement. */
export async function listStatuses(
  db: Executor,
  projectId: number,
  sha: string,
  filters: { ref?: string; stage?: string; name?: string },
): Promise<CommitStatusRow[]> {
  const rows = await db
    .select({ status: ciCommitStatuses, author: authorColumns })
    .from(ciCommitStatuses)
    .leftJoin(users, eq(users.id, ciCommitStatuses.userId))
    .where(
      and(
        eq(ciCommitStatuses.projectId, projectId),
        eq(ciCommitStatuses.sha, sha),
        filters.ref ? eq(ciCommitStatuses.ref, filters.ref) : undefined,
        filters.stage ? eq(ciCommitStatuses.stage, filters.stage) : undefined,
        filters.name ? eq(ciCommitStatuses.name, filters.name) : undefined,
      ),
    )
    .orderBy(asc(ciCommitStatuses.id));
  return rows.map((row) => ({ ...row.status, author: row.author?.id ? row.author : null }));
}

/** `GenericCommitStatus.running_or_pending.find_by(name:, ref:)` for the commit, locked for the update. */
export async function findOpenStatus(db: Executor, projectId: number, sha: string, name: string, ref: string) {
  const [row] = await db
    .select()
    .from(ciCommitStatuses)
    .where(
      and(
        eq(ciCommitStatuses.projectId, projectId),
        eq(ciCommitStatuses.sha, sha),
        eq(ciCommitStatuses.name, name),
        eq(ciCommitStatuses.ref, ref),
        isNull(ciCommitStatuses.pipelineId),
        inArray(ciCommitStatuses.status, ["pending", "running"]),
      ),
    )
    .orderBy(asc(ciCommitStatuses.id))
    .limit(1);
  return row ?? null;
}

export type StatusWrite = {
  status: StatusState;
  started: boolean;
  finished: boolean;
  targetUrl?: string;
  description?: string;
  coverage?: number;
};

/** Creates a status row in its new state. */
export async function insertStatus(db: Executor, input: StatusWrite & { projectId: number; sha: string; ref: string; name: string; userId: number }) {
  const [row] = await db
    .insert(ciCommitStatuses)
    .values({
      projectId: input.projectId,
      sha: input.sha,
      ref: input.ref,
      name: input.name,
      status: input.status,
      targetUrl: input.targetUrl ?? null,
      description: input.description ?? null,
      coverage: input.coverage ?? null,
      userId: input.userId,
      startedAt: input.started ? sql`now()` : null,
      finishedAt: input.finished ? sql`now()` : null,
    })
    .returning();
  return row;
}

/** Moves an open status to its new state, only if it is still in `from` (another writer may have moved it). */
export async function updateStatus(db: Executor, id: number, from: StatusState, input: StatusWrite) {
  const [row] = await db
    .update(ciCommitStatuses)
    .set({
      status: input.status,
      ...(input.targetUrl !== undefined ? { targetUrl: input.targetUrl } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.coverage !== undefined ? { coverage: input.coverage } : {}),
      ...(input.started ? { startedAt: sql`now()` } : {}),
      ...(input.finished ? { finishedAt: sql`now()` } : {}),
      updatedAt: sql`now()`,
    })
    .where(and(eq(ciCommitStatuses.id, id), eq(ciCommitStatuses.status, from)))
    .returning();
  return row ?? null;
}
