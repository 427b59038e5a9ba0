import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { members, projectGroupLinks, projects } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { unique, world, type World } from "../helpers/world";

type Json = Record<string, any>;

async function projectRow(w: World, id: number) {
  return w.db(async (db) => (await db.select().from(projects).where(eq(projects.id, id)))[0]);
}

async function share(w: World, projectId: number, groupId: number, groupAccess = 30) {
  await w.db((db) => db.insert(projectGroupLinks).values({ projectId, groupId, groupAccess }));
}

describe("GET /projects/:id", () => {
  hidesPrivateProject((w, project) => w.as(w.stranger).get(`/projects/${project.id}`));

  it("finds a project by id or by URL-encoded path, case-insensitively, with the caller's permissions", async () => {
    const w = await world();
    const owner = await w.user();
    const member = await w.user();
    const group = await w.group({ developers: [member] });
    const project = await w.project({ group, maintainers: [member] });
    const byId = await w.as(member).get(`/projects/${project.id}`);
    expect(byId.status).toBe(200);
    // The token, then the project with its namespace, owner, levels and shared groups in one statement.
    expect(Number(byId.headers.get("x-query-count"))).toBe(2);
    const body = (await byId.json()) as Json;
    expect(body).toMatchObject({
      id: project.id,
      path_with_namespace: project.fullPath,
      namespace: { id: group.id, kind: "group", full_path: group.fullPath, web_url: `http://edgeforge.test/groups/${group.fullPath}` },
      permissions: { project_access: { access_level: 40, notification_level: 3 }, group_access: { access_level: 30, notification_level: 3 } },
      _links: { self: `http://edgeforge.test/api/v4/projects/${project.id}`, members: `http://edgeforge.test/api/v4/projects/${project.id}/members` },
    });
    expect(body).not.toHaveProperty("owner");
    const byPath = await w.as(member).get(`/projects/${encodeURIComponent(project.fullPath.toUpperCase())}`);
    expect(((await byPath.json()) as Json).id).toBe(project.id);
    expect(Number(byPath.headers.get("x-query-count"))).toBe(2);

    const personal = await w.project({ owner });
    const mine = (await (await w.as(owner).get(`/projects/${personal.id}`)).json()) as Json;
    expect(mine).toMatchObject({ owner: { id: owner.id }, permissions: { project_access: { access_level: 50 }, group_access: null } });
  });

  it("answers 404 for a path without a namespace and for unknown ids", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${project.path}`))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/2147480000`))).toEqual([404, { message: "404 Project Not Found" }]);
  });

  it("shows public projects to anonymous callers as basic details, internal ones to signed-in non-external users only", async () => {
    const w = await world();
    const external = await w.user({ external: true });
    const publicProject = await w.project({ visibility: "public" });
    const internal = await w.project({ visibility: "internal" });
    const anonymous = (await (await w.anonymous.get(`/projects/${publicProject.id}`)).json()) as Json;
    expect(anonymous).toMatchObject({ id: publicProject.id, default_branch: "main", readme_url: null, namespace: { kind: "user" } });
    expect(anonymous).not.toHaveProperty("_links");
    expect(anonymous).not.toHaveProperty("permissions");
    expect((await w.as(w.stranger).get(`/projects/${internal.id}`)).status).toBe(200);
    for (const client of [w.anonymous, w.as(external)])
      expect(await statusAndBody(await client.get(`/projects/${internal.id}`))).toEqual([404, { message: "404 Project Not Found" }]);
    expect((await w.root.get(`/projects/${(await w.project()).id}`)).status).toBe(200);
  });

  it("hides repository fields from guests of a private project and lists readable shared groups", async () => {
    const w = await world();
    const guest = await w.user();
    const project = await w.project({ guests: [guest] });
    const visibleGroup = await w.group({ visibility: "public" });
    const hiddenGroup = await w.group({ visibility: "private" });
    await share(w, project.id, visibleGroup.id, 20);
    await share(w, project.id, hiddenGroup.id, 30);
    const body = (await (await w.as(guest).get(`/projects/${project.id}`)).json()) as Json;
    expect(body).not.toHaveProperty("default_branch");
    expect(body).not.toHaveProperty("readme_url");
    expect(body).not.toHaveProperty("forks_count");
    expect(body.shared_with_groups).toEqual([
      { group_id: visibleGroup.id, group_name: visibleGroup.name, group_full_path: visibleGroup.fullPath, group_access_level: 20, expires_at: null },
    ]);
    const admin = (await (await w.root.get(`/projects/${project.id}`)).json()) as Json;
    expect(admin.shared_with_groups.map((g: Json) => g.group_id)).toEqual([visibleGroup.id, hiddenGroup.id]);
  });
});

