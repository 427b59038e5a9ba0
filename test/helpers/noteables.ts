import { and, eq, sql } from "drizzle-orm";
import { expect } from "vitest";
import { awardEmoji, epics, issues, mergeRequests, notes, snippets, todos } from "../../db/schema";
import { nextIid } from "../../functions/shared/issuables/iids";
import { unique, type TestGroup, type TestProject, type TestUser, type World } from "./world";

/**
 * Noteables made directly in the database (independent of the issues, merge requests, snippets and
 * epics endpoints), for the tests of every other domain, and reads of the rows endpoints wrote.
 */
export type Json = Record<string, any>;

export type { TestIssue } from "./world";
import type { TestIssue } from "./world";

export async function issue(
  w: World,
  project: TestProject,
  opts: { author?: TestUser; confidential?: boolean; assignees?: TestUser[]; locked?: boolean; title?: string } = {},
): Promise<TestIssue> {
  return w.issue(project, { ...opts, authorId: opts.author?.id ?? 1, assigneeIds: opts.assignees?.map((u) => u.id) });
}

/** An issue with no author unless given (the time tracking, metric image and user agent tests' default). */
export async function makeIssue(
  w: World,
  project: TestProject,
  opts: { author?: TestUser; confidential?: boolean; issueType?: "issue" | "incident"; assignee?: TestUser } = {},
): Promise<TestIssue> {
  return w.issue(project, { ...opts, authorId: opts.author?.id ?? null, assigneeIds: opts.assignee ? [opts.assignee.id] : [] });
}

/**
 * An issue titled "An issue" unless given, with its iid from the project's internal id counter so it
 * never collides with issues created through the API.
 */
export async function insertIssue(
  w: World,
  project: TestProject,
  opts: { title?: string; authorId?: number; confidential?: boolean; assigneeIds?: number[] } = {},
): Promise<{ id: number; iid: number }> {
  return w.issue(project, { title: "An issue", ...opts });
}

export async function mergeRequest(w: World, project: TestProject, opts: { author?: TestUser } = {}): Promise<TestIssue> {
  return w.db((db) =>
    db.transaction(async (tx) => {
      const iid = await nextIid(tx, "merge_requests", { projectId: project.id });
      const [row] = await tx
        .insert(mergeRequests)
        .values({
          iid,
          projectId: project.id,
          sourceProjectId: project.id,
          title: unique("mr"),
          sourceBranch: unique("feature"),
          targetBranch: "main",
          authorId: opts.author?.id ?? 1,
        })
        .returning();
      return { id: row.id, iid: row.iid, projectId: project.id };
    }),
  );
}

/** A merge request in one statement, with its iid from the project's counter, in a given state. */
export async function insertMergeRequest(
  w: World,
  project: TestProject,
  opts: { authorId: number; sourceBranch?: string; targetBranch?: string; state?: string },
): Promise<{ id: number; iid: number }> {
  return w.db(async (db) => {
    const result = await db.execute<{ id: number; iid: number }>(sql`
      WITH iid AS (INSERT INTO internal_ids (usage, project_id, last_value) VALUES ('merge_requests', ${project.id}, 1)
        ON CONFLICT (usage, project_id) WHERE project_id IS NOT NULL DO UPDATE SET last_value = internal_ids.last_value + 1
        RETURNING last_value)
      INSERT INTO merge_requests (iid, project_id, source_project_id, title, source_branch, target_branch, author_id, state)
      SELECT last_value, ${project.id}, ${project.id}, 'A change', ${opts.sourceBranch ?? "feature"}, ${opts.targetBranch ?? "main"}, ${opts.authorId}, ${opts.state ?? "opened"} FROM iid
      RETURNING id, iid`);
    const row = result.rows[0];
    return { id: Number(row.id), iid: Number(row.iid) };
  });
}

