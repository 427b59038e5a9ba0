import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { namespaces, projects } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { groupRow, queryCount, token, type Json } from "./support";

describe("PUT /groups/:id", () => {
  requiresAuthentication((w) => w.anonymous.put("/groups/1", { json: { name: "x" } }));

  it("updates the settings an owner sends and leaves the others alone", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ visibility: "internal", owners: [owner] });
    const res = await w.as(owner).put(`/groups/${group.id}`, {
      json: { description: "new", project_creation_level: "maintainer", subgroup_creation_level: "owner", default_branch_protection: 3, lfs_enabled: false },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      id: group.id,
      name: group.name,
      description: "new",
      visibility: "internal",
      project_creation_level: "maintainer",
      subgroup_creation_level: "owner",
      default_branch_protection: 3,
      lfs_enabled: false,
      request_access_enabled: true,
      projects: [],
      shared_projects: [],
    });
    expect(await groupRow(w, group.id)).toMatchObject({ description: "new", projectCreationLevel: 1, subgroupCreationLevel: 0, lfsEnabled: false });
    const cleared = await w.as(owner).put(`/groups/${group.id}`, { json: { auto_devops_enabled: true } });
    expect(((await cleared.json()) as Json).auto_devops_enabled).toBe(true);
    const unset = await w.as(owner).put(`/groups/${group.id}`, { json: { auto_devops_enabled: null } });
    expect(((await unset.json()) as Json).auto_devops_enabled).toBeNull();
  });

  it("renames and moves the routes of descendant groups and of every project below (at most 6 statements)", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const child = await w.group({ parent: group, path: "child" });
    const grandchild = await w.group({ parent: child, path: "grand" });
    const top = await w.project({ group, path: "top" });
    const deep = await w.project({ group: grandchild, path: "deep" });
    const path = token();
    const res = await w.as(owner).put(`/groups/${group.id}`, { json: { path, name: "Renamed Group" } });
    expect(res.status).toBe(200);
    expect(queryCount(res)).toBeLessThanOrEqual(6);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ path, name: "Renamed Group", full_path: path, full_name: "Renamed Group", web_url: `http://edgeforge.test/groups/${path}` });
    expect(body.projects.map((p: Json) => p.path_with_namespace)).toEqual([`${path}/top`]);
    const groups = await w.db((db) =>
      db.select({ id: namespaces.id, fullPath: namespaces.fullPath, fullName: namespaces.fullName }).from(namespaces).where(inArray(namespaces.id, [child.id, grandchild.id])).orderBy(namespaces.id),
    );
    expect(groups).toEqual([
      { id: child.id, fullPath: `${path}/child`, fullName: "Renamed Group / child" },
      { id: grandchild.id, fullPath: `${path}/child/grand`, fullName: "Renamed Group / child / grand" },
    ]);
    const moved = await w.db((db) =>
      db.select({ fullPath: projects.fullPath, nameWithNamespace: projects.nameWithNamespace }).from(projects).where(inArray(projects.id, [top.id, deep.id])).orderBy(projects.id),
    );
    expect(moved).toEqual([
      { fullPath: `${path}/top`, nameWithNamespace: "Renamed Group / top" },
      { fullPath: `${path}/child/grand/deep`, nameWithNamespace: "Renamed Group / child / grand / deep" },
    ]);
    expect((await w.as(owner).get(`/groups/${encodeURIComponent(`${path}/child/grand`)}`)).status).toBe(200);
    expect((await w.as(owner).get(`/groups/${encodeURIComponent(group.fullPath)}`)).status).toBe(404);
  });

  it("refuses maintainers (403) and callers who cannot see the group (404)", async () => {
    const w = await world();
    const maintainer = await w.user();
    const group = await w.group({ maintainers: [maintainer] });
    expect(await statusAndBody(await w.as(maintainer).put(`/groups/${group.id}`, { json: { name: "x" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).put(`/groups/${group.id}`, { json: { name: "x" } }))).toEqual([
      404,
      { message: "404 Group Not Found" },
    ]);
    expect((await w.root.put(`/groups/${group.id}`, { json: { description: "by admin" } })).status).toBe(200);
  });

  it("validates visibility against the parent, the subgroups and the projects", async () => {
    const w = await world();
    const owner = await w.user();
    const parent = await w.group({ visibility: "internal", owners: [owner] });
    const group = await w.group({ visibility: "internal", parent });
    await w.group({ visibility: "internal", parent: group });
    await w.project({ group, visibility: "internal" });
    const put = (json: Json) => w.as(owner).put(`/groups/${group.id}`, { json });
    expect(await statusAndBody(await put({ visibility: "public" }))).toEqual([
      400,
      { message: { visibility_level: ["public is not allowed since the parent group has a internal visibility."] } },
    ]);
    expect(await statusAndBody(await put({ visibility: "private" }))).toEqual([
      400,
      {
        message: {
          visibility_level: [
            "private is not allowed since this group contains projects with higher visibility.",
            "private is not allowed since there are sub-groups with higher visibility.",
          ],
        },
      },
    ]);
    expect((await groupRow(w, group.id)).visibilityLevel).toBe(10);
  });

  it("refuses a path taken by another route and invalid names", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const other = await w.group();
    expect(await statusAndBody(await w.as(owner).put(`/groups/${group.id}`, { json: { path: other.path.toUpperCase() } }))).toEqual([
      400,
      { message: { path: ["has already been taken"] } },
    ]);
    expect(await statusAndBody(await w.as(owner).put(`/groups/${group.id}`, { json: { name: "", path: "admin" } }))).toEqual([
      400,
      {
        message: {
          name: [
            "can't be blank",
            "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.",
          ],
          path: ["admin is a reserved name"],
        },
      },
    ]);
    expect(await statusAndBody(await w.as(owner).put(`/groups/${group.id}`, { json: { visibility: "hidden" } }))).toEqual([
      400,
      { error: "visibility does not have a valid value" },
    ]);
  });

  it("locks sharing on every descendant, and only the parent's owners may unlock below a locked parent", async () => {
    const w = await world();
    const owner = await w.user();
    const subOwner = await w.user();
    const parent = await w.group({ owners: [owner] });
    const group = await w.group({ parent, owners: [subOwner] });
    const child = await w.group({ parent: group });
    const res = await w.as(owner).put(`/groups/${parent.id}`, { json: { share_with_group_lock: true } });
    expect(((await res.json()) as Json).share_with_group_lock).toBe(true);
    expect((await groupRow(w, group.id)).shareWithGroupLock).toBe(true);
    expect((await groupRow(w, child.id)).shareWithGroupLock).toBe(true);
    expect(await statusAndBody(await w.as(subOwner).put(`/groups/${group.id}`, { json: { share_with_group_lock: false } }))).toEqual([
      400,
      {
        message: {
          share_with_group_lock: [
            'cannot be disabled when the parent group "Share with group lock" is enabled, except by the owner of the parent group',
          ],
        },
      },
    ]);
    expect((await w.as(owner).put(`/groups/${group.id}`, { json: { share_with_group_lock: false } })).status).toBe(200);
    expect((await groupRow(w, group.id)).shareWithGroupLock).toBe(false);
  });

  it("changes nothing and keeps updated_at when nothing is sent", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const before = await groupRow(w, group.id);
    const res = await w.as(owner).put(`/groups/${group.id}`, { json: {} });
    expect(res.status).toBe(200);
    expect(await groupRow(w, group.id)).toEqual(before);
    expect(await w.db(async (db) => (await db.select().from(namespaces).where(eq(namespaces.id, group.id))).length)).toBe(1);
  });
});
