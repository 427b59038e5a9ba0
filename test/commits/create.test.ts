import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { projects } from "../../db/schema";
import { commitTree, listTree, readFileAt } from "../../functions/shared/git/store/read";
import { readRef } from "../../functions/shared/git/store/refs";
import { repoOf } from "../../functions/shared/git/store/revisions";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world, type TestProject, type World } from "../helpers/world";
import { commitOn, commitsPath, smallRepo } from "../helpers/commits";

type Json = Record<string, any>;

/** The files of a branch: path → [mode, content]. */
async function filesOf(w: World, project: TestProject, branch: string): Promise<Record<string, [string, string]>> {
  return w.db(async (db) => {
    const repo = repoOf({ id: project.id, defaultBranch: null });
    const ref = await readRef(db, project.id, `refs/heads/${branch}`);
    const tree = await commitTree(db, repo, ref!.target);
    const out: Record<string, [string, string]> = {};
    for (const entry of (await listTree(db, repo, tree!, "", true))!) {
      if (entry.type !== "blob") continue;
      const file = await readFileAt(db, repo, tree!, entry.path);
      out[entry.path] = [entry.mode, new TextDecoder().decode(file!.content)];
    }
    return out;
  });
}

async function branchTip(w: World, project: TestProject, branch: string) {
  return w.db(async (db) => (await readRef(db, project.id, `refs/heads/${branch}`))?.target ?? null);
}