describe("PUT /projects/:id", () => {
  requiresAuthentication((w) => w.anonymous.put("/projects/1", { json: { name: "x" } }));
  hidesPrivateProject((w, project) => w.as(w.stranger).put(`/projects/${project.id}`, { json: { description: "x" } }));
  forbidsRoles(["guest", "reporter", "developer"], (w, project, user) => w.as(user).put(`/projects/${project.id}`, { json: { description: "x" } }));

  it("changes only the sent keys and keeps full_path and name_with_namespace in sync", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const path = unique("renamed");
    const res = await w.as(owner).put(`/projects/${project.id}`, {
      json: { name: "Renamed Project", path, description: "new", topics: ["x"], wiki_enabled: false, visibility: "public" },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      name: "Renamed Project",
      path,
      path_with_namespace: `${owner.username}/${path}`,
      name_with_namespace: `${owner.name} / Renamed Project`,
      description: "new",
      topics: ["x"],
      wiki_enabled: false,
      visibility: "public",
      issues_enabled: true,
    });
    expect(body).not.toHaveProperty("permissions");
    expect(await projectRow(w, project.id)).toMatchObject({
      fullPath: `${owner.username}/${path}`,
      nameWithNamespace: `${owner.name} / Renamed Project`,
      visibilityLevel: 20,
      wikiEnabled: false,
    });
    const cleared = (await (await w.as(owner).put(`/projects/${project.id}`, { json: { description: null } })).json()) as Json;
    expect(cleared).toMatchObject({ description: null, name: "Renamed Project", topics: ["x"] });
  });

  it("keeps the old path of a renamed project (or group) as a redirect the API follows", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group });
    const path = unique("renamed");
    expect((await w.as(owner).put(`/projects/${project.id}`, { json: { path } })).status).toBe(200);
    const old = await w.as(owner).get(`/projects/${encodeURIComponent(project.fullPath)}`);
    expect([old.status, ((await old.json()) as Json).id]).toEqual([200, project.id]);
    // Renaming the group moves the project's route again; both earlier paths still lead to it.
    const groupPath = unique("grp");
    expect((await w.as(owner).put(`/groups/${group.id}`, { json: { path: groupPath } })).status).toBe(200);
    for (const earlier of [project.fullPath, `${group.fullPath}/${path}`, `${groupPath}/${path}`]) {
      const res = await w.as(owner).get(`/projects/${encodeURIComponent(earlier)}`);
      expect([earlier, res.status, ((await res.json()) as Json).id]).toEqual([earlier, 200, project.id]);
    }
  });

  it("answers the at-least-one error with GitLab's parameter list, also when only unstored settings are sent", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    for (const json of [{}, { build_timeout: 3600 }]) {
      const [status, body] = await statusAndBody(await w.as(owner).put(`/projects/${project.id}`, { json }));
      expect(status).toBe(400);
      expect((body as Json).error).toMatch(/^allow_merge_on_skipped_pipeline, autoclose_referenced_issues, .*, snippets_enabled are missing, at least one parameter must be provided$/);
    }
  });

  it("lets maintainers change the path but only owners rename or change visibility", async () => {
    const w = await world();
    const maintainer = await w.user();
    const group = await w.group({ maintainers: [maintainer] });
    const project = await w.project({ group });
    const path = unique("moved");
    expect((await w.as(maintainer).put(`/projects/${project.id}`, { json: { path } })).status).toBe(200);
    expect((await projectRow(w, project.id)).fullPath).toBe(`${group.fullPath}/${path}`);
    for (const json of [{ name: "Other" }, { visibility: "private" }])
      expect(await statusAndBody(await w.as(maintainer).put(`/projects/${project.id}`, { json }))).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("answers GitLab's validation errors", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ visibility: "private", owners: [owner] });
    const project = await w.project({ group });
    const other = await w.project({ group });
    expect(await statusAndBody(await w.as(owner).put(`/projects/${project.id}`, { json: { path: other.path } }))).toEqual([
      400,
      { message: { path: ["has already been taken"] } },
    ]);
    expect(await statusAndBody(await w.as(owner).put(`/projects/${project.id}`, { json: { name: other.name } }))).toEqual([
      400,
      { message: { name: ["has already been taken"] } },
    ]);
    expect(await statusAndBody(await w.as(owner).put(`/projects/${project.id}`, { json: { visibility: "public" } }))).toEqual([
      400,
      { message: { visibility_level: ["public is not allowed in a private group."] } },
    ]);
    expect(await statusAndBody(await w.as(owner).put(`/projects/${project.id}`, { json: { default_branch: "develop" } }))).toEqual([
      400,
      { message: { base: ["Could not change HEAD: branch 'develop' does not exist"] } },
    ]);
    expect(await statusAndBody(await w.as(owner).put(`/projects/${project.id}`, { json: { issues_enabled: "maybe" } }))).toEqual([
      400,
      { error: "issues_enabled is invalid" },
    ]);
    expect((await projectRow(w, project.id)).path).toBe(project.path);
  });

  it("moves the default branch to an existing branch", async () => {
    const w = await world();
    const owner = await w.user();
    const created = await w.as(owner).post("/projects", { json: { name: unique("readme"), initialize_with_readme: true } });
    const project = (await created.json()) as { id: number; default_branch: string };
    expect(project.default_branch).toBe("main");
    expect((await w.as(owner).post(`/projects/${project.id}/repository/branches`, { json: { branch: "develop", ref: "main" } })).status).toBe(201);
    const res = await w.as(owner).put(`/projects/${project.id}`, { json: { default_branch: "develop" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { default_branch: string }).default_branch).toBe("develop");
    expect((await projectRow(w, project.id)).defaultBranch).toBe("develop");
  });
});

