import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { batch, lfsContent } from "../helpers/lfs";

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

describe("the user and IP rate limits (throttle_*)", () => {
  it("are settings with GitLab's defaults, and python-gitlab's names are accepted", async () => {
    const w = await world();
    const body = (await (await w.root.get("/application/settings")).json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      throttle_authenticated_api_enabled: false,
      throttle_authenticated_api_period_in_seconds: 3600,
      throttle_authenticated_api_requests_per_period: 7200,
      throttle_unauthenticated_api_enabled: false,
      throttle_unauthenticated_api_requests_per_period: 3600,
      throttle_authenticated_web_enabled: false,
      throttle_unauthenticated_enabled: false,
      throttle_unauthenticated_web_enabled: false,
      throttle_protected_paths_enabled: false,
      throttle_protected_paths_requests_per_period: 60,
      throttle_authenticated_packages_api_period_in_seconds: 15,
      throttle_authenticated_files_api_requests_per_period: 500,
      throttle_unauthenticated_deprecated_api_enabled: false,
    });
    expect(body.protected_paths).toContain("/users/sign_in");
    // Values equal to the defaults: other test files run in parallel against the same instance.
    const res = await w.root.put("/application/settings", {
      json: { throttle_authenticated_api_period_in_seconds: 3600, throttle_authenticated_web_requests_per_period: 7200, throttle_unauthenticated_period_in_seconds: 3600 },
    });
    expect(res.status).toBe(200);
    expect(await statusAndBody(await w.root.put("/application/settings", { json: { throttle_authenticated_api_enabled: "maybe" } }))).toEqual([
      400,
      { error: "throttle_authenticated_api_enabled is invalid" },
    ]);
    expect((await w.root.put("/application/settings", { json: { throttle_made_up: 1 } })).status).toBe(400);
  });

  it("throttle API requests per user and per IP with Rack::Attack's 429", async () => {
    const w = await world();
    const user = await w.user();
    const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    // The limits stay at their defaults (other test files send requests meanwhile); this user's and this
    // address's counters of the current and the next window start one below the limit, so the second
    // request of a window is refused whichever window the requests land in.
    const seed = async (key: string, period: number, count: number) =>
      w.db((db) =>
        db.execute(sql`INSERT INTO application_rate_limits (key, window_start, count)
          SELECT ${key}, to_timestamp(floor(extract(epoch FROM now()) / ${period}) * ${period} + s * ${period}), ${count} FROM generate_series(0, 1) s`),
      );
    const userKey = `throttle_authenticated_api:user:${user.id}`;
    const ipKey = `throttle_unauthenticated_api:${ip}`;
    await seed(userKey, 3600, 7199);
    await seed(ipKey, 3600, 3599);
    try {
      const on = await w.root.put("/application/settings", { json: { throttle_authenticated_api_enabled: true, throttle_unauthenticated_api_enabled: true } });
      expect(on.status).toBe(200);
      const first = await w.as(user).get("/user");
      const limited = await w.as(user).get("/user");
      expect([first.status, limited.status]).toContain(429);
      expect(limited.status).toBe(429);
      expect(limited.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(await limited.text()).toBe("Retry later\n");
      expect(limited.headers.get("ratelimit-name")).toBe("throttle_authenticated_api");
      expect(limited.headers.get("ratelimit-limit")).toBe("120");
      expect(limited.headers.get("ratelimit-remaining")).toBe("0");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      // Another user is counted on their own.
      expect((await w.as(await w.user()).get("/user")).status).toBe(200);

      const headers = { "cf-connecting-ip": ip };
      await w.anonymous.get("/projects", { headers });
      const anonymous = await w.anonymous.get("/projects", { headers });
      expect(anonymous.status).toBe(429);
      expect(anonymous.headers.get("ratelimit-name")).toBe("throttle_unauthenticated_api");
    } finally {
      await w.root.put("/application/settings", { json: { throttle_authenticated_api_enabled: false, throttle_unauthenticated_api_enabled: false } });
      await w.db((db) => db.execute(sql`DELETE FROM application_rate_limits WHERE key IN (${userKey}, ${ipKey})`));
    }
    expect((await w.as(user).get("/user")).status).toBe(200);
  });

  it("throttle signed-in Git LFS requests per user (throttle_authenticated_git_lfs)", async () => {
    const w = await world();
    const user = await w.user();
    const project = await w.project({ developers: [user] });
    const a = await lfsContent();
    const ask = { operation: "download", objects: [{ oid: a.oid, size: a.size }] };
    // As above: the counters of this user's current and next 60-second window start one below the limit.
    const key = `throttle_authenticated_git_lfs:user:${user.id}`;
    await w.db((db) =>
      db.execute(sql`INSERT INTO application_rate_limits (key, window_start, count)
        SELECT ${key}, to_timestamp(floor(extract(epoch FROM now()) / 60) * 60 + s * 60), 999 FROM generate_series(0, 1) s`),
    );
    try {
      // Off (the default), the counter is not consulted.
      expect((await batch(project, user, ask)).status).toBe(200);
      const on = await w.root.put("/application/settings", { json: { throttle_authenticated_git_lfs_enabled: true } });
      expect(on.status).toBe(200);
      const first = await batch(project, user, ask);
      const limited = await batch(project, user, ask);
      expect([first.status, limited.status]).toContain(429);
      expect(limited.status).toBe(429);
      expect(await limited.text()).toBe("Retry later\n");
      expect(limited.headers.get("ratelimit-name")).toBe("throttle_authenticated_git_lfs");
      expect(limited.headers.get("ratelimit-limit")).toBe("1000");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      // The API throttle is another family: the same user's API requests go on.
      expect((await w.as(user).get("/user")).status).toBe(200);
    } finally {
      await w.root.put("/application/settings", { json: { throttle_authenticated_git_lfs_enabled: false } });
      await w.db((db) => db.execute(sql`DELETE FROM application_rate_limits WHERE key = ${key}`));
    }
    expect((await batch(project, user, ask)).status).toBe(200);
  });
});
