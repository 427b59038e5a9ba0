import { describe, expect, it } from "vitest";
import type { Protection } from "../../functions/entities/protected_branches";
import { branchAccess, checkBranchUpdate, needsBasisCheck, refMatches } from "../../functions/shared/protected_branches/rules";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { commitOn, commitsPath, smallRepo } from "../helpers/commits";

type Json = Record<string, any>;
const path = (project: { id: number }, name = "") => `/projects/${project.id}/protected_branches${name ? `/${encodeURIComponent(name)}` : ""}`;
const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));

describe("protected branch rules", () => {
  const protection = (name: string, push: number, merge: number, allowForcePush = false): Protection => ({
    id: 1,
    name,
    allowForcePush,
    codeOwnerApprovalRequired: false,
    createdAt: new Date(),
    updatedAt: new Date(),
    levels: [
      { id: 1, action: "push", accessLevel: push },
      { id: 2, action: "merge", accessLevel: merge },
    ],
  });
  const project = { emptyRepo: false, defaultBranch: "main" };

  it("matches exact names and wildcards (`*` spans `/`)", () => {
    expect(refMatches("main", "main")).toBe(true);
    expect(refMatches("main", "main2")).toBe(false);
    expect(refMatches("release/*", "release/1.0")).toBe(true);
    expect(refMatches("*-stable", "feature/x-stable")).toBe(true);
    expect(refMatches("*-stable", "x-stable-2")).toBe(false);
    expect(refMatches("v1.*", "v1x2")).toBe(false);
  });

  it("lets any matching level through, and only 60 for administrators, 0 for nobody", () => {
    const rules = [protection("main", 40, 30), protection("ma*", 30, 40)];
    const dev = { accessLevel: 30, isAdmin: false };
    expect(branchAccess(rules, "main", dev, project)).toEqual({
      protected: true,
      canPush: true,
      canMerge: true,
      canForcePush: false,
      developersCanPush: true,
      developersCanMerge: true,
    });
    expect(branchAccess([protection("main", 0, 60)], "main", { accessLevel: 50, isAdmin: false }, project)).toMatchObject({ canPush: false, canMerge: false });
    expect(branchAccess([protection("main", 0, 60)], "main", { accessLevel: 0, isAdmin: true }, project)).toMatchObject({ canPush: false, canMerge: true });
    expect(branchAccess([], "main", dev, project)).toMatchObject({ protected: false, canPush: true });
    expect(branchAccess([], "anything", dev, { emptyRepo: true, defaultBranch: null })).toMatchObject({ protected: true, canPush: false });
    expect(branchAccess([], "anything", { accessLevel: 40, isAdmin: false }, { emptyRepo: true, defaultBranch: null })).toMatchObject({ canPush: true });
  });

  it("checks pushes as Gitlab::Checks::BranchCheck words them", () => {
    const rules = [protection("main", 40, 40), protection("stable", 30, 30, true)];
    const dev = { accessLevel: 30, isAdmin: false };
    const maintainer = { accessLevel: 40, isAdmin: false };
    const a = "a".repeat(40);
    const b = "b".repeat(40);
    expect(checkBranchUpdate(rules, { ref: "refs/heads/main", before: a, after: b, forced: false }, dev, project)).toEqual({
      allowed: false,
      message: "You are not allowed to push code to protected branches on this project.",
    });
    expect(checkBranchUpdate(rules, { ref: "refs/heads/main", before: a, after: b, forced: false }, maintainer, project)).toEqual({ allowed: true });
    expect(checkBranchUpdate(rules, { ref: "refs/heads/main", before: a, after: b, forced: true }, maintainer, project)).toEqual({
      allowed: false,
      message: "You are not allowed to force push code to a protected branch on this project.",
    });
    expect(checkBranchUpdate(rules, { ref: "refs/heads/stable", before: a, after: b, forced: true }, dev, project)).toEqual({ allowed: true });
    expect(checkBranchUpdate(rules, { ref: "refs/heads/main", before: a, after: null, forced: false }, maintainer, project)).toEqual({
      allowed: false,
      message: "The default branch of a project cannot be deleted.",
    });
    expect(checkBranchUpdate(rules, { ref: "refs/heads/stable", before: a, after: null, forced: false }, dev, project)).toMatchObject({ allowed: false });
    expect(checkBranchUpdate(rules, { ref: "refs/heads/topic", before: a, after: null, forced: true }, dev, project)).toEqual({ allowed: true });
    expect(checkBranchUpdate(rules, { ref: "refs/tags/v1", before: null, after: a, forced: false }, dev, project)).toEqual({ allowed: true });
  });

  it("lets allow_force_push decide force alone, the push level still applies (BranchCheck's order)", () => {
    const rules = [protection("stable", 40, 40, true)];
    const dev = { accessLevel: 30, isAdmin: false };
    const a = "a".repeat(40);
    const b = "b".repeat(40);
    expect(checkBranchUpdate(rules, { ref: "refs/heads/stable", before: a, after: b, forced: true }, dev, project)).toEqual({
      allowed: false,
      message: "You are not allowed to push code to protected branches on this project.",
    });
    expect(checkBranchUpdate(rules, { ref: "refs/heads/stable", before: a, after: b, forced: true }, { accessLevel: 40, isAdmin: false }, project)).toEqual({ allowed: true });
  });

  it("lets a merge-only creator of a protected branch start only from a protected branch, and only through the API; refuses others outright", () => {
    const rules = [protection("release", 40, 30)];
    const a = "a".repeat(40);
    const create = { ref: "refs/heads/release", before: null, after: a, forced: false };
    const dev = { accessLevel: 30, isAdmin: false };
    expect(needsBasisCheck(rules, create, dev, project)).toBe(true);
    expect(checkBranchUpdate(rules, create, dev, project)).toEqual({
      allowed: false,
      message: "You can only use an existing protected branch ref as the basis of a new protected branch.",
    });
    expect(checkBranchUpdate(rules, create, dev, project, { web: true })).toEqual({
      allowed: false,
      message: "You can only use an existing protected branch ref as the basis of a new protected branch.",
    });
    expect(checkBranchUpdate(rules, { ...create, basisProtected: true }, dev, project)).toEqual({
      allowed: false,
      message: "You can only create protected branches using the web interface and API.",
    });
    expect(checkBranchUpdate(rules, { ...create, basisProtected: true }, dev, project, { web: true })).toEqual({ allowed: true });
    // Whoever may push needs no basis; whoever may not merge either never gets that far.
    expect(needsBasisCheck(rules, create, { accessLevel: 40, isAdmin: false }, project)).toBe(false);
    expect(needsBasisCheck([protection("release", 40, 40)], create, dev, project)).toBe(false);
    expect(checkBranchUpdate([protection("release", 40, 40)], create, { accessLevel: 30, isAdmin: false }, project)).toEqual({
      allowed: false,
      message: "You are not allowed to create protected branches on this project.",
    });
    expect(checkBranchUpdate(rules, create, { accessLevel: 40, isAdmin: false }, project)).toEqual({ allowed: true });
  });

  it("words a refused push into an empty repository as GitLab's empty_project_push_message", () => {
    const empty = { emptyRepo: true, defaultBranch: null, fullPath: "g/p", membersUrl: "http://x.test/g/p/-/project_members" };
    const update = { ref: "refs/heads/main", before: null, after: "a".repeat(40), forced: false };
    expect(checkBranchUpdate([], update, { accessLevel: 30, isAdmin: false }, empty)).toEqual({
      allowed: false,
      message: "\nA default branch (e.g. main) does not yet exist for g/p\nAsk a project Owner or Maintainer to create a default branch:\n\n  http://x.test/g/p/-/project_members\n\n",
    });
    expect(checkBranchUpdate([], update, { accessLevel: 40, isAdmin: false }, empty)).toEqual({ allowed: true });
  });
});

