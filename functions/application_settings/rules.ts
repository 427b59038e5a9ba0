import type { Settings } from "../entities/settings_catalog";
import { exclusiveSentence, KEY_SIZES, type KeyKind } from "../shared/settings/keys";

export type ModelErrors = Record<string, string[]>;

const MAX_INT = 2147483647;
const VISIBILITY_BY_NAME: Record<string, number> = { private: 0, internal: 10, public: 20 };

/** `restricted_visibility_levels` as sent (names or numbers) → levels, or the model's message for a bad one. */
export function visibilityLevels(values: string[]): { levels: number[] } | { error: string } {
  const levels: number[] = [];
  for (const value of values) {
    const v = value.trim().toLowerCase();
    const level = v in VISIBILITY_BY_NAME ? VISIBILITY_BY_NAME[v] : /^\d+$/.test(v) && [0, 10, 20].includes(Number(v)) ? Number(v) : null;
    if (level === null) return { error: `'${value}' is not a valid visibility level` };
    if (!levels.includes(level)) levels.push(level);
  }
  return { levels };
}

const UNITS: Record<string, number> = {
  s: 1, sec: 1, secs: 1, second: 1, seconds: 1,
  m: 60, min: 60, mins: 60, minute: 60, minutes: 60,
  h: 3600, hr: 3600, hrs: 3600, hour: 3600, hours: 3600,
  d: 86400, day: 86400, days: 86400,
  w: 604800, wk: 604800, week: 604800, weeks: 604800,
  mo: 2592000, mon: 2592000, month: 2592000, months: 2592000,
  y: 31557600, yr: 31557600, year: 31557600, years: 31557600,
};

/** ChronicDuration.parse for what the setting takes ("15 days", "1 month", "2 years", "1d 12h"); null if unreadable. */
export function parseDuration(text: string): number | null {
  const parts = [...text.toLowerCase().matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/g)];
  const rest = text.toLowerCase().replace(/(\d+(?:\.\d+)?)\s*([a-z]+)/g, "").replace(/[\s,and]+/g, "");
  if (parts.length === 0 || rest !== "") return null;
  let seconds = 0;
  for (const [, n, unit] of parts) {
    if (!(unit in UNITS)) return null;
    seconds += Number(n) * UNITS[unit];
  }
  return Math.round(seconds);
}

function range(errors: ModelErrors, name: string, value: unknown, min: number | null, max: number | null, strictMin = false) {
  if (typeof value !== "number") return;
  if (min !== null && (strictMin ? value <= min : value < min))
    (errors[name] ??= []).push(strictMin ? `must be greater than ${min}` : `must be greater than or equal to ${min}`);
  else if (max !== null && value > max) (errors[name] ??= []).push(`must be less than or equal to ${max}`);
}

