import { eq } from "drizzle-orm";
import { applicationSettings } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import { settingsFromRow, type Settings } from "../../entities/settings_catalog";

/** `Gitlab::CurrentSettings`: the settings row merged over the defaults, in one statement. */
export async function loadSettings(db: Executor): Promise<Settings> {
  const rows = await db.select().from(applicationSettings).where(eq(applicationSettings.id, 1)).limit(1);
  return settingsFromRow(rows[0]);
}
