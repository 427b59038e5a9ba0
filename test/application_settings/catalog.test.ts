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
