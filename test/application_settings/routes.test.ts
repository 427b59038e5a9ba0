import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";

// Settings are instance-wide and test files run in parallel: these tests only change settings that no
// other test reads, and put them back.

describe("GET /application/settings", () => {
  it("answers every setting with GitLab's defaults", async () => {
    const w = await world();
    const res = await w.root.get("/application/settings");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      id: 1,
      default_branch_protection: 2,
      default_project_visibility: "private",
      default_group_visibility: "private",
      default_snippet_visibility: "private",
      default_projects_limit: 100000,
      max_attachment_size: 10,
      session_expire_delay: 10080,
      snippet_size_limit: 52428800,
      issues_create_limit: 300,
      raw_blob_request_limit: 300,
      wiki_page_max_content_bytes: 52428800,
      signup_enabled: true,
      password_authentication_enabled_for_web: true,
      restricted_visibility_levels: [],
      domain_allowlist: null,
      personal_access_token_prefix: "glpat-",
      commit_email_hostname: "users.noreply.edgeforge.test",
      asset_proxy_whitelist: [],
      asset_proxy_allowlist: [],
    });
    expect(body).not.toHaveProperty("asset_proxy_secret_key");
    expect(body).not.toHaveProperty("cluster_secret_access_key");
    expect(typeof body.created_at).toBe("string");
  });

  it("answers 403 for non-admins and 401 anonymously", async () => {
    const w = await world();
    expect(await statusAndBody(await w.as(w.stranger).get("/application/settings"))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.anonymous.get("/application/settings"))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("PUT /application/settings", () => {
  it("changes settings, persists them and answers the whole object", async () => {
    const w = await world();
    const res = await w.root.put("/application/settings", {
      form: { after_sign_up_text: "Welcome", terms: "Be nice", archive_builds_in_human_readable: "15 days", help_page_text: "help" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ after_sign_up_text: "Welcome", terms: "Be nice", archive_builds_in_human_readable: "15 days" });
    expect(await (await w.root.get("/application/settings")).json()).toMatchObject({ after_sign_up_text: "Welcome", help_page_text: "help" });
    const cleared = await w.root.put("/application/settings", { json: { after_sign_up_text: null, archive_builds_in_human_readable: "" } });
    expect(await cleared.json()).toMatchObject({ after_sign_up_text: null, archive_builds_in_human_readable: null });
  });

  it("takes the deprecated names for their current settings", async () => {
    const w = await world();
    const res = await w.root.put("/application/settings", { json: { asset_proxy_whitelist: ["a.example.com", "*.b.example.com"] } });
    expect(await res.json()).toMatchObject({ asset_proxy_allowlist: ["a.example.com", "*.b.example.com"] });
    await w.root.put("/application/settings", { json: { asset_proxy_allowlist: [] } });
  });

  it("answers Grape's messages: at least one parameter, types, enums, dependent settings", async () => {
    const w = await world();
    const none = await statusAndBody(await w.root.put("/application/settings", { json: {} }));
    expect(none[0]).toBe(400);
    expect((none[1] as { error: string }).error).toMatch(/^admin_mode, abuse_notification_email, admin_notification_email, .* are missing, at least one parameter must be provided$/);
    expect(await statusAndBody(await w.root.put("/application/settings", { json: { default_branch_protection: 9 } }))).toEqual([
      400,
      { error: "default_branch_protection does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.root.put("/application/settings", { json: { default_project_visibility: "secret" } }))).toEqual([
      400,
      { error: "default_project_visibility does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.root.put("/application/settings", { json: { session_expire_delay: "soon" } }))).toEqual([
      400,
      { error: "session_expire_delay is invalid" },
    ]);
    expect(await statusAndBody(await w.root.put("/application/settings", { json: { spam_enabled: true } }))).toEqual([
      400,
      { error: "spam_api_key is missing" },
    ]);
    expect(await statusAndBody(await w.root.put("/application/settings", { json: { asset_proxy_enabled: true } }))).toEqual([
      400,
      { error: "asset_proxy_url is missing, asset_proxy_secret_key is missing" },
    ]);
    expect(await statusAndBody(await w.root.put("/application/settings", { json: { import_sources: ["github", "svn"] } }))).toEqual([
      400,
      { error: "import_sources does not have a valid value" },
    ]);
  });

  it("answers the model's messages", async () => {
    const w = await world();
    expect(await statusAndBody(await w.root.put("/application/settings", { json: { domain_denylist_enabled: true, domain_denylist: [] } }))).toEqual([
      400,
      { message: { domain_denylist: ["Domain denylist cannot be empty if denylist is enabled."] } },
    ]);
    expect(await statusAndBody(await w.root.put("/application/settings", { json: { minimum_password_length: 4, rsa_key_restriction: 512 } }))).toEqual([
      400,
      {
        message: {
          minimum_password_length: ["must be greater than or equal to 8"],
          rsa_key_restriction: ["must be forbidden, allowed, 1024, 2048, 3072, or 4096"],
        },
      },
    ]);
    expect(await statusAndBody(await w.root.put("/application/settings", { json: { archive_builds_in_human_readable: "3 hours" } }))).toEqual([
      400,
      { message: { archive_builds_in_seconds: ["must be at least 1 day"] } },
    ]);
    expect(await statusAndBody(await w.root.put("/application/settings", { json: { restricted_visibility_levels: ["secret"] } }))).toEqual([
      400,
      { message: { restricted_visibility_levels: ["'secret' is not a valid visibility level"] } },
    ]);
    expect(await statusAndBody(await w.root.put("/application/settings", { json: { home_page_url: "not a url" } }))).toEqual([
      400,
      { message: { home_page_url: ["must be a valid URL"] } },
    ]);
  });

  it("forbids a key type instance-wide (dsa_key_restriction = -1)", async () => {
    const w = await world();
    const set = await w.root.put("/application/settings", { json: { dsa_key_restriction: -1 } });
    expect(await set.json()).toMatchObject({ dsa_key_restriction: -1 });
    const dsa =
      "ssh-dss AAAAB3NzaC1kc3MAAACBAP1/U4EddRIpUt9KnC7s5Of2EbdSPO9EAMMeP4C2USZpRV1AIlH7WT2NWPq/xfW6MPbLm1Vs14E7gB00b/JmYLdrmVClpJ+f6AR7ECLCT7up1/63xhv4O1fnxqimFQ8E+4P208UewwI1VBNaFpEy9nXzrith1yrv8iIDGZ3RSAHHAAAAFQCXYFCPFSMLzLKSuYKi64QL8Fgc9QAAAIEA9+GghdabPd7LvKtcNrhXuXmUr7v6OuqC+VdMCz0HgmdRWVeOutRZT+ZxBxCBgLRJFnEj6EwoFhO3zwkyjMim4TwWeotUfI0o4KOuHiuzpnWRbqN/C/ohNWLx+2J6ASQ7zKTxvqhRkImog9/hWuWfBpKLZl6Ae1UlZAFMO/7PSSoAAACBAPLMk6cSJ9tljY5U3fEdtLg5pp7POQq3YZpzzvdj5Z2ZT9q9ozr1gpIQuBKhHPrZOuGeHNv+5H+fA3YIjRm1mfS/UdRyKIaO0NG1mk6Uakxe79sgfJTNE3F6ZoCTmXUSovJxZL6SbTeHozzg/69+rOMRdwXW2LEM5NdOYwj+tGPc";
    const u = await w.user();
    expect(await statusAndBody(await w.as(u).post("/user/keys", { json: { title: "dsa", key: dsa } }))).toEqual([
      400,
      { message: { key: ["type is forbidden. Must be RSA, ECDSA, ED25519, ECDSA_SK, or ED25519_SK"] } },
    ]);
    await w.root.put("/application/settings", { json: { dsa_key_restriction: 0 } });
  });

  it("answers 403 for non-admins", async () => {
    const w = await world();
    expect(await statusAndBody(await w.as(w.stranger).put("/application/settings", { json: { terms: "x" } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
  });

  requiresAuthentication((w) => w.anonymous.put("/application/settings", { json: { terms: "x" } }));
});
