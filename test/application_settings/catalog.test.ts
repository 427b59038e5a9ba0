import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { SETTINGS, SETTING_NAMES, type SettingDef } from "../../functions/entities/settings_catalog";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";

// Settings are instance-wide and test files run in parallel: the settings other code acts on are sent
// back with their current value (still a valid value of every one of them, through the real PUT), and
// only the settings nothing reads get new values, which are put back at the end.

/** Values unlike the defaults for settings that nothing in Edgeforge acts on. */
const CHANGED: Record<string, unknown> = {
  email_author_in_body: true,
  enabled_git_access_protocol: "ssh",
  gitpod_enabled: true,
  gitpod_url: "https://gitpod.example.com/",
  gitaly_timeout_default: 50,
  gitaly_timeout_fast: 5,
  gitaly_timeout_medium: 20,
  grafana_enabled: true,
  grafana_url: "/-/grafana-2",
  help_page_hide_commercial_content: true,
  help_page_support_url: "https://support.example.com",
  help_page_documentation_base_url: "https://docs.example.com",
  housekeeping_enabled: true,
  housekeeping_bitmaps_enabled: false,
  housekeeping_full_repack_period: 60,
  housekeeping_gc_period: 300,
  housekeeping_incremental_repack_period: 20,
  html_emails_enabled: false,
  in_product_marketing_emails_enabled: false,
  invisible_captcha_enabled: true,
  max_export_size: 50,
  max_pages_size: 200,
  metrics_method_call_threshold: 20,
  project_export_enabled: false,
  prometheus_metrics_enabled: false,
  push_event_hooks_limit: 5,
  push_event_activities_limit: 6,
  recaptcha_enabled: true,
  recaptcha_site_key: "site-key",
  recaptcha_private_key: "private-key",
  login_recaptcha_protection_enabled: true,
  repository_checks_enabled: false,
  require_two_factor_authentication: true,
  two_factor_grace_period: 24,
  sourcegraph_enabled: true,
  sourcegraph_public_only: false,
  sourcegraph_url: "https://sourcegraph.example.com",
  spam_check_endpoint_enabled: true,
  spam_check_endpoint_url: "grpc://spam.example.com",
  spam_check_api_key: "spam-key",
  usage_ping_enabled: false,
  mailgun_events_enabled: true,
  mailgun_signing_key: "mailgun-key",
  snowplow_enabled: true,
  snowplow_collector_hostname: "snowplow.example.com",
  snowplow_cookie_domain: ".example.com",
  snowplow_app_id: "edgeforge",
  whats_new_variant: "current_tier",
  floc_enabled: true,
  user_deactivation_emails_enabled: false,
  suggest_pipeline_enabled: false,
  users_get_by_id_limit: 400,
  runner_token_expiration_interval: 86400,
  group_runner_token_expiration_interval: 86400,
  project_runner_token_expiration_interval: 86400,
  pipeline_limit_per_project_user_sha: 10,
  delete_inactive_projects: true,
  inactive_projects_delete_after_months: 24,
  inactive_projects_min_size_mb: 10,
  inactive_projects_send_warning_email_after_months: 12,
  valid_runner_registrars: ["group"],
  // GitLab 15.4's settings taken through `optional_attributes` (visible_attributes and EE's).
  static_objects_external_storage_url: "https://static.example.com",
  static_objects_external_storage_auth_token: "static-token",
  container_registry_expiration_policies_caching: false,
  force_pages_access_control: true,
  hide_third_party_offers: true,
  max_yaml_size_bytes: 2097152,
  max_yaml_depth: 50,
  mirror_available: false,
  notify_on_unknown_sign_in: false,
  pages_domain_verification_enabled: false,
  kroki_formats: { blockdiag: true, bpmn: false, excalidraw: true },
  time_tracking_limit_to_hours: true,
  unique_ips_limit_enabled: true,
  unique_ips_limit_per_user: 20,
  unique_ips_limit_time_window: 7200,
  usage_ping_features_enabled: true,
  version_check_enabled: false,
  web_ide_clientside_preview_enabled: true,
  diff_max_files: 2000,
  diff_max_lines: 80000,
  protected_ci_variables: false,
  custom_http_clone_url_root: "https://git.example.com",
  email_restrictions_enabled: true,
  email_restrictions: "\\+",
  project_import_limit: 7,
  project_export_limit: 8,
  project_download_export_limit: 2,
  group_import_limit: 9,
  group_export_limit: 10,
  group_download_export_limit: 3,
  container_registry_delete_tags_service_timeout: 300,
  container_registry_expiration_policies_worker_capacity: 5,
  container_registry_cleanup_tags_service_max_list_size: 300,
  container_registry_import_max_tags_count: 150,
  container_registry_import_max_retries: 4,
  container_registry_import_start_max_retries: 60,
  container_registry_import_max_step_duration: 400,
  container_registry_pre_import_timeout: 2000,
  container_registry_import_timeout: 700,
  container_registry_import_target_plan: "premium",
  container_registry_import_created_before: "2022-05-01T12:00:00.000Z",
  sentry_enabled: true,
  sentry_dsn: "https://key@sentry.example.com/1",
  sentry_clientside_dsn: "https://key@sentry.example.com/2",
  sentry_environment: "production",
  sidekiq_job_limiter_mode: "track",
  sidekiq_job_limiter_compression_threshold_bytes: 200000,
  sidekiq_job_limiter_limit_bytes: 1000000,
  search_rate_limit: 40,
  search_rate_limit_unauthenticated: 20,
  deactivate_dormant_users: true,
  deactivate_dormant_users_period: 180,
  external_auth_client_cert: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
  external_auth_client_key: "client-key",
  external_auth_client_key_pass: "client-pass",
  elasticsearch_aws: true,
  elasticsearch_aws_access_key: "aws-key",
  elasticsearch_aws_region: "eu-west-1",
  elasticsearch_aws_secret_access_key: "aws-secret",
  elasticsearch_client_request_timeout: 30,
  elasticsearch_indexed_field_length_limit: 100,
  elasticsearch_indexed_file_size_limit_kb: 2048,
  elasticsearch_indexing: true,
  elasticsearch_limit_indexing: true,
  elasticsearch_max_bulk_concurrency: 5,
  elasticsearch_max_bulk_size_mb: 20,
  elasticsearch_namespace_ids: [1, 2],
  elasticsearch_pause_indexing: true,
  elasticsearch_project_ids: [3],
  elasticsearch_replicas: 2,
  elasticsearch_search: true,
  elasticsearch_shards: 3,
  elasticsearch_url: "http://search.example.com:9200",
  elasticsearch_username: "elastic",
  elasticsearch_password: "elastic-password",
  elasticsearch_analyzers_smartcn_enabled: true,
  elasticsearch_analyzers_smartcn_search: true,
  elasticsearch_analyzers_kuromoji_enabled: true,
  elasticsearch_analyzers_kuromoji_search: true,
  enforce_namespace_storage_limit: true,
  help_text: "Ask the administrators",
  lock_memberships_to_ldap: true,
  max_personal_access_token_lifetime: 30,
  max_ssh_key_lifetime: 60,
  repository_size_limit: 1000,
  secret_detection_token_revocation_enabled: true,
  secret_detection_token_revocation_url: "https://revoke.example.com",
  secret_detection_token_revocation_token: "revocation-token",
  secret_detection_revocation_token_types_url: "https://revoke.example.com/types",
  shared_runners_minutes: 400,
  mirror_max_capacity: 200,
  mirror_max_delay: 600,
  mirror_capacity_threshold: 100,
  disable_overriding_approvers_per_merge_request: true,
  prevent_merge_requests_author_approval: true,
  prevent_merge_requests_committers_approval: true,
  email_additional_text: "Legal text",
  git_two_factor_session_expiry: 30,
  group_owners_can_manage_default_branch_protection: false,
  default_project_deletion_protection: true,
  updating_name_disabled_for_users: true,
  maven_package_requests_forwarding: false,
  pypi_package_requests_forwarding: false,
  maintenance_mode: true,
  maintenance_mode_message: "Upgrading",
};

