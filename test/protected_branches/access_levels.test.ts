import { describe, expect, it } from "vitest";
import type { Protection } from "../../functions/entities/protected_branches";
import { branchAccess } from "../../functions/shared/protected_branches/rules";
import { projectGroupLinks } from "../../db/schema";
import { request, statusAndBody, type Client } from "../helpers/client";

const patch = (api: Client, url: string, opts: { json: unknown }) => request("PATCH", url, api.token, opts);
import { world, type World, type TestUser } from "../helpers/world";
import { commitsPath, smallRepo } from "../helpers/commits";

type Json = Record<string, any>;
const path = (project: { id: number }, name = "") => `/projects/${project.id}/protected_branches${name ? `/${encodeURIComponent(name)}` : ""}`;

async function commitTo(w: World, user: TestUser, project: { id: number }, branch: string) {
  return w.as(user).post(commitsPath(project), {
    json: { branch, ...(branch === "main" ? {} : { start_branch: "main" }), commit_message: "x", actions: [{ action: "create", file_path: `${crypto.randomUUID()}.txt`, content: "x" }] },
  });
}

describe("per-user and per-group rules", () => {
  const at = new Date();
  const protection = (levels: Protection["levels"]): Protection => ({ id: 1, name: "main", allowForcePush: false, codeOwnerApprovalRequired: false, createdAt: at, updatedAt: at, levels });
  const project = { emptyRepo: false, defaultBranch: "main" };

  it("lets a named user or a group's direct member through whatever their role, and nobody else", () => {
    const rules = [
      protection([
        { id: 1, action: "push", accessLevel: 0 },
        { id: 2, action: "push", accessLevel: null, userId: 7 },
        { id: 3, action: "merge", accessLevel: null, groupId: 9, groupUserIds: [8] },
      ]),
    ];
    const dev = (userId: number) => ({ accessLevel: 30, isAdmin: false, userId });
    expect(branchAccess(rules, "main", dev(7), project)).toMatchObject({ canPush: true, canMerge: false, developersCanPush: false });
    expect(branchAccess(rules, "main", dev(8), project)).toMatchObject({ canPush: false, canMerge: true, developersCanMerge: false });
    expect(branchAccess(rules, "main", { accessLevel: 50, isAdmin: false, userId: 1 }, project)).toMatchObject({ canPush: false, canMerge: false });
    expect(branchAccess(rules, "main", null, project)).toMatchObject({ canPush: false, canMerge: false });
  });
});

