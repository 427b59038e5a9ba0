/**
 * Every application setting Edgeforge knows, with GitLab 15's
 * types and defaults (app/models/application_setting_implementation.rb `defaults`, lib/api/settings.rb).
 * The order is the order of GET /application/settings and of the "at least one parameter" message.
 * `column`: the setting has its own column in `application_settings` (SQL elsewhere reads it); every other
 * setting is stored in the `settings` jsonb. `secret`: write-only, never returned.
 * It lives with the presenters because it is what API::Entities::ApplicationSetting exposes (GitLab's
 * entity reads `ApplicationSetting.defaults.keys` too); loading, validation and key rules import it.
 */
export type SettingType = "boolean" | "integer" | "float" | "string" | "strings" | "integers" | "visibility" | "visibilities" | "hash" | "datetime";

export type SettingDef = {
  type: SettingType;
  default: unknown;
  column?: "adminMode" | "defaultProjectsLimit" | "defaultProjectVisibility" | "defaultGroupVisibility" | "issuesCreateLimit" | "notesCreateLimit";
  /** Grape `values:` (strings or integers). */
  values?: readonly (string | number)[];
  secret?: true;
  /** Another (deprecated) name the API also takes for this setting. */
  alias?: string;
  /**
   * Not answered by GET (API::Entities::ApplicationSetting leaves it out) though it is stored and taken:
   * `performance_bar_enabled`, and the lists GitLab 15.4 takes only as their `*_raw` text.
   */
  hidden?: true;
};

/**
 * The `*_raw` settings of ApplicationSettingImplementation: a list setting written and read as one text.
 * Writing splits it (`strings_to_array`: commas, semicolons and line breaks, blanks dropped, each once);
 * reading joins the list with line breaks (`array_to_string`).
 */
export const RAW_LISTS = {
  domain_denylist_raw: "domain_denylist",
  domain_allowlist_raw: "domain_allowlist",
  outbound_local_requests_allowlist_raw: "outbound_local_requests_whitelist",
  protected_paths_raw: "protected_paths",
  notes_create_limit_allowlist_raw: "notes_create_limit_allowlist",
  users_get_by_id_limit_allowlist_raw: "users_get_by_id_limit_allowlist",
} as const;
export type RawListName = keyof typeof RAW_LISTS;

/** `strings_to_array`: split on `,`, `;` and line breaks, stripped, blanks dropped, duplicates once. */
export function rawToList(text: string | null): string[] {
  if (!text) return [];
  return [...new Set(text.split(/\s*[,;]\s*|\s*\n\s*/).map((v) => v.trim()).filter((v) => v !== ""))];
}

export const IMPORT_SOURCES = ["github", "bitbucket", "bitbucket_server", "gitlab", "fogbugz", "git", "gitlab_project", "gitea", "manifest", "phabricator"] as const;

const bool = (d: boolean, extra: Partial<SettingDef> = {}): SettingDef => ({ type: "boolean", default: d, ...extra });
const int = (d: number | null, extra: Partial<SettingDef> = {}): SettingDef => ({ type: "integer", default: d, ...extra });
const str = (d: string | null, extra: Partial<SettingDef> = {}): SettingDef => ({ type: "string", default: d, ...extra });
const strs = (d: string[] | null, extra: Partial<SettingDef> = {}): SettingDef => ({ type: "strings", default: d, ...extra });