/** A valid value of a write-only setting (never answered, so never to be read back). */
function secretValue(name: string): unknown {
  return CHANGED[name] ?? `${name}-value`;
}

const put = (w: Awaited<ReturnType<typeof world>>, json: Record<string, unknown>) => w.root.put("/application/settings", { json });

describe("the whole catalog", () => {
  it("PUT takes every setting with a valid value, and GET answers what was stored (GitLab 15.4's parameters and defaults)", async () => {
    const w = await world();
    const before = (await (await w.root.get("/application/settings")).json()) as Record<string, unknown>;
    for (const [name, value] of Object.entries(CHANGED)) {
      const def: SettingDef | undefined = (SETTINGS as Record<string, SettingDef>)[name];
      expect(def, name).toBeDefined();
      if (!def!.secret) expect(before[name], `${name} is its default before`).toEqual(def!.default);
    }
    const body: Record<string, unknown> = {};
    for (const name of SETTING_NAMES) {
      const def: SettingDef = SETTINGS[name];
      if (name in CHANGED) body[name] = CHANGED[name];
      else if (def.secret) body[name] = secretValue(name);
      // archive_builds_in_human_readable is answered as a duration and taken back as one.
      else body[name] = before[name];
    }
    const res = await put(w, body);
    const answer = (await res.json()) as Record<string, unknown>;
    expect(res.status, JSON.stringify(answer)).toBe(200);
    const after = (await (await w.root.get("/application/settings")).json()) as Record<string, unknown>;
    for (const name of SETTING_NAMES) {
      const def: SettingDef = SETTINGS[name];
      if (def.secret) {
        expect(after, name).not.toHaveProperty(name);
        continue;
      }
      expect(after[name], name).toEqual(body[name]);
      expect(answer[name], name).toEqual(body[name]);
      if (def.alias) expect(after[def.alias], def.alias).toEqual(body[name]);
    }
    // Put the defaults back.
    const restore = Object.fromEntries(Object.keys(CHANGED).map((name) => [name, (SETTINGS as Record<string, SettingDef>)[name].default]));
    expect((await put(w, restore)).status).toBe(200);
  });

  it("takes GitLab's names for the settings the spec renames (akismet, eks, gravatar, plantuml, kroki) and answers both", async () => {
    const w = await world();
    const res = await put(w, { plantuml_url: "https://plantuml.example.com", kroki_url: "https://kroki.example.com" });
    expect(await res.json()).toMatchObject({
      plantuml_url: "https://plantuml.example.com",
      diagram_a_url: "https://plantuml.example.com",
      kroki_url: "https://kroki.example.com",
      diagram_b_url: "https://kroki.example.com",
      gravatar_enabled: true,
      avatar_service_enabled: true,
      akismet_enabled: false,
      eks_integration_enabled: false,
    });
    await put(w, { diagram_a_url: null, diagram_b_url: null });
  });

  it("answers Grape's 400 for a bad value or a missing dependent setting", async () => {
    const w = await world();
    expect(await statusAndBody(await put(w, { whats_new_variant: "everything" }))).toEqual([400, { error: "whats_new_variant does not have a valid value" }]);
    expect(await statusAndBody(await put(w, { enabled_git_access_protocol: "ftp" }))).toEqual([400, { error: "enabled_git_access_protocol does not have a valid value" }]);
    expect(await statusAndBody(await put(w, { gitaly_timeout_fast: "fast" }))).toEqual([400, { error: "gitaly_timeout_fast is invalid" }]);
    expect(await statusAndBody(await put(w, { floc_enabled: "perhaps" }))).toEqual([400, { error: "floc_enabled is invalid" }]);
    expect(await statusAndBody(await put(w, { housekeeping_enabled: true }))).toEqual([
      400,
      {
        error:
          "housekeeping_bitmaps_enabled is missing, housekeeping_full_repack_period is missing, housekeeping_gc_period is missing, housekeeping_incremental_repack_period is missing",
      },
    ]);
    expect(await statusAndBody(await put(w, { recaptcha_enabled: true, recaptcha_site_key: "k" }))).toEqual([400, { error: "recaptcha_private_key is missing" }]);
    // An unknown name is not a parameter: alone, nothing is given.
    const unknown = await statusAndBody(await put(w, { no_such_setting: true }));
    expect(unknown[0]).toBe(400);
    expect((unknown[1] as { error: string }).error).toMatch(/are missing, at least one parameter must be provided$/);
  });

  it("answers the model's 400 for values out of range", async () => {
    const w = await world();
    expect(await statusAndBody(await put(w, { gitaly_timeout_default: -1, push_event_hooks_limit: -2, max_pages_size: 2_000_000 }))).toEqual([
      400,
      {
        message: {
          gitaly_timeout_default: ["must be greater than or equal to 0"],
          push_event_hooks_limit: ["must be greater than or equal to 0"],
          max_pages_size: ["must be less than 1048576"],
        },
      },
    ]);
    expect(
      await statusAndBody(
        await put(w, { housekeeping_enabled: true, housekeeping_bitmaps_enabled: true, housekeeping_incremental_repack_period: 20, housekeeping_full_repack_period: 10, housekeeping_gc_period: 5 }),
      ),
    ).toEqual([400, { message: { housekeeping_full_repack_period: ["must be greater than or equal to 20"], housekeeping_gc_period: ["must be greater than or equal to 10"] } }]);
    expect(await statusAndBody(await put(w, { inactive_projects_delete_after_months: 3, inactive_projects_send_warning_email_after_months: 3 }))).toEqual([
      400,
      { message: { inactive_projects_send_warning_email_after_months: ["must be less than 3"] } },
    ]);
    expect(await statusAndBody(await put(w, { gitpod_url: "not a url" }))).toEqual([400, { message: { gitpod_url: ["must be a valid URL"] } }]);
  });
});

