import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { namespaces, packages, projects } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { setCanCreateGroup, type Json } from "./support";

describe("POST /groups/:id/transfer", () => {
  requiresAuthentication((w) => w.anonymous.post("/groups/1/transfer"));

  it("moves the group, its subgroups and their projects under the new parent, lowering visibility", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ visibility: "public", owners: [owner] });
    const sub = await w.group({ parent: group, visibility: "public" });
    const project = await w.project({ group: sub, visibility: "public" });
    const parent = await w.group({ visibility: "internal", owners: [owner] });
    const res = await w.as(owner).post(`/groups/${group.id}/transfer`, { json: { group_id: parent.id } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ id: group.id, parent_id: parent.id, full_path: `${parent.fullPath}/${group.path}`, visibility: "internal", shared_with_groups: [] });
    const rows = await w.db((db) => db.select().from(namespaces).where(inArray(namespaces.id, [group.id, sub.id])));
    const subRow = rows.find((r) => r.id === sub.id)!;
    expect(subRow).toMatchObject({ fullPath: `${parent.fullPath}/${group.path}/${sub.path}`, traversalIds: [parent.id, group.id, sub.id], visibilityLevel: 10 });
    const [p] = await w.db((db) => db.select().from(projects).where(eq(projects.id, project.id)));
    expect(p).toMatchObject({ fullPath: `${parent.fullPath}/${group.path}/${sub.path}/${project.path}`, visibilityLevel: 10 });
    expect((await w.as(owner).get(`/projects/${encodeURIComponent(p.fullPath)}`)).status).toBe(200);
    // Every route below the group keeps its old path as a redirect: the API follows a project's, not a
    // group's (lookup_group has no follow_redirects).
    const old = await w.as(owner).get(`/projects/${encodeURIComponent(`${group.path}/${sub.path}/${project.path}`)}`);
    expect([old.status, ((await old.json()) as Json).id]).toEqual([200, project.id]);
    expect((await w.as(owner).get(`/groups/${encodeURIComponent(`${group.path}/${sub.path}`)}`)).status).toBe(404);
    // The new parent's members now reach the moved project.
    const parentGuest = await w.user();
    await w.addMembers("Namespace", parent.id, { guests: [parentGuest] });
    await w.db((db) => db.update(projects).set({ visibilityLevel: 0 }).where(eq(projects.id, project.id)));
    expect((await w.as(parentGuest).get(`/projects/${project.id}`)).status).toBe(200);
  });

  it("promotes a subgroup to the top level without group_id", async () => {
    const w = await world();
    const owner = await w.user();
    const root = await w.group({ owners: [owner] });
    const sub = await w.group({ parent: root });
    const res = await w.as(owner).post(`/groups/${sub.id}/transfer`);
    expect(res.status).toBe(201);
    expect((await res.json()) as Json).toMatchObject({ id: sub.id, parent_id: null, full_path: sub.path });
    // `ensure_ownership`: the promoted group had no owner of its own.
    const members = (await (await w.as(owner).get(`/groups/${sub.id}/members`)).json()) as Json[];
    expect(members.map((m) => [m.id, m.access_level])).toEqual([[owner.id, 50]]);
  });

  it("refuses with GitLab's messages", async () => {
    const w = await world();
    const owner = await w.user();
    const root = await w.group({ owners: [owner] });
    const sub = await w.group({ parent: root });
    const subsub = await w.group({ parent: sub });
    const fail = (m: string) => [400, { message: `Transfer failed: ${m}` }];
    const transfer = async (id: number, json: Json) => statusAndBody(await w.as(owner).post(`/groups/${id}/transfer`, { json }));
    expect(await transfer(root.id, {})).toEqual(fail("Group is already a root group."));
    expect(await transfer(subsub.id, { group_id: sub.id })).toEqual(fail("Group is already associated to the parent group."));
    expect(await transfer(sub.id, { group_id: subsub.id })).toEqual(fail("Cannot transfer group to one of its subgroup."));
    const other = await w.group({ owners: [owner] });
    await w.group({ parent: other, path: subsub.path });
    expect(await transfer(subsub.id, { group_id: other.id })).toEqual(fail("The parent group already has a subgroup or a project with the same path."));
    const notOwned = await w.group({ developers: [owner] });
    expect(await transfer(sub.id, { group_id: notOwned.id })).toEqual(fail("You don't have enough permissions."));
    await setCanCreateGroup(w, owner.id, false);
    expect(await transfer(sub.id, {})).toEqual(fail("You don't have enough permissions."));
  });

  it("keeps a group whose projects have npm packages under its root (`group_with_npm_packages?`)", async () => {
    const w = await world();
    const owner = await w.user();
    const root = await w.group({ owners: [owner] });
    const sub = await w.group({ parent: root });
    const inner = await w.group({ parent: sub });
    const sibling = await w.group({ parent: root });
    const other = await w.group({ owners: [owner] });
    const project = await w.project({ group: inner });
    await w.db((db) => db.insert(packages).values({ projectId: project.id, name: `@${root.path}/lib`, version: "1.0.0", packageType: "npm" }));
    const fail = [400, { message: "Transfer failed: Group contains projects with NPM packages." }];
    expect(await statusAndBody(await w.as(owner).post(`/groups/${sub.id}/transfer`, { json: { group_id: other.id } }))).toEqual(fail);
    expect(await statusAndBody(await w.as(owner).post(`/groups/${sub.id}/transfer`))).toEqual(fail);
    // Within the same root it moves.
    expect((await w.as(owner).post(`/groups/${sub.id}/transfer`, { json: { group_id: sibling.id } })).status).toBe(201);
  });

  it("answers 403 to a maintainer, 404 for an unreadable target, 400 for a bad group_id", async () => {
    const w = await world();
    const owner = await w.user();
    const maintainer = await w.user();
    const root = await w.group({ owners: [owner] });
    const sub = await w.group({ parent: root, maintainers: [maintainer] });
    expect((await w.as(maintainer).post(`/groups/${sub.id}/transfer`)).status).toBe(403);
    const hidden = await w.group();
    expect(await statusAndBody(await w.as(owner).post(`/groups/${sub.id}/transfer`, { json: { group_id: hidden.id } }))).toEqual([
      404,
      { message: "404 Group Not Found" },
    ]);
    expect(await statusAndBody(await w.as(owner).post(`/groups/${sub.id}/transfer`, { json: { group_id: "x" } }))).toEqual([
      400,
      { error: "group_id is invalid" },
    ]);
  });
});

