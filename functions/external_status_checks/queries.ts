// External status checks' SQL: the project's checks with their protected branches (two statements for
// any number of checks), writes with their branch links in one transaction, and the responses given
// on merge requests.
import { and, asc, count, desc, eq, inArray, sql } from "drizzle-orm";
import {
  externalStatusChecks,
  externalStatusChecksProtectedBranches,
  protectedBranches,
  statusCheckResponses,
  type ExternalStatusCheck,
  type StatusCheckResponse,
} from "../../db/schema";
import type { Executor } from "../kernel/db";
import { isUniqueViolation } from "../kernel/errors";
import { listProtections } from "../shared/protected_branches/read";
import type { CheckWithBranches } from "../entities/external_status_checks";

export type { ExternalStatusCheck, StatusCheckResponse };

/** Adds the protected branches to checks of one project: two statements whatever their number. */
export async function withBranches(db: Executor, projectId: number, checks: ExternalStatusCheck[]): Promise<CheckWithBranches[]> {
  if (checks.length === 0) return [];
  const links = await db
    .select()
    .from(externalStatusChecksProtectedBranches)
    .where(inArray(externalStatusChecksProtectedBranches.externalStatusCheckId, checks.map((c) => c.id)));
  const protections = links.length ? await listProtections(db, projectId) : [];
  return checks.map((check) => ({
    ...check,
    protectedBranches: protections.filter((p) => links.some((l) => l.externalStatusCheckId === check.id && l.protectedBranchId === p.id)),
  }));
}

/** A page of the project's checks in id order, and their total. */
export async function listChecks(db: Executor, projectId: number, page: { limit: number; offset: number }): Promise<{ rows: ExternalStatusCheck[]; total: number }> {
  const [{ total }] = await db.select({ total: count() }).from(externalStatusChecks).where(eq(externalStatusChecks.projectId, projectId));
  const rows = await db
    .select()
    .from(externalStatusChecks)
    .where(eq(externalStatusChecks.projectId, projectId))
    .orderBy(asc(externalStatusChecks.id))
    .limit(page.limit)
    .offset(page.offset);
  return { rows, total };
}

export async function findCheck(db: Executor, projectId: number, id: number): Promise<ExternalStatusCheck | null> {
  const [row] = await db
    .select()
    .from(externalStatusChecks)
    .where(and(eq(externalStatusChecks.projectId, projectId), eq(externalStatusChecks.id, id)));
  return row ?? null;
}

/**
 * The projects of protected branch ids (`protected_branch_ids=` loads them: an unknown id is
 * ActiveRecord::RecordNotFound), by id.
 */
export async function protectedBranchProjects(db: Executor, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: protectedBranches.id, projectId: protectedBranches.projectId }).from(protectedBranches).where(inArray(protectedBranches.id, ids));
  return new Map(rows.map((r) => [r.id, r.projectId]));
}

export type CheckWrite = { name?: string; externalUrl?: string; protectedBranchIds?: number[] };

/** Which unique index a write lost on (name or URL taken in the project), or null when it was written. */
export type Taken = "name" | "external_url";

function takenBy(err: unknown): Taken | null {
  if (isUniqueViolation(err, "index_external_status_checks_on_project_id_and_name")) return "name";
  if (isUniqueViolation(err, "index_external_status_checks_on_project_id_and_external_url")) return "external_url";
  return null;
}

async function writeBranches(tx: Executor, checkId: number, ids: number[] | undefined, replace: boolean) {
  if (ids === undefined) return;
  if (replace) await tx.delete(externalStatusChecksProtectedBranches).where(eq(externalStatusChecksProtectedBranches.externalStatusCheckId, checkId));
  const unique = [...new Set(ids)];
  if (unique.length)
    await tx.insert(externalStatusChecksProtectedBranches).values(unique.map((protectedBranchId) => ({ externalStatusCheckId: checkId, protectedBranchId })));
}

