import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { gitCommits, gitRefs, members, projects, pushEvents, users } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { unique, world } from "../helpers/world";

type Json = Record<string, any>;

async function projectRow(w: Awaited<ReturnType<typeof world>>, id: number) {
  return w.db(async (db) => (await db.select().from(projects).where(eq(projects.id, id)))[0]);
}

async function projectMembers(w: Awaited<ReturnType<typeof world>>, id: number) {
  return w.db((db) =>
    db
      .select({ userId: members.userId, accessLevel: members.accessLevel })
      .from(members)
      .where(and(eq(members.sourceType, "Project"), eq(members.sourceId, id))),
  );
}

describe("POST /projects", () => {
  requiresAuthentication((w) => w.anonymous.post("/projects", { json: { name: "x" } }));

  it("creates a personal project from a name, deriving the path, with the caller as Owner member", async () => {
    const w = await world();
    const user = await w.user();
    const name = `My Project ${unique("n").replace(/[^a-z0-9]/g, "").slice(-5)}`;
    const res = await w.as(user).post("/projects", { json: { name, description: "hello" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    const path = name.toLowerCase().replace(/ /g, "-");
    expect(body).toMatchObject({
      name,
      path,
      description: "hello",
      path_with_namespace: `${user.username}/${path}`,
      name_with_namespace: `${user.name} / ${name}`,
      visibility: "private",
      archived: false,
      empty_repo: true,
      default_branch: "main",
      creator_id: user.id,
      web_url: `http://edgeforge.test/${user.username}/${path}`,
      http_url_to_repo: `http://edgeforge.test/${user.username}/${path}.git`,
      ssh_url_to_repo: `git@edgeforge.test:${user.username}/${path}.git`,
      namespace: { id: user.namespaceId, kind: "user", full_path: user.username, parent_id: null },
      owner: { id: user.id, username: user.username },
      shared_with_groups: [],
      issues_enabled: true,
      jobs_enabled: true,
      public_jobs: true,
    });
    expect(body).not.toHaveProperty("permissions");
    const row = await projectRow(w, body.id);
    expect(row).toMatchObject({ path, fullPath: `${user.username}/${path}`, namespaceId: user.namespaceId, creatorId: user.id });
    expect(await projectMembers(w, body.id)).toEqual([{ userId: user.id, accessLevel: 50 }]);
  });

  it("takes the name from the path, keeps a valid name as the path, and stores feature flags and topics", async () => {
    const w = await world();
    const user = await w.user();
    const path = unique("only_path");
    const fromPath = (await (await w.as(user).post("/projects", { json: { path } })).json()) as Json;
    expect([fromPath.name, fromPath.path]).toEqual([path, path]);

    const name = unique("Valid.Name");
    const res = await w.as(user).post("/projects", {
      form: { name, issues_enabled: "false", jobs_enabled: "false", public_builds: "false", visibility: "internal", topics: "b, a, B" },
    });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(201);
    expect(body).toMatchObject({
      path: name,
      issues_enabled: false,
      issues_access_level: "disabled",
      jobs_enabled: false,
      builds_access_level: "disabled",
      public_jobs: false,
      visibility: "internal",
      topics: ["b", "a"],
      tag_list: ["b", "a"],
    });
    expect(body).not.toHaveProperty("open_issues_count");
    expect(body._links).not.toHaveProperty("issues");
  });

  it("initialize_with_readme makes a first commit with GitLab's README on the default branch", async () => {
    const w = await world();
    const user = await w.user();
    const path = unique("readme");
    const res = await w.as(user).post("/projects", { json: { path, description: "Some words", initialize_with_readme: true, default_branch: "trunk" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ default_branch: "trunk", empty_repo: false, readme_url: null });
    expect(await projectRow(w, body.id)).toMatchObject({ initializeWithReadme: true, defaultBranch: "trunk", emptyRepo: false });
    const refs = await w.db((db) => db.select().from(gitRefs).where(eq(gitRefs.projectId, body.id)));
    expect(refs.map((r) => r.name)).toEqual(["refs/heads/trunk"]);
    const [commit] = await w.db((db) => db.select().from(gitCommits).where(eq(gitCommits.oid, refs[0].target)));
    expect(commit).toMatchObject({ parents: [], message: "Initial commit", authorName: user.name, authorEmail: user.email, committerName: user.name, filesChanged: 1 });
    const events = await w.db((db) => db.select().from(pushEvents).where(eq(pushEvents.projectId, body.id)));
    expect(events).toMatchObject([{ ref: "refs/heads/trunk", before: "0".repeat(40), after: refs[0].target, userId: user.id }]);
    // The README as GitLab's default template renders it.
    const readme = (await (await w.as(user).get(`/projects/${body.id}/repository/files/README.md/raw`)).text());
    expect(readme.startsWith(`# ${path}\n\nSome words\n\n## Getting started\n`)).toBe(true);
    expect(readme).toContain(`git remote add origin ${body.http_url_to_repo}\ngit branch -M trunk\ngit push -uf origin trunk\n`);
    // GET shows the same.
    expect(await (await w.as(user).get(`/projects/${body.id}`)).json()).toMatchObject({ default_branch: "trunk", empty_repo: false });
  });

  it("initialize_with_readme uses main by default; without it the repository stays empty", async () => {
    const w = await world();
    const user = await w.user();
    const readme = (await (await w.as(user).post("/projects", { json: { name: unique("readme"), initialize_with_readme: true } })).json()) as Json;
    expect(readme).toMatchObject({ default_branch: "main", empty_repo: false });
    const plain = (await (await w.as(user).post("/projects", { json: { path: unique("plain"), default_branch: "trunk" } })).json()) as Json;
    expect(plain).toMatchObject({ default_branch: "main", empty_repo: true });
    // A branch name git refuses: GitLab ignores the failed README commit and keeps the empty project.
    const refused = await w.as(user).post("/projects", { json: { path: unique("refused"), initialize_with_readme: true, default_branch: "a..b" } });
    expect(refused.status).toBe(201);
    const refusedBody = (await refused.json()) as Json;
    expect(refusedBody).toMatchObject({ default_branch: "main", empty_repo: true });
    expect(await w.db((db) => db.select().from(gitRefs).where(eq(gitRefs.projectId, refusedBody.id)))).toEqual([]);
  });

  it("answers GitLab's parameter and validation errors", async () => {
    const w = await world();
    const user = await w.user();
    expect(await statusAndBody(await w.as(user).post("/projects", { json: {} }))).toEqual([
      400,
      { error: "name, path are missing, at least one parameter must be provided" },
    ]);
    // The name comes from the path, so both fail.
    expect(await statusAndBody(await w.as(user).post("/projects", { json: { path: "bad/path" } }))).toEqual([
      400,
      {
        message: {
          name: ["can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'."],
          path: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"],
        },
      },
    ]);
    expect(await statusAndBody(await w.as(user).post("/projects", { json: { path: "tree" } }))).toEqual([
      400,
      { message: { path: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"] } },
    ]);
    expect(await statusAndBody(await w.as(user).post("/projects", { json: { name: "-bad", path: unique("p") } }))).toEqual([
      400,
      { message: { name: ["can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'."] } },
    ]);
    expect(await statusAndBody(await w.as(user).post("/projects", { json: { name: "x", visibility: "secret" } }))).toEqual([
      400,
      { error: "visibility does not have a valid value" },
    ]);
  });

  it("refuses a name and path already used in the namespace", async () => {
    const w = await world();
    const user = await w.user();
    const path = unique("dup");
    expect((await w.as(user).post("/projects", { json: { path } })).status).toBe(201);
    expect(await statusAndBody(await w.as(user).post("/projects", { json: { path: path.toUpperCase() } }))).toEqual([
      400,
      { message: { path: ["has already been taken"] } },
    ]);
    expect(await statusAndBody(await w.as(user).post("/projects", { json: { name: path, path } }))).toEqual([
      400,
      {
        message: {
          "project_namespace.name": ["has already been taken"],
          name: ["has already been taken"],
          path: ["has already been taken"],
        },
      },
    ]);
  });

  it("creates in a group for developers (the default project_creation_level), capping visibility at the group's", async () => {
    const w = await world();
    const dev = await w.user();
    const reporter = await w.user();
    const group = await w.group({ visibility: "internal", developers: [dev], reporters: [reporter] });
    const res = await w.as(dev).post("/projects", { json: { path: unique("gp"), namespace_id: group.id, visibility: "public" } });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(201);
    expect(body).toMatchObject({ visibility: "internal", namespace: { id: group.id, kind: "group", full_path: group.fullPath } });
    expect(body).not.toHaveProperty("owner");
    expect(await projectMembers(w, body.id)).toEqual([]);

    expect(await statusAndBody(await w.as(reporter).post("/projects", { json: { path: unique("gp"), namespace_id: group.id } }))).toEqual([
      400,
      { message: { namespace: ["is not valid"] } },
    ]);
    expect(await statusAndBody(await w.as(dev).post("/projects", { json: { path: unique("gp"), namespace_id: 2147480000 } }))).toEqual([
      400,
      { message: { namespace: ["can't be blank"] } },
    ]);
    const other = await w.user();
    expect(await statusAndBody(await w.as(dev).post("/projects", { json: { path: unique("gp"), namespace_id: other.namespaceId } }))).toEqual([
      400,
      { message: { namespace: ["is not valid"] } },
    ]);
  });

  it("enforces the personal project limit with 403 and the bare message list", async () => {
    const w = await world();
    const user = await w.user();
    await w.db((db) => db.update(users).set({ projectsLimit: 0 }).where(eq(users.id, user.id)));
    expect(await statusAndBody(await w.as(user).post("/projects", { json: { name: "x" } }))).toEqual([
      403,
      ["Personal project creation is not allowed. Please contact your administrator with questions"],
    ]);
    await w.db((db) => db.update(users).set({ projectsLimit: 1 }).where(eq(users.id, user.id)));
    expect((await w.as(user).post("/projects", { json: { path: unique("one") } })).status).toBe(201);
    expect(await statusAndBody(await w.as(user).post("/projects", { json: { path: unique("two") } }))).toEqual([
      403,
      ["Your project limit is 1 projects! Please contact your administrator to increase it"],
    ]);
  });
});

describe("POST /projects/user/:user_id", () => {
  it("lets an admin create a project owned by another user", async () => {
    const w = await world();
    const target = await w.user();
    const path = unique("for-user");
    const res = await w.root.post(`/projects/user/${target.id}`, { json: { name: path } });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(201);
    expect(body).toMatchObject({ path, creator_id: target.id, owner: { id: target.id }, namespace: { id: target.namespaceId } });
    expect(await projectMembers(w, body.id)).toEqual([{ userId: target.id, accessLevel: 50 }]);
  });

  it("answers 400, 403 and 404 as GitLab does", async () => {
    const w = await world();
    const target = await w.user();
    expect(await statusAndBody(await w.root.post(`/projects/user/${target.id}`, { json: {} }))).toEqual([400, { error: "name is missing" }]);
    expect(await statusAndBody(await w.root.post(`/projects/user/abc`, { json: { name: "x" } }))).toEqual([400, { error: "user_id is invalid" }]);
    expect(await statusAndBody(await w.as(w.stranger).post(`/projects/user/${target.id}`, { json: { name: "x" } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
    expect(await statusAndBody(await w.root.post(`/projects/user/2147480000`, { json: { name: "x" } }))).toEqual([
      404,
      { message: "404 User Not Found" },
    ]);
  });
});