describe("POST /projects/:id/archive", () => {
  requiresAuthentication((w) => w.anonymous.post("/projects/1/archive"));
  hidesPrivateProject((w, project) => w.as(w.stranger).post(`/projects/${project.id}/archive`));
  forbidsRoles(["developer", "maintainer"], (w, project, user) => w.as(user).post(`/projects/${project.id}/archive`));

  it("archives with 201, also when already archived", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    for (let i = 0; i < 2; i++) {
      const res = await w.as(owner).post(`/projects/${project.id}/archive`);
      expect(res.status).toBe(201);
      expect(((await res.json()) as Json).archived).toBe(true);
    }
    expect((await projectRow(w, project.id)).archived).toBe(true);
  });
});

describe("POST /projects/:id/unarchive", () => {
  forbidsRoles(["maintainer"], (w, project, user) => w.as(user).post(`/projects/${project.id}/unarchive`));

  it("unarchives with 201", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner, archived: true });
    const res = await w.as(owner).post(`/projects/${project.id}/unarchive`);
    expect(res.status).toBe(201);
    expect(((await res.json()) as Json).archived).toBe(false);
    expect((await projectRow(w, project.id)).archived).toBe(false);
  });
});

describe("DELETE /projects/:id", () => {
  requiresAuthentication((w) => w.anonymous.delete("/projects/1"));
  hidesPrivateProject((w, project) => w.as(w.stranger).delete(`/projects/${project.id}`));
  forbidsRoles(["developer", "maintainer"], (w, project, user) => w.as(user).delete(`/projects/${project.id}`));

  it("answers 202 and removes the project with its members and group links", async () => {
    const w = await world();
    const owner = await w.user();
    const dev = await w.user();
    const project = await w.project({ owner, developers: [dev] });
    const group = await w.group();
    await share(w, project.id, group.id);
    expect(await statusAndBody(await w.as(owner).delete(`/projects/${project.id}`))).toEqual([202, { message: "202 Accepted" }]);
    expect(await projectRow(w, project.id)).toBeUndefined();
    const left = await w.db(async (db) => ({
      members: await db.select().from(members).where(and(eq(members.sourceType, "Project"), eq(members.sourceId, project.id))),
      links: await db.select().from(projectGroupLinks).where(eq(projectGroupLinks.projectId, project.id)),
    }));
    expect(left).toEqual({ members: [], links: [] });
    expect(await statusAndBody(await w.as(owner).get(`/projects/${project.id}`))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});
