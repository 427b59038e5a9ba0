// The lease of a project or group export or import job (`project_transfer_jobs`, `group_transfer_jobs`), shared by the consumers of
// the export-import queue: the one writer of the lease, so both take jobs by the same rule.
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { groupTransferJobs, projectTransferJobs, type GroupTransferJob, type ProjectTransferJob } from "../../db/schema";
import type { Executor } from "../kernel/db";

/** The status a job waits in before its first consumer: GitLab's `queued` export, `scheduled` import. */
const WAITING = { export: "queued", import: "scheduled" } as const;

/**
 * Takes a waiting job of `kind`, or a started one whose lease passed (its consumer died), in one
 * statement: two deliveries of the same message cannot both take it. Null when another consumer holds
 * it or it is done.
 */
export async function leaseTransferJob(db: Executor, id: number, kind: keyof typeof WAITING, leaseSeconds: number): Promise<ProjectTransferJob | null> {
  const leasePassed = or(isNull(projectTransferJobs.leaseUntil), lt(projectTransferJobs.leaseUntil, sql`now()`));
  const [row] = await db
    .update(projectTransferJobs)
    .set({
      status: "started",
      attempts: sql`${projectTransferJobs.attempts} + 1`,
      leaseUntil: sql`now() + make_interval(secs => ${leaseSeconds})`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(projectTransferJobs.id, id),
        eq(projectTransferJobs.kind, kind),
        or(eq(projectTransferJobs.status, WAITING[kind]), and(eq(projectTransferJobs.status, "started"), leasePassed)),
      ),
    )
    .returning();
  return row ?? null;
}

/** The status a group job waits in: an export is `queued`, an import `scheduled` (as for projects). */
const GROUP_WAITING = { export: "queued", import: "scheduled" } as const;

/** leaseTransferJob for a group export or import job (`group_transfer_jobs`), by the same rule. */
export async function leaseGroupTransferJob(db: Executor, id: number, kind: keyof typeof GROUP_WAITING, leaseSeconds: number): Promise<GroupTransferJob | null> {
  const leasePassed = or(isNull(groupTransferJobs.leaseUntil), lt(groupTransferJobs.leaseUntil, sql`now()`));
  const [row] = await db
    .update(groupTransferJobs)
    .set({
      status: "started",
      attempts: sql`${groupTransferJobs.attempts} + 1`,
      leaseUntil: sql`now() + make_interval(secs => ${leaseSeconds})`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(groupTransferJobs.id, id),
        eq(groupTransferJobs.kind, kind),
        or(eq(groupTransferJobs.status, GROUP_WAITING[kind]), and(eq(groupTransferJobs.status, "started"), leasePassed)),
      ),
    )
    .returning();
  return row ?? null;
}

/** Ends a group job: `finished` (with its archive for an export) or `failed` with its error; a finished job stays finished. */
export async function endGroupTransferJob(db: Executor, id: number, outcome: { r2Key?: string; error?: string }) {
  await db
    .update(groupTransferJobs)
    .set({
      status: outcome.error === undefined ? "finished" : "failed",
      error: outcome.error ?? null,
      ...(outcome.r2Key ? { r2Key: outcome.r2Key } : {}),
      finishedAt: outcome.error === undefined ? sql`now()` : null,
      leaseUntil: null,
      updatedAt: sql`now()`,
    })
    .where(and(eq(groupTransferJobs.id, id), sql`${groupTransferJobs.status} <> 'finished'`));
}
