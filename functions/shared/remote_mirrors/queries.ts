// SQL of the push mirrors' consumer: the mirror with its project, the claim that starts an update, and the
// status columns it leaves (RemoteMirror's state machine: started → finished | failed | to_retry).
import { and, asc, eq, sql } from "drizzle-orm";
import { projects, remoteMirrors, type RemoteMirror } from "../../../db/schema";
import type { Executor } from "../../kernel/db";

export type MirrorProject = { id: number; poolId: number; defaultBranch: string | null };

/** The enabled mirrors of a project, by id. */
export async function enabledMirrorIds(db: Executor, projectId: number): Promise<number[]> {
  const rows = await db
    .select({ id: remoteMirrors.id })
    .from(remoteMirrors)
    .where(and(eq(remoteMirrors.projectId, projectId), eq(remoteMirrors.enabled, true)))
    .orderBy(asc(remoteMirrors.id));
  return rows.map((r) => r.id);
}

/**
 * Starts an update of an enabled mirror of a project with a repository (RemoteMirror#enabled: an empty
 * repository is not mirrored): `update_status` becomes `started` unless another update is running (one
 * started less than an hour ago, RemoteMirror::MAX_INCREMENTAL_RUNTIME). `skipped`: gone, disabled or
 * empty; `busy`: another update runs.
 */
export async function claimMirror(db: Executor, id: number): Promise<{ mirror: RemoteMirror; project: MirrorProject } | { skipped: true } | { busy: true }> {
  const [found] = await db
    .select({ mirror: remoteMirrors, project: { id: projects.id, poolId: projects.poolId, defaultBranch: projects.defaultBranch, emptyRepo: projects.emptyRepo } })
    .from(remoteMirrors)
    .innerJoin(projects, eq(projects.id, remoteMirrors.projectId))
    .where(eq(remoteMirrors.id, id));
  if (!found || !found.mirror.enabled || found.project.emptyRepo) return { skipped: true };
  const rows = await db
    .update(remoteMirrors)
    .set({ updateStatus: "started", lastUpdateStartedAt: sql`now()`, updatedAt: sql`now()` })
    .where(
      and(
        eq(remoteMirrors.id, id),
        eq(remoteMirrors.enabled, true),
        sql`(${remoteMirrors.updateStatus} <> 'started' OR ${remoteMirrors.lastUpdateStartedAt} < now() - interval '1 hour')`,
      ),
    )
    .returning();
  if (rows.length === 0) return { busy: true };
  const { emptyRepo: _empty, ...project } = found.project;
  return { mirror: rows[0], project: { ...project, poolId: project.poolId ?? project.id } };
}

/** `update_finish!`: finished, with both times and no error. */
export async function finishMirror(db: Executor, id: number): Promise<void> {
  await db.execute(sql`
    UPDATE remote_mirrors SET update_status = 'finished', last_update_at = now(), last_successful_update_at = now(),
      last_error = NULL, updated_at = now()
    WHERE id = ${id} AND update_status = 'started'`);
}

/** `hard_retry!` (`to_retry`, the error kept) or `hard_fail!` (`failed`, the attempt's time recorded). */
export async function failMirror(db: Executor, id: number, error: string, retry: boolean): Promise<void> {
  await db.execute(sql`
    UPDATE remote_mirrors SET update_status = ${retry ? "to_retry" : "failed"}, last_error = ${error},
      last_update_at = ${retry ? sql`last_update_at` : sql`now()`}, updated_at = now()
    WHERE id = ${id}`);
}
