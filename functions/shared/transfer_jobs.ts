// The lease of a project export or import job (`project_transfer_jobs`), shared by the two consumers of
// the export-import queue: the one writer of the lease, so both take jobs by the same rule.
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { projectTransferJobs, type ProjectTransferJob } from "../../db/schema";
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
