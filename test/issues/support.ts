import { and, eq, sql } from "drizzle-orm";
import { issues, notes, todos } from "../../db/schema";
import type { World } from "../helpers/world";

// Reads of the rows the issues endpoints write. Fixtures shared with other domains live in test/helpers/.

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
