import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { BASE, request, statusAndBody } from "../helpers/client";
import { followPages } from "../helpers/shared";
import { unique, world } from "../helpers/world";
import { addCustomAttribute, addIdentity, BASIC_KEYS, setUser } from "./support";
import { makeToken } from "../helpers/tokens";

type Json = Record<string, unknown>;
const ids = (body: unknown) => (body as Json[]).map((u) => u.id);

describe("GET /user", () => {
  it("answers the caller with private fields and no admin flag", async () => {
    const w = await world();
    const u = await w.user({ name: "Private Fields" });
    await addIdentity(w, u.id, "github", "gh-42");
    const res = await w.as(u).get("/user");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      id: u.id,
      username: u.username,
      name: "Private Fields",
      state: "active",
      email: u.email,
      web_url: `${BASE}/${u.username}`,
      identities: [{ provider: "github", extern_uid: "gh-42" }],
      can_create_group: true,
      can_create_project: true,
      two_factor_enabled: false,
      external: false,
      private_profile: false,
      commit_email: u.email,
      theme_id: 1,
      color_scheme_id: 1,
      projects_limit: 100000,
      bot: false,
    });
    expect(body.avatar_url).toMatch(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{32}\?s=80&d=identicon$/);
    expect(body).not.toHaveProperty("is_admin");
    expect(body).not.toHaveProperty("note");
  });

  it("answers root as id 1, username root, is_admin true, with the administrator view", async () => {
    const w = await world();
    const body = (await (await w.root.get("/user")).json()) as Json;
    expect(body).toMatchObject({ id: 1, username: "root", is_admin: true, email: "admin@example.com", note: null });
    expect(body.web_url).toBe(`${BASE}/root`);
  });

  it("computes the Gravatar URL from the MD5 of the e-mail", async () => {
    const w = await world();
    const u = await w.user();
    await setUser(w, u.id, { email: "MyEmailAddress@example.com " });
    const body = (await (await w.as(u).get("/user")).json()) as Json;
    // The example of Gravatar's documentation.
    expect(body.avatar_url).toBe("https://www.gravatar.com/avatar/0bc83cb571cd1c50ba6f3e8a78ef1346?s=80&d=identicon");
  });

  it("answers 401 anonymously", async () => {
    expect(await statusAndBody(await request("GET", "/user", null))).toEqual([401, { message: "401 Unauthorized" }]);
  });

  it("is allowed to read_user and read_api tokens", async () => {
    const w = await world();
    for (const scopes of [["read_user"], ["read_api"]]) {
      const { token } = await makeToken(w, w.stranger.id, { scopes });
      const res = await w.as(token).get("/user");
      expect(res.status).toBe(200);
      expect(((await res.json()) as Json).id).toBe(w.stranger.id);
    }
  });
});