describe("the settings GitLab 15.4 takes through optional_attributes (visible_attributes)", () => {
  it("takes the `*_raw` lists as one text and answers both forms", async () => {
    const w = await world();
    const before = (await (await w.root.get("/application/settings")).json()) as Record<string, unknown>;
    // The outbound allowlist is read by webhooks elsewhere: it is sent back as it is, in its raw form.
    const outbound = (before.outbound_local_requests_whitelist as string[]).join("\n");
    const res = await put(w, {
      domain_allowlist_raw: "example.com, *.example.org;\nexample.com",
      domain_denylist_raw: "spam.example\nworse.example",
      protected_paths_raw: "/users/sign_in\n/oauth/token",
      notes_create_limit_allowlist_raw: "alice, bob",
      users_get_by_id_limit_allowlist_raw: "carol",
      outbound_local_requests_allowlist_raw: outbound,
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({
      domain_allowlist: ["example.com", "*.example.org"],
      domain_allowlist_raw: "example.com\n*.example.org",
      domain_denylist: ["spam.example", "worse.example"],
      domain_denylist_raw: "spam.example\nworse.example",
      protected_paths: ["/users/sign_in", "/oauth/token"],
      protected_paths_raw: "/users/sign_in\n/oauth/token",
      notes_create_limit_allowlist_raw: "alice\nbob",
      users_get_by_id_limit_allowlist_raw: "carol",
      outbound_local_requests_whitelist: before.outbound_local_requests_whitelist,
    });
    // The lists GitLab takes only as text are not answered under their own names.
    expect(body).not.toHaveProperty("notes_create_limit_allowlist");
    expect(body).not.toHaveProperty("users_get_by_id_limit_allowlist");
    const restore = await put(w, {
      domain_allowlist_raw: null,
      domain_denylist_raw: "",
      protected_paths: SETTINGS.protected_paths.default,
      notes_create_limit_allowlist_raw: "",
      users_get_by_id_limit_allowlist_raw: "",
    });
    expect(await restore.json()).toMatchObject({ domain_allowlist: [], domain_allowlist_raw: "", notes_create_limit_allowlist_raw: "" });
    // `domain_allowlist` defaults to null, which no parameter writes back (GitLab's `_raw=` writes []).
    await w.db((db) => db.execute(sql`UPDATE application_settings SET settings = settings - 'domain_allowlist' WHERE id = 1`));
  });

  it("sets performance_bar_allowed_group_id from performance_bar_allowed_group_path, and clears it with performance_bar_enabled=false", async () => {
    const w = await world();
    const group = await w.group();
    const set = (await (await put(w, { performance_bar_allowed_group_path: group.fullPath })).json()) as Record<string, unknown>;
    expect(set.performance_bar_allowed_group_id).toBe(group.id);
    expect(set).not.toHaveProperty("performance_bar_allowed_group_path");
    expect(set).not.toHaveProperty("performance_bar_enabled");
    expect(((await (await put(w, { performance_bar_enabled: true })).json()) as Record<string, unknown>).performance_bar_allowed_group_id).toBe(group.id);
    expect(((await (await put(w, { performance_bar_enabled: false })).json()) as Record<string, unknown>).performance_bar_allowed_group_id).toBeNull();
    await put(w, { performance_bar_allowed_group_path: group.fullPath });
    expect(((await (await put(w, { performance_bar_allowed_group_path: "no/such/group" })).json()) as Record<string, unknown>).performance_bar_allowed_group_id).toBeNull();
  });

  it("answers Grape's 400 for a bad value or a missing dependent setting", async () => {
    const w = await world();
    expect(await statusAndBody(await put(w, { sidekiq_job_limiter_mode: "zip" }))).toEqual([400, { error: "sidekiq_job_limiter_mode does not have a valid value" }]);
    expect(await statusAndBody(await put(w, { elasticsearch_namespace_ids: "1,x" }))).toEqual([400, { error: "elasticsearch_namespace_ids is invalid" }]);
    expect(await statusAndBody(await put(w, { diff_max_lines: "many" }))).toEqual([400, { error: "diff_max_lines is invalid" }]);
    expect(await statusAndBody(await put(w, { mirror_available: "sometimes" }))).toEqual([400, { error: "mirror_available is invalid" }]);
    expect(await statusAndBody(await put(w, { container_registry_import_created_before: "yesterday-ish" }))).toEqual([
      400,
      { error: "container_registry_import_created_before is invalid" },
    ]);
    expect(await statusAndBody(await put(w, { elasticsearch_indexing: true }))).toEqual([400, { error: "elasticsearch_url is missing" }]);
    expect(await statusAndBody(await put(w, { secret_detection_token_revocation_enabled: true, secret_detection_token_revocation_url: "https://r.example.com" }))).toEqual([
      400,
      { error: "secret_detection_revocation_token_types_url is missing" },
    ]);
  });

  it("answers the model's 400 for values it refuses", async () => {
    const w = await world();
    expect(await statusAndBody(await put(w, { hashed_storage_enabled: false }))).toEqual([
      400,
      { message: { hashed_storage_enabled: ["Hashed storage can't be disabled anymore for new projects"] } },
    ]);
    expect(await statusAndBody(await put(w, { diff_max_files: 100, diff_max_lines: 200000, git_two_factor_session_expiry: 0 }))).toEqual([
      400,
      {
        message: {
          diff_max_files: ["must be greater than or equal to 1000"],
          diff_max_lines: ["must be less than or equal to 100000"],
          git_two_factor_session_expiry: ["must be greater than or equal to 1"],
        },
      },
    ]);
    expect(await statusAndBody(await put(w, { mirror_capacity_threshold: 300 }))).toEqual([
      400,
      { message: { mirror_capacity_threshold: ["Project's mirror capacity threshold can't be higher than it's maximum capacity"] } },
    ]);
    expect(await statusAndBody(await put(w, { kroki_formats: { blockdiag: true, mermaid: true } }))).toEqual([400, { message: { kroki_formats: ["must be a valid json schema"] } }]);
    expect(await statusAndBody(await put(w, { max_personal_access_token_lifetime: 400, elasticsearch_max_bulk_size_mb: 0 }))).toEqual([
      400,
      {
        message: {
          elasticsearch_max_bulk_size_mb: ["must be greater than 0"],
          max_personal_access_token_lifetime: ["must be less than or equal to 365"],
        },
      },
    ]);
    expect(await statusAndBody(await put(w, { sentry_enabled: true }))).toEqual([
      400,
      { message: { sentry_dsn: ["can't be blank"], sentry_environment: ["can't be blank"] } },
    ]);
    expect(await statusAndBody(await put(w, { custom_http_clone_url_root: "not a url" }))).toEqual([400, { message: { custom_http_clone_url_root: ["must be a valid URL"] } }]);
  });
});
