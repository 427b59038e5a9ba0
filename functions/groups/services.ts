import type { Namespace } from "../../db/schema";
import type { Database } from "../kernel/db";
import * as q from "./queries";

/** Postgres `unique_violation`, as the driver reports it (possibly wrapped by Drizzle). */
function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}

/**
 * Groups::CreateService: the group row and its creator's OWNER membership (`group.add_owner`), in one
 * transaction. Null when another request took the full path meanwhile (the unique index on
 * `lower(full_path)` refuses it): the caller answers "has already been taken".
 */
export async function createGroup(
  db: Database,
  id: number,
  parentTraversalIds: number[],
  values: q.NewGroup,
  creatorId: number,
): Promise<Namespace | null> {
  try {
    return await db.transaction((tx) => q.insertGroup(tx, id, parentTraversalIds, values, creatorId));
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/**
 * Groups::UpdateService: the group, its descendants' routes and share locks, and the routes of the
 * projects below, written by ONE statement (data-modifying CTEs), which Postgres applies atomically.
 * No BEGIN/COMMIT around it: those two round trips would push PUT (which also presents the group's
 * projects) past the 6-statement budget, and would add no atomicity to a single statement.
 * Null when the new full path was taken meanwhile.
 */
export async function updateGroup(
  db: Database,
  groupId: number,
  changes: q.GroupChanges,
  rename: q.Rename | null,
  lockDescendants: boolean,
): Promise<Namespace | null> {
  try {
    return await q.updateGroup(db, groupId, changes, rename, lockDescendants);
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/**
 * Groups::DestroyService, synchronously: the group, its descendants, their projects, members rows and
 * project_group_links, in one transaction.
 * Differs from GitLab: GitLab schedules GroupDestroyWorker (`async_execute`) and answers 202 at once;
 * here the work is done before the 202, so a following GET already answers 404.
 */
export async function destroyGroup(db: Database, groupId: number): Promise<void> {
  await db.transaction((tx) => q.deleteGroupTree(tx, groupId));
}

/**
 * Groups::TransferService#proceed_to_transfer: every write of the move in one transaction. Null when a
 * concurrent request took the new full path (the unique index on `lower(full_path)`).
 */
export async function transferGroup(db: Database, group: Namespace, target: q.TransferTarget): Promise<Namespace | null> {
  try {
    return await db.transaction((tx) => q.transferGroup(tx, group, target));
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