describe("POST /projects/:id/repository/commits", () => {
  it("makes the first commit of an empty repository (JSON) and answers 201 with CommitDetail and stats", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const res = await w.as(owner).post(commitsPath(project), {
      json: {
        branch: "trunk",
        commit_message: "Created a new file with a very very looooooooooooooooooooooooooooooooooooooooooooooong commit message",
        actions: [
          { action: "create", file_path: "/lib/a.rb", content: "puts 8\nputs 9\n" },
          { action: "create", file_path: "bin/run", content: "IyEvYmluL3NoCg==", encoding: "base64" },
        ],
      },
    });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(201);
    expect(Object.keys(body).slice(-5)).toEqual(["web_url", "stats", "status", "project_id", "last_pipeline"]);
    expect(body).toMatchObject({
      title: "Created a new file with a very very looooooooooooooooooooooooooooooooooooooooooooooong commit message",
      parent_ids: [],
      committer_name: owner.name,
      committer_email: owner.email,
      author_name: owner.name,
      author_email: owner.email,
      stats: { additions: 3, deletions: 0, total: 3 },
      status: null,
      project_id: project.id,
      last_pipeline: null,
    });
    expect(body.committed_date).toMatch(/\.000\+00:00$/);
    expect(await branchTip(w, project, "trunk")).toBe(body.id);
    expect(await filesOf(w, project, "trunk")).toEqual({ "bin/run": ["100644", "#!/bin/sh\n"], "lib/a.rb": ["100644", "puts 8\nputs 9\n"] });
    const [row] = await w.db((db) => db.select().from(projects).where(eq(projects.id, project.id)));
    expect([row.defaultBranch, row.emptyRepo]).toEqual(["trunk", false]);
  });

  it("takes form-encoded actions[][field] and applies update, move, delete and chmod in order", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const form: [string, string][] = [
      ["branch", "main"],
      ["commit_message", "Many things"],
      ["actions[][action]", "update"],
      ["actions[][file_path]", "README.md"],
      ["actions[][content]", "new readme\n"],
      ["actions[][last_commit_id]", commits[0].id],
      ["actions[][action]", "move"],
      ["actions[][file_path]", "docs/b.md"],
      ["actions[][previous_path]", "docs/a.md"],
      ["actions[][action]", "create"],
      ["actions[][file_path]", "run.sh"],
      ["actions[][content]", "echo hi\n"],
      ["actions[][action]", "chmod"],
      ["actions[][file_path]", "run.sh"],
      ["actions[][execute_filemode]", "true"],
    ];
    const res = await api.post(commitsPath(project), { formBody: new URLSearchParams(form).toString() });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(201);
    expect(body.parent_ids).toEqual([commits[0].id]);
    expect(body.message).toBe("Many things");
    expect(await filesOf(w, project, "main")).toEqual({
      "README.md": ["100644", "new readme\n"],
      "docs/b.md": ["100644", "a\nb\n"],
      "run.sh": ["100755", "echo hi\n"],
    });
    const moved = await commitOn(api, project, "main", "Move with content, then delete", [
      { action: "move", file_path: "docs/c.md", previous_path: "docs/b.md", content: "c\n" },
      { action: "delete", file_path: "run.sh" },
      { action: "chmod", file_path: "README.md", execute_filemode: false },
    ]);
    expect(moved.stats).toEqual({ additions: 1, deletions: 3, total: 4 });
    expect(await filesOf(w, project, "main")).toEqual({ "README.md": ["100644", "new readme\n"], "docs/c.md": ["100644", "c\n"] });
  });

  it("uses author_name and author_email, and leaves stats out with stats=false", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const body = await commitOn(api, project, "main", "By someone else", [{ action: "create", file_path: "x", content: "x" }], {
      author_name: "Jane Doe",
      author_email: "jane@example.com",
      stats: false,
    });
    expect(body).toMatchObject({ author_name: "Jane Doe", author_email: "jane@example.com" });
    expect(body.stats).toBeUndefined();
    expect((body as Json).status).toBeNull();
  });

  it("creates a branch from start_branch or start_sha, and overwrites one with force", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const [third, second] = commits;
    const fromBranch = await commitOn(api, project, "feature", "On feature", [{ action: "create", file_path: "f", content: "f\n" }], { start_branch: "main" });
    expect(fromBranch.parent_ids).toEqual([third.id]);
    const fromSha = await commitOn(api, project, "old", "On old", [{ action: "create", file_path: "o", content: "o\n" }], { start_sha: second.id });
    expect(fromSha.parent_ids).toEqual([second.id]);
    expect(await branchTip(w, project, "main")).toBe(third.id);
    const forced = await commitOn(api, project, "feature", "Forced", [{ action: "create", file_path: "g", content: "g\n" }], { start_sha: second.id, force: true });
    expect(forced.parent_ids).toEqual([second.id]);
    expect(await branchTip(w, project, "feature")).toBe(forced.id);
  });

  it("answers the service's 400 messages", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const post = async (body: Json) =>
      statusAndBody(await api.post(commitsPath(project), { json: { branch: "main", commit_message: "m", ...body } }));
    const create = (file_path: string) => [{ action: "create", file_path, content: "x" }];
    expect(await post({ actions: create("README.md") })).toEqual([400, { message: "A file with this name already exists" }]);
    expect(await post({ actions: create("docs") })).toEqual([400, { message: "A directory with this name already exists" }]);
    expect(await post({ actions: [{ action: "update", file_path: "nope.md", content: "x" }] })).toEqual([400, { message: "A file with this name doesn't exist" }]);
    expect(await post({ actions: [{ action: "delete", file_path: "nope.md" }] })).toEqual([400, { message: "A file with this name doesn't exist" }]);
    expect(await post({ actions: [{ action: "chmod", file_path: "nope.md", execute_filemode: true }] })).toEqual([400, { message: "A file with this name doesn't exist" }]);
    expect(await post({ actions: create("../etc/passwd") })).toEqual([400, { message: "Path cannot include directory traversal" }]);
    expect(await post({ actions: [{ action: "update", file_path: "README.md", content: "x", last_commit_id: commits[1].id }] })).toEqual([
      400,
      { message: "The file has changed since you started editing it: README.md" },
    ]);
    expect(await post({ branch: "elsewhere", actions: create("n") })).toEqual([400, { message: "You can only create or edit files when you are on a branch" }]);
    expect(await post({ branch: "x", start_branch: "missing", actions: create("n") })).toEqual([400, { message: "You can only create or edit files when you are on a branch" }]);
    expect(await post({ start_branch: "main", branch: "main", actions: create("n"), start_sha: undefined })).toMatchObject([201, {}]);
    await commitOn(api, project, "other", "o", create("o"), { start_branch: "main" });
    expect(await post({ branch: "other", start_branch: "main", actions: create("p") })).toEqual([
      400,
      { message: "A branch called 'other' already exists. Switch to that branch in order to make changes" },
    ]);
    expect(await post({ branch: "new", start_sha: "1".repeat(40), actions: create("n") })).toEqual([400, { message: `Cannot find start_sha '${"1".repeat(40)}'` }]);
    expect(await post({ branch: "new", start_sha: commits[0].id.slice(0, 7), actions: create("n") })).toEqual([
      400,
      { message: `Invalid start_sha '${commits[0].id.slice(0, 7)}'` },
    ]);
    expect(await post({ branch: "bad..name", start_branch: "main", actions: create("n") })).toEqual([
      400,
      { message: "Something went wrong when we tried to create 'bad..name' for you: Branch name is invalid" },
    ]);
    // Gitaly's pre-receive hook (BranchCheck) refuses a branch named like a commit id: 40 hex digits.
    const hexName = `${"0123456789".repeat(3)}abcdefABCD`;
    expect(await post({ branch: hexName, start_branch: "main", actions: create("hex") })).toEqual([
      400,
      { message: "You cannot create a branch with a 40-character hexadecimal branch name." },
    ]);
    expect(await post({ branch: hexName.slice(1), start_branch: "main", actions: create("hex") })).toMatchObject([201, {}]);
    // The first commit of an empty repository names a branch too.
    const owner = await w.user();
    const empty = await w.project({ owner });
    const first = { branch: "wrong:name", commit_message: "m", actions: create("a") };
    expect(await statusAndBody(await w.as(owner).post(commitsPath(empty), { json: first }))).toEqual([
      400,
      { message: "Something went wrong when we tried to create 'wrong:name' for you: Branch name is invalid" },
    ]);
  });

  it("validates parameters as Grape does", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const post = async (body: Json) => statusAndBody(await api.post(commitsPath(project), { json: body }));
    expect(await post({})).toEqual([400, { error: "branch is missing, commit_message is missing, actions is missing" }]);
    expect(await post({ branch: " ", commit_message: "m", actions: [] })).toEqual([400, { error: "branch is empty" }]);
    const base = { branch: "main", commit_message: "m" };
    expect(await post({ ...base, actions: [{ action: "unknown", file_path: "a" }] })).toEqual([400, { error: "actions[0][action] does not have a valid value" }]);
    expect(await post({ ...base, actions: [{ action: null, file_path: "a" }] })).toEqual([400, { error: "actions[0][action] is empty" }]);
    expect(await post({ ...base, actions: [{ action: "create" }] })).toEqual([400, { error: "actions[0][file_path] is missing" }]);
    expect(await post({ ...base, actions: [{ action: "create", file_path: "a" }, { action: "update", file_path: "b" }] })).toEqual([
      400,
      { error: "actions[1][content] is missing" },
    ]);
    expect(await post({ ...base, actions: [{ action: "move", file_path: "a" }] })).toEqual([400, { error: "actions[0][previous_path] is missing" }]);
    expect(await post({ ...base, actions: [{ action: "chmod", file_path: "a" }] })).toEqual([400, { error: "actions[0][execute_filemode] is missing" }]);
    expect(await post({ ...base, actions: [{ action: "create", file_path: "a", encoding: "rot13" }] })).toEqual([
      400,
      { error: "actions[0][encoding] does not have a valid value" },
    ]);
    expect(await post({ ...base, actions: "create" })).toEqual([400, { error: "actions is invalid" }]);
    expect(await post({ ...base, actions: [{ action: "create", file_path: "a" }], start_branch: "main", start_sha: "a".repeat(40) })).toEqual([
      400,
      { error: "start_branch, start_sha are mutually exclusive" },
    ]);
    expect(await post({ ...base, actions: [{ action: "create", file_path: "a" }], stats: "perhaps" })).toEqual([400, { error: "stats is invalid" }]);
  });

  it("refuses a start_project: 404 when unreadable, 403 outside the fork network (no forks exist yet)", async () => {
    const w = await world();
    const { owner, project, api } = await smallRepo(w);
    const hidden = await w.project({ visibility: "private" });
    const body = { branch: "n", start_branch: "main", commit_message: "m", actions: [{ action: "create", file_path: "a", content: "" }] };
    expect(await statusAndBody(await api.post(commitsPath(project), { json: { ...body, start_project: hidden.id } }))).toEqual([
      404,
      { message: "404 Project Not Found" },
    ]);
    expect(await statusAndBody(await api.post(commitsPath(project), { json: { ...body, start_project: project.fullPath } }))).toEqual([
      403,
      { message: `403 Forbidden - Project is not included in the fork network for ${owner.name} / ${project.path}` },
    ]);
  });

  requiresAuthentication(async (w) => {
    const project = await w.project({ visibility: "public" });
    return w.anonymous.post(commitsPath(project), { json: { branch: "main", commit_message: "m", actions: [] } });
  });

  it("needs push_code: developers commit; guests lack download_code; reporters may not push; archived projects refuse", async () => {
    const w = await world();
    const guest = await w.user();
    const reporter = await w.user();
    const developer = await w.user();
    const { project, api: ownerApi } = await smallRepo(w, { guests: [guest], reporters: [reporter], developers: [developer] });
    const body = { branch: "main", commit_message: "m", actions: [{ action: "create", file_path: "dev.txt", content: "" }] };
    expect(await statusAndBody(await w.as(guest).post(commitsPath(project), { json: body }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(reporter).post(commitsPath(project), { json: body }))).toEqual([
      403,
      { message: "403 Forbidden - You are not allowed to push into this branch" },
    ]);
    expect(await statusAndBody(await w.as(w.stranger).post(commitsPath(project), { json: body }))).toEqual([404, { message: "404 Project Not Found" }]);
    // The default branch is protected (maintainers push): developers commit to other branches.
    expect(await statusAndBody(await w.as(developer).post(commitsPath(project), { json: body }))).toEqual([
      403,
      { message: "403 Forbidden - You are not allowed to push into this branch" },
    ]);
    expect((await w.as(developer).post(commitsPath(project), { json: { ...body, branch: "dev", start_branch: "main" } })).status).toBe(201);
    // A new protected branch from `start_branch` by someone who may merge but not push: GitLab's
    // `authorize_push_to_branch!` answers before the hook's creation checks could, even from a protected basis.
    expect((await ownerApi.post(`/projects/${project.id}/protected_branches`, { json: { name: "rel-*", push_access_level: 0, merge_access_level: 30 } })).status).toBe(201);
    expect(await statusAndBody(await w.as(developer).post(commitsPath(project), { json: { ...body, branch: "rel-1", start_branch: "main" } }))).toEqual([
      403,
      { message: "403 Forbidden - You are not allowed to push into this branch" },
    ]);
    const publicProject = await smallRepo(w, { visibility: "public" });
    expect(await statusAndBody(await w.as(w.stranger).post(commitsPath(publicProject.project), { json: body }))).toEqual([
      403,
      { message: "403 Forbidden - You are not allowed to push into this branch" },
    ]);
    const archived = await smallRepo(w, { archived: true });
    expect(await statusAndBody(await archived.api.post(commitsPath(archived.project), { json: body }))).toEqual([
      403,
      { message: "403 Forbidden - You are not allowed to push into this branch" },
    ]);
  });
});
