import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { featureGates, features, type FeatureGate } from "../../../db/schema";
import type { Executor } from "../../kernel/db";

export type { FeatureGate };
export type PersistedFeature = { name: string; gates: FeatureGate[] };

/** The persisted features named (all of them without names), each with its gates, in two statements. */
export async function loadFeatures(db: Executor, names?: string[]): Promise<PersistedFeature[]> {
  const rows = await db
    .select({ key: features.key })
    .from(features)
    .where(names ? inArray(features.key, names) : undefined)
    .orderBy(asc(features.key));
  if (rows.length === 0) return [];
  const gates = await db
    .select()
    .from(featureGates)
    .where(inArray(featureGates.featureKey, rows.map((r) => r.key)))
    .orderBy(asc(featureGates.id));
  return rows.map((r) => ({ name: r.key, gates: gates.filter((g) => g.featureKey === r.key) }));
}

/** Flipper's `add`: the feature exists from now on. */
export async function persistFeature(db: Executor, name: string): Promise<void> {
  await db.insert(features).values({ key: name }).onConflictDoUpdate({ target: features.key, set: { updatedAt: sql`now()` } });
}

/** Flipper's `clear`: every gate off, the feature kept. */
export async function clearGates(db: Executor, name: string): Promise<void> {
  await db.delete(featureGates).where(eq(featureGates.featureKey, name));
}

/** A single-valued gate (`boolean`, `percentage_of_time`, `percentage_of_actors`) set to `value`. */
export async function setGate(db: Executor, name: string, key: string, value: string): Promise<void> {
  await db.delete(featureGates).where(and(eq(featureGates.featureKey, name), eq(featureGates.key, key)));
  await db.insert(featureGates).values({ featureKey: name, key, value });
}

export async function addActors(db: Executor, name: string, flipperIds: string[]): Promise<void> {
  await db
    .insert(featureGates)
    .values(flipperIds.map((value) => ({ featureKey: name, key: "actors", value })))
    .onConflictDoNothing();
}

export async function removeActors(db: Executor, name: string, flipperIds: string[]): Promise<void> {
  await db.delete(featureGates).where(and(eq(featureGates.featureKey, name), eq(featureGates.key, "actors"), inArray(featureGates.value, flipperIds)));
}

/** Flipper's `remove`: the feature and its gates (by cascade) are gone. */
export async function removeFeature(db: Executor, name: string): Promise<void> {
  await db.delete(features).where(eq(features.key, name));
}
