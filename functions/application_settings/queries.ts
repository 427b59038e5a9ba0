import { eq, sql } from "drizzle-orm";
import { applicationSettings, type ApplicationSettings } from "../../db/schema";
import type { Executor } from "../kernel/db";

/** The only Drizzle code of application settings: the single row (id 1). */
export async function findSettingsRow(db: Executor): Promise<ApplicationSettings | null> {
  const rows = await db.select().from(applicationSettings).where(eq(applicationSettings.id, 1)).limit(1);
  return rows[0] ?? null;
}

export type SettingsChange = Partial<Pick<ApplicationSettings,
  "adminMode" | "defaultProjectsLimit" | "defaultProjectVisibility" | "defaultGroupVisibility" | "issuesCreateLimit" | "notesCreateLimit">> & {
  settings: Record<string, unknown>;
};

/** Writes the columns and merges the jsonb settings in one statement (the row is created if missing). */
export async function saveSettings(db: Executor, change: SettingsChange): Promise<ApplicationSettings> {
  const { settings, ...columns } = change;
  const json = JSON.stringify(settings);
  const rows = await db
    .insert(applicationSettings)
    .values({ id: 1, ...columns, settings })
    .onConflictDoUpdate({
      target: applicationSettings.id,
      set: { ...columns, settings: sql`${applicationSettings.settings} || ${json}::jsonb`, updatedAt: sql`now()` },
    })
    .returning();
  return rows[0];
}
