import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { projects, users, usersStarProjects } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world, type TestProject, type World } from "../helpers/world";

type Json = Record<string, any>;

const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));

async function starCount(w: World, project: TestProject): Promise<number> {
  const [row] = await w.db((db) => db.select({ n: projects.starCount }).from(projects).where(eq(projects.id, project.id)));
  return row.n;
}

async function starRows(w: World, project: TestProject) {
  return w.db((db) => db.select({ userId: usersStarProjects.userId }).from(usersStarProjects).where(eq(usersStarProjects.projectId, project.id)));
}

describe("POST /projects/:id/star", () => {
  requiresAuthentication((w) => w.anonymous.post("/projects/1/star"));
  hidesPrivateProject((w, project) => w.as(w.stranger).post(`/projects/${project.id}/star`));

  it("stars a readable project: 201 with the project and its star_count; 304 the second time", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const fan = await w.user();
    const res = await w.as(fan).post(`/projects/${project.id}/star`);
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body.id).toBe(project.id);
    expect(body.star_count).toBe(1);
    expect(body).toHaveProperty("_links");
    expect(queryCount(res)).toBeLessThanOrEqual(6);
    const again = await w.as(fan).post(`/projects/${project.id}/star`);
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(await starCount(w, project)).toBe(1);
    expect(await starRows(w, project)).toEqual([{ userId: fan.id }]);
    // Another user's star adds to the count.
    const other = (await (await w.as(w.stranger).post(`/projects/${project.id}/star`)).json()) as Json;
    expect(other.star_count).toBe(2);
  });

  it("accepts the URL-encoded path", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const res = await w.as(owner).post(`/projects/${encodeURIComponent(project.fullPath)}/star`);
    expect(res.status).toBe(201);
    expect(((await res.json()) as Json).star_count).toBe(1);
  });
});

describe("POST /projects/:id/unstar", () => {
  requiresAuthentication((w) => w.anonymous.post("/projects/1/unstar"));
  hidesPrivateProject((w, project) => w.as(w.stranger).post(`/projects/${project.id}/unstar`));

  it("unstars: 201 with the decremented star_count; 304 when not starred", async () => {
    const w = await world();
    const project = await w.project({ visibility: "internal" });
    const fan = await w.user();
    const notYet = await w.as(fan).post(`/projects/${project.id}/unstar`);
    expect(notYet.status).toBe(304);
    expect(await starCount(w, project)).toBe(0);
    expect((await w.as(fan).post(`/projects/${project.id}/star`)).status).toBe(201);
    const res = await w.as(fan).post(`/projects/${project.id}/unstar`);
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body.id).toBe(project.id);
    expect(body.star_count).toBe(0);
    expect(queryCount(res)).toBeLessThanOrEqual(6);
    expect(await starRows(w, project)).toEqual([]);
    expect((await w.as(fan).post(`/projects/${project.id}/unstar`)).status).toBe(304);
  });
});