export async function snippet(
  w: World,
  project: TestProject,
  opts: { author?: TestUser; visibility?: "private" | "internal" | "public"; title?: string } = {},
): Promise<{ id: number }> {
  const level = { private: 0, internal: 10, public: 20 }[opts.visibility ?? "private"];
  return w.db(async (db) => {
    const [row] = await db
      .insert(snippets)
      .values({ projectId: project.id, authorId: opts.author?.id ?? 1, title: opts.title ?? unique("snippet"), fileName: "a.rb", content: "puts 1", visibilityLevel: level })
      .returning();
    return { id: row.id };
  });
}

export async function epic(w: World, group: TestGroup, opts: { author?: TestUser; confidential?: boolean; title?: string } = {}): Promise<TestIssue> {
  return w.db((db) =>
    db.transaction(async (tx) => {
      const iid = await nextIid(tx, "epics", { namespaceId: group.id });
      const [row] = await tx
        .insert(epics)
        .values({ iid, groupId: group.id, title: opts.title ?? unique("epic"), authorId: opts.author?.id ?? 1, confidential: !!opts.confidential })
        .returning();
      return { id: row.id, iid: row.iid, projectId: 0 };
    }),
  );
}

export type NoteOpts = {
  author: TestUser | { id: number };
  body?: string;
  system?: boolean;
  confidential?: boolean;
  type?: "DiscussionNote" | null;
  discussionId?: string;
  createdAt?: Date;
  updatedAt?: Date;
};

/** A note made in the database, on a noteable of `type`. */
export async function note(w: World, type: "Issue" | "MergeRequest" | "Snippet" | "Epic", noteableId: number, projectId: number | null, opts: NoteOpts) {
  return w.db(async (db) => {
    const [row] = await db
      .insert(notes)
      .values({
        noteableType: type,
        noteableId,
        projectId,
        authorId: opts.author.id,
        note: opts.body ?? unique("note"),
        system: !!opts.system,
        confidential: !!opts.confidential,
        type: opts.type ?? null,
        discussionId: opts.discussionId ?? [...crypto.getRandomValues(new Uint8Array(20))].map((b) => b.toString(16).padStart(2, "0")).join(""),
        ...(opts.createdAt ? { createdAt: opts.createdAt, updatedAt: opts.updatedAt ?? opts.createdAt } : {}),
      })
      .returning();
    return row;
  });
}

export async function issueRow(w: World, id: number) {
  return w.db(async (db) => (await db.select().from(issues).where(eq(issues.id, id)))[0]);
}

export async function mergeRequestRow(w: World, id: number) {
  return w.db(async (db) => (await db.select().from(mergeRequests).where(eq(mergeRequests.id, id)))[0]);
}

export async function noteRows(w: World, type: string, noteableId: number) {
  return w.db((db) => db.select().from(notes).where(and(eq(notes.noteableType, type), eq(notes.noteableId, noteableId))).orderBy(notes.id));
}

export async function todosOf(w: World, userId: number, targetType: string, targetId: number) {
  return w.db((db) =>
    db.select().from(todos).where(and(eq(todos.userId, userId), eq(todos.targetType, targetType), eq(todos.targetId, targetId))).orderBy(todos.id),
  );
}

export async function awardsOf(w: World, type: string, id: number) {
  return w.db((db) => db.select().from(awardEmoji).where(and(eq(awardEmoji.awardableType, type), eq(awardEmoji.awardableId, id))).orderBy(awardEmoji.id));
}

/** The page's items and the statement count, for flatness checks (≤ 6, same for 1 and 100 per page). */
export async function expectFlat(w: World, user: TestUser, path: string) {
  const one = await w.as(user).get(path, { query: { per_page: 1 } });
  const hundred = await w.as(user).get(path, { query: { per_page: 100 } });
  expect(one.status).toBe(200);
  expect(hundred.status).toBe(200);
  const a = Number(one.headers.get("x-query-count"));
  const b = Number(hundred.headers.get("x-query-count"));
  expect(a).toBe(b);
  expect(a).toBeLessThanOrEqual(6);
}

export const HEX40 = /^[0-9a-f]{40}$/;
