import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { gitRefs, namespaces, packages, projects } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world, type TestUser, type World } from "../helpers/world";

type Json = Record<string, any>;

const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));

/** A project with a README commit on `main`, made through the API (the git core writes it). */
async function projectWithRepository(w: World, owner: TestUser, visibility = "public"): Promise<Json> {
  const res = await w.as(owner).post("/projects", { json: { name: `src-${owner.id}-${Math.random().toString(36).slice(2, 7)}`, initialize_with_readme: true, visibility } });
  expect(res.status).toBe(201);
  return (await res.json()) as Json;
}

async function projectRow(w: World, id: number) {
  const [row] = await w.db((db) => db.select().from(projects).where(eq(projects.id, id)));
  return row;
}

async function refNames(w: World, projectId: number) {
  const rows = await w.db((db) => db.select({ name: gitRefs.name, target: gitRefs.target }).from(gitRefs).where(eq(gitRefs.projectId, projectId)));
  return rows.sort((a, b) => a.name.localeCompare(b.name));
}

describe("POST /projects/:id/fork", () => {
  requiresAuthentication((w) => w.anonymous.post("/projects/1/fork"));
  hidesPrivateProject((w, project) => w.as(w.stranger).post(`/projects/${project.id}/fork`));

  it("forks into the caller's namespace: 201, forked_from_project, the same refs, readable files, forks_count", async () => {
    const w = await world();
    const owner = await w.user();
    const forker = await w.user();
    const source = await projectWithRepository(w, owner);
    const res = await w.as(forker).post(`/projects/${source.id}/fork`);
    expect(res.status).toBe(201);
    const fork = (await res.json()) as Json;
    expect(fork).toMatchObject({
      name: source.name,
      path: source.path,
      path_with_namespace: `${forker.username}/${source.path}`,
      default_branch: "main",
      empty_repo: false,
      visibility: "public",
      namespace: { id: forker.namespaceId, kind: "user" },
      mr_default_target_self: false,
      forked_from_project: { id: source.id, path_with_namespace: source.path_with_namespace, default_branch: "main" },
    });
    expect(await refNames(w, fork.id)).toEqual(await refNames(w, source.id));
    // The objects are the source's pool: the fork reads the README without a copy of its own.
    const file = await w.as(forker).get(`/projects/${fork.id}/repository/files/README.md/raw`, { query: { ref: "main" } });
    expect(file.status).toBe(200);
    expect(await file.text()).toContain(source.name);
    expect((await projectRow(w, fork.id)).poolId).toBe(source.id);
    expect((await projectRow(w, source.id)).forksCount).toBe(1);
    // The forker owns the fork; the default branch is protected as on any new repository.
    const branch = (await (await w.as(forker).get(`/projects/${fork.id}/repository/branches/main`)).json()) as Json;
    expect(branch.protected).toBe(true);
    // A fork of the fork shares the same pool.
    const third = await w.user();
    const again = (await (await w.as(third).post(`/projects/${fork.id}/fork`)).json()) as Json;
    expect((await projectRow(w, again.id)).poolId).toBe(source.id);
    expect(again.forked_from_project.id).toBe(fork.id);
  });

  it("takes name, path, description, namespace_id and a lower visibility", async () => {
    const w = await world();
    const owner = await w.user();
    const dev = await w.user();
    const source = await projectWithRepository(w, owner);
    const group = await w.group({ visibility: "internal", developers: [dev] });
    const res = await w.as(dev).post(`/projects/${source.id}/fork`, {
      json: { namespace_id: group.id, name: "My Fork", path: "my-fork", description: "mine", visibility: "public", mr_default_target_self: true },
    });
    expect(res.status).toBe(201);
    const fork = (await res.json()) as Json;
    expect(fork).toMatchObject({ name: "My Fork", path: "my-fork", description: "mine", visibility: "internal", mr_default_target_self: true });
    expect(fork.path_with_namespace).toBe(`${group.fullPath}/my-fork`);
    // namespace_path and the deprecated namespace name the same target.
    const byPath = await w.as(dev).post(`/projects/${source.id}/fork`, { json: { namespace_path: group.fullPath, path: "by-path", name: "By path" } });
    expect(byPath.status).toBe(201);
    const byName = await w.as(dev).post(`/projects/${source.id}/fork`, { query: { namespace: group.fullPath, path: "by-name", name: "By name" } });
    expect(byName.status).toBe(201);
  });

  it("answers 409 with the validation errors when the path is taken, 404 for namespaces the caller may not use", async () => {
    const w = await world();
    const owner = await w.user();
    const forker = await w.user();
    const source = await projectWithRepository(w, owner);
    expect((await w.as(forker).post(`/projects/${source.id}/fork`)).status).toBe(201);
    const [status, body] = await statusAndBody(await w.as(forker).post(`/projects/${source.id}/fork`));
    expect(status).toBe(409);
    expect((body as Json).message.path).toEqual(["has already been taken"]);
    // A group the caller only reads (guest) is not a fork target.
    const group = await w.group({ visibility: "public", guests: [forker] });
    expect(await statusAndBody(await w.as(forker).post(`/projects/${source.id}/fork`, { json: { namespace_id: group.id } }))).toEqual([
      404,
      { message: "404 Target Namespace Not Found" },
    ]);
    // Someone else's personal namespace is unreadable: 404 Namespace.
    expect(await statusAndBody(await w.as(forker).post(`/projects/${source.id}/fork`, { json: { namespace_id: owner.namespaceId } }))).toEqual([
      404,
      { message: "404 Namespace Not Found" },
    ]);
    expect(await statusAndBody(await w.as(forker).post(`/projects/${source.id}/fork`, { json: { namespace_id: 2147483647 } }))).toEqual([
      404,
      { message: "404 Namespace Not Found" },
    ]);
  });

  it("answers 400 on a bad visibility and 404 Not Found to a guest of a private project (no download_code)", async () => {
    const w = await world();
    const guest = await w.user();
    const project = await w.project({ visibility: "private", guests: [guest] });
    expect(await statusAndBody(await w.as(guest).post(`/projects/${project.id}/fork`, { json: { visibility: "secret" } }))).toEqual([
      400,
      { error: "visibility does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.as(guest).post(`/projects/${project.id}/fork`))).toEqual([404, { message: "404 Not Found" }]);
  });

  it("forks a private project for a reporter; the fork stays private", async () => {
    const w = await world();
    const reporter = await w.user();
    const project = await w.project({ visibility: "private", reporters: [reporter] });
    const res = await w.as(reporter).post(`/projects/${project.id}/fork`);
    expect(res.status).toBe(201);
    const fork = (await res.json()) as Json;
    expect(fork.visibility).toBe("private");
    expect(fork.empty_repo).toBe(true);
    expect(fork.forked_from_project.id).toBe(project.id);
    // Once the reporter leaves, the fork no longer shows its source.
    await w.db((db) => db.execute(`DELETE FROM members WHERE source_type = 'Project' AND source_id = ${project.id}`));
    const seen = (await (await w.as(reporter).get(`/projects/${fork.id}`)).json()) as Json;
    expect(seen).not.toHaveProperty("forked_from_project");
    expect(seen.mr_default_target_self).toBe(false);
  });
});

describe("GET /projects/:id/forks", () => {
  hidesPrivateProject((w, project) => w.as(w.stranger).get(`/projects/${project.id}/forks`));

  it("lists the direct forks the caller may see, paginated, with a flat statement count", async () => {
    const w = await world();
    const owner = await w.user();
    const source = await projectWithRepository(w, owner);
    const a = await w.user();
    const b = await w.user();
    const forkA = (await (await w.as(a).post(`/projects/${source.id}/fork`)).json()) as Json;
    const forkB = (await (await w.as(b).post(`/projects/${source.id}/fork`, { json: { visibility: "private" } })).json()) as Json;
    await w.as(a).post(`/projects/${forkA.id}/fork`, { json: { path: "grandchild", name: "grandchild" } });

    const asA = await w.as(a).get(`/projects/${source.id}/forks`);
    expect(asA.status).toBe(200);
    expect(((await asA.json()) as Json[]).map((p) => p.id)).toEqual([forkA.id]);
    const asB = (await (await w.as(b).get(`/projects/${source.id}/forks`)).json()) as Json[];
    expect(asB.map((p) => p.id)).toEqual([forkB.id, forkA.id]);
    expect(asB[0]).toHaveProperty("permissions");
    const anonymous = (await (await w.anonymous.get(`/projects/${source.id}/forks`)).json()) as Json[];
    expect(anonymous.map((p) => p.id)).toEqual([forkA.id]);
    expect(anonymous[0]).not.toHaveProperty("permissions");

    const one = await w.root.get(`/projects/${source.id}/forks`, { query: { per_page: 1 } });
    expect(one.headers.get("x-total")).toBe("2");
    expect(one.headers.get("x-next-page")).toBe("2");
    const hundred = await w.root.get(`/projects/${source.id}/forks`, { query: { per_page: 100 } });
    expect(queryCount(one)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
    expect(((await w.root.get(`/projects/${source.id}/forks`, { query: { visibility: "private" } }).then((r) => r.json())) as Json[]).map((p) => p.id)).toEqual([forkB.id]);
  });
});

describe("POST /projects/:id/fork/:forked_from_id", () => {
  requiresAuthentication((w) => w.anonymous.post("/projects/1/fork/2"));
  forbidsRoles(["developer"], (w, project, user) => w.as(user).post(`/projects/${project.id}/fork/${project.id}`));

  it("marks an existing project as a fork: 201 with forked_from_project; 409 the second time", async () => {
    const w = await world();
    const owner = await w.user();
    const source = await w.project({ visibility: "public" });
    const target = await w.project({ owner });
    const res = await w.as(owner).post(`/projects/${target.id}/fork/${source.id}`);
    expect(res.status).toBe(201);
    expect(((await res.json()) as Json).forked_from_project.id).toBe(source.id);
    expect((await projectRow(w, source.id)).forksCount).toBe(1);
    expect(await statusAndBody(await w.as(owner).post(`/projects/${target.id}/fork/${source.id}`))).toEqual([
      409,
      { message: "Project already forked" },
    ]);
  });

  it("answers 404 for a source the caller cannot read", async () => {
    const w = await world();
    const owner = await w.user();
    const target = await w.project({ owner });
    const hidden = await w.project({ visibility: "private" });
    expect(await statusAndBody(await w.as(owner).post(`/projects/${target.id}/fork/${hidden.id}`))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("DELETE /projects/:id/fork", () => {
  requiresAuthentication((w) => w.anonymous.delete("/projects/1/fork"));
  forbidsRoles(["maintainer"], (w, project, user) => w.as(user).delete(`/projects/${project.id}/fork`));

  it("unlinks a fork: 204, then 304; the source's forks_count drops", async () => {
    const w = await world();
    const owner = await w.user();
    const forker = await w.user();
    const source = await projectWithRepository(w, owner);
    const fork = (await (await w.as(forker).post(`/projects/${source.id}/fork`)).json()) as Json;
    const res = await w.as(forker).delete(`/projects/${fork.id}/fork`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect((await projectRow(w, source.id)).forksCount).toBe(0);
    const seen = (await (await w.as(forker).get(`/projects/${fork.id}`)).json()) as Json;
    expect(seen).not.toHaveProperty("forked_from_project");
    expect((await w.as(forker).delete(`/projects/${fork.id}/fork`)).status).toBe(304);
    // The unlinked project still reads its files (the pool stays shared).
    expect((await w.as(forker).get(`/projects/${fork.id}/repository/files/README.md/raw`, { query: { ref: "main" } })).status).toBe(200);
  });

  it("deleting a fork lowers the source's forks_count", async () => {
    const w = await world();
    const owner = await w.user();
    const forker = await w.user();
    const source = await projectWithRepository(w, owner);
    const fork = (await (await w.as(forker).post(`/projects/${source.id}/fork`)).json()) as Json;
    expect((await w.as(forker).delete(`/projects/${fork.id}`)).status).toBe(202);
    expect((await projectRow(w, source.id)).forksCount).toBe(0);
  });
});

describe("PUT /projects/:id/transfer", () => {
  requiresAuthentication((w) => w.anonymous.put("/projects/1/transfer", { json: { namespace: "x" } }));
  hidesPrivateProject((w, project) => w.as(w.stranger).put(`/projects/${project.id}/transfer`, { json: { namespace: "x" } }));
  forbidsRoles(["maintainer"], (w, project, user) => w.as(user).put(`/projects/${project.id}/transfer`, { json: { namespace: "x" } }));

  it("moves a personal project into a group the owner maintains: 200, new paths, visibility lowered", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner, visibility: "public" });
    const group = await w.group({ visibility: "internal", maintainers: [owner] });
    const res = await w.as(owner).put(`/projects/${project.id}/transfer`, { json: { namespace: group.fullPath } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      path_with_namespace: `${group.fullPath}/${project.path}`,
      name_with_namespace: `${group.name} / ${project.name}`,
      visibility: "internal",
      namespace: { id: group.id, kind: "group" },
    });
    expect((await w.as(owner).get(`/projects/${encodeURIComponent(`${group.fullPath}/${project.path}`)}`)).status).toBe(200);
    // The old path redirects (`find_by_full_path(id, follow_redirects: true)`), in any case.
    const old = await w.as(owner).get(`/projects/${encodeURIComponent(project.fullPath.toUpperCase())}`);
    expect(old.status).toBe(200);
    expect(((await old.json()) as Json).id).toBe(project.id);
    // And back into the personal namespace, by id: the original path is the project's own again, the
    // group path now redirects.
    const back = await w.as(owner).put(`/projects/${project.id}/transfer`, { json: { namespace: owner.namespaceId } });
    expect(back.status).toBe(200);
    expect(((await back.json()) as Json).path_with_namespace).toBe(project.fullPath);
    const viaGroupPath = await w.as(owner).get(`/projects/${encodeURIComponent(`${group.fullPath}/${project.path}`)}`);
    expect([viaGroupPath.status, ((await viaGroupPath.json()) as Json).id]).toEqual([200, project.id]);
  });

  it("keeps a project with npm packages under its root namespace", async () => {
    const w = await world();
    const owner = await w.user();
    const root = await w.group({ owners: [owner] });
    const sub = await w.group({ parent: root });
    const other = await w.group({ owners: [owner] });
    const project = await w.project({ group: root });
    await w.db((db) => db.insert(packages).values({ projectId: project.id, name: `@${root.path}/lib`, version: "1.0.0", packageType: "npm" }));
    expect(await statusAndBody(await w.as(owner).put(`/projects/${project.id}/transfer`, { json: { namespace: other.id } }))).toEqual([
      400,
      { message: `Failed to transfer project {:new_namespace=>["Root namespace can't be updated if project has NPM packages"]}` },
    ]);
    expect((await w.as(owner).put(`/projects/${project.id}/transfer`, { json: { namespace: sub.id } })).status).toBe(200);
  });

  it("a project created at an old path takes it over from the redirect; a redirect hides nothing unreadable", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner, visibility: "private" });
    const group = await w.group({ owners: [owner] });
    expect((await w.as(owner).put(`/projects/${project.id}/transfer`, { json: { namespace: group.id } })).status).toBe(200);
    // A stranger meets 404 through the old path as through the new one.
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${encodeURIComponent(project.fullPath)}`))).toEqual([
      404,
      { message: "404 Project Not Found" },
    ]);
    const created = await w.as(owner).post("/projects", { json: { name: "again", path: project.path } });
    expect(created.status).toBe(201);
    const newcomer = (await created.json()) as Json;
    expect(newcomer.path_with_namespace).toBe(project.fullPath);
    const res = await w.as(owner).get(`/projects/${encodeURIComponent(project.fullPath)}`);
    expect(((await res.json()) as Json).id).toBe(newcomer.id);
  });

  it("moves the old group's labels and milestones the project uses into the project (Labels/Milestones::TransferService)", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const sub = await w.group({ parent: group });
    const project = await w.project({ group: sub });
    const api = w.as(owner);
    const post = async (path: string, json: Json) => {
      const res = await api.post(path, { json });
      expect(res.status).toBe(201);
      return (await res.json()) as Json;
    };
    const bug = await post(`/groups/${group.id}/labels`, { name: "bug", color: "#ff0000", description: "broken" });
    await post(`/groups/${group.id}/labels`, { name: "unused", color: "#00ff00" });
    const subLabel = await post(`/groups/${sub.id}/labels`, { name: "sub-only", color: "#0000ff" });
    const v1 = await post(`/groups/${group.id}/milestones`, { title: "v1", description: "first", due_date: "2030-01-31" });
    await post(`/projects/${project.id}/milestones`, { title: "v0" });
    const issue = await post(`/projects/${project.id}/issues`, { title: "t", labels: "bug,sub-only", milestone_id: v1.id });
    // Up to the parent group: `bug` and `v1` stay reachable, `sub-only` becomes a project label.
    expect((await api.put(`/projects/${project.id}/transfer`, { json: { namespace: group.id } })).status).toBe(200);
    let shown = (await (await api.get(`/projects/${project.id}/issues/${issue.iid}`)).json()) as Json;
    expect(shown.labels).toEqual(["bug", "sub-only"]);
    expect(shown.milestone.id).toBe(v1.id);
    let projectLabels = (await (await api.get(`/projects/${project.id}/labels?include_ancestor_groups=false`)).json()) as Json[];
    expect(projectLabels.map((l) => [l.name, l.color, l.is_project_label])).toEqual([["sub-only", "#0000ff", true]]);
    expect(projectLabels[0].id).not.toBe(subLabel.id);
    // Out of the groups: `bug` and `v1` become the project's own, with the group's attributes.
    expect((await api.put(`/projects/${project.id}/transfer`, { json: { namespace: owner.namespaceId } })).status).toBe(200);
    shown = (await (await api.get(`/projects/${project.id}/issues/${issue.iid}`)).json()) as Json;
    expect(shown.labels).toEqual(["bug", "sub-only"]);
    expect(shown.milestone).toMatchObject({ title: "v1", description: "first", due_date: "2030-01-31", project_id: project.id, iid: 2 });
    expect(shown.milestone.id).not.toBe(v1.id);
    projectLabels = (await (await api.get(`/projects/${project.id}/labels`)).json()) as Json[];
    expect(projectLabels.map((l) => [l.name, l.color, l.description])).toEqual([
      ["bug", "#ff0000", "broken"],
      ["sub-only", "#0000ff", null],
    ]);
    expect(projectLabels[0].id).not.toBe(bug.id);
    // The group keeps its own.
    const groupLabels = (await (await api.get(`/groups/${group.id}/labels`)).json()) as Json[];
    expect(groupLabels.map((l) => l.name)).toEqual(["bug", "unused"]);
    const filtered = (await (await api.get(`/projects/${project.id}/issues?labels=bug&milestone=v1`)).json()) as Json[];
    expect(filtered.map((i) => i.iid)).toEqual([issue.iid]);
  });

  it("refuses with GitLab's messages", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const fail = (text: string) => [400, { message: `Failed to transfer project {:new_namespace=>["${text}"]}` }];
    expect(await statusAndBody(await w.as(owner).put(`/projects/${project.id}/transfer`, { json: { namespace: owner.namespaceId } }))).toEqual(
      fail("Project is already in this namespace."),
    );
    const devGroup = await w.group({ developers: [owner] });
    expect(await statusAndBody(await w.as(owner).put(`/projects/${project.id}/transfer`, { json: { namespace: devGroup.id } }))).toEqual(
      fail("You don't have permission to transfer projects into that namespace."),
    );
    const group = await w.group({ owners: [owner] });
    await w.project({ group, path: project.path });
    expect(await statusAndBody(await w.as(owner).put(`/projects/${project.id}/transfer`, { json: { namespace: group.id } }))).toEqual(
      fail("Project with same name or path in target namespace already exists"),
    );
    // The same name with another path refuses too (`where('path = ? or name = ?')`).
    const named = await w.group({ owners: [owner] });
    const twin = await w.project({ group: named });
    await w.db((db) => db.update(projects).set({ name: project.name }).where(eq(projects.id, twin.id)));
    expect(await statusAndBody(await w.as(owner).put(`/projects/${project.id}/transfer`, { json: { namespace: named.id } }))).toEqual(
      fail("Project with same name or path in target namespace already exists"),
    );
    expect(await statusAndBody(await w.as(owner).put(`/projects/${project.id}/transfer`, { json: {} }))).toEqual([400, { error: "namespace is missing" }]);
    const hidden = await w.group();
    expect(await statusAndBody(await w.as(owner).put(`/projects/${project.id}/transfer`, { json: { namespace: hidden.id } }))).toEqual([
      404,
      { message: "404 Namespace Not Found" },
    ]);
  });
});


describe("GET /projects/:id/transfer_locations", () => {
  hidesPrivateProject((w, project) => w.as(w.stranger).get(`/projects/${project.id}/transfer_locations`));
  forbidsRoles(["maintainer"], (w, project, user) => w.as(user).get(`/projects/${project.id}/transfer_locations`));

  it("lists the groups the owner may move the project into, by path, without its own group; search; pagination", async () => {
    const w = await world();
    const owner = await w.user();
    const home = await w.group({ owners: [owner], path: `c-home-${owner.id}` });
    const project = await w.project({ group: home });
    const maintained = await w.group({ maintainers: [owner], path: `b-maint-${owner.id}` });
    const below = await w.group({ parent: maintained, path: `a-below-${owner.id}` });
    const developed = await w.group({ developers: [owner], path: `d-dev-${owner.id}` });
    const closed = await w.group({ owners: [owner], path: `e-closed-${owner.id}` });
    await w.db((db) => db.update(namespaces).set({ projectCreationLevel: 0 }).where(eq(namespaces.id, closed.id)));
    const res = await w.as(owner).get(`/projects/${project.id}/transfer_locations`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.map((g) => g.id)).toEqual([below.id, maintained.id]);
    expect(body[0]).toEqual({
      id: below.id,
      web_url: `http://edgeforge.test/groups/${below.fullPath}`,
      name: below.name,
      avatar_url: null,
      full_name: expect.any(String),
      full_path: below.fullPath,
    });
    expect(body.map((g) => g.id)).not.toContain(developed.id);
    const searched = (await (await w.as(owner).get(`/projects/${project.id}/transfer_locations`, { query: { search: "a-below" } })).json()) as Json[];
    expect(searched.map((g) => g.id)).toEqual([below.id]);
    const first = await w.as(owner).get(`/projects/${project.id}/transfer_locations`, { query: { per_page: 1 } });
    expect(first.headers.get("x-total")).toBe("2");
    expect(((await first.json()) as Json[]).map((g) => g.id)).toEqual([below.id]);
  });
});
