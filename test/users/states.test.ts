import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { users } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world, type TestUser, type World } from "../helpers/world";

type Json = Record<string, any>;

async function setState(w: World, user: TestUser, values: Partial<typeof users.$inferInsert>) {
  await w.db((db) => db.update(users).set(values).where(eq(users.id, user.id)));
}

async function stateOf(w: World, user: TestUser) {
  const [row] = await w.db((db) => db.select({ state: users.state }).from(users).where(eq(users.id, user.id)));
  return row.state;
}

describe("POST /users/:id/ban and /unban", () => {
  requiresAuthentication((w) => w.anonymous.post("/users/1/ban"));

  it("bans an active user (201 true): their token is refused as blocked; unban restores them", async () => {
    const w = await world();
    const target = await w.user();
    const res = await w.root.post(`/users/${target.id}/ban`);
    expect(await statusAndBody(res)).toEqual([201, true]);
    expect(await stateOf(w, target)).toBe("banned");
    expect(await statusAndBody(await w.as(target).get("/user"))).toEqual([403, { message: "403 Forbidden - Your account has been blocked." }]);
    expect(((await (await w.root.get(`/users/${target.id}`)).json()) as Json).state).toBe("banned");
    expect(await statusAndBody(await w.root.post(`/users/${target.id}/ban`))).toEqual([403, { message: "You cannot ban banned users." }]);
    expect(await statusAndBody(await w.root.post(`/users/${target.id}/unban`))).toEqual([201, true]);
    expect(await stateOf(w, target)).toBe("active");
    expect(await statusAndBody(await w.root.post(`/users/${target.id}/unban`))).toEqual([403, { message: "You cannot unban active users." }]);
  });

  it("refuses blocked users, non-admins (403) and unknown ids (404)", async () => {
    const w = await world();
    const target = await w.user();
    await setState(w, target, { state: "blocked" });
    expect(await statusAndBody(await w.root.post(`/users/${target.id}/ban`))).toEqual([403, { message: "You cannot ban blocked users." }]);
    expect(await statusAndBody(await w.as(w.stranger).post(`/users/${target.id}/ban`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.root.post("/users/2147483647/ban"))).toEqual([404, { message: "404 User Not Found" }]);
  });
});

describe("POST /users/:id/deactivate and /activate", () => {
  requiresAuthentication((w) => w.anonymous.post("/users/1/deactivate"));

  it("deactivates an inactive user (201 true, then null); their token gets GitLab's message; activate restores", async () => {
    const w = await world();
    const target = await w.user();
    expect(await statusAndBody(await w.root.post(`/users/${target.id}/deactivate`))).toEqual([201, true]);
    expect(await stateOf(w, target)).toBe("deactivated");
    expect(await statusAndBody(await w.root.post(`/users/${target.id}/deactivate`))).toEqual([201, null]);
    expect(await statusAndBody(await w.as(target).get("/user"))).toEqual([
      403,
      {
        message:
          "403 Forbidden - Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account at http://edgeforge.test",
      },
    ]);
    expect(await statusAndBody(await w.root.post(`/users/${target.id}/unblock`))).toEqual([
      403,
      { message: "403 Forbidden - Deactivated users cannot be unblocked by the API" },
    ]);
    expect(await statusAndBody(await w.root.post(`/users/${target.id}/activate`))).toEqual([201, true]);
    expect(await stateOf(w, target)).toBe("active");
    expect(await statusAndBody(await w.root.post(`/users/${target.id}/activate`))).toEqual([201, false]);
    expect((await w.as(target).get("/user")).status).toBe(200);
  });

  it("refuses recently active and blocked users", async () => {
    const w = await world();
    const recent = await w.user();
    await setState(w, recent, { lastActivityOn: new Date().toISOString().slice(0, 10) });
    expect(await statusAndBody(await w.root.post(`/users/${recent.id}/deactivate`))).toEqual([
      403,
      { message: "403 Forbidden - The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated" },
    ]);
    const blocked = await w.user();
    await setState(w, blocked, { state: "blocked" });
    expect(await statusAndBody(await w.root.post(`/users/${blocked.id}/deactivate`))).toEqual([
      403,
      { message: "403 Forbidden - A blocked user cannot be deactivated by the API" },
    ]);
    expect(await statusAndBody(await w.root.post(`/users/${blocked.id}/activate`))).toEqual([
      403,
      { message: "403 Forbidden - A blocked user must be unblocked to be activated" },
    ]);
    expect(await statusAndBody(await w.as(w.stranger).post(`/users/${blocked.id}/activate`))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("GET /users/:user_id/memberships", () => {
  requiresAuthentication((w) => w.anonymous.get("/users/1/memberships"));

  it("lists a user's project and group memberships to admins, filtered by type and paginated", async () => {
    const w = await world();
    const member = await w.user();
    const group = await w.group({ developers: [member] });
    const project = await w.project({ reporters: [member] });
    const res = await w.root.get(`/users/${member.id}/memberships`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { source_id: group.id, source_name: group.name, source_type: "Namespace", access_level: 30 },
      { source_id: project.id, source_name: project.name, source_type: "Project", access_level: 20 },
    ]);
    const projects = (await (await w.root.get(`/users/${member.id}/memberships`, { query: { type: "Project" } })).json()) as Json[];
    expect(projects.map((m) => m.source_id)).toEqual([project.id]);
    const one = await w.root.get(`/users/${member.id}/memberships`, { query: { per_page: 1 } });
    expect(one.headers.get("x-total")).toBe("2");
    expect(one.headers.get("x-next-page")).toBe("2");
    expect(await statusAndBody(await w.root.get(`/users/${member.id}/memberships`, { query: { type: "Group" } }))).toEqual([
      400,
      { error: "type does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.as(member).get(`/users/${member.id}/memberships`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.root.get("/users/2147483647/memberships"))).toEqual([404, { message: "404 User Not Found" }]);
  });
});
