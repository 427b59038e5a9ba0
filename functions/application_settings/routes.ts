import * as z from "zod";
import { requireAdmin, requireUser } from "../kernel/auth";
import { paramsError, validation } from "../kernel/errors";
import { p, rawParams, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { rememberThrottleSettings } from "../shared/settings/throttle";
import { router } from "../kernel/router";
import { IMPORT_SOURCES, RAW_LISTS, SETTINGS, SETTING_NAMES, rawToList, settingsFromRow, type SettingDef, type SettingName } from "../entities/settings_catalog";
import { loadGroup } from "../kernel/lookup";
import { applicationSetting, ApplicationSetting } from "../entities/application_settings";
import * as q from "./queries";
import { parseDuration, validateSettings, visibilityLevels } from "./rules";

/** lib/api/settings.rb: administrators only. */
export const applicationSettingsRoutes = router();

/** A number (Grape `Float`); anything else `is invalid`. */
const float = () =>
  z.any().transform((v, ctx): number => {
    const n = typeof v === "number" ? v : typeof v === "string" && /^\s*[-+]?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
    if (!Number.isFinite(n)) {
      ctx.addIssue({ code: "custom", message: "is invalid" });
      return z.NEVER;
    }
    return n;
  });

function paramOf(name: SettingName, def: SettingDef): z.ZodType {
  switch (def.type) {
    case "boolean":
      return p.bool();
    case "integer":
      return def.values ? p.intOneOf(...(def.values as number[])) : p.int();
    case "float":
      return float();
    case "visibility":
      return p.oneOf("private", "internal", "public");
    case "visibilities":
    case "strings": {
      const allowed = name === "import_sources" ? (IMPORT_SOURCES as readonly string[]) : (def.values as readonly string[] | undefined);
      if (allowed)
        return p.strings({ comma: true }).refine((list) => list.every((s) => allowed.includes(s)), {
          message: "does not have a valid value",
        });
      return p.strings({ comma: true });
    }
    case "hash":
      return p.hash();
    case "integers":
      return p.ints({ comma: true });
    case "datetime":
      return p.datetime().transform((d) => d.toISOString());
    default:
      return def.values ? p.oneOf(...(def.values as string[])) : p.string();
  }
}

/** Every setting (and deprecated alias) is an optional parameter; a string setting may be cleared with null. */
const shape: Record<string, z.ZodType> = {};
for (const name of SETTING_NAMES) {
  const def: SettingDef = SETTINGS[name];
  const schema = paramOf(name, def);
  shape[name] = (def.type === "string" ? schema.nullable() : schema).optional();
  if (def.alias) shape[def.alias] = (def.type === "string" ? schema.nullable() : schema).optional();
}
for (const raw of Object.keys(RAW_LISTS)) shape[raw] = p.string().nullable().optional();
const UpdateSettings = z.object(shape);
const SETTABLE = Object.keys(shape);

/** Grape's `given x: ->(v) { v } do requires …`: dependents that must come with an enabling switch. */
const DEPENDENTS: [string, string[]][] = [
  ["spam_enabled", ["spam_api_key"]],
  ["asset_proxy_enabled", ["asset_proxy_url", "asset_proxy_secret_key"]],
  ["domain_denylist_enabled", ["domain_denylist"]],
  ["akismet_enabled", ["akismet_api_key"]],
  ["gitpod_enabled", ["gitpod_url"]],
  ["housekeeping_enabled", ["housekeeping_bitmaps_enabled", "housekeeping_full_repack_period", "housekeeping_gc_period", "housekeeping_incremental_repack_period"]],
  ["recaptcha_enabled", ["recaptcha_site_key", "recaptcha_private_key"]],
  ["login_recaptcha_protection_enabled", ["recaptcha_site_key", "recaptcha_private_key"]],
  ["require_two_factor_authentication", ["two_factor_grace_period"]],
  ["sourcegraph_enabled", ["sourcegraph_url"]],
  ["spam_check_endpoint_enabled", ["spam_check_endpoint_url"]],
  ["mailgun_events_enabled", ["mailgun_signing_key"]],
  ["snowplow_enabled", ["snowplow_collector_hostname"]],
  // ee/lib/ee/api/helpers/settings_helpers.rb
  ["elasticsearch_indexing", ["elasticsearch_url"]],
  ["secret_detection_token_revocation_enabled", ["secret_detection_token_revocation_url", "secret_detection_revocation_token_types_url"]],
];

/** GET /application/settings */
applicationSettingsRoutes.get("/application/settings", { response: ApplicationSetting }, async (c) => {
  requireAdmin(c);
  const row = await q.findSettingsRow(c.var.db());
  return present(c, row, applicationSetting);
});

/** PUT /application/settings: any subset of the settings; 400 with Grape's or the model's messages. */
applicationSettingsRoutes.put("/application/settings", { params: UpdateSettings, response: ApplicationSetting }, async (c) => {
  requireUser(c);
  const params = (await readParams(c, UpdateSettings, [{ atLeastOneOf: SETTABLE }])) as Record<string, unknown>;
  const raw = await rawParams(c);
  const missing: string[] = [];
  for (const [flag, needs] of DEPENDENTS)
    if (params[flag] === true) for (const need of needs) if (raw[need] === undefined || raw[need] === null) missing.push(`${need} is missing`);
  if (missing.length) throw paramsError(missing.join(", "));
  requireAdmin(c);

  // Deprecated names write the current setting.
  for (const name of SETTING_NAMES) {
    const alias = (SETTINGS[name] as SettingDef).alias;
    if (alias && params[alias] !== undefined) params[name] = params[alias];
  }
  // The `*_raw` texts write their lists.
  for (const [raw, list] of Object.entries(RAW_LISTS)) if (params[raw] !== undefined) params[list] = rawToList(params[raw] as string | null);
  // `performance_bar_allowed_group_path=` and `performance_bar_enabled=` write `performance_bar_allowed_group_id`:
  // the group at that path (none when there is no such group or the path is blank); disabling clears it.
  if (params.performance_bar_allowed_group_path !== undefined) {
    const path = ((params.performance_bar_allowed_group_path as string | null) ?? "").trim();
    params.performance_bar_allowed_group_id = path === "" ? null : ((await loadGroup(c, path))?.id ?? null);
  }
  if (params.performance_bar_enabled === false) params.performance_bar_allowed_group_id = null;
  delete params.performance_bar_allowed_group_path;
  delete params.performance_bar_enabled;
  const errors: Record<string, string[]> = {};
  if (params.restricted_visibility_levels !== undefined) {
    const levels = visibilityLevels(params.restricted_visibility_levels as string[]);
    if ("error" in levels) errors.restricted_visibility_levels = [levels.error];
    else params.restricted_visibility_levels = levels.levels;
  }
  if (params.archive_builds_in_human_readable !== undefined) {
    const text = params.archive_builds_in_human_readable as string | null;
    const seconds = text ? parseDuration(text) : null;
    if (seconds !== null && seconds < 86400) errors.archive_builds_in_seconds = ["must be at least 1 day"];
    params.archive_builds_in_human_readable = seconds;
  }

  const db = c.var.db();
  const row = await q.findSettingsRow(db);
  const change: q.SettingsChange = { settings: {} };
  for (const name of SETTING_NAMES) {
    if (params[name] === undefined) continue;
    const def: SettingDef = SETTINGS[name];
    if (def.column) (change as Record<string, unknown>)[def.column] = params[name];
    else change.settings[name] = params[name];
  }
  const after = { ...settingsFromRow(row), ...Object.fromEntries(SETTING_NAMES.filter((n) => params[n] !== undefined).map((n) => [n, params[n]])) };
  Object.assign(errors, validateSettings(after));
  if (Object.keys(errors).length) throw validation(errors);
  const saved = await q.saveSettings(db, change);
  // The throttles of this isolate act on the new values at once (others within their cache's minute).
  rememberThrottleSettings(settingsFromRow(saved));
  return present(c, saved, applicationSetting);
});
