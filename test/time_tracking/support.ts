import { and, asc, eq } from "drizzle-orm";
import { issues, mergeRequests, notes, timelogs } from "../../db/schema";
import { nextIid } from "../../functions/shared/issuables/iids";
import type { TestProject, TestUser, World } from "../helpers/world";

/**
 * Issues and merge requests made directly in the database, so that these tests do not depend on the
 * issue and merge request endpoints of other domains.
 */
export type { TestIssue } from "../helpers/world";
import type { TestIssue } from "../helpers/world";

export async function makeMergeRequest(w: World, project: TestProject, opts: { author?: TestUser } = {}): Promise<TestIssue> {
  return w.db((db) =>
    db.transaction(async (tx) => {
      const iid = await nextIid(tx, "merge_requests", { projectId: project.id });
      const [row] = await tx
        .insert(mergeRequests)
        .values({
          iid,
          projectId: project.id,
          sourceProjectId: project.id,
          title: `MR ${iid}`,
          sourceBranch: `feature-${iid}`,
          targetBranch: "main",
          authorId: opts.author?.id ?? null,
        })
        .returning();
      return { id: row.id, iid: row.iid, projectId: project.id };
    }),
  );
}

export const issueRow = (w: World, id: number) =>
  w.db(async (db) => (await db.select().from(issues).where(eq(issues.id, id)))[0]);

export const mergeRequestRow = (w: World, id: number) =>
  w.db(async (db) => (await db.select().from(mergeRequests).where(eq(mergeRequests.id, id)))[0]);

export const timelogsOf = (w: World, column: "issueId" | "mergeRequestId", id: number) =>
  w.db((db) => db.select().from(timelogs).where(eq(timelogs[column], id)).orderBy(asc(timelogs.id)));

/** The bodies of the system notes of an issuable, oldest first. */
export const systemNotes = (w: World, type: "Issue" | "MergeRequest", id: number) =>
  w.db(async (db) =>
    (
      await db
        .select()
        .from(notes)
        .where(and(eq(notes.noteableType, type), eq(notes.noteableId, id), eq(notes.system, true)))
        .orderBy(asc(notes.id))
    ).map((n) => n.note),
  );