export const SETTINGS = {
  admin_mode: bool(false, { column: "adminMode" }),
  abuse_notification_email: str(null, { alias: "admin_notification_email" }),
  after_sign_out_path: str(null),
  after_sign_up_text: str(null),
  spam_api_key: str(null, { alias: "akismet_api_key" }),
  spam_enabled: bool(false, { alias: "akismet_enabled" }),
  allow_group_owners_to_manage_ldap: bool(true),
  allow_local_requests_from_web_hooks_and_services: bool(false, { alias: "allow_local_requests_from_hooks_and_services" }),
  allow_local_requests_from_system_hooks: bool(true),
  archive_builds_in_human_readable: str(null),
  asset_proxy_enabled: bool(false),
  asset_proxy_secret_key: str(null, { secret: true }),
  asset_proxy_url: str(null),
  asset_proxy_allowlist: strs([], { alias: "asset_proxy_whitelist" }),
  authorized_keys_enabled: bool(true),
  auto_devops_domain: str(null),
  auto_devops_enabled: bool(true),
  automatic_purchased_storage_allocation: bool(false),
  check_namespace_plan: bool(false),
  commit_email_hostname: str(null),
  container_registry_token_expire_delay: int(5),
  default_artifacts_expire_in: str("30 days"),
  default_branch_protection: int(2, { values: [0, 1, 2, 3, 4] }),
  default_ci_config_path: str(null),
  default_group_visibility: { type: "visibility", default: "private", column: "defaultGroupVisibility" },
  default_project_visibility: { type: "visibility", default: "private", column: "defaultProjectVisibility" },
  default_snippet_visibility: { type: "visibility", default: "private" },
  default_project_creation: int(2, { values: [0, 1, 2] }),
  default_projects_limit: int(100000, { column: "defaultProjectsLimit" }),
  deletion_adjourned_period: int(7),
  diff_max_patch_bytes: int(204800),
  disable_feed_token: bool(false),
  disabled_oauth_sign_in_sources: strs([]),
  dns_rebinding_protection_enabled: bool(true),
  domain_denylist_enabled: bool(false),
  domain_denylist: strs([]),
  domain_allowlist: strs(null),
  dsa_key_restriction: int(0),
  ecdsa_key_restriction: int(0),
  ecdsa_sk_key_restriction: int(0),
  ed25519_key_restriction: int(0),
  ed25519_sk_key_restriction: int(0),
  // Differs from GitLab: its default is 0 (any size); Edgeforge refuses RSA keys under 2048 bits by default.
  rsa_key_restriction: int(2048),
  cluster_integration_enabled: bool(false, { alias: "eks_integration_enabled" }),
  cluster_access_key_id: str(null, { alias: "eks_access_key_id" }),
  cluster_account_id: str(null, { alias: "eks_account_id" }),
  cluster_secret_access_key: str(null, { secret: true, alias: "eks_secret_access_key" }),
  signup_enabled: bool(true),
  require_admin_approval_after_user_signup: bool(true),
  send_user_confirmation_email: bool(false),
  password_authentication_enabled_for_web: bool(true),
  password_authentication_enabled_for_git: bool(true),
  minimum_password_length: int(8),
  user_default_external: bool(false),
  user_default_internal_regex: str(null),
  can_create_group: bool(true),
  import_sources: strs([...IMPORT_SOURCES]),
  max_attachment_size: int(10),
  max_import_size: int(0),
  // Maximum push size in MB: git's `receive.maxInputSize` (functions/git_http); null or 0, no limit.
  receive_max_input_size: int(null),
  max_artifacts_size: int(100),
  user_oauth_applications: bool(true),
  session_expire_delay: int(10080),
  home_page_url: str(null),
  restricted_visibility_levels: { type: "visibilities", default: [] },
  outbound_local_requests_whitelist: strs([]),
  avatar_service_enabled: bool(true, { alias: "gravatar_enabled" }),
  sign_in_text: str(null),
  help_page_text: str(null),
  repository_storages: strs(["default"]),
  repository_storages_weighted: { type: "hash", default: { default: 100 } },
  diagram_a_enabled: bool(false, { alias: "plantuml_enabled" }),
  diagram_a_url: str(null, { alias: "plantuml_url" }),
  diagram_b_enabled: bool(false, { alias: "kroki_enabled" }),
  diagram_b_url: str(null, { alias: "kroki_url" }),
  terminal_max_session_time: int(0),
  polling_interval_multiplier: { type: "float", default: 1 },
  first_day_of_week: int(0, { values: [0, 1, 6] }),
  enforce_terms: bool(false),
  terms: str(null),
  performance_bar_allowed_group_id: int(null),
  user_show_add_ssh_key_message: bool(true),
  local_markdown_version: int(0),
  npm_package_requests_forwarding: bool(true),
  snippet_size_limit: int(52428800),
  issues_create_limit: int(300, { column: "issuesCreateLimit" }),
  notes_create_limit: int(300, { column: "notesCreateLimit" }),
  raw_blob_request_limit: int(300),
  wiki_page_max_content_bytes: int(52428800),
  personal_access_token_prefix: str("glpat-"),
  rate_limiting_response_text: str(null),
  keep_latest_artifact: bool(true),
  container_expiration_policies_enable_historic_entries: bool(false),
  external_authorization_service_enabled: bool(false),
  external_authorization_service_url: str(null),
  external_authorization_service_default_label: str(null),
  external_authorization_service_timeout: { type: "float", default: 0.5 },
  external_pipeline_validation_service_timeout: int(null),
  external_pipeline_validation_service_token: str(null),
  external_pipeline_validation_service_url: str(null),
  shared_runners_enabled: bool(true),
  shared_runners_text: str(null),
  default_branch_name: str(null),
  file_template_project_id: int(null),
  geo_node_allowed_ips: str("0.0.0.0/0, ::/0"),
  geo_status_timeout: int(10),
  // The user and IP rate limits (Rack::Attack, lib/gitlab/rack_attack.rb; defaults of
  // ApplicationSettingImplementation). The API family acts on every /api/v4 request (kernel/rate_limit.ts).
  throttle_authenticated_api_enabled: bool(false),
  throttle_authenticated_api_period_in_seconds: int(3600),
  throttle_authenticated_api_requests_per_period: int(7200),
  throttle_unauthenticated_api_enabled: bool(false),
  throttle_unauthenticated_api_period_in_seconds: int(3600),
  throttle_unauthenticated_api_requests_per_period: int(3600),
  throttle_authenticated_packages_api_enabled: bool(false),
  throttle_authenticated_packages_api_period_in_seconds: int(15),
  throttle_authenticated_packages_api_requests_per_period: int(1000),
  throttle_unauthenticated_packages_api_enabled: bool(false),
  throttle_unauthenticated_packages_api_period_in_seconds: int(15),
  throttle_unauthenticated_packages_api_requests_per_period: int(800),
  throttle_authenticated_files_api_enabled: bool(false),
  throttle_authenticated_files_api_period_in_seconds: int(15),
  throttle_authenticated_files_api_requests_per_period: int(500),
  throttle_unauthenticated_files_api_enabled: bool(false),
  throttle_unauthenticated_files_api_period_in_seconds: int(15),
  throttle_unauthenticated_files_api_requests_per_period: int(125),
  throttle_authenticated_deprecated_api_enabled: bool(false),
  throttle_authenticated_deprecated_api_period_in_seconds: int(1800),
  throttle_authenticated_deprecated_api_requests_per_period: int(3600),
  throttle_unauthenticated_deprecated_api_enabled: bool(false),
  throttle_unauthenticated_deprecated_api_period_in_seconds: int(3600),
  throttle_unauthenticated_deprecated_api_requests_per_period: int(3600),
  // Stored and answered; Edgeforge serves no web pages or protected sign-in paths under these names, so
  // no request falls under them (deliberate difference: nothing to throttle). The Git LFS family acts on
  // signed-in LFS requests (shared/settings/throttle.ts `throttleGitLfs`).
  throttle_authenticated_web_enabled: bool(false),
  throttle_authenticated_web_period_in_seconds: int(3600),
  throttle_authenticated_web_requests_per_period: int(7200),
  throttle_unauthenticated_web_enabled: bool(false, { alias: "throttle_unauthenticated_enabled" }),
  throttle_unauthenticated_web_period_in_seconds: int(3600, { alias: "throttle_unauthenticated_period_in_seconds" }),
  throttle_unauthenticated_web_requests_per_period: int(3600, { alias: "throttle_unauthenticated_requests_per_period" }),
  throttle_authenticated_git_lfs_enabled: bool(false),
  throttle_authenticated_git_lfs_period_in_seconds: int(60),
  throttle_authenticated_git_lfs_requests_per_period: int(1000),
  throttle_protected_paths_enabled: bool(false),
  throttle_protected_paths_period_in_seconds: int(10),
  throttle_protected_paths_requests_per_period: int(60),
  protected_paths: strs([
    "/users/password",
    "/users/sign_in",
    "/api/v3/session.json",
    "/api/v3/session",
    "/api/v4/session.json",
    "/api/v4/session",
    "/users",
    "/users/confirmation",
    "/unsubscribes/",
    "/import/github/personal_access_token",
    "/admin/session",
  ]),
  throttle_incident_management_notification_enabled: bool(false),
  throttle_incident_management_notification_period_in_seconds: int(3600),
  throttle_incident_management_notification_per_period: int(3600),
  // The rest of GitLab 15.4's `PUT /application/settings` parameters (lib/api/settings.rb) with the
  // defaults of ApplicationSettingImplementation.defaults. Stored and answered; Edgeforge has no web UI,
  // mailer, Gitaly, Pages, housekeeping or tracking for most of them to act on (deliberate difference).
  email_author_in_body: bool(false),
  enabled_git_access_protocol: str(null, { values: ["ssh", "http", "nil"] }),
  gitpod_enabled: bool(false),
  gitpod_url: str("https://gitpod.io/"),
  gitaly_timeout_default: int(55),
  gitaly_timeout_fast: int(10),
  gitaly_timeout_medium: int(30),
  grafana_enabled: bool(false),
  grafana_url: str("/-/grafana"),
  help_page_hide_commercial_content: bool(false),
  help_page_support_url: str(null),
  help_page_documentation_base_url: str(null),
  housekeeping_enabled: bool(true),
  housekeeping_bitmaps_enabled: bool(true),
  housekeeping_full_repack_period: int(50),
  housekeeping_gc_period: int(200),
  housekeeping_incremental_repack_period: int(10),
  html_emails_enabled: bool(true),
  in_product_marketing_emails_enabled: bool(true),
  invisible_captcha_enabled: bool(false),
  max_export_size: int(0),
  max_pages_size: int(100),
  metrics_method_call_threshold: int(10),
  project_export_enabled: bool(true),
  prometheus_metrics_enabled: bool(true),
  push_event_hooks_limit: int(3),
  push_event_activities_limit: int(3),
  recaptcha_enabled: bool(false),
  recaptcha_site_key: str(null),
  // Write-only in Edgeforge: a credential (GitLab's entity answers it).
  recaptcha_private_key: str(null, { secret: true }),
  login_recaptcha_protection_enabled: bool(false),
  repository_checks_enabled: bool(true),
  require_two_factor_authentication: bool(false),
  two_factor_grace_period: int(48),
  sourcegraph_enabled: bool(false),
  sourcegraph_public_only: bool(true),
  sourcegraph_url: str(null),
  spam_check_endpoint_enabled: bool(false),
  spam_check_endpoint_url: str(null),
  // Write-only in Edgeforge: a credential (GitLab's entity answers it).
  spam_check_api_key: str(null, { secret: true }),
  usage_ping_enabled: bool(true),
  mailgun_events_enabled: bool(false),
  // Write-only in Edgeforge: a credential (GitLab's entity answers it).
  mailgun_signing_key: str(null, { secret: true }),
  snowplow_enabled: bool(false),
  snowplow_collector_hostname: str(null),
  snowplow_cookie_domain: str(null),
  snowplow_app_id: str(null),
  whats_new_variant: str("all_tiers", { values: ["all_tiers", "current_tier", "disabled"] }),
  floc_enabled: bool(false),
  user_deactivation_emails_enabled: bool(true),
  suggest_pipeline_enabled: bool(true),
  users_get_by_id_limit: int(300),
  runner_token_expiration_interval: int(null),
  group_runner_token_expiration_interval: int(null),
  project_runner_token_expiration_interval: int(null),
  pipeline_limit_per_project_user_sha: int(0),
  delete_inactive_projects: bool(false),
  inactive_projects_delete_after_months: int(2),
  inactive_projects_min_size_mb: int(0),
  inactive_projects_send_warning_email_after_months: int(1),
  valid_runner_registrars: strs(["project", "group"], { values: ["project", "group"] }),

  // GitLab 15.4's `optional(*Helpers::SettingsHelpers.optional_attributes)`: the settings of
  // ApplicationSettingsHelper#visible_attributes, #external_authorization_service_attributes and
  // EE::ApplicationSettingsHelper (#visible_attributes, .possible_licensed_attributes) that the explicit
  // parameters above do not name. Defaults: ApplicationSettingImplementation.defaults and
  // db/structure.sql. Those Edgeforge acts on say so; the others are stored and answered only.
  static_objects_external_storage_url: str(null),
  // Write-only in Edgeforge: a credential (GitLab's entity answers it).
  static_objects_external_storage_auth_token: str(null, { secret: true }),
  container_registry_expiration_policies_caching: bool(true),
  force_pages_access_control: bool(false),
  hashed_storage_enabled: bool(true),
  hide_third_party_offers: bool(false),
  max_yaml_size_bytes: int(1048576),
  max_yaml_depth: int(100),
  mirror_available: bool(true),
  notify_on_unknown_sign_in: bool(true),
  pages_domain_verification_enabled: bool(true),
  // Write-only (the entity leaves both out): they set `performance_bar_allowed_group_id`.
  performance_bar_allowed_group_path: str(null, { hidden: true }),
  performance_bar_enabled: bool(false, { hidden: true }),
  kroki_formats: { type: "hash", default: {} },
  time_tracking_limit_to_hours: bool(false),
  unique_ips_limit_enabled: bool(false),
  unique_ips_limit_per_user: int(10),
  unique_ips_limit_time_window: int(3600),
  usage_ping_features_enabled: bool(false),
  version_check_enabled: bool(true),
  web_ide_clientside_preview_enabled: bool(false),
  diff_max_files: int(1000),
  diff_max_lines: int(50000),
  protected_ci_variables: bool(true),
  custom_http_clone_url_root: str(null),
  email_restrictions_enabled: bool(false),
  email_restrictions: str(null),
  // Differs from GitLab: only `project_export_limit` acts (POST /projects/:id/export, per user and minute);
  // the download and import limits (1 and 6 a minute) are stored and answered, not enforced.
  project_import_limit: int(6),
  project_export_limit: int(6),
  project_download_export_limit: int(1),
  group_import_limit: int(6),
  group_export_limit: int(6),
  group_download_export_limit: int(1),
  container_registry_delete_tags_service_timeout: int(250),
  container_registry_expiration_policies_worker_capacity: int(4),
  container_registry_cleanup_tags_service_max_list_size: int(200),
  container_registry_import_max_tags_count: int(100),
  container_registry_import_max_retries: int(3),
  container_registry_import_start_max_retries: int(50),
  container_registry_import_max_step_duration: int(300),
  container_registry_pre_import_timeout: int(1800),
  container_registry_import_timeout: int(600),
  container_registry_import_target_plan: str("free"),
  container_registry_import_created_before: { type: "datetime", default: "2022-01-23T00:00:00.000Z" },
  sentry_enabled: bool(false),
  sentry_dsn: str(null),
  sentry_clientside_dsn: str(null),
  sentry_environment: str(null),
  // Differs from GitLab: a name outside the enum is Grape's 400 (`does not have a valid value`); GitLab's
  // enum setter raises ArgumentError.
  sidekiq_job_limiter_mode: str("compress", { values: ["track", "compress"] }),
  sidekiq_job_limiter_compression_threshold_bytes: int(100000),
  sidekiq_job_limiter_limit_bytes: int(0),
  search_rate_limit: int(30),
  search_rate_limit_unauthenticated: int(10),
  deactivate_dormant_users: bool(false),
  deactivate_dormant_users_period: int(90),
  // Only through `*_raw` in 15.4 (RAW_LISTS); not answered under these names.
  notes_create_limit_allowlist: strs([], { hidden: true }),
  users_get_by_id_limit_allowlist: strs([], { hidden: true }),
  external_auth_client_cert: str(null),
  // Write-only in Edgeforge: credentials (GitLab's entity answers them).
  external_auth_client_key: str(null, { secret: true }),
  external_auth_client_key_pass: str(null, { secret: true }),
  // EE::ApplicationSettingsHelper#visible_attributes.
  elasticsearch_aws: bool(false),
  elasticsearch_aws_access_key: str(null),
  elasticsearch_aws_region: str("us-east-1"),
  // Write-only in Edgeforge: a credential.
  elasticsearch_aws_secret_access_key: str(null, { secret: true }),
  elasticsearch_client_request_timeout: int(0),
  elasticsearch_indexed_field_length_limit: int(0),
  elasticsearch_indexed_file_size_limit_kb: int(1024),
  elasticsearch_indexing: bool(false),
  elasticsearch_limit_indexing: bool(false),
  elasticsearch_max_bulk_concurrency: int(10),
  elasticsearch_max_bulk_size_mb: int(10),
  elasticsearch_namespace_ids: { type: "integers", default: [] },
  elasticsearch_pause_indexing: bool(false),
  elasticsearch_project_ids: { type: "integers", default: [] },
  elasticsearch_replicas: int(1),
  elasticsearch_search: bool(false),
  elasticsearch_shards: int(5),
  elasticsearch_url: str("http://localhost:9200"),
  elasticsearch_username: str(null),
  // Write-only in Edgeforge: a credential.
  elasticsearch_password: str(null, { secret: true }),
  elasticsearch_analyzers_smartcn_enabled: bool(false),
  elasticsearch_analyzers_smartcn_search: bool(false),
  elasticsearch_analyzers_kuromoji_enabled: bool(false),
  elasticsearch_analyzers_kuromoji_search: bool(false),
  enforce_namespace_storage_limit: bool(false),
  help_text: str(null),
  lock_memberships_to_ldap: bool(false),
  max_personal_access_token_lifetime: int(null),
  max_ssh_key_lifetime: int(null),
  repository_size_limit: int(0),
  secret_detection_token_revocation_enabled: bool(false),
  secret_detection_token_revocation_url: str(null),
  // Write-only in Edgeforge: a credential.
  secret_detection_token_revocation_token: str(null, { secret: true }),
  secret_detection_revocation_token_types_url: str(null),
  shared_runners_minutes: int(0),
  // EE::ApplicationSettingsHelper.possible_licensed_attributes.
  mirror_max_capacity: int(100),
  mirror_max_delay: int(300),
  mirror_capacity_threshold: int(50),
  disable_overriding_approvers_per_merge_request: bool(false),
  prevent_merge_requests_author_approval: bool(false),
  prevent_merge_requests_committers_approval: bool(false),
  // Acted on: users' passwords (users/model.ts), as EE's Password::ComplexityValidator.
  password_number_required: bool(false),
  password_symbol_required: bool(false),
  password_uppercase_required: bool(false),
  password_lowercase_required: bool(false),
  email_additional_text: str(null),
  git_two_factor_session_expiry: int(15),
  group_owners_can_manage_default_branch_protection: bool(true),
  default_project_deletion_protection: bool(false),
  updating_name_disabled_for_users: bool(false),
  maven_package_requests_forwarding: bool(true),
  pypi_package_requests_forwarding: bool(true),
  maintenance_mode: bool(false),
  maintenance_mode_message: str(null),
} as const satisfies Record<string, SettingDef>;