describe("POST /projects/:id/protected_branches with allowed_to_*", () => {
  it("stores user, group and role levels and shows them as GitLab does", async () => {
    const w = await world();
    const developer = await w.user({ name: "Dee Veloper" });
    const { api, project } = await smallRepo(w, { developers: [developer] });
    const group = await w.group();
    await w.db((db) => db.insert(projectGroupLinks).values({ projectId: project.id, groupId: group.id, groupAccess: 30 }));
    const res = await api.post(path(project), {
      json: { name: "release/*", allowed_to_push: [{ user_id: developer.id }, { access_level: 0 }], allowed_to_merge: [{ group_id: group.id }], unprotect_access_level: 40 },
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({
      id: expect.any(Number),
      name: "release/*",
      push_access_levels: [
        { id: expect.any(Number), access_level: null, access_level_description: "Dee Veloper", user_id: developer.id, group_id: null },
        { id: expect.any(Number), access_level: 0, access_level_description: "No one", user_id: null, group_id: null },
      ],
      merge_access_levels: [{ id: expect.any(Number), access_level: null, access_level_description: group.name, user_id: null, group_id: group.id }],
      allow_force_push: false,
      unprotect_access_levels: [{ id: expect.any(Number), access_level: 40, access_level_description: "Maintainers", user_id: null, group_id: null }],
      code_owner_approval_required: false,
    });
    // The list shows the same levels (one read).
    const [, listed] = (await (await api.get(path(project))).json()) as Json[];
    expect(listed.push_access_levels[0]).toMatchObject({ user_id: developer.id, access_level_description: "Dee Veloper" });
  });

  it("refuses users without access and groups the project is not shared with (422), and bad elements (400)", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    const group = await w.group();
    expect(await statusAndBody(await api.post(path(project), { json: { name: "a", allowed_to_push: [{ user_id: w.stranger.id }] } }))).toEqual([
      422,
      { message: ["Push access levels user is not a member of the project"] },
    ]);
    expect(await statusAndBody(await api.post(path(project), { json: { name: "a", allowed_to_merge: [{ group_id: group.id }] } }))).toEqual([
      422,
      { message: ["Merge access levels group does not have access to the project"] },
    ]);
    const bad = await api.post(path(project), { json: { name: "a", allowed_to_push: [{ access_level: 20 }] } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).error).toMatch(/allowed_to_push.*access_level.* does not have a valid value/);
    expect((await api.get(path(project, "a"))).status).toBe(404);
  });
});

describe("pushes and commits follow user and group levels", () => {
  it("lets a developer named by user_id commit under 'No one', and refuses another developer", async () => {
    const w = await world();
    const allowed = await w.user();
    const other = await w.user();
    const { api, project } = await smallRepo(w, { developers: [allowed, other] });
    expect((await api.delete(path(project, "main"))).status).toBe(204);
    await api.post(path(project), { json: { name: "main", push_access_level: 0, allowed_to_push: [{ user_id: allowed.id }] } });
    expect((await commitTo(w, allowed, project, "main")).status).toBe(201);
    expect(await statusAndBody(await commitTo(w, other, project, "main"))).toEqual([403, { message: "403 Forbidden - You are not allowed to push into this branch" }]);
    // The branch entity reports the caller's own right.
    const branch = async (u: TestUser) => ((await (await w.as(u).get(`/projects/${project.id}/repository/branches/main`)).json()) as Json).can_push;
    expect([await branch(allowed), await branch(other)]).toEqual([true, false]);
  });

  it("lets the direct members of a shared group commit under the maintainer level", async () => {
    const w = await world();
    const inGroup = await w.user();
    const outside = await w.user();
    const group = await w.group({ developers: [inGroup] });
    const { api, project } = await smallRepo(w, { developers: [outside] });
    await w.db((db) => db.insert(projectGroupLinks).values({ projectId: project.id, groupId: group.id, groupAccess: 30 }));
    await api.post(path(project), { json: { name: "stable", allowed_to_push: [{ group_id: group.id }, { access_level: 40 }] } });
    expect((await commitTo(w, inGroup, project, "stable")).status).toBe(201);
    expect((await commitTo(w, outside, project, "stable")).status).toBe(403);
  });
});

describe("PATCH /projects/:id/protected_branches/:name with allowed_to_*", () => {
  it("adds a user level, then removes it with id and _destroy; ignores ids of other protections", async () => {
    const w = await world();
    const developer = await w.user();
    const { api, project } = await smallRepo(w, { developers: [developer] });
    const added = await patch(api, path(project, "main"), { json: { allowed_to_push: [{ user_id: developer.id }] } });
    expect(added.status).toBe(200);
    const body = (await added.json()) as Json;
    expect(body.push_access_levels.map((l: Json) => [l.access_level, l.user_id])).toEqual([
      [40, null],
      [null, developer.id],
    ]);
    expect((await commitTo(w, developer, project, "main")).status).toBe(201);
    const levelId = body.push_access_levels[1].id;
    const other = (await (await api.post(path(project), { json: { name: "other" } })).json()) as Json;
    const ignored = (await (await patch(api, path(project, "main"), { json: { allowed_to_push: [{ id: other.push_access_levels[0].id, _destroy: true }] } })).json()) as Json;
    expect(ignored.push_access_levels).toHaveLength(2);
    const removed = (await (await patch(api, path(project, "main"), { json: { allowed_to_push: [{ id: levelId, _destroy: true }], allow_force_push: true } })).json()) as Json;
    expect(removed.push_access_levels.map((l: Json) => l.user_id)).toEqual([null]);
    expect(removed.allow_force_push).toBe(true);
    expect((await commitTo(w, developer, project, "main")).status).toBe(403);
    expect((await patch(w.as(developer), path(project, "main"), { json: { allow_force_push: false } })).status).toBe(403);
  });
});
