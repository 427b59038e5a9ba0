import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { identities, members, namespaces, projects, users } from "../../db/schema";
import { request, statusAndBody } from "../helpers/client";
import { unique, world, type World } from "../helpers/world";
import { addIdentity, setUser } from "./support";

type Json = Record<string, unknown>;

const userRow = (w: World, id: number) => w.db(async (db) => (await db.select().from(users).where(eq(users.id, id)))[0]);
const namespaceOf = (w: World, userId: number) =>
  w.db(async (db) => (await db.select().from(namespaces).where(and(eq(namespaces.ownerId, userId), eq(namespaces.type, "User"))))[0]);

function newUser(extra: Json = {}) {
  const username = unique("new").replace(/-/g, "_");
  return { email: `${username}@example.com`, username, name: `New ${username}`, password: "s3cret-pass", ...extra };
}

describe("POST /users", () => {
  it("creates the user with a hashed password and the personal namespace; 201 with the administrator view", async () => {
    const w = await world();
    const input = newUser({ bio: "Hello", messenger: "sk", projects_limit: 5, provider: "github", extern_uid: "67890", skip_confirmation: true });
    const res = await w.root.post("/users", { json: input });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      username: input.username,
      name: input.name,
      email: input.email,
      state: "active",
      bio: "Hello",
      messenger: "sk",
      projects_limit: 5,
      is_admin: false,
      external: false,
      identities: [{ provider: "github", extern_uid: "67890" }],
    });
    expect(body.confirmed_at).not.toBeNull();
    const row = await userRow(w, body.id as number);
    expect(row.encryptedPassword).toMatch(/^pbkdf2\$100000\$/);
    expect(row.encryptedPassword).not.toContain(input.password);
    const ns = await namespaceOf(w, row.id);
    expect(ns).toMatchObject({ type: "User", path: input.username, fullPath: input.username, name: input.name, visibilityLevel: 20 });
  });

  it("lowercases the e-mail, and makes external users unable to create groups or projects", async () => {
    const w = await world();
    const input = newUser({ external: true, can_create_group: true });
    const body = (await (await w.root.post("/users", { json: { ...input, email: input.email.toUpperCase() } })).json()) as Json;
    expect(body).toMatchObject({ email: input.email, external: true, can_create_group: false, projects_limit: 0, can_create_project: false });
  });

  it("sets a random password with force_random_password or reset_password (which win over password)", async () => {
    const w = await world();
    for (const flag of ["force_random_password", "reset_password"]) {
      const { password: _, ...input } = newUser();
      const res = await w.root.post("/users", { form: { ...(input as Record<string, string>), [flag]: "true", password: "x" } });
      expect(res.status).toBe(201);
      const row = await userRow(w, ((await res.json()) as Json).id as number);
      expect(row.encryptedPassword).toMatch(/^pbkdf2\$/);
    }
  });

  it("answers Grape's messages for missing parameters, in declaration order", async () => {
    const w = await world();
    expect(await statusAndBody(await w.root.post("/users", { json: {} }))).toEqual([
      400,
      {
        error:
          "email is missing, password, reset_password, force_random_password are missing, at least one parameter must be provided, name is missing, username is missing",
      },
    ]);
    const { password: _, ...noPassword } = newUser();
    expect(await statusAndBody(await w.root.post("/users", { json: noPassword }))).toEqual([
      400,
      { error: "password, reset_password, force_random_password are missing, at least one parameter must be provided" },
    ]);
    expect(await statusAndBody(await w.root.post("/users", { json: newUser({ provider: "github" }) }))).toEqual([
      400,
      { error: "extern_uid, provider provide all or none of parameters" },
    ]);
  });

  it("answers the model's validation errors", async () => {
    const w = await world();
    const res = await w.root.post("/users", {
      json: { password: "pass", email: `${unique("v")}@example.com`, username: "test!", name: "test", bio: "g".repeat(256), projects_limit: -1 },
    });
    expect(await statusAndBody(res)).toEqual([
      400,
      {
        message: {
          password: ["is too short (minimum is 8 characters)"],
          projects_limit: ["must be greater than or equal to 0"],
          username: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."],
          bio: ["is too long (maximum is 255 characters)"],
        },
      },
    ]);
    expect(await statusAndBody(await w.root.post("/users", { json: newUser({ password: "short" }) }))).toEqual([
      400,
      { message: { password: ["is too short (minimum is 8 characters)"] } },
    ]);
    expect(await statusAndBody(await w.root.post("/users", { json: newUser({ email: "invalid email" }) }))).toEqual([
      400,
      { message: { email: ["is invalid"] } },
    ]);
    expect(await statusAndBody(await w.root.post("/users", { json: newUser({ theme_id: 50, color_scheme_id: 50 }) }))).toEqual([
      400,
      { message: { theme_id: ["50 is not a valid theme"], color_scheme_id: ["50 is not a valid color scheme"] } },
    ]);
    expect(await statusAndBody(await w.root.post("/users", { json: newUser({ username: "admin" }) }))).toEqual([
      400,
      { message: { username: ["admin is a reserved name"] } },
    ]);
  });

  it("answers 409 for a taken e-mail or username (case-insensitive), even with other errors", async () => {
    const w = await world();
    const existing = await w.user();
    expect(await statusAndBody(await w.root.post("/users", { json: newUser({ email: existing.email.toUpperCase() }) }))).toEqual([
      409,
      { message: "Email has already been taken" },
    ]);
    expect(await statusAndBody(await w.root.post("/users", { json: newUser({ username: existing.username.toUpperCase() }) }))).toEqual([
      409,
      { message: "Username has already been taken" },
    ]);
    expect(
      await statusAndBody(await w.root.post("/users", { json: newUser({ username: existing.username, password: "short" }) })),
    ).toEqual([409, { message: "Username has already been taken" }]);
  });

  it("refuses a username that is another namespace's path", async () => {
    const w = await world();
    const group = await w.group({ path: unique("grp").replace(/-/g, "_") });
    expect(await statusAndBody(await w.root.post("/users", { json: newUser({ username: group.path }) }))).toEqual([
      400,
      { message: { base: ["A user, alias, or group already exists with that username."] } },
    ]);
  });

  it("is for administrators only: 401 anonymously, 403 for users", async () => {
    const w = await world();
    expect(await statusAndBody(await request("POST", "/users", null, { json: newUser() }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(w.stranger).post("/users", { json: newUser() }))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("PUT /users/:id", () => {
  it("changes only the fields sent; null text becomes empty", async () => {
    const w = await world();
    const u = await w.user();
    await setUser(w, u.id, { bio: "old bio", location: "Here", privateProfile: true });
    const res = await w.root.put(`/users/${u.id}`, { json: { bio: null, organization: "GitLab", note: "n", private_profile: null, skype: "sk" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: u.id, bio: "", organization: "GitLab", location: "Here", note: "n", messenger: "sk", private_profile: false });
    const row = await userRow(w, u.id);
    expect(row).toMatchObject({ bio: "", organization: "GitLab", location: "Here", note: "n", privateProfile: false, name: u.name });
  });

  it("renames the personal namespace and the paths of its projects", async () => {
    const w = await world();
    const u = await w.user();
    const project = await w.project({ owner: u });
    const username = unique("renamed").replace(/-/g, "_");
    const res = await w.root.put(`/users/${u.id}`, { form: { username, name: "Renamed Person" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ username, name: "Renamed Person", web_url: expect.stringMatching(new RegExp(`/${username}$`)) });
    expect(await namespaceOf(w, u.id)).toMatchObject({ path: username, fullPath: username, name: "Renamed Person", fullName: "Renamed Person" });
    const [p] = await w.db((db) => db.select().from(projects).where(eq(projects.id, project.id)));
    expect(p).toMatchObject({ fullPath: `${username}/${project.path}`, nameWithNamespace: `Renamed Person / ${project.name}` });
    // The project's old path redirects (`redirect_routes`, written by the rename's own statement).
    const old = await w.root.get(`/projects/${encodeURIComponent(project.fullPath)}`);
    expect([old.status, ((await old.json()) as Json).id]).toEqual([200, project.id]);
  });

  it("keeps a new e-mail unconfirmed unless skip_reconfirmation", async () => {
    const w = await world();
    const u = await w.user();
    const first = `${unique("mail")}@example.com`;
    const res = await w.root.put(`/users/${u.id}`, { json: { email: first } });
    expect(((await res.json()) as Json).email).toBe(u.email);
    expect(await userRow(w, u.id)).toMatchObject({ email: u.email, unconfirmedEmail: first });
    const second = `${unique("mail")}@example.com`;
    const skipped = await w.root.put(`/users/${u.id}`, { json: { email: second, skip_reconfirmation: true } });
    expect(((await skipped.json()) as Json).email).toBe(second);
    expect(await userRow(w, u.id)).toMatchObject({ email: second, unconfirmedEmail: null });
  });

  it("hashes a new password and makes it expire when an administrator sets another user's", async () => {
    const w = await world();
    const u = await w.user();
    expect((await w.root.put(`/users/${u.id}`, { json: { password: "a-new-password" } })).status).toBe(200);
    const row = await userRow(w, u.id);
    expect(row.encryptedPassword).toMatch(/^pbkdf2\$/);
    expect(row.passwordExpiresAt).not.toBeNull();
  });

  it("creates or updates the identity of a provider", async () => {
    const w = await world();
    const u = await w.user();
    await addIdentity(w, u.id, "ldapmain", "123");
    const res = await w.root.put(`/users/${u.id}`, { json: { provider: "ldapmain", extern_uid: "654321" } });
    expect(((await res.json()) as Json).identities).toEqual([{ provider: "ldapmain", extern_uid: "654321" }]);
    await w.root.put(`/users/${u.id}`, { json: { provider: "github", extern_uid: "john" } });
    const rows = await w.db((db) => db.select().from(identities).where(eq(identities.userId, u.id)));
    expect(rows.map((r) => [r.provider, r.externUid]).sort()).toEqual([
      ["github", "john"],
      ["ldapmain", "654321"],
    ]);
  });

  it("answers 404 with the conflict message for a taken e-mail or username, as the spec documents", async () => {
    const w = await world();
    const u = await w.user();
    const other = await w.user();
    expect(await statusAndBody(await w.root.put(`/users/${u.id}`, { json: { email: other.email } }))).toEqual([
      404,
      { message: "Email has already been taken" },
    ]);
    expect(await statusAndBody(await w.root.put(`/users/${u.id}`, { json: { username: other.username.toUpperCase() } }))).toEqual([
      404,
      { message: "Username has already been taken" },
    ]);
    expect((await w.root.put(`/users/${u.id}`, { json: { username: u.username, email: u.email } })).status).toBe(200);
    expect((await userRow(w, u.id)).username).toBe(u.username);
  });

  it("answers 400 for invalid changes", async () => {
    const w = await world();
    const u = await w.user();
    expect(await statusAndBody(await w.root.put(`/users/${u.id}`, { json: { email: "invalid email", theme_id: 50 } }))).toEqual([
      400,
      { message: { email: ["is invalid"], theme_id: ["50 is not a valid theme"] } },
    ]);
    expect(await statusAndBody(await w.root.put(`/users/${u.id}`, { json: { public_email: "someone@else.com" } }))).toEqual([
      400,
      { message: { public_email: ["is not an email you own"] } },
    ]);
    expect(await statusAndBody(await w.root.put(`/users/${u.id}`, { json: { extern_uid: "1" } }))).toEqual([
      400,
      { error: "extern_uid, provider provide all or none of parameters" },
    ]);
    expect(await statusAndBody(await w.root.put(`/users/${u.id}`, { json: { projects_limit: "lots" } }))).toEqual([
      400,
      { error: "projects_limit is invalid" },
    ]);
  });

  it("answers 404 User Not Found, 403 for users and 401 anonymously", async () => {
    const w = await world();
    expect(await statusAndBody(await w.root.put("/users/0", { json: { bio: "x" } }))).toEqual([404, { message: "404 User Not Found" }]);
    expect(await statusAndBody(await w.as(w.stranger).put(`/users/${w.stranger.id}`, { json: { note: "x" } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
    expect(await statusAndBody(await request("PUT", `/users/${w.stranger.id}`, null, { json: {} }))).toEqual([
      401,
      { message: "401 Unauthorized" },
    ]);
  });
});

describe("DELETE /users/:id", () => {
  it("deletes the user with their namespace, projects and the memberships of those projects; 204", async () => {
    const w = await world();
    const u = await w.user();
    const guest = await w.user();
    const project = await w.project({ owner: u, developers: [guest] });
    const group = await w.group({ developers: [u] });
    const res = await w.root.delete(`/users/${u.id}`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect(await userRow(w, u.id)).toBeUndefined();
    expect(await namespaceOf(w, u.id)).toBeUndefined();
    expect(await w.db((db) => db.select().from(projects).where(eq(projects.id, project.id)))).toEqual([]);
    expect(await w.db((db) => db.select().from(members).where(and(eq(members.sourceType, "Project"), eq(members.sourceId, project.id))))).toEqual([]);
    expect(await w.db((db) => db.select().from(members).where(eq(members.userId, u.id)))).toEqual([]);
    const [g] = await w.db((db) => db.select().from(namespaces).where(eq(namespaces.id, group.id)));
    expect(g.id).toBe(group.id);
  });

  it("refuses a sole group owner with 409 unless hard_delete, which deletes the group too", async () => {
    const w = await world();
    const u = await w.user();
    const other = await w.user();
    const group = await w.group({ owners: [u], developers: [other] });
    const sub = await w.group({ parent: group });
    const groupProject = await w.project({ group: sub });
    expect(await statusAndBody(await w.root.delete(`/users/${u.id}`))).toEqual([
      409,
      { message: "User cannot be removed while is the sole-owner of a group" },
    ]);
    expect(await userRow(w, u.id)).toBeDefined();
    expect((await w.root.delete(`/users/${u.id}`, { json: { hard_delete: true } })).status).toBe(204);
    expect(await w.db((db) => db.select().from(namespaces).where(eq(namespaces.id, sub.id)))).toEqual([]);
    expect(await w.db((db) => db.select().from(projects).where(eq(projects.id, groupProject.id)))).toEqual([]);
    expect(await w.db((db) => db.select().from(members).where(eq(members.userId, other.id)))).toEqual([]);
  });

  it("deletes a group owner who shares the ownership", async () => {
    const w = await world();
    const u = await w.user();
    const co = await w.user();
    const group = await w.group({ owners: [u, co] });
    expect((await w.root.delete(`/users/${u.id}`)).status).toBe(204);
    expect((await w.db((db) => db.select().from(namespaces).where(eq(namespaces.id, group.id)))).length).toBe(1);
  });

  it("answers 412 when If-Unmodified-Since is older than the user", async () => {
    const w = await world();
    const u = await w.user();
    const old = new Date(Date.now() - 3_600_000).toUTCString();
    expect(await statusAndBody(await w.root.delete(`/users/${u.id}`, { headers: { "If-Unmodified-Since": old } }))).toEqual([
      412,
      { message: "412 Precondition Failed" },
    ]);
  });

  it("answers 400 for a bad hard_delete, 404, 403 and 401", async () => {
    const w = await world();
    expect(await statusAndBody(await w.root.delete(`/users/${w.stranger.id}`, { query: { hard_delete: "perhaps" } }))).toEqual([
      400,
      { error: "hard_delete is invalid" },
    ]);
    expect(await statusAndBody(await w.root.delete("/users/0"))).toEqual([404, { message: "404 User Not Found" }]);
    expect(await statusAndBody(await w.as(w.stranger).delete(`/users/${w.stranger.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await request("DELETE", `/users/${w.stranger.id}`, null))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("POST /users/:id/block", () => {
  it("blocks: 201 true, then 201 null when already blocked", async () => {
    const w = await world();
    const u = await w.user();
    const res = await w.root.post(`/users/${u.id}/block`);
    expect(res.status).toBe(201);
    expect(await res.text()).toBe("true");
    expect((await userRow(w, u.id)).state).toBe("blocked");
    const again = await w.root.post(`/users/${u.id}/block`);
    expect(again.status).toBe(201);
    expect(await again.text()).toBe("null");
  });

  it("refuses internal users, the caller themselves, and non-admins", async () => {
    const w = await world();
    const bot = await w.user();
    await setUser(w, bot.id, { userType: "support_bot" });
    expect(await statusAndBody(await w.root.post(`/users/${bot.id}/block`))).toEqual([403, { message: "An internal user cannot be blocked" }]);
    const admin = await w.user({ admin: true });
    expect(await statusAndBody(await w.as(admin).post(`/users/${admin.id}/block`))).toEqual([
      403,
      { message: "403 Forbidden - The API initiating user cannot be blocked by the API" },
    ]);
    expect(await statusAndBody(await w.as(w.stranger).post(`/users/${bot.id}/block`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.root.post("/users/0/block"))).toEqual([404, { message: "404 User Not Found" }]);
  });
});

describe("POST /users/:id/unblock", () => {
  it("unblocks: 201 true, then 201 false when not blocked", async () => {
    const w = await world();
    const u = await w.user({ state: "blocked" });
    const res = await w.root.post(`/users/${u.id}/unblock`);
    expect([res.status, await res.text()]).toEqual([201, "true"]);
    expect((await userRow(w, u.id)).state).toBe("active");
    const again = await w.root.post(`/users/${u.id}/unblock`);
    expect([again.status, await again.text()]).toEqual([201, "false"]);
    expect(await statusAndBody(await w.as(w.stranger).post(`/users/${u.id}/unblock`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.root.post("/users/0/unblock"))).toEqual([404, { message: "404 User Not Found" }]);
  });
});

describe("DELETE /users/:id/identities/:provider", () => {
  it("deletes the identity: 204", async () => {
    const w = await world();
    const u = await w.user();
    await addIdentity(w, u.id, "ldapmain", "uid=1");
    await addIdentity(w, u.id, "github", "2");
    const res = await w.root.delete(`/users/${u.id}/identities/ldapmain`);
    expect(res.status).toBe(204);
    const rows = await w.db((db) => db.select().from(identities).where(eq(identities.userId, u.id)));
    expect(rows.map((r) => r.provider)).toEqual(["github"]);
  });

  it("answers 404 Identity Not Found, 404 User Not Found, 403 and 401", async () => {
    const w = await world();
    const u = await w.user();
    expect(await statusAndBody(await w.root.delete(`/users/${u.id}/identities/saml`))).toEqual([404, { message: "404 Identity Not Found" }]);
    expect(await statusAndBody(await w.root.delete("/users/0/identities/saml"))).toEqual([404, { message: "404 User Not Found" }]);
    expect(await statusAndBody(await w.as(u).delete(`/users/${u.id}/identities/saml`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await request("DELETE", `/users/${u.id}/identities/saml`, null))).toEqual([
      401,
      { message: "401 Unauthorized" },
    ]);
  });
});
