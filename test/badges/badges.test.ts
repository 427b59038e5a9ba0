import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";
import { gitRefs, projects } from "../../db/schema";
import { eq } from "drizzle-orm";

type Badge = { id: number; name: string | null; link_url: string; image_url: string; rendered_link_url: string; rendered_image_url: string; kind: string };

const LINK = "https://ci.example.com/%{project_path}/-/commits/%{default_branch}";
const IMAGE = "https://ci.example.com/%{project_id}/%{commit_sha}/badge.svg";
const SHA = "0123456789abcdef0123456789abcdef01234567";

async function setup() {
  const w = await world();
  const owner = await w.user();
  const maintainer = await w.user();
  const group = await w.group({ owners: [owner], visibility: "public" });
  const project = await w.project({ group, maintainers: [maintainer], visibility: "public" });
  await w.db(async (db) => {
    await db.update(projects).set({ defaultBranch: "main" }).where(eq(projects.id, project.id));
    await db.insert(gitRefs).values({ projectId: project.id, name: "refs/heads/main", target: SHA });
  });
  return { w, owner, maintainer, group, project };
}

describe("POST /projects/:id/badges", () => {
  it("creates a badge with its placeholders rendered from the project", async () => {
    const { w, maintainer, project } = await setup();
    const res = await w.as(maintainer).post(`/projects/${project.id}/badges`, { json: { link_url: LINK, image_url: IMAGE, name: "ci" } });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({
      id: expect.any(Number),
      name: "ci",
      link_url: LINK,
      image_url: IMAGE,
      rendered_link_url: `https://ci.example.com/${project.fullPath}/-/commits/main`,
      rendered_image_url: `https://ci.example.com/${project.id}/${SHA}/badge.svg`,
      kind: "project",
    });
  });

  it("answers 400 for missing and invalid URLs", async () => {
    const { w, maintainer, project } = await setup();
    const post = (json: unknown) => w.as(maintainer).post(`/projects/${project.id}/badges`, { json });
    expect(await statusAndBody(await post({ link_url: LINK }))).toEqual([400, { error: "image_url is missing" }]);
    expect(await statusAndBody(await post({ link_url: "ftp://x.example.com", image_url: "nope" }))).toEqual([
      400,
      { message: { link_url: ["is blocked: Only allowed schemes are http, https"], image_url: ["must be a valid URL"] } },
    ]);
  });

  forbidsRoles(["developer"], (w, p, user) => w.as(user).post(`/projects/${p.id}/badges`, { json: { link_url: LINK, image_url: IMAGE } }));
  hidesPrivateProject((w, p) => w.as(w.stranger).post(`/projects/${p.id}/badges`, { json: { link_url: LINK, image_url: IMAGE } }));
});

