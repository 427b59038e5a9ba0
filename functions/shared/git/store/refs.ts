// Refs (docs/git.md, "Refs"): the only mutable git state, moved only by compare-and-swap. Zero rows = another
// writer won; callers decide whether to retry.
import { and, eq, inArray, like, sql } from "drizzle-orm";
import { gitRefs, pushEvents } from "../../../../db/schema";
import type { Executor } from "../../../kernel/db";
import { compareBytes, utf8 } from "../pure/bytes";
import { ZERO_OID } from "../pure/objects";

export type Ref = { name: string; target: string; peeled: string | null };

/** The commit a ref points at (an annotated tag's `peeled`, else its target). */
export const refCommit = (ref: Ref) => ref.peeled ?? ref.target;

/** Git's ref order: bytewise by full name. */
export const compareRefNames = (a: string, b: string) => compareBytes(utf8.encode(a), utf8.encode(b));

const columns = { name: gitRefs.name, target: gitRefs.target, peeled: gitRefs.peeled };

/** The refs among `names` that exist (one statement). */
export async function readRefs(db: Executor, projectId: number, names: string[]): Promise<Map<string, Ref>> {
  const out = new Map<string, Ref>();
  if (names.length === 0) return out;
  const rows = await db
    .select(columns)
    .from(gitRefs)
    .where(and(eq(gitRefs.projectId, projectId), inArray(gitRefs.name, [...new Set(names)])));
  for (const row of rows) out.set(row.name, row);
  return out;
}

export async function readRef(db: Executor, projectId: number, name: string): Promise<Ref | null> {
  return (await readRefs(db, projectId, [name])).get(name) ?? null;
}

/** Every ref under `prefix` (`refs/heads/`, `refs/tags/`, or all with `refs/`), in git's order. */
export async function listRefs(db: Executor, projectId: number, prefix = "refs/"): Promise<Ref[]> {
  const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
  const rows = await db
    .select(columns)
    .from(gitRefs)
    .where(and(eq(gitRefs.projectId, projectId), like(gitRefs.name, `${escaped}%`)));
  return rows.sort((a, b) => compareRefNames(a.name, b.name));
}

/** Creates `name` unless it exists. False when it already existed (someone else created it). */
export async function createRef(db: Executor, projectId: number, name: string, target: string, peeled: string | null = null): Promise<boolean> {
  const rows = await db
    .insert(gitRefs)
    .values({ projectId, name, target, peeled })
    .onConflictDoNothing()
    .returning({ name: gitRefs.name });
  return rows.length === 1;
}

/** Moves `name` from `oldTarget` to `newTarget`. False when the ref is not at `oldTarget` any more. */
export async function updateRef(
  db: Executor,
  projectId: number,
  name: string,
  oldTarget: string,
  newTarget: string,
  peeled: string | null = null,
): Promise<boolean> {
  const rows = await db
    .update(gitRefs)
    .set({ target: newTarget, peeled, updatedAt: sql`now()` })
    .where(and(eq(gitRefs.projectId, projectId), eq(gitRefs.name, name), eq(gitRefs.target, oldTarget)))
    .returning({ name: gitRefs.name });
  return rows.length === 1;
}

/** Deletes `name` if it still points at `oldTarget`. */
export async function deleteRef(db: Executor, projectId: number, name: string, oldTarget: string): Promise<boolean> {
  const rows = await db
    .delete(gitRefs)
    .where(and(eq(gitRefs.projectId, projectId), eq(gitRefs.name, name), eq(gitRefs.target, oldTarget)))
    .returning({ name: gitRefs.name });
  return rows.length === 1;
}

/**
 * One CAS in git's update-ref terms: `oldTarget` null = must not exist (create), `newTarget` null =
 * delete. Returns whether this writer won.
 */
export async function compareAndSwapRef(
  db: Executor,
  projectId: number,
  name: string,
  oldTarget: string | null,
  newTarget: string | null,
  peeled: string | null = null,
): Promise<boolean> {
  if (oldTarget === null && newTarget === null) return false;
  if (oldTarget === null) return createRef(db, projectId, name, newTarget!, peeled);
  if (newTarget === null) return deleteRef(db, projectId, name, oldTarget);
  return updateRef(db, projectId, name, oldTarget, newTarget, peeled);
}

/** The push event of a ref update, written in the same transaction as the CAS (docs/git.md, "Principles"). */
export async function recordPushEvent(
  db: Executor,
  event: { projectId: number; ref: string; before: string | null; after: string | null; userId: number | null },
): Promise<number> {
  const [row] = await db
    .insert(pushEvents)
    .values({
      projectId: event.projectId,
      ref: event.ref,
      before: event.before ?? ZERO_OID,
      after: event.after ?? ZERO_OID,
      userId: event.userId,
    })
    .returning({ id: pushEvents.id });
  return row.id;
}

/**
 * A compare-and-swap and its push event in ONE statement (the CAS in a CTE, the event inserted only
 * when the CAS won), so a single ref write needs no BEGIN/COMMIT round trips. True when this writer won.
 */
export async function swapRefWithEvent(
  db: Executor,
  input: { projectId: number; name: string; oldTarget: string | null; newTarget: string | null; peeled?: string | null; userId: number | null; pushEvent?: boolean },
): Promise<boolean> {
  const { projectId, name, oldTarget, newTarget } = input;
  if (oldTarget === null && newTarget === null) return false;
  const swap =
    oldTarget === null
      ? sql`INSERT INTO git_refs (project_id, name, target, peeled) VALUES (${projectId}, ${name}, ${newTarget}, ${input.peeled ?? null})
          ON CONFLICT DO NOTHING RETURNING name`
      : newTarget === null
        ? sql`DELETE FROM git_refs WHERE project_id = ${projectId} AND name = ${name} AND target = ${oldTarget} RETURNING name`
        : sql`UPDATE git_refs SET target = ${newTarget}, peeled = ${input.peeled ?? null}, updated_at = now()
            WHERE project_id = ${projectId} AND name = ${name} AND target = ${oldTarget} RETURNING name`;
  // A repository without push events (a wiki): the swap alone.
  if (input.pushEvent === false) return (await db.execute(swap)).rows.length === 1;
  const result = await db.execute<{ id: number }>(sql`
    WITH swapped AS (${swap})
    INSERT INTO push_events (project_id, ref, before, after, user_id)
    SELECT ${projectId}, ${name}, ${oldTarget ?? ZERO_OID}, ${newTarget ?? ZERO_OID}, ${input.userId} FROM swapped
    RETURNING id`);
  return result.rows.length === 1;
}

/** Whether the project has any branch (GitLab's `empty_repo?` is "no branches"). */
export async function hasBranches(db: Executor, projectId: number): Promise<boolean> {
  const rows = await db
    .select({ name: gitRefs.name })
    .from(gitRefs)
    .where(and(eq(gitRefs.projectId, projectId), like(gitRefs.name, "refs/heads/%")))
    .limit(1);
  return rows.length > 0;
}


/**
 * A new fork's refs: the source's branches and tags, copied as they are (the objects are already in
 * the shared pool, so no object moves). No push event: GitLab's fork import runs no pipelines.
 */
export async function copyRefsForFork(db: Executor, sourceProjectId: number, forkProjectId: number): Promise<void> {
  await db.execute(sql`INSERT INTO git_refs (project_id, name, target, peeled)
    SELECT ${forkProjectId}, name, target, peeled FROM git_refs
     WHERE project_id = ${sourceProjectId} AND (name LIKE 'refs/heads/%' OR name LIKE 'refs/tags/%')`);
}
