import { describe, expect, it } from "vitest";
import { projectGroupLinks } from "../../db/schema";
import { checkTagUpdate, type ProtectedTagRow } from "../../functions/shared/protected_tags";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { smallRepo, tagAt } from "../helpers/git";
import { world } from "../helpers/world";

const path = (project: { id: number }, name = "") => `/projects/${project.id}/protected_tags${name ? `/${encodeURIComponent(name)}` : ""}`;
const tagsPath = (project: { id: number }, name = "") => `/projects/${project.id}/repository/tags${name ? `/${encodeURIComponent(name)}` : ""}`;
const role = (accessLevel: number | null) => ({ id: expect.any(Number), access_level: accessLevel, access_level_description: expect.any(String), user_id: null, group_id: null });

describe("GET /projects/:id/protected_tags", () => {
  it("lists protections with their create levels, paginated", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    expect((await api.post(path(project), { json: { name: "v*", create_access_level: 30 } })).status).toBe(201);
    expect((await api.post(path(project), { json: { name: "stable" } })).status).toBe(201);
    const res = await api.get(path(project), { query: { per_page: "1", page: "2" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBe("2");
    expect(await res.json()).toEqual([{ name: "stable", create_access_levels: [{ ...role(40), access_level_description: "Maintainers" }] }]);
  });
  forbidsRoles(["guest", "reporter", "developer"], (w, p, user) => w.as(user).get(path(p)));
  hidesPrivateProject((w, p) => w.as(w.stranger).get(path(p)));
});

describe("GET /projects/:id/protected_tags/:name", () => {
  it("shows one protection by its exact name (wildcards included), or 404 Not found", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    await api.post(path(project), { json: { name: "release/*", create_access_level: 0 } });
    expect(await statusAndBody(await api.get(path(project, "release/*")))).toEqual([200, { name: "release/*", create_access_levels: [{ ...role(0), access_level_description: "No one" }] }]);
    expect(await statusAndBody(await api.get(path(project, "release/1")))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("POST /projects/:id/protected_tags", () => {
  it("creates a protection with allowed_to_create for a user and a shared group", async () => {
    const w = await world();
    const dev = await w.user({ name: "Dee" });
    const { api, project } = await smallRepo(w, { developers: [dev] });
    const group = await w.group();
    await w.db((db) => db.insert(projectGroupLinks).values({ projectId: project.id, groupId: group.id, groupAccess: 30 }));
    const res = await api.post(path(project), { json: { name: "v*", allowed_to_create: [{ user_id: dev.id }, { group_id: group.id }] } });
    expect(await statusAndBody(res)).toEqual([
      201,
      {
        name: "v*",
        create_access_levels: [
          { ...role(40), access_level_description: "Maintainers" },
          { id: expect.any(Number), access_level: null, access_level_description: "Dee", user_id: dev.id, group_id: null },
          { id: expect.any(Number), access_level: null, access_level_description: group.name, user_id: null, group_id: group.id },
        ],
      },
    ]);
  });

  it("answers 422 for a taken name or a user without access, 400 for bad input", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    await api.post(path(project), { json: { name: "v1" } });
    expect(await statusAndBody(await api.post(path(project), { json: { name: "v1" } }))).toEqual([422, { message: ["Name has already been taken"] }]);
    const stranger = await w.user();
    expect(await statusAndBody(await api.post(path(project), { json: { name: "v2", allowed_to_create: [{ user_id: stranger.id }] } }))).toEqual([
      422,
      { message: ["Create access levels user is not a member of the project"] },
    ]);
    expect(await statusAndBody(await api.post(path(project), { json: {} }))).toEqual([400, { error: "name is missing" }]);
    expect(await statusAndBody(await api.post(path(project), { json: { name: "v3", create_access_level: 20 } }))).toEqual([
      400,
      { error: "create_access_level does not have a valid value" },
    ]);
  });
  forbidsRoles(["developer"], (w, p, user) => w.as(user).post(path(p), { json: { name: "v*" } }));
});

describe("DELETE /projects/:id/protected_tags/:name", () => {
  it("unprotects (204), then 404", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    await api.post(path(project), { json: { name: "v*" } });
    const res = await api.delete(path(project, "v*"));
    expect(res.status).toBe(204);
    expect(await statusAndBody(await api.delete(path(project, "v*")))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("protected tags on POST and DELETE /projects/:id/repository/tags", () => {
  it("refuses a developer a protected tag, lets a maintainer create and delete it, and shows `protected`", async () => {
    const w = await world();
    const dev = await w.user();
    const maintainer = await w.user();
    const { api, project, commits } = await smallRepo(w, { developers: [dev], maintainers: [maintainer] });
    await api.post(path(project), { json: { name: "v*" } });
    expect(await statusAndBody(await w.as(dev).post(tagsPath(project), { json: { tag_name: "v1", ref: "main" } }))).toEqual([
      400,
      { message: "You are not allowed to create this tag as it is protected." },
    ]);
    const created = await w.as(maintainer).post(tagsPath(project), { json: { tag_name: "v1", ref: "main" } });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ name: "v1", protected: true });
    // An existing tag says so first, as Gitaly's existence check precedes the hook.
    expect(await statusAndBody(await w.as(dev).post(tagsPath(project), { json: { tag_name: "v1", ref: "main" } }))).toEqual([400, { message: "Tag v1 already exists" }]);
    expect(await w.as(dev).post(tagsPath(project), { json: { tag_name: "other", ref: "main" } }).then((r) => r.status)).toBe(201);
    await tagAt(project, "v2", commits.first);
    expect(((await (await api.get(tagsPath(project))).json()) as { name: string; protected: boolean }[]).map((t: { name: string; protected: boolean }) => [t.name, t.protected]).sort()).toEqual([
      ["other", false],
      ["v1", true],
      ["v2", true],
    ]);
    expect(await statusAndBody(await w.as(dev).delete(tagsPath(project, "v1")))).toEqual([
      400,
      { message: "You are not allowed to delete protected tags from this project. Only a project maintainer or owner can delete a protected tag." },
    ]);
    expect((await w.as(maintainer).delete(tagsPath(project, "v1"))).status).toBe(204);
  });
});

describe("TagCheck (git push)", () => {
  const at = new Date();
  const rules: ProtectedTagRow[] = [{ id: 1, name: "v*", createdAt: at, updatedAt: at, levels: [{ id: 1, accessLevel: 30 }] }];
  const dev = { accessLevel: 30, isAdmin: false, userId: 5 };
  const maintainer = { accessLevel: 40, isAdmin: false, userId: 6 };
  const A = "a".repeat(40);
  const B = "b".repeat(40);

  it("answers GitLab's messages for updating, deleting and creating protected tags", () => {
    expect(checkTagUpdate(rules, { ref: "refs/tags/v1", before: A, after: B, forced: true }, maintainer)).toEqual({ allowed: false, message: "Protected tags cannot be updated." });
    expect(checkTagUpdate(rules, { ref: "refs/tags/v1", before: A, after: null, forced: false }, dev)).toMatchObject({ allowed: false, message: expect.stringMatching(/^You are not allowed to delete protected tags/) });
    expect(checkTagUpdate(rules, { ref: "refs/tags/v1", before: A, after: null, forced: false }, maintainer)).toEqual({ allowed: false, message: "You can only delete protected tags using the web interface." });
    expect(checkTagUpdate(rules, { ref: "refs/tags/v1", before: null, after: A, forced: false }, dev)).toEqual({ allowed: true });
    expect(checkTagUpdate(rules, { ref: "refs/tags/v1", before: null, after: A, forced: false }, { ...dev, accessLevel: 20 })).toEqual({ allowed: false, message: "You are not allowed to create this tag as it is protected." });
    expect(checkTagUpdate(rules, { ref: "refs/tags/x1", before: A, after: B, forced: true }, dev)).toEqual({ allowed: true });
  });
});