describe("GET /projects/:id/starrers", () => {
  hidesPrivateProject((w, project) => w.as(w.stranger).get(`/projects/${project.id}/starrers`));

  it("lists starrers newest first with starred_since and the user, to anonymous callers of a public project", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const first = await w.user({ name: "Alpha Starrer" });
    const second = await w.user({ name: "Beta Starrer" });
    await w.as(first).post(`/projects/${project.id}/star`);
    await w.as(second).post(`/projects/${project.id}/star`);
    const res = await w.anonymous.get(`/projects/${project.id}/starrers`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.map((s) => s.user.id)).toEqual([second.id, first.id]);
    expect(body[0]).toEqual({
      starred_since: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      user: {
        id: second.id,
        username: second.username,
        name: "Beta Starrer",
        state: "active",
        avatar_url: expect.any(String),
        web_url: `http://edgeforge.test/${second.username}`,
      },
    });
    const found = (await (await w.anonymous.get(`/projects/${project.id}/starrers`, { query: { search: "alpha" } })).json()) as Json[];
    expect(found.map((s) => s.user.id)).toEqual([first.id]);
  });

  it("leaves out users with a private profile, except for themselves and admins", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const shy = await w.user();
    await w.as(shy).post(`/projects/${project.id}/star`);
    await w.db((db) => db.update(users).set({ privateProfile: true }).where(eq(users.id, shy.id)));
    expect(await (await w.as(w.stranger).get(`/projects/${project.id}/starrers`)).json()).toEqual([]);
    expect(((await (await w.as(shy).get(`/projects/${project.id}/starrers`)).json()) as Json[]).map((s) => s.user.id)).toEqual([shy.id]);
    expect(((await (await w.root.get(`/projects/${project.id}/starrers`)).json()) as Json[]).map((s) => s.user.id)).toEqual([shy.id]);
  });

  it("paginates with a flat statement count", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    for (let i = 0; i < 3; i++) await w.as(await w.user()).post(`/projects/${project.id}/star`);
    const one = await w.anonymous.get(`/projects/${project.id}/starrers`, { query: { per_page: 1 } });
    expect(one.headers.get("x-total")).toBe("3");
    expect(one.headers.get("x-next-page")).toBe("2");
    expect((await one.json()) as Json[]).toHaveLength(1);
    const hundred = await w.anonymous.get(`/projects/${project.id}/starrers`, { query: { per_page: 100 } });
    expect((await hundred.json()) as Json[]).toHaveLength(3);
    expect(queryCount(one)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
  });

  it("answers 400 for bad parameters", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/starrers`, { query: { per_page: "x" } }))).toEqual([
      400,
      { error: "per_page is invalid" },
    ]);
  });
});

describe("GET /users/:user_id/starred_projects", () => {
  it("lists the projects the user starred that the caller may read", async () => {
    const w = await world();
    const fan = await w.user();
    const open = await w.project({ visibility: "public" });
    const secret = await w.project({ visibility: "private", developers: [fan] });
    const unstarred = await w.project({ visibility: "public" });
    await w.as(fan).post(`/projects/${open.id}/star`);
    await w.as(fan).post(`/projects/${secret.id}/star`);
    const mine = (await (await w.as(fan).get(`/users/${fan.id}/starred_projects`)).json()) as Json[];
    expect(mine.map((p) => p.id).sort()).toEqual([open.id, secret.id].sort());
    expect(mine.map((p) => p.id)).not.toContain(unstarred.id);
    expect(mine[0]).toHaveProperty("permissions");
    const seen = (await (await w.anonymous.get(`/users/${fan.id}/starred_projects`)).json()) as Json[];
    expect(seen.map((p) => p.id)).toEqual([open.id]);
    expect(seen[0]).not.toHaveProperty("permissions");
    // `:user_id` is the id or the username (find_user).
    const byName = (await (await w.anonymous.get(`/users/${fan.username}/starred_projects`)).json()) as Json[];
    expect(byName.map((p) => p.id)).toEqual([open.id]);
  });

  it("is empty for a private profile, except for the user and admins; 404 for an unknown user", async () => {
    const w = await world();
    const fan = await w.user();
    const open = await w.project({ visibility: "public" });
    await w.as(fan).post(`/projects/${open.id}/star`);
    await w.db((db) => db.update(users).set({ privateProfile: true }).where(eq(users.id, fan.id)));
    expect(await (await w.as(w.stranger).get(`/users/${fan.id}/starred_projects`)).json()).toEqual([]);
    expect(((await (await w.root.get(`/users/${fan.id}/starred_projects`)).json()) as Json[]).map((p) => p.id)).toEqual([open.id]);
    expect(await statusAndBody(await w.anonymous.get(`/users/99999999/starred_projects`))).toEqual([404, { message: "404 User Not Found" }]);
  });

  it("paginates with a flat statement count", async () => {
    const w = await world();
    const fan = await w.user();
    for (let i = 0; i < 3; i++) {
      const project = await w.project({ visibility: "public" });
      await w.as(fan).post(`/projects/${project.id}/star`);
    }
    const one = await w.as(fan).get(`/users/${fan.id}/starred_projects`, { query: { per_page: 1 } });
    expect(one.headers.get("x-total")).toBe("3");
    expect((await one.json()) as Json[]).toHaveLength(1);
    const hundred = await w.as(fan).get(`/users/${fan.id}/starred_projects`, { query: { per_page: 100 } });
    expect((await hundred.json()) as Json[]).toHaveLength(3);
    expect(queryCount(one)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
  });
});

describe("GET /projects?starred=true", () => {
  it("lists the caller's starred projects", async () => {
    const w = await world();
    const fan = await w.user();
    const starred = await w.project({ visibility: "public" });
    await w.project({ visibility: "public" });
    await w.as(fan).post(`/projects/${starred.id}/star`);
    const list = (await (await w.as(fan).get(`/projects`, { query: { starred: true } })).json()) as Json[];
    expect(list.map((p) => p.id)).toEqual([starred.id]);
  });
});
