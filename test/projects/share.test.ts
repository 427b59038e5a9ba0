import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { namespaces, projectGroupLinks } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world, type World } from "../helpers/world";

type Json = Record<string, any>;

async function links(w: World, projectId: number) {
  return w.db((db) =>
    db
      .select({ groupId: projectGroupLinks.groupId, groupAccess: projectGroupLinks.groupAccess, expiresAt: projectGroupLinks.expiresAt })
      .from(projectGroupLinks)
      .where(eq(projectGroupLinks.projectId, projectId)),
  );
}

describe("POST /projects/:id/share", () => {
  requiresAuthentication((w) => w.anonymous.post("/projects/1/share", { json: { group_id: 1, group_access: 30 } }));
  hidesPrivateProject((w, project) => w.as(w.stranger).post(`/projects/${project.id}/share`, { json: { group_id: 1, group_access: 30 } }));
  forbidsRoles(["developer"], (w, project, user) => w.as(user).post(`/projects/${project.id}/share`, { json: { group_id: 1, group_access: 30 } }));

  it("shares with a group the caller belongs to: 201 with the link, and the group's members get access", async () => {
    const w = await world();
    const maintainer = await w.user();
    const teammate = await w.user();
    const project = await w.project({ maintainers: [maintainer] });
    const group = await w.group({ developers: [maintainer], reporters: [teammate] });
    expect((await w.as(teammate).get(`/projects/${project.id}`)).status).toBe(404);
    const res = await w.as(maintainer).post(`/projects/${project.id}/share`, {
      json: { group_id: group.id, group_access: 30, expires_at: "2999-01-31" },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toEqual({ id: expect.any(Number), project_id: project.id, group_id: group.id, group_access: 30, expires_at: "2999-01-31" });
    expect(await links(w, project.id)).toEqual([{ groupId: group.id, groupAccess: 30, expiresAt: "2999-01-31" }]);
    const seen = (await (await w.as(teammate).get(`/projects/${project.id}`)).json()) as Json;
    expect(seen.shared_with_groups).toEqual([
      { group_id: group.id, group_name: group.name, group_full_path: group.fullPath, group_access_level: 30, expires_at: "2999-01-31" },
    ]);
    // Shares are not memberships: permissions only report direct and group-hierarchy members.
    expect(seen.permissions).toEqual({ project_access: null, group_access: null });
  });

  it("answers 409 for a second share and for the project's own group or its ancestors", async () => {
    const w = await world();
    const owner = await w.user();
    const parent = await w.group({ owners: [owner] });
    const child = await w.group({ parent, owners: [owner] });
    const project = await w.project({ group: child });
    const other = await w.group({ owners: [owner] });
    expect((await w.as(owner).post(`/projects/${project.id}/share`, { json: { group_id: other.id, group_access: 20 } })).status).toBe(201);
    expect(await statusAndBody(await w.as(owner).post(`/projects/${project.id}/share`, { json: { group_id: other.id, group_access: 30 } }))).toEqual([
      409,
      { message: "Group already shared with this group" },
    ]);
    expect(await statusAndBody(await w.as(owner).post(`/projects/${project.id}/share`, { json: { group_id: parent.id, group_access: 30 } }))).toEqual([
      409,
      { message: "Project cannot be shared with the group it is in or one of its ancestors." },
    ]);
    // Both validations fail: GitLab joins the full messages as a sentence.
    await w.db((db) => db.insert(projectGroupLinks).values({ projectId: project.id, groupId: parent.id, groupAccess: 10 }));
    expect(await statusAndBody(await w.as(owner).post(`/projects/${project.id}/share`, { json: { group_id: parent.id, group_access: 30 } }))).toEqual([
      409,
      { message: "Group already shared with this group and Project cannot be shared with the group it is in or one of its ancestors." },
    ]);
  });

  it("answers 404 Not Found for a group the caller is not a member of, or that does not exist", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const publicGroup = await w.group({ visibility: "public" });
    for (const groupId of [publicGroup.id, 2147480000])
      expect(await statusAndBody(await w.as(owner).post(`/projects/${project.id}/share`, { json: { group_id: groupId, group_access: 30 } }))).toEqual([
        404,
        { message: "Not Found" },
      ]);
    expect((await w.root.post(`/projects/${project.id}/share`, { json: { group_id: publicGroup.id, group_access: 10 } })).status).toBe(201);
  });

  it("answers 400 for bad parameters and when the namespace locks sharing", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group });
    expect(await statusAndBody(await w.as(owner).post(`/projects/${project.id}/share`, { json: {} }))).toEqual([
      400,
      { error: "group_id is missing, group_access is missing" },
    ]);
    expect(await statusAndBody(await w.as(owner).post(`/projects/${project.id}/share`, { json: { group_id: group.id, group_access: 50 } }))).toEqual([
      400,
      { error: "group_access does not have a valid value" },
    ]);
    await w.db((db) => db.update(namespaces).set({ shareWithGroupLock: true }).where(eq(namespaces.id, group.id)));
    const other = await w.group({ owners: [owner] });
    expect(await statusAndBody(await w.as(owner).post(`/projects/${project.id}/share`, { json: { group_id: other.id, group_access: 30 } }))).toEqual([
      400,
      { message: "The project sharing with group is disabled" },
    ]);
    expect(await links(w, project.id)).toEqual([]);
  });
});

describe("DELETE /projects/:id/share/:group_id", () => {
  requiresAuthentication((w) => w.anonymous.delete("/projects/1/share/1"));
  forbidsRoles(["developer"], (w, project, user) => w.as(user).delete(`/projects/${project.id}/share/1`));

  it("removes the link with 204, then answers 404 Group Link Not Found", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const group = await w.group();
    await w.db((db) => db.insert(projectGroupLinks).values({ projectId: project.id, groupId: group.id, groupAccess: 30 }));
    expect(await statusAndBody(await w.as(owner).delete(`/projects/${project.id}/share/${group.id}`))).toEqual([204, ""]);
    expect(await links(w, project.id)).toEqual([]);
    expect(await statusAndBody(await w.as(owner).delete(`/projects/${project.id}/share/${group.id}`))).toEqual([
      404,
      { message: "404 Group Link Not Found" },
    ]);
    expect(await statusAndBody(await w.as(owner).delete(`/projects/${project.id}/share/foo`))).toEqual([400, { error: "group_id is invalid" }]);
  });
});