describe("GET /projects/:id/protected_branches", () => {
  it("lists the default branch protected at its first commit, with GitLab's levels", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    const res = await api.get(path(project));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body).toEqual([
      {
        id: expect.any(Number),
        name: "main",
        push_access_levels: [{ id: expect.any(Number), access_level: 40, access_level_description: "Maintainers", user_id: null, group_id: null }],
        merge_access_levels: [{ id: expect.any(Number), access_level: 40, access_level_description: "Maintainers", user_id: null, group_id: null }],
        allow_force_push: false,
        unprotect_access_levels: [{ id: expect.any(Number), access_level: 40, access_level_description: "Maintainers", user_id: null, group_id: null }],
        code_owner_approval_required: false,
      },
    ]);
    expect(res.headers.get("x-total")).toBe("1");
    expect(queryCount(res)).toBeLessThanOrEqual(6);
  });

  it("is for maintainers: developers 403, strangers of a private project 404", async () => {
    const w = await world();
    const developer = await w.user();
    const { project } = await smallRepo(w, { developers: [developer] });
    expect(await statusAndBody(await w.as(developer).get(path(project)))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(path(project)))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("POST /projects/:id/protected_branches", () => {
  it("protects a wildcard, refuses a duplicate (409) and a bad level (400)", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    const res = await api.post(path(project), { json: { name: "release/*", push_access_level: 30, merge_access_level: 0, allow_force_push: true } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      name: "release/*",
      push_access_levels: [{ access_level: 30, access_level_description: "Developers + Maintainers" }],
      merge_access_levels: [{ access_level: 0, access_level_description: "No one" }],
      allow_force_push: true,
    });
    expect(await statusAndBody(await api.post(path(project), { json: { name: "release/*" } }))).toEqual([409, { message: "Protected branch 'release/*' already exists" }]);
    expect(await statusAndBody(await api.post(path(project), { json: { name: "x", push_access_level: 20 } }))).toEqual([
      400,
      { error: "push_access_level does not have a valid value" },
    ]);
    expect(await statusAndBody(await api.post(path(project), { json: {} }))).toEqual([400, { error: "name is missing" }]);
  });

  it("makes branches report protection and developers' rights", async () => {
    const w = await world();
    const developer = await w.user();
    const { api, project } = await smallRepo(w, { developers: [developer] });
    await commitOn(api, project, "release/1", "side", [{ action: "create", file_path: "r.txt", content: "r\n" }], { start_branch: "main" });
    await api.post(path(project), { json: { name: "release/*", push_access_level: 30, merge_access_level: 30 } });
    const branches = (await (await w.as(developer).get(`/projects/${project.id}/repository/branches`)).json()) as Json[];
    expect(branches.map((b) => [b.name, b.protected, b.developers_can_push, b.developers_can_merge, b.can_push])).toEqual([
      ["main", true, false, false, false],
      ["release/1", true, true, true, true],
    ]);
  });
});

describe("GET and DELETE /projects/:id/protected_branches/:name", () => {
  it("shows one protection, 404 for an unknown one, and unprotects", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    expect((await (await api.get(path(project, "main"))).json()) as Json).toMatchObject({ name: "main" });
    expect(await statusAndBody(await api.get(path(project, "nope")))).toEqual([404, { message: "404 Not found" }]);
    expect((await api.delete(path(project, "main"))).status).toBe(204);
    expect(await statusAndBody(await api.delete(path(project, "main")))).toEqual([404, { message: "404 Not found" }]);
    const [main] = (await (await api.get(`/projects/${project.id}/repository/branches`)).json()) as Json[];
    expect(main.protected).toBe(false);
  });
});

describe("commits to a protected branch follow its push level", () => {
  it("refuses a developer on the protected default branch and lets them commit elsewhere", async () => {
    const w = await world();
    const developer = await w.user();
    const { project } = await smallRepo(w, { developers: [developer] });
    const dev = w.as(developer);
    const refused = await dev.post(commitsPath(project), { json: { branch: "main", commit_message: "x", actions: [{ action: "create", file_path: "d.txt", content: "d" }] } });
    expect(await statusAndBody(refused)).toEqual([403, { message: "403 Forbidden - You are not allowed to push into this branch" }]);
    await commitOn(dev, project, "topic", "x", [{ action: "create", file_path: "d.txt", content: "d" }], { start_branch: "main" });
  });

  it("refuses a developer's first commit to an empty project (the default branch is protected before it exists)", async () => {
    const w = await world();
    const developer = await w.user();
    const project = await w.project({ developers: [developer] });
    const refused = await w.as(developer).post(commitsPath(project), { json: { branch: "main", commit_message: "x", actions: [{ action: "create", file_path: "d.txt", content: "d" }] } });
    expect(refused.status).toBe(403);
  });
});
