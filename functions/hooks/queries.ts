import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { webHooks, type WebHook } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { cappedCount, type Page } from "../kernel/pagination";

/** Whose hooks: a project's, a group's, or the instance's (system hooks). */
export type HookScope = { kind: "project"; projectId: number } | { kind: "group"; groupId: number } | { kind: "system" };

export type HookValues = Partial<Omit<typeof webHooks.$inferInsert, "id" | "type" | "projectId" | "groupId" | "createdAt">>;

function ofScope(scope: HookScope): SQL {
  if (scope.kind === "project") return and(eq(webHooks.type, "ProjectHook"), eq(webHooks.projectId, scope.projectId))!;
  if (scope.kind === "group") return and(eq(webHooks.type, "GroupHook"), eq(webHooks.groupId, scope.groupId))!;
  return eq(webHooks.type, "SystemHook");
}

/** `scope.hooks`, by id (GitLab's default order). */
export async function listHooks(db: Executor, scope: HookScope, page: Page): Promise<{ rows: WebHook[]; total: number }> {
  const where = ofScope(scope);
  const rows = await db.select().from(webHooks).where(where).orderBy(asc(webHooks.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(webHooks).where(where), page);
  return { rows, total };
}

/** `scope.hooks.find(id)` */
export async function findHook(db: Executor, scope: HookScope, id: number): Promise<WebHook | null> {
  const rows = await db.select().from(webHooks).where(and(ofScope(scope), eq(webHooks.id, id))).limit(1);
  return rows[0] ?? null;
}

const TYPE = { project: "ProjectHook", group: "GroupHook", system: "SystemHook" } as const;

export async function insertHook(db: Executor, scope: HookScope, values: HookValues & { url: string }): Promise<WebHook> {
  const [row] = await db
    .insert(webHooks)
    .values({
      ...values,
      type: TYPE[scope.kind],
      projectId: scope.kind === "project" ? scope.projectId : null,
      groupId: scope.kind === "group" ? scope.groupId : null,
    })
    .returning();
  return row;
}

export async function updateHook(db: Executor, id: number, values: HookValues): Promise<WebHook> {
  const [row] = await db.update(webHooks).set({ ...values, updatedAt: new Date() }).where(eq(webHooks.id, id)).returning();
  return row;
}

export async function deleteHook(db: Executor, id: number): Promise<void> {
  await db.delete(webHooks).where(eq(webHooks.id, id));
}

/** The row type routes name (routes never import db/schema). */
export type { WebHook } from "../../db/schema";
