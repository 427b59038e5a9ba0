import { and, asc, count, eq, ne, sql, type SQL } from "drizzle-orm";
import { ciGroupVariables, ciInstanceVariables, ciVariables } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Page } from "../kernel/pagination";
import type { VariableRow } from "../entities/ci_variables";

export type { VariableRow };

/** Whose variables: a project's (`ci_variables`), a group's, or the instance's. */
export type Owner = { kind: "project"; id: number } | { kind: "group"; id: number } | { kind: "instance" };

export type VariableValues = Omit<VariableRow, "id">;

function target(owner: Owner) {
  if (owner.kind === "project") return { table: ciVariables, own: eq(ciVariables.projectId, owner.id), cols: columnsOf(ciVariables, ciVariables.environmentScope) };
  if (owner.kind === "group") return { table: ciGroupVariables, own: eq(ciGroupVariables.groupId, owner.id), cols: columnsOf(ciGroupVariables, ciGroupVariables.environmentScope) };
  return { table: ciInstanceVariables, own: sql`true`, cols: columnsOf(ciInstanceVariables, sql<string>`'*'`) };
}

type Table = typeof ciVariables | typeof ciGroupVariables | typeof ciInstanceVariables;

function columnsOf(t: Table, scope: SQL<string> | typeof ciVariables.environmentScope | typeof ciGroupVariables.environmentScope) {
  return {
    id: t.id,
    key: t.key,
    value: t.value,
    variableType: t.variableType,
    protected: t.protected,
    masked: t.masked,
    raw: t.raw,
    environmentScope: scope as SQL<string>,
    description: t.description,
  };
}

/** `owner.variables`, paginated in id order. */
export async function listVariables(db: Executor, owner: Owner, page: Page) {
  const { table, own, cols } = target(owner);
  const [rows, [{ total }]] = await Promise.all([
    db.select(cols).from(table).where(own).orderBy(asc(table.id)).limit(page.limit).offset(page.offset),
    db.select({ total: count() }).from(table).where(own),
  ]);
  return { rows: rows as VariableRow[], total };
}

/** Ci::VariablesFinder: by key, and by `filter[environment_scope]` when given (at most two rows: enough to detect "many"). */
export async function findVariables(db: Executor, owner: Owner, key: string, environmentScope?: string) {
  const { table, own, cols } = target(owner);
  const conditions = [own, eq(table.key, key)];
  if (environmentScope !== undefined && owner.kind !== "instance") conditions.push(sql`${(table as typeof ciVariables).environmentScope} = ${environmentScope}`);
  return (await db.select(cols).from(table).where(and(...conditions)).orderBy(asc(table.id)).limit(2)) as VariableRow[];
}

/** The uniqueness validation: another variable of the owner with this key (and scope). */
export async function keyTaken(db: Executor, owner: Owner, key: string, environmentScope: string, exceptId?: number) {
  const { table, own } = target(owner);
  const conditions = [own, eq(table.key, key)];
  if (owner.kind !== "instance") conditions.push(sql`${(table as typeof ciVariables).environmentScope} = ${environmentScope}`);
  if (exceptId !== undefined) conditions.push(ne(table.id, exceptId));
  const rows = await db.select({ id: table.id }).from(table).where(and(...conditions)).limit(1);
  return rows.length > 0;
}

export async function insertVariable(db: Executor, owner: Owner, v: VariableValues): Promise<VariableRow> {
  const common = { key: v.key, value: v.value, variableType: v.variableType, protected: v.protected, masked: v.masked, raw: v.raw, description: v.description };
  if (owner.kind === "project") {
    const [row] = await db.insert(ciVariables).values({ ...common, projectId: owner.id, environmentScope: v.environmentScope }).returning(target(owner).cols);
    return row as VariableRow;
  }
  if (owner.kind === "group") {
    const [row] = await db.insert(ciGroupVariables).values({ ...common, groupId: owner.id, environmentScope: v.environmentScope }).returning(target(owner).cols);
    return row as VariableRow;
  }
  const [row] = await db.insert(ciInstanceVariables).values(common).returning(target(owner).cols);
  return row as VariableRow;
}

export async function updateVariable(db: Executor, owner: Owner, id: number, v: VariableValues): Promise<VariableRow> {
  const { table, own, cols } = target(owner);
  const set: Record<string, unknown> = { key: v.key, value: v.value, variableType: v.variableType, protected: v.protected, masked: v.masked, raw: v.raw, description: v.description };
  if (owner.kind !== "instance") set.environmentScope = v.environmentScope;
  if (owner.kind !== "project") set.updatedAt = new Date();
  const rows = await db
    .update(table as typeof ciVariables)
    .set(set)
    .where(and(own, eq(table.id, id)))
    .returning(cols as unknown as Record<string, typeof ciVariables.id>);
  return rows[0] as unknown as VariableRow;
}

export async function deleteVariable(db: Executor, owner: Owner, id: number) {
  const { table, own } = target(owner);
  await db.delete(table).where(and(own, eq(table.id, id)));
}

/** The unique index that a racing create or update loses on (answered as the uniqueness error). */
export const UNIQUE_INDEX: Record<Owner["kind"], string> = {
  project: "index_ci_variables_on_project_id_key_scope",
  group: "index_ci_group_variables_on_group_id_key_scope",
  instance: "index_ci_instance_variables_on_key",
};