describe("GET /projects/:id/badges", () => {
  it("lists the project's and its groups' badges (kind), by creation, filtered by name", async () => {
    const { w, owner, maintainer, group, project } = await setup();
    const sub = await w.group({ parent: group, owners: [owner], visibility: "public" });
    const inner = await w.project({ group: sub, visibility: "public" });
    await w.as(owner).post(`/groups/${group.id}/badges`, { json: { link_url: "https://g.example.com/%{project_path}", image_url: IMAGE, name: "group" } });
    await w.as(maintainer).post(`/projects/${project.id}/badges`, { json: { link_url: LINK, image_url: IMAGE, name: "own" } });
    const list = (await (await w.anonymous.get(`/projects/${project.id}/badges`)).json()) as Badge[];
    expect(list.map((b) => [b.name, b.kind])).toEqual([["group", "group"], ["own", "project"]]);
    expect(list[0].rendered_link_url).toBe(`https://g.example.com/${project.fullPath}`);
    const innerList = (await (await w.anonymous.get(`/projects/${inner.id}/badges`)).json()) as Badge[];
    expect(innerList.map((b) => [b.name, b.rendered_link_url])).toEqual([["group", `https://g.example.com/${inner.fullPath}`]]);
    const named = (await (await w.anonymous.get(`/projects/${project.id}/badges`, { query: { name: "own" } })).json()) as Badge[];
    expect(named.map((b) => b.name)).toEqual(["own"]);
    expect(((await (await w.anonymous.get(`/projects/${project.id}/badges`, { query: { name: "OWN" } })).json()) as Badge[]).length).toBe(0);
    const one = await w.anonymous.get(`/projects/${project.id}/badges`, { query: { per_page: 1 } });
    const many = await w.anonymous.get(`/projects/${project.id}/badges`, { query: { per_page: 100 } });
    expect(one.headers.get("x-total")).toBe("2");
    expect(one.headers.get("x-query-count")).toBe(many.headers.get("x-query-count"));
    expect(Number(many.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
  });

  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/badges`));
});

describe("GET /projects/:id/badges/render", () => {
  it("renders without saving", async () => {
    const { w, maintainer, project } = await setup();
    const res = await w.as(maintainer).get(`/projects/${project.id}/badges/render`, { query: { link_url: LINK, image_url: IMAGE } });
    expect(await res.json()).toEqual({
      name: null,
      link_url: LINK,
      image_url: IMAGE,
      rendered_link_url: `https://ci.example.com/${project.fullPath}/-/commits/main`,
      rendered_image_url: `https://ci.example.com/${project.id}/${SHA}/badge.svg`,
    });
    expect(await (await w.as(maintainer).get(`/projects/${project.id}/badges`)).json()).toEqual([]);
  });

  it("answers 401 anonymously and 403 for developers", async () => {
    const { w, project } = await setup();
    const dev = await w.user();
    await w.addMembers("Project", project.id, { developers: [dev] });
    const query = { link_url: LINK, image_url: IMAGE };
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/badges/render`, { query }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(dev).get(`/projects/${project.id}/badges/render`, { query }))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("PUT /projects/:id/badges/:badge_id", () => {
  it("changes the sent fields; a group badge is not the project's to change", async () => {
    const { w, owner, maintainer, group, project } = await setup();
    const own = (await (await w.as(maintainer).post(`/projects/${project.id}/badges`, { json: { link_url: LINK, image_url: IMAGE } })).json()) as Badge;
    const res = await w.as(maintainer).put(`/projects/${project.id}/badges/${own.id}`, { json: { name: "renamed", link_url: "https://x.example.com/%{project_id}" } });
    expect(await res.json()).toMatchObject({ id: own.id, name: "renamed", image_url: IMAGE, rendered_link_url: `https://x.example.com/${project.id}` });
    const groupBadge = (await (await w.as(owner).post(`/groups/${group.id}/badges`, { json: { link_url: LINK, image_url: IMAGE } })).json()) as Badge;
    expect(await statusAndBody(await w.as(maintainer).put(`/projects/${project.id}/badges/${groupBadge.id}`, { json: { name: "x" } }))).toEqual([
      404,
      { message: "404 Not found" },
    ]);
    expect(await (await w.anonymous.get(`/projects/${project.id}/badges/${groupBadge.id}`)).json()).toMatchObject({ kind: "group" });
  });
});

describe("DELETE /projects/:id/badges/:badge_id", () => {
  it("answers 204, then 404", async () => {
    const { w, maintainer, project } = await setup();
    const own = (await (await w.as(maintainer).post(`/projects/${project.id}/badges`, { json: { link_url: LINK, image_url: IMAGE } })).json()) as Badge;
    expect((await w.as(maintainer).delete(`/projects/${project.id}/badges/${own.id}`)).status).toBe(204);
    expect(await statusAndBody(await w.as(maintainer).delete(`/projects/${project.id}/badges/${own.id}`))).toEqual([404, { message: "404 Not found" }]);
  });

  forbidsRoles(["developer"], (w, p, user) => w.as(user).delete(`/projects/${p.id}/badges/1`));
});

describe("/groups/:id/badges", () => {
  it("Owners manage group badges, rendered with the group's newest visible project", async () => {
    const { w, owner, maintainer, group, project } = await setup();
    const res = await w.as(owner).post(`/groups/${group.id}/badges`, { json: { link_url: LINK, image_url: IMAGE } });
    expect(res.status).toBe(201);
    const created = (await res.json()) as Badge;
    expect(created).toMatchObject({ kind: "group", rendered_link_url: `https://ci.example.com/${project.fullPath}/-/commits/main` });
    expect(((await (await w.anonymous.get(`/groups/${group.id}/badges`)).json()) as Badge[]).map((b) => b.id)).toEqual([created.id]);
    expect(await statusAndBody(await w.as(maintainer).post(`/groups/${group.id}/badges`, { json: { link_url: LINK, image_url: IMAGE } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
    expect((await w.as(owner).delete(`/groups/${group.id}/badges/${created.id}`)).status).toBe(204);
  });
});
