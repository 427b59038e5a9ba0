import { and, asc, eq } from "drizzle-orm";
import { issues, mergeRequests, notes, timelogs } from "../../db/schema";
import type { World } from "../helpers/world";

export type { TestIssue } from "../helpers/world";

/** A merge request made in the database (test/helpers/noteables.ts, the shared fixture). */
export { mergeRequest as makeMergeRequest } from "../helpers/noteables";

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