const blank = (v: unknown) => v === null || v === undefined || (typeof v === "string" && v.trim() === "") || (Array.isArray(v) && v.length === 0);
const EMAIL = /^[^@\s]+@[^@\s]+$/;
const isUrl = (v: string) => {
  try {
    const u = new URL(v);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
};

/** The validations of app/models/application_setting.rb over the settings after the change. */
export function validateSettings(s: Settings & Record<string, unknown>): ModelErrors {
  const errors: ModelErrors = {};
  const add = (attr: string, msg: string) => (errors[attr] ??= []).push(msg);
  if (s.spam_enabled && blank(s.spam_api_key)) add("spam_api_key", "can't be blank");
  if (s.asset_proxy_enabled && blank(s.asset_proxy_url)) add("asset_proxy_url", "can't be blank");
  if (s.domain_denylist_enabled && blank(s.domain_denylist)) add("domain_denylist", "Domain denylist cannot be empty if denylist is enabled.");
  if (s.gitpod_enabled && blank(s.gitpod_url)) add("gitpod_url", "can't be blank");
  if (s.sourcegraph_enabled && blank(s.sourcegraph_url)) add("sourcegraph_url", "can't be blank");
  if (s.snowplow_enabled && blank(s.snowplow_collector_hostname)) add("snowplow_collector_hostname", "can't be blank");
  if (s.spam_check_endpoint_enabled && blank(s.spam_check_endpoint_url)) add("spam_check_endpoint_url", "can't be blank");
  if ((s.recaptcha_enabled || s.login_recaptcha_protection_enabled) && blank(s.recaptcha_site_key)) add("recaptcha_site_key", "can't be blank");
  if ((s.recaptcha_enabled || s.login_recaptcha_protection_enabled) && blank(s.recaptcha_private_key)) add("recaptcha_private_key", "can't be blank");
  if (s.mailgun_events_enabled && blank(s.mailgun_signing_key)) add("mailgun_signing_key", "can't be blank");
  for (const name of ["static_objects_external_storage_url", "custom_http_clone_url_root", "home_page_url", "after_sign_out_path", "asset_proxy_url", "diagram_a_url", "diagram_b_url", "external_authorization_service_url",
    "gitpod_url", "sourcegraph_url", "help_page_support_url", "help_page_documentation_base_url"]) {
    const v = s[name];
    if (typeof v === "string" && v !== "" && !isUrl(v)) add(name, "must be a valid URL");
  }
  if (typeof s.abuse_notification_email === "string" && s.abuse_notification_email !== "" && !EMAIL.test(s.abuse_notification_email))
    add("abuse_notification_email", "is invalid");
  range(errors, "default_projects_limit", s.default_projects_limit, 0, MAX_INT);
  range(errors, "minimum_password_length", s.minimum_password_length, 8, 128);
  range(errors, "max_attachment_size", s.max_attachment_size, 0, null, true);
  range(errors, "max_import_size", s.max_import_size, 0, null);
  range(errors, "max_artifacts_size", s.max_artifacts_size, 0, null, true);
  range(errors, "session_expire_delay", s.session_expire_delay, 0, null);
  range(errors, "container_registry_token_expire_delay", s.container_registry_token_expire_delay, 1, null);
  for (const name of ["issues_create_limit", "notes_create_limit", "raw_blob_request_limit", "terminal_max_session_time", "local_markdown_version"])
    range(errors, name, s[name], 0, MAX_INT);
  range(errors, "deletion_adjourned_period", s.deletion_adjourned_period, 0, 90);
  range(errors, "diff_max_patch_bytes", s.diff_max_patch_bytes, 204800, 512000);
  range(errors, "snippet_size_limit", s.snippet_size_limit, 0, null, true);
  range(errors, "wiki_page_max_content_bytes", s.wiki_page_max_content_bytes, 1024, null);
  range(errors, "polling_interval_multiplier", s.polling_interval_multiplier, 0, null);
  range(errors, "geo_status_timeout", s.geo_status_timeout, 0, null, true);
  range(errors, "external_authorization_service_timeout", s.external_authorization_service_timeout, 0, 10, true);
  for (const name of ["gitaly_timeout_default", "gitaly_timeout_fast", "gitaly_timeout_medium", "push_event_hooks_limit", "push_event_activities_limit",
    "two_factor_grace_period", "max_export_size", "users_get_by_id_limit", "pipeline_limit_per_project_user_sha", "inactive_projects_min_size_mb"])
    range(errors, name, s[name], 0, null);
  // Housekeeping runs an incremental repack, then a full one, then gc: each period at least the one before.
  range(errors, "housekeeping_incremental_repack_period", s.housekeeping_incremental_repack_period, 0, null, true);
  if (typeof s.housekeeping_incremental_repack_period === "number")
    range(errors, "housekeeping_full_repack_period", s.housekeeping_full_repack_period, s.housekeeping_incremental_repack_period, null);
  if (typeof s.housekeeping_full_repack_period === "number")
    range(errors, "housekeeping_gc_period", s.housekeeping_gc_period, s.housekeeping_full_repack_period, null);
  range(errors, "max_pages_size", s.max_pages_size, 0, null);
  // Gitlab::Pages::MAX_SIZE (1 TiB) in MB, exclusive.
  if (typeof s.max_pages_size === "number" && s.max_pages_size >= 1048576) add("max_pages_size", "must be less than 1048576");
  range(errors, "inactive_projects_delete_after_months", s.inactive_projects_delete_after_months, 0, null, true);
  range(errors, "inactive_projects_send_warning_email_after_months", s.inactive_projects_send_warning_email_after_months, 0, null, true);
  const warnAfter = s.inactive_projects_send_warning_email_after_months;
  const deleteAfter = s.inactive_projects_delete_after_months;
  if (typeof warnAfter === "number" && typeof deleteAfter === "number" && warnAfter > 0 && warnAfter >= deleteAfter)
    add("inactive_projects_send_warning_email_after_months", `must be less than ${deleteAfter}`);
  for (const kind of Object.keys(KEY_SIZES) as KeyKind[]) {
    const name = `${kind}_key_restriction`;
    const allowed = [0, -1, ...KEY_SIZES[kind]];
    if (!allowed.includes(Number(s[name])))
      add(name, `must be ${exclusiveSentence(["forbidden", "allowed", ...KEY_SIZES[kind]])}`);
  }
  // The settings of visible_attributes (GitLab 15.4 app/models/application_setting.rb, ee/app/models/ee/application_setting.rb).
  if (s.hashed_storage_enabled === false) add("hashed_storage_enabled", "Hashed storage can't be disabled anymore for new projects");
  range(errors, "max_yaml_size_bytes", s.max_yaml_size_bytes, 0, null, true);
  range(errors, "max_yaml_depth", s.max_yaml_depth, 0, null, true);
  if (s.unique_ips_limit_enabled) {
    range(errors, "unique_ips_limit_per_user", s.unique_ips_limit_per_user, 1, null);
    range(errors, "unique_ips_limit_time_window", s.unique_ips_limit_time_window, 0, null);
  }
  // Commit::DEFAULT_MAX_DIFF_{FILES,LINES}_SETTING and MAX_DIFF_{FILES,LINES}_SETTING_UPPER_BOUND.
  range(errors, "diff_max_files", s.diff_max_files, 1000, 3000);
  range(errors, "diff_max_lines", s.diff_max_lines, 50000, 100000);
  for (const name of ["project_import_limit", "project_export_limit", "project_download_export_limit", "group_import_limit", "group_export_limit",
    "group_download_export_limit", "search_rate_limit", "search_rate_limit_unauthenticated"])
    range(errors, name, s[name], 0, MAX_INT);
  for (const name of ["container_registry_delete_tags_service_timeout", "container_registry_expiration_policies_worker_capacity",
    "container_registry_cleanup_tags_service_max_list_size", "container_registry_import_max_tags_count", "container_registry_import_max_retries",
    "container_registry_import_start_max_retries", "container_registry_import_max_step_duration", "container_registry_pre_import_timeout",
    "container_registry_import_timeout", "sidekiq_job_limiter_compression_threshold_bytes", "sidekiq_job_limiter_limit_bytes",
    "elasticsearch_indexed_field_length_limit", "elasticsearch_client_request_timeout", "elasticsearch_shards", "elasticsearch_replicas",
    "repository_size_limit", "shared_runners_minutes"])
    range(errors, name, s[name], 0, null);
  range(errors, "deactivate_dormant_users_period", s.deactivate_dormant_users_period, 0, null, true);
  if (s.sentry_enabled && blank(s.sentry_dsn)) add("sentry_dsn", "can't be blank");
  if (s.sentry_enabled && blank(s.sentry_environment)) add("sentry_environment", "can't be blank");
  if (typeof s.email_restrictions === "string" && s.email_restrictions !== "") {
    try {
      new RegExp(s.email_restrictions);
    } catch (e) {
      // Differs from GitLab: the reason after the prefix is JavaScript's wording, not RE2's.
      add("email_restrictions", `not valid RE2 syntax: ${(e as Error).message}`);
    }
  }
  // app/validators/json_schemas/application_setting_kroki_formats.json: only these formats, each a boolean.
  const kroki = s.kroki_formats;
  if (kroki !== null && typeof kroki === "object" && Object.entries(kroki).some(([k, v]) => !["blockdiag", "bpmn", "excalidraw"].includes(k) || typeof v !== "boolean"))
    add("kroki_formats", "must be a valid json schema");
  for (const name of ["elasticsearch_indexed_file_size_limit_kb", "elasticsearch_max_bulk_concurrency", "elasticsearch_max_bulk_size_mb"])
    range(errors, name, s[name], 0, null, true);
  for (const name of ["max_personal_access_token_lifetime", "max_ssh_key_lifetime"]) range(errors, name, s[name], 0, 365, true);
  for (const name of ["mirror_max_capacity", "mirror_max_delay", "mirror_capacity_threshold"]) range(errors, name, s[name], 0, null, true);
  if (typeof s.mirror_capacity_threshold === "number" && typeof s.mirror_max_capacity === "number" && s.mirror_capacity_threshold > s.mirror_max_capacity)
    add("mirror_capacity_threshold", "Project's mirror capacity threshold can't be higher than it's maximum capacity");
  range(errors, "git_two_factor_session_expiry", s.git_two_factor_session_expiry, 1, 10080);
  if (typeof s.email_additional_text === "string" && s.email_additional_text.length > 10000)
    add("email_additional_text", "is too long (maximum is 10000 characters)");
  const prefix = s.personal_access_token_prefix;
  if (typeof prefix === "string" && prefix !== "") {
    if (!/^[a-zA-Z0-9_+=/@:.-]+$/.test(prefix))
      add("personal_access_token_prefix", "can contain only letters of the Base64 alphabet (RFC4648) with the addition of '@', ':' and '.'");
    else if (prefix.length > 20) add("personal_access_token_prefix", "is too long (maximum is 20 characters)");
  }
  return errors;
}
