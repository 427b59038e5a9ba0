import { and, eq, sql } from "drizzle-orm";
import { issues, notes, todos } from "../../db/schema";
import { unique, type TestProject, type TestUser, type World } from "../helpers/world";

export type Json = Record<string, any>;

/** A search token (letters and digits only) that no other test's issues contain. */
export const token = () => unique("t").replace(/[^a-z0-9]/gi, "");

export const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));

/** Creates an issue through the API and returns its JSON (fails the test on any other status). */
export async function createIssue(w: World, user: TestUser, project: TestProject, json: Json = {}): Promise<Json> {
  const res = await w.as(user).post(`/projects/${project.id}/issues`, { json: { title: unique("issue"), ...json } });
  const body = (await res.json()) as Json;
  if (res.status !== 201) throw new Error(`create issue: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

export async function createLabel(w: World, user: TestUser, project: TestProject, json: Json = {}): Promise<Json> {
  const res = await w.as(user).post(`/projects/${project.id}/labels`, { json: { name: unique("label"), color: "#FF0000", ...json } });
  const body = (await res.json()) as Json;
  if (res.status !== 201) throw new Error(`create label: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

export async function createMilestone(w: World, user: TestUser, project: TestProject, json: Json = {}): Promise<Json> {
  const res = await w.as(user).post(`/projects/${project.id}/milestones`, { json: { title: unique("milestone"), ...json } });
  const body = (await res.json()) as Json;
  if (res.status !== 201) throw new Error(`create milestone: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** A project with an owner and members of each role, and a stranger-free world. */
export async function team(w: World, visibility: "private" | "internal" | "public" = "private") {
  const [owner, reporter, guest] = [await w.user(), await w.user(), await w.user()];
  const project = await w.project({ visibility, owner, reporters: [reporter], guests: [guest] });
  return { owner, reporter, guest, project };
}

export async function systemNotes(w: World, issueId: number): Promise<string[]> {
  return w.db(async (db) =>
    (
      await db
        .select({ note: notes.note })
        .from(notes)
        .where(and(eq(notes.noteableType, "Issue"), eq(notes.noteableId, issueId), eq(notes.system, true)))
        .orderBy(notes.id)
    ).map((n) => n.note),
  );
}

export async function todosOf(w: World, issueId: number) {
  return w.db((db) =>
    db
      .select({ userId: todos.userId, action: todos.action, state: todos.state, authorId: todos.authorId })
      .from(todos)
      .where(and(eq(todos.targetType, "Issue"), eq(todos.targetId, issueId)))
      .orderBy(todos.id),
  );
}

export async function issueRow(w: World, id: number) {
  return w.db(async (db) => (await db.select().from(issues).where(eq(issues.id, id)))[0]);
}

export async function setIssue(w: World, id: number, values: Partial<typeof issues.$inferInsert>) {
  await w.db((db) => db.update(issues).set(values).where(eq(issues.id, id)));
}

export async function execute(w: World, query: ReturnType<typeof sql>) {
  return w.db((db) => db.execute(query));
}
