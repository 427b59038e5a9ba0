import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { addMember, BASES, dateIn, setUser, source, storedMember } from "./fixtures";

for (const base of BASES) {
  const missing = base === "groups" ? "404 Group Not Found" : "404 Project Not Found";

  describe(`POST /${base}/:id/members`, () => {
    it("adds a member: 201 with the entity, stored with its creator and expiry", async () => {
      const w = await world();
      const s = await source(w, base);
      const res = await w.as(s.manager).post(`${s.path}/members`, {
        json: { user_id: w.stranger.id, access_level: 30, expires_at: dateIn(7) },
      });
      expect(res.status).toBe(201);
      expect(await res.json()).toMatchObject({
        id: w.stranger.id,
        username: w.stranger.username,
        access_level: 30,
        expires_at: dateIn(7),
        created_by: { id: s.manager.id, username: s.manager.username },
        membership_state: "active",
      });
      expect(await storedMember(w, base, s.id, w.stranger.id)).toMatchObject({
        accessLevel: 30,
        expiresAt: dateIn(7),
        createdById: s.manager.id,
      });
      expect(Number(res.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
    });

    it("takes query-string parameters (python-gitlab) and a datetime expiry", async () => {
      const w = await world();
      const s = await source(w, base);
      const res = await w.as(s.manager).post(`${s.path}/members`, {
        query: { user_id: String(w.stranger.id), access_level: 10, expires_at: `${dateIn(2)}T10:00:00Z` },
        json: {},
      });
      expect(res.status).toBe(201);
      expect(await storedMember(w, base, s.id, w.stranger.id)).toMatchObject({ accessLevel: 10, expiresAt: dateIn(2) });
    });

    it("answers 409 for an existing member and 404 for an unknown user", async () => {
      const w = await world();
      const dev = await w.user();
      const s = await source(w, base, { developers: [dev] });
      expect(await statusAndBody(await w.as(s.manager).post(`${s.path}/members`, { json: { user_id: dev.id, access_level: 40 } }))).toEqual([
        409,
        { message: "Member already exists" },
      ]);
      expect(await statusAndBody(await w.as(s.manager).post(`${s.path}/members`, { json: { user_id: 2147483000, access_level: 30 } }))).toEqual([
        404,
        { message: "404 User Not Found" },
      ]);
      expect((await storedMember(w, base, s.id, dev.id))?.accessLevel).toBe(30);
    });

    it("answers Grape's 400 for missing or malformed parameters", async () => {
      const w = await world();
      const s = await source(w, base);
      const as = w.as(s.manager);
      expect(await statusAndBody(await as.post(`${s.path}/members`, { json: {} }))).toEqual([
        400,
        { error: "access_level is missing, user_id is missing" },
      ]);
      expect(
        await statusAndBody(await as.post(`${s.path}/members`, { json: { user_id: [1], access_level: "dev", expires_at: "soon" } })),
      ).toEqual([400, { error: "access_level is invalid, user_id is invalid, expires_at is invalid" }]);
    });

    it("answers the model's 400 for a bad level or a past expiry", async () => {
      const w = await world();
      const s = await source(w, base);
      const as = w.as(s.manager);
      expect(await statusAndBody(await as.post(`${s.path}/members`, { json: { user_id: w.stranger.id, access_level: 35 } }))).toEqual([
        400,
        { message: { access_level: ["is not included in the list"] } },
      ]);
      expect(
        await statusAndBody(await as.post(`${s.path}/members`, { json: { user_id: w.stranger.id, access_level: 99, expires_at: dateIn(-2) } })),
      ).toEqual([400, { message: { expires_at: ["cannot be a date in the past"], access_level: ["is not included in the list"] } }]);
      expect(await storedMember(w, base, s.id, w.stranger.id)).toBeUndefined();
    });

    it("refuses a level below an inherited membership", async () => {
      const w = await world();
      const parent = await w.group({ developers: [w.stranger] });
      const manager = await w.user();
      const s =
        base === "groups"
          ? { path: `/groups/${(await w.group({ parent, owners: [manager] })).id}` }
          : { path: `/projects/${(await w.project({ group: parent, maintainers: [manager] })).id}` };
      expect(await statusAndBody(await w.as(manager).post(`${s.path}/members`, { json: { user_id: w.stranger.id, access_level: 20 } }))).toEqual([
        400,
        { message: { access_level: [`should be greater than or equal to Developer inherited membership from group ${parent.name}`] } },
      ]);
      expect((await w.as(manager).post(`${s.path}/members`, { json: { user_id: w.stranger.id, access_level: 40 } })).status).toBe(201);
    });

    it("refuses project bots that belong elsewhere", async () => {
      const w = await world();
      const bot = await w.user();
      await setUser(w, bot, { userType: "project_bot" });
      await w.project({ developers: [bot] });
      const s = await source(w, base);
      expect(await statusAndBody(await w.as(s.manager).post(`${s.path}/members`, { json: { user_id: bot.id, access_level: 30 } }))).toEqual([
        400,
        { message: { user_id: ["project bots cannot be added to other groups / projects"] } },
      ]);
    });

    it("adds several comma-separated users: 201 success, unknown ids skipped, existing members updated", async () => {
      const w = await world();
      const [a, b, existing] = [await w.user(), await w.user(), await w.user()];
      const s = await source(w, base, { guests: [existing] });
      const res = await w.as(s.manager).post(`${s.path}/members`, {
        form: { user_id: `${a.id},${b.id},${existing.id},2147483000`, access_level: 20 },
      });
      expect(await statusAndBody(res)).toEqual([201, { status: "success" }]);
      for (const user of [a, b, existing]) expect((await storedMember(w, base, s.id, user.id))?.accessLevel).toBe(20);
      expect((await storedMember(w, base, s.id, a.id))?.createdById).toBe(s.manager.id);
    });

    it("answers 201 with the service's error sentence when some users are invalid", async () => {
      const w = await world();
      const [a, b] = [await w.user(), await w.user()];
      const s = await source(w, base);
      const res = await w.as(s.manager).post(`${s.path}/members`, { json: { user_id: `${a.id},${b.id}`, access_level: 99 } });
      expect(await statusAndBody(res)).toEqual([
        201,
        { message: `${a.username}: Access level is not included in the list and ${b.username}: Access level is not included in the list`, status: "error" },
      ]);
      expect(await storedMember(w, base, s.id, a.id)).toBeUndefined();
      expect(await statusAndBody(await w.as(s.manager).post(`${s.path}/members`, { json: { user_id: ",", access_level: 30 } }))).toEqual([
        201,
        { message: "No users specified.", status: "error" },
      ]);
    });

    it("answers 403 to every role below the managing one", async () => {
      const w = await world();
      const roles = base === "groups" ? (["guest", "reporter", "developer", "maintainer"] as const) : (["guest", "reporter", "developer"] as const);
      const users = await Promise.all(roles.map(() => w.user()));
      const s = await source(w, base, Object.fromEntries(roles.map((role, i) => [`${role}s`, [users[i]]])));
      for (const user of users) {
        const res = await w.as(user).post(`${s.path}/members`, { json: { user_id: w.stranger.id, access_level: 10 } });
        expect(await statusAndBody(res)).toEqual([403, { message: "403 Forbidden" }]);
        expect((await w.as(user).put(`${s.path}/members/${s.manager.id}`, { json: { access_level: 10 } })).status).toBe(403);
        expect((await w.as(user).delete(`${s.path}/members/${s.manager.id}`)).status).toBe(403);
      }
      expect(await storedMember(w, base, s.id, w.stranger.id)).toBeUndefined();
    });

    it("forbids members who cannot administer members, hides private sources, needs a user", async () => {
      const w = await world();
      const weak = await w.user();
      const s = await source(w, base, base === "groups" ? { maintainers: [weak] } : { developers: [weak] });
      const body = { json: { user_id: w.stranger.id, access_level: 30 } };
      expect(await statusAndBody(await w.as(weak).post(`${s.path}/members`, body))).toEqual([403, { message: "403 Forbidden" }]);
      expect(await statusAndBody(await w.as(w.stranger).post(`${s.path}/members`, body))).toEqual([404, { message: missing }]);
      expect(await statusAndBody(await w.anonymous.post(`${s.path}/members`, body))).toEqual([401, { message: "401 Unauthorized" }]);
      const readOnly = await w.user({ scopes: ["read_api"] });
      await addMember(w, base === "groups" ? "Namespace" : "Project", s.id, readOnly, 50);
      expect((await w.as(readOnly).post(`${s.path}/members`, body)).status).toBe(403);
      expect(await storedMember(w, base, s.id, w.stranger.id)).toBeUndefined();
    });
  });
}

describe("POST /projects/:id/members (Owner role)", () => {
  it("lets only owners grant Owner", async () => {
    const w = await world();
    const s = await source(w, "projects");
    const [one, two] = [await w.user(), await w.user()];
    expect(await statusAndBody(await w.as(s.manager).post(`${s.path}/members`, { json: { user_id: one.id, access_level: 50 } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
    expect(
      await statusAndBody(await w.as(s.manager).post(`${s.path}/members`, { json: { user_id: `${one.id},${two.id}`, access_level: 50 } })),
    ).toEqual([403, { message: "403 Forbidden" }]);
    const res = await w.as(s.holder!).post(`${s.path}/members`, { json: { user_id: one.id, access_level: 50 } });
    expect(res.status).toBe(201);
    expect((await storedMember(w, "projects", s.id, one.id))?.accessLevel).toBe(50);
  });
});

describe("POST /groups/:id/members (Minimal Access)", () => {
  it("accepts Minimal Access on a root group only", async () => {
    const w = await world();
    const s = await source(w, "groups");
    expect((await w.as(s.manager).post(`${s.path}/members`, { json: { user_id: w.stranger.id, access_level: 5 } })).status).toBe(201);
    const sub = await w.group({ parent: s.group! });
    expect(await statusAndBody(await w.as(s.manager).post(`/groups/${sub.id}/members`, { json: { user_id: w.stranger.id, access_level: 5 } }))).toEqual([
      400,
      { message: { access_level: ["is not included in the list"] } },
    ]);
  });
});
