import * as z from "zod";
import type { ApplicationSettings } from "../../db/schema";
import { isoTime, type PresentContext } from "../kernel/present";
import { RAW_LISTS, SETTINGS, SETTING_NAMES, settingsFromRow, type SettingDef, type SettingType } from "./settings_catalog";

/** `archive_builds_in_human_readable`: ChronicDuration.output(seconds, format: :long): "15 days", "1 month", "2 years 3 days". */
function formatDuration(seconds: number): string {
  const out: string[] = [];
  let left = seconds;
  for (const [name, size] of [["year", 31557600], ["month", 2592000], ["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]] as const) {
    const n = Math.floor(left / size);
    if (n > 0) out.push(`${n} ${name}${n === 1 ? "" : "s"}`);
    left -= n * size;
  }
  return out.join(" ");
}

const VISIBILITY_NAMES: Record<number, string> = { 0: "private", 10: "internal", 20: "public" };

/** The JSON type of a setting as the entity answers it (a visibility by name). */
const SETTING_SCHEMAS: Record<SettingType, () => z.ZodType> = {
  boolean: () => z.boolean(),
  integer: () => z.int(),
  float: () => z.number(),
  string: () => z.string(),
  strings: () => z.array(z.string()),
  integers: () => z.array(z.int()),
  visibility: () => z.string(),
  visibilities: () => z.array(z.string()),
  hash: () => z.record(z.string(), z.unknown()),
  datetime: () => z.string(),
};

/** API::Entities::ApplicationSetting's schema, made from the same catalog as the entity (a setting may be unset: null). */
export const ApplicationSetting = z
  .object({
    id: z.int(),
    ...Object.fromEntries(
      SETTING_NAMES.filter((name) => !(SETTINGS[name] as SettingDef).secret && !(SETTINGS[name] as SettingDef).hidden).flatMap((name) => {
        const def: SettingDef = SETTINGS[name];
        // ChronicDuration's long form of the stored seconds.
        const schema = (name === "archive_builds_in_human_readable" ? z.string() : SETTING_SCHEMAS[def.type]()).nullable();
        return def.alias ? [[name, schema], [def.alias, schema]] : [[name, schema]];
      }),
    ),
    ...Object.fromEntries(Object.keys(RAW_LISTS).map((raw) => [raw, z.string()])),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: "ApplicationSetting" });

/**
 * API::Entities::ApplicationSetting: every setting that is not a secret, with GitLab's deprecated
 * aliases beside the current names, and `restricted_visibility_levels` as names.
 */
export function applicationSetting(row: ApplicationSettings | null, ctx: PresentContext): z.output<typeof ApplicationSetting> {
  const s = settingsFromRow(row) as Record<string, unknown>;
  const out: Record<string, unknown> = { id: 1 };
  for (const name of SETTING_NAMES) {
    const def: SettingDef = SETTINGS[name];
    if (def.secret || def.hidden) continue;
    let value = s[name];
    if (name === "restricted_visibility_levels") value = (value as number[]).map((l) => VISIBILITY_NAMES[l]);
    // Stored as seconds (`archive_builds_in_seconds`), answered as ChronicDuration's long form.
    if (name === "archive_builds_in_human_readable") value = typeof value === "number" ? formatDuration(value) : null;
    if (name === "commit_email_hostname") value = value ?? `users.noreply.${new URL(ctx.baseUrl).hostname}`;
    out[name] = value;
    if (def.alias) out[def.alias] = value;
  }
  // `*_raw`: the list as one text, a line per entry (`array_to_string`).
  for (const [raw, list] of Object.entries(RAW_LISTS)) out[raw] = ((s[list] as string[] | null) ?? []).join("\n");
  out.created_at = isoTime(row?.createdAt ?? null);
  out.updated_at = isoTime(row?.updatedAt ?? null);
  // Built from the catalog, as the schema above is.
  return out as z.output<typeof ApplicationSetting>;
}