/** Inserts a check with its protected branches in one transaction; the taken field when the unique index refuses it. */
export async function insertCheck(db: Executor, projectId: number, input: Required<Pick<CheckWrite, "name" | "externalUrl">> & CheckWrite): Promise<ExternalStatusCheck | Taken> {
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx.insert(externalStatusChecks).values({ projectId, name: input.name, externalUrl: input.externalUrl }).returning();
      await writeBranches(tx, row.id, input.protectedBranchIds, false);
      return row;
    });
  } catch (err) {
    const taken = takenBy(err);
    if (taken) return taken;
    throw err;
  }
}

/** Updates what was sent (protected branches replaced when sent) in one transaction. */
export async function updateCheck(db: Executor, check: ExternalStatusCheck, input: CheckWrite): Promise<ExternalStatusCheck | Taken> {
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx
        .update(externalStatusChecks)
        .set({ name: input.name ?? check.name, externalUrl: input.externalUrl ?? check.externalUrl, updatedAt: sql`now()` })
        .where(eq(externalStatusChecks.id, check.id))
        .returning();
      await writeBranches(tx, check.id, input.protectedBranchIds, true);
      return row;
    });
  } catch (err) {
    const taken = takenBy(err);
    if (taken) return taken;
    throw err;
  }
}

/** Deletes a check (its branch links and responses cascade); false when it was already gone. */
export async function deleteCheck(db: Executor, id: number): Promise<boolean> {
  const rows = await db.delete(externalStatusChecks).where(eq(externalStatusChecks.id, id)).returning({ id: externalStatusChecks.id });
  return rows.length > 0;
}

// ----- merge requests

/**
 * The project's checks that apply to a target branch (`applicable_to_branch`: no protected branch, or
 * one named as the branch), a page of them in id order, and their total.
 */
export async function listApplicable(
  db: Executor,
  projectId: number,
  targetBranch: string,
  page: { limit: number; offset: number },
): Promise<{ rows: ExternalStatusCheck[]; total: number }> {
  const applies = sql`(NOT EXISTS (SELECT 1 FROM external_status_checks_protected_branches x WHERE x.external_status_check_id = ${externalStatusChecks.id})
    OR EXISTS (SELECT 1 FROM external_status_checks_protected_branches x JOIN protected_branches pb ON pb.id = x.protected_branch_id
                WHERE x.external_status_check_id = ${externalStatusChecks.id} AND pb.name = ${targetBranch}))`;
  const where = and(eq(externalStatusChecks.projectId, projectId), applies);
  const [{ total }] = await db.select({ total: count() }).from(externalStatusChecks).where(where);
  const rows = await db.select().from(externalStatusChecks).where(where).orderBy(asc(externalStatusChecks.id)).limit(page.limit).offset(page.offset);
  return { rows, total };
}

/**
 * The newest response of each of `checkIds` for the merge request at `sha` (`response_for`), by check
 * id; one statement.
 */
export async function latestResponses(db: Executor, mergeRequestId: number, sha: string | null, checkIds: number[]): Promise<Map<number, StatusCheckResponse>> {
  if (checkIds.length === 0 || sha === null) return new Map();
  const rows = await db
    .selectDistinctOn([statusCheckResponses.externalStatusCheckId])
    .from(statusCheckResponses)
    .where(
      and(
        eq(statusCheckResponses.mergeRequestId, mergeRequestId),
        eq(statusCheckResponses.sha, sha),
        inArray(statusCheckResponses.externalStatusCheckId, checkIds),
      ),
    )
    .orderBy(statusCheckResponses.externalStatusCheckId, desc(statusCheckResponses.id));
  return new Map(rows.map((r) => [r.externalStatusCheckId, r]));
}

/** `merge_request.status_check_responses.create!`. */
export async function insertResponse(
  db: Executor,
  input: { mergeRequestId: number; externalStatusCheckId: number; sha: string; status: string },
): Promise<StatusCheckResponse> {
  const [row] = await db.insert(statusCheckResponses).values(input).returning();
  return row;
}