export type SettingName = keyof typeof SETTINGS;
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/** Settings as code reads them: every setting with its stored value or its default. */
export type Settings = { [K in SettingName]: unknown } & {
  default_projects_limit: number;
  default_project_visibility: string;
  default_group_visibility: string;
  default_snippet_visibility: string;
  restricted_visibility_levels: number[];
  signup_enabled: boolean;
  minimum_password_length: number;
  allow_local_requests_from_web_hooks_and_services: boolean;
  allow_local_requests_from_system_hooks: boolean;
  outbound_local_requests_whitelist: string[];
  max_attachment_size: number;
  import_sources: string[];
  can_create_group: boolean;
  default_project_creation: number;
  default_branch_protection: number;
  user_default_external: boolean;
};

type Row = {
  adminMode: boolean;
  defaultProjectsLimit: number;
  defaultProjectVisibility: string;
  defaultGroupVisibility: string;
  issuesCreateLimit: number;
  notesCreateLimit: number;
  settings: Record<string, unknown>;
};

/** Merges a stored row over the defaults. */
export function settingsFromRow(row: Row | null | undefined): Settings {
  const out: Record<string, unknown> = {};
  const stored = row?.settings ?? {};
  for (const name of SETTING_NAMES) {
    const def: SettingDef = SETTINGS[name];
    if (def.column && row) out[name] = row[def.column];
    else if (name in stored) out[name] = stored[name];
    else out[name] = structuredClone(def.default);
  }
  return out as Settings;
}