describe("POST /groups/:id/projects/:project_id", () => {
  requiresAuthentication((w) => w.anonymous.post("/groups/1/projects/1"));

  it("moves a project into the group for an admin: 201 with the group and its projects; by path too", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group();
    const project = await w.project({ owner });
    const res = await w.root.post(`/groups/${group.id}/projects/${project.id}`);
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ id: group.id, full_path: group.fullPath });
    expect(body.projects.map((p: Json) => [p.id, p.path_with_namespace])).toEqual([[project.id, `${group.fullPath}/${project.path}`]]);
    // Back by full path (slashes URL-encoded), then the same refusal as PUT /projects/:id/transfer.
    const other = await w.group();
    const moved = await w.root.post(`/groups/${other.id}/projects/${encodeURIComponent(`${group.fullPath}/${project.path}`)}`);
    expect(moved.status).toBe(201);
    expect(await statusAndBody(await w.root.post(`/groups/${other.id}/projects/${project.id}`))).toEqual([
      400,
      { message: `Failed to transfer project {:new_namespace=>["Project is already in this namespace."]}` },
    ]);
  });

  it("answers 403 to a non-admin owner, 404 for a missing group or project", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ owner });
    expect(await statusAndBody(await w.as(owner).post(`/groups/${group.id}/projects/${project.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.root.post(`/groups/2147483600/projects/${project.id}`))).toEqual([404, { message: "404 Group Not Found" }]);
    expect(await statusAndBody(await w.root.post(`/groups/${group.id}/projects/2147483600`))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});
