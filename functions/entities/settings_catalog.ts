/**
 * Every application setting Edgeforge knows, with GitLab 15's
 * types and defaults (app/models/application_setting_implementation.rb `defaults`, lib/api/settings.rb).
 * The order is the order of GET /application/settings and of the "at least one parameter" message.
 * `column`: the setting has its own column in `application_settings` (SQL elsewhere reads it); every other
 * setting is stored in the `settings` jsonb. `secret`: write-only, never returned.
 * It lives with the presenters because it is what API::Entities::ApplicationSetting exposes (GitLab's
 * entity reads `ApplicationSetting.defaults.keys` too); loading, validation and key rules import it.
 */
export type SettingType = "boolean" | "integer" | "float" | "string" | "strings" | "integers" | "visibility" | "visibilities" | "hash";

export type SettingDef = {
  type: SettingType;
  default: unknown;
  column?: "adminMode" | "defaultProjectsLimit" | "defaultProjectVisibility" | "defaultGroupVisibility" | "issuesCreateLimit" | "notesCreateLimit";
  /** Grape `values:` (strings or integers). */
  values?: readonly (string | number)[];
  secret?: true;
  /** Another (deprecated) name the API also takes for this setting. */
  alias?: string;
};

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
  // Stored and answered; Edgeforge serves no web pages, LFS batch or protected sign-in paths under these
  // names, so no request falls under them (deliberate difference: nothing to throttle).
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