describe("GET /users", () => {
  it("answers the summary view to users, finding a username case-insensitively", async () => {
    const w = await world();
    const u = await w.user();
    const res = await w.as(w.stranger).get("/users", { query: { username: u.username.toUpperCase() } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body).toHaveLength(1);
    expect(Object.keys(body[0]).sort()).toEqual(BASIC_KEYS);
    expect(body[0]).toMatchObject({ id: u.id, username: u.username, state: "active", web_url: `${BASE}/${u.username}` });
  });

  it("answers the administrator view to administrators", async () => {
    const w = await world();
    const u = await w.user();
    await setUser(w, u.id, { note: "watch", currentSignInIp: "10.0.0.1" });
    const body = (await (await w.root.get("/users", { query: { username: u.username } })).json()) as Json[];
    expect(body[0]).toMatchObject({ id: u.id, email: u.email, is_admin: false, note: "watch", current_sign_in_ip: "10.0.0.1", identities: [] });
  });

  it("lets anonymous callers look up one username, and nothing else", async () => {
    const w = await world();
    const u = await w.user();
    const res = await request("GET", "/users", null, { query: { username: u.username } });
    expect(ids(await res.json())).toEqual([u.id]);
    expect(await statusAndBody(await request("GET", "/users", null))).toEqual([
      403,
      { message: "403 Forbidden - Not authorized to access /api/v4/users" },
    ]);
  });

  it("searches names and usernames by substring and e-mails exactly", async () => {
    const w = await world();
    const tag = unique("srch");
    const a = await w.user({ name: `${tag} Alpha` });
    const b = await w.user({ name: `${tag} Beta` });
    const as = w.as(w.stranger);
    expect(ids(await (await as.get("/users", { query: { search: tag } })).json())).toEqual([a.id, b.id]);
    expect(ids(await (await as.get("/users", { query: { search: `${tag} beta` } })).json())).toEqual([b.id]);
    expect(ids(await (await as.get("/users", { query: { search: `@${a.username}` } })).json())).toEqual([a.id]);
    expect(ids(await (await as.get("/users", { query: { search: a.email.toUpperCase() } })).json())).toEqual([a.id]);
    expect(ids(await (await as.get("/users", { query: { search: a.email.slice(0, -3) } })).json())).toEqual([]);
  });

  it("filters active, blocked and external only when true", async () => {
    const w = await world();
    const tag = unique("state");
    const active = await w.user({ name: `${tag} a` });
    const blocked = await w.user({ name: `${tag} b`, state: "blocked" });
    const external = await w.user({ name: `${tag} c`, external: true });
    const list = async (query: Record<string, string>) =>
      ids(await (await w.as(w.stranger).get("/users", { query: { search: tag, ...query } })).json());
    expect(await list({ blocked: "true" })).toEqual([blocked.id]);
    // A user's search is ordered by name.
    expect(await list({ active: "true" })).toEqual([active.id, external.id]);
    expect(await list({ external: "true" })).toEqual([external.id]);
    expect(await list({ exclude_external: "true" })).toEqual([active.id, blocked.id]);
    expect(await list({ external: "false", blocked: "false", active: "false" })).toEqual([active.id, blocked.id, external.id]);
  });

  it("excludes internal users (bots) but not project bots with exclude_internal", async () => {
    const w = await world();
    const tag = unique("bots");
    const human = await w.user({ name: `${tag} human` });
    const alert = await w.user({ name: `${tag} alert` });
    const projectBot = await w.user({ name: `${tag} project` });
    // Not alert_bot: the alerts consumer takes the first alert_bot as its author, and tests share one database.
    await setUser(w, alert.id, { userType: "visual_review_bot" });
    await setUser(w, projectBot.id, { userType: "project_bot" });
    const res = await w.as(w.stranger).get("/users", { query: { search: tag, exclude_internal: true } });
    expect(ids(await res.json())).toEqual([human.id, projectBot.id]);
  });

  it("lets administrators filter admins, two_factor, creation dates, projects and external identities", async () => {
    const w = await world();
    const tag = unique("adm");
    const admin = await w.user({ name: `${tag} admin`, admin: true });
    const twoFactor = await w.user({ name: `${tag} 2fa` });
    const owner = await w.user({ name: `${tag} owner` });
    await setUser(w, twoFactor.id, { twoFactorEnabled: true, createdAt: new Date("2001-01-01T00:00:00Z") });
    await addIdentity(w, owner.id, "ldapmain", "CN=Owner");
    await w.project({ owner });
    const list = async (query: Record<string, string>) =>
      ids(await (await w.root.get("/users", { query: { search: tag, ...query } })).json());
    expect(await list({ admins: "true" })).toEqual([admin.id]);
    expect(await list({ two_factor: "enabled" })).toEqual([twoFactor.id]);
    expect(await list({ two_factor: "disabled" })).toEqual([owner.id, admin.id]);
    expect(await list({ created_before: "2001-01-02T00:00:00Z" })).toEqual([twoFactor.id]);
    expect(await list({ created_after: "2001-01-02T00:00:00Z" })).toEqual([owner.id, admin.id]);
    expect(await list({ without_projects: "true" })).toEqual([twoFactor.id, admin.id]);
    expect(await list({ extern_uid: "cn=owner", provider: "ldapmain" })).toEqual([owner.id]);
  });

  it("ignores the administrator-only filters and ordering for users", async () => {
    const w = await world();
    const tag = unique("ign");
    const admin = await w.user({ name: `${tag} b`, admin: true });
    const plain = await w.user({ name: `${tag} a` });
    await setUser(w, plain.id, { twoFactorEnabled: true });
    const res = await w.as(w.stranger).get("/users", {
      query: { search: tag, admins: true, two_factor: "disabled", order_by: "id", sort: "asc", without_projects: true },
    });
    // Search order for users: exact matches first, then by name.
    expect(ids(await res.json())).toEqual([plain.id, admin.id]);
  });

  it("orders by order_by and sort for administrators (default id desc)", async () => {
    const w = await world();
    const tag = unique("ord");
    const b = await w.user({ name: `${tag} b` });
    const a = await w.user({ name: `${tag} a` });
    const list = async (query: Record<string, string>) =>
      ids(await (await w.root.get("/users", { query: { search: tag, ...query } })).json());
    expect(await list({})).toEqual([a.id, b.id]);
    expect(await list({ order_by: "id", sort: "asc" })).toEqual([b.id, a.id]);
    expect(await list({ order_by: "name", sort: "asc" })).toEqual([a.id, b.id]);
    expect(await list({ order_by: "created_at", sort: "asc" })).toEqual([b.id, a.id]);
  });

  it("filters custom attributes and shows them to administrators only", async () => {
    const w = await world();
    const tag = unique("ca");
    const tagged = await w.user({ name: `${tag} x` });
    const other = await w.user({ name: `${tag} y` });
    await addCustomAttribute(w, tagged.id, "team", "core");
    const res = await w.root.get("/users", { query: { search: tag, "custom_attributes[team]": "core", with_custom_attributes: true } });
    const body = (await res.json()) as Json[];
    expect(ids(body)).toEqual([tagged.id]);
    expect(body[0].custom_attributes).toEqual([{ key: "team", value: "core" }]);
    const asUser = await w.as(w.stranger).get("/users", {
      query: { search: tag, "custom_attributes[team]": "core", with_custom_attributes: true },
    });
    const userBody = (await asUser.json()) as Json[];
    expect(ids(userBody)).toEqual([tagged.id, other.id]);
    expect(userBody[0]).not.toHaveProperty("custom_attributes");
  });

  it("answers 400 for bad parameters", async () => {
    const w = await world();
    const as = w.as(w.stranger);
    expect(await statusAndBody(await as.get("/users", { query: { order_by: "magic", sort: "up" } }))).toEqual([
      400,
      { error: "order_by does not have a valid value, sort does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.root.get("/users", { query: { provider: "github" } }))).toEqual([
      400,
      { error: "extern_uid, provider provide all or none of parameters" },
    ]);
    expect(await statusAndBody(await as.get("/users", { query: { active: "maybe", created_after: "soon" } }))).toEqual([
      400,
      { error: "active is invalid, created_after is invalid" },
    ]);
  });

  it("refuses a search by external identity to users (403) and anonymous callers (401)", async () => {
    const w = await world();
    const query = { extern_uid: "1", provider: "github", username: "root" };
    expect(await statusAndBody(await w.as(w.stranger).get("/users", { query }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await request("GET", "/users", null, { query }))).toEqual([401, { message: "401 Unauthorized" }]);
  });

  it("paginates with GitLab's headers, following Link to the end", async () => {
    const w = await world();
    const tag = unique("page");
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await w.user({ name: `${tag} ${i}` }));
    const first = await w.root.get("/users", { query: { search: tag, per_page: 2 } });
    expect(first.headers.get("x-total")).toBe("3");
    expect(first.headers.get("x-total-pages")).toBe("2");
    expect(first.headers.get("x-next-page")).toBe("2");
    expect(first.headers.get("x-prev-page")).toBe("");
    expect(first.headers.get("link")).toContain(`search=${tag}`);
    const all = await followPages(w, first, w.rootToken);
    expect(ids(all)).toEqual(made.map((u) => u.id).reverse());
  });

  it("runs the same few statements for 1 and 100 rows per page", async () => {
    const w = await world();
    for (const client of [w.root, w.as(w.stranger)]) {
      const one = await client.get("/users", { query: { per_page: 1, with_custom_attributes: true } });
      const hundred = await client.get("/users", { query: { per_page: 100, with_custom_attributes: true } });
      expect(one.status).toBe(200);
      expect(one.headers.get("x-query-count")).toBe(hundred.headers.get("x-query-count"));
      expect(Number(one.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
    }
  });
});

describe("GET /users/:id", () => {
  it("answers the single-user view to users, without private or admin fields", async () => {
    const w = await world();
    const u = await w.user();
    await setUser(w, u.id, { bio: "<b>Hi</b>", jobTitle: "Engineer", messenger: "sk", socialHandle: "tw" });
    const res = await w.as(w.stranger).get(`/users/${u.id}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      id: u.id,
      username: u.username,
      bio: "<b>Hi</b>",
      bio_html: "Hi",
      bot: false,
      job_title: "Engineer",
      messenger: "sk",
      social_handle: "tw",
      professional_profile: "",
      followers: 0,
      following: 0,
    });
    expect(typeof body.created_at).toBe("string");
    for (const key of ["email", "is_admin", "highest_role", "current_sign_in_ip", "plan", "trial", "note", "identities"])
      expect(body).not.toHaveProperty(key);
  });

  it("hides created_at and follow counts of a private profile, except from administrators", async () => {
    const w = await world();
    const u = await w.user();
    await setUser(w, u.id, { privateProfile: true });
    const anonymous = (await (await request("GET", `/users/${u.id}`, null)).json()) as Json;
    expect(anonymous.id).toBe(u.id);
    for (const key of ["created_at", "followers", "following"]) expect(anonymous).not.toHaveProperty(key);
    const self = (await (await w.as(u).get(`/users/${u.id}`)).json()) as Json;
    expect(self).toHaveProperty("created_at");
    const admin = (await (await w.root.get(`/users/${u.id}`)).json()) as Json;
    expect(admin).toHaveProperty("created_at");
  });

  it("answers the detailed administrator view to administrators", async () => {
    const w = await world();
    const u = await w.user();
    const project = await w.project({});
    await w.addMembers("Project", project.id, { developers: [u] });
    await addIdentity(w, u.id, "group_saml", "saml-1");
    await addCustomAttribute(w, u.id, "k", "v");
    await setUser(w, u.id, { signInCount: 3, note: "vip" });
    const body = (await (await w.root.get(`/users/${u.id}`, { query: { with_custom_attributes: true } })).json()) as Json;
    expect(body).toMatchObject({
      id: u.id,
      is_admin: false,
      email: u.email,
      note: "vip",
      highest_role: 30,
      sign_in_count: 3,
      plan: null,
      trial: false,
      identities: [{ provider: "group_saml", extern_uid: "saml-1", saml_provider_id: null }],
      custom_attributes: [{ key: "k", value: "v" }],
    });
  });

  it("answers 404 User Not Found for a missing user, and the route 404 for a non-numeric id", async () => {
    const w = await world();
    expect(await statusAndBody(await w.as(w.stranger).get("/users/0"))).toEqual([404, { message: "404 User Not Found" }]);
    expect(await statusAndBody(await w.as(w.stranger).get("/users/99999999999"))).toEqual([404, { message: "404 User Not Found" }]);
    expect(await statusAndBody(await w.as(w.stranger).get("/users/1ASDF"))).toEqual([404, { error: "404 Not Found" }]);
  });
});

describe("GET /avatar", () => {
  const gravatar = (email: string, s: number) =>
    `https://www.gravatar.com/avatar/${createHash("md5").update(email.trim().toLowerCase()).digest("hex")}?s=${s}&d=identicon`;

  it("answers the avatar of the user with that public e-mail, else Gravatar's for the address, to anyone", async () => {
    const w = await world();
    const shown = await w.user();
    const publicEmail = `${unique("public")}@example.org`;
    await setUser(w, shown.id, { publicEmail });
    // The user's own avatar (the primary e-mail's Gravatar without an upload), not the public address's.
    expect(await statusAndBody(await w.anonymous.get("/avatar", { query: { email: publicEmail } }))).toEqual([200, { avatar_url: gravatar(shown.email, 80) }]);
    await setUser(w, shown.id, { avatarUrl: `/uploads/-/system/user/avatar/${shown.id}/me.png` });
    expect(await statusAndBody(await w.as(shown).get("/avatar", { query: { email: publicEmail, size: 32 } }))).toEqual([
      200,
      { avatar_url: `${BASE}/uploads/-/system/user/avatar/${shown.id}/me.png` },
    ]);
    // An address no user shows publicly (the primary e-mail included): Gravatar's URL for it, sized.
    expect(await statusAndBody(await w.anonymous.get("/avatar", { query: { email: shown.email, size: 32 } }))).toEqual([200, { avatar_url: gravatar(shown.email, 64) }]);
  });

  it("answers GitLab's 400 for a missing e-mail or a size that is not an integer", async () => {
    const w = await world();
    expect(await statusAndBody(await w.anonymous.get("/avatar"))).toEqual([400, { error: "email is missing" }]);
    expect(await statusAndBody(await w.anonymous.get("/avatar", { query: { email: "a@b.c", size: "big" } }))).toEqual([400, { error: "size is invalid" }]);
  });
});
