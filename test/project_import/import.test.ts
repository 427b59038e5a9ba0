import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { strToU8 } from "fflate";
import { describe, expect, it } from "vitest";
import { importFailures, issues, projects, projectTransferJobs, snippets as snippetsTable, users } from "../../db/schema";
import type { Bindings } from "../../functions/kernel/env";
import { queue } from "../../functions/queue";
import { PackWriter } from "../../functions/shared/git/pack/pack";
import { blobObject, commitObject, deflate, treeObject, type RawObject } from "../../functions/shared/git/pure/objects";
import { statusAndBody } from "../helpers/client";
import { multipart, settledImport, targz } from "./support";
import { unique, world, type TestUser } from "../helpers/world";

type World = Awaited<ReturnType<typeof world>>;
type Json = Record<string, any>;

/** Runs the export-import queue consumer on one message, as the queue delivers it. */
async function consume(kind: "export" | "import", jobId: number, queueName = "edgeforge-exports", attempts = 1) {
  const batch = createMessageBatch(queueName, [{ id: `${kind}-${jobId}-${attempts}`, timestamp: new Date(), attempts, body: { kind, id: jobId } }]);
  const ctx = createExecutionContext();
  await queue(batch, env as unknown as Bindings, ctx);
  return getQueueResult(batch, ctx);
}

async function jobOf(w: World, projectId: number) {
  const rows = await w.db((db) => db.select().from(projectTransferJobs).where(eq(projectTransferJobs.projectId, projectId)).orderBy(projectTransferJobs.id));
  return rows.filter((j) => j.kind === "import");
}

/** A git bundle v2 of `objects` with `refs` (HEAD first), its pack written by the git core's writer. */
function bundle(refs: [string, string][], objects: RawObject[]): Uint8Array {
  const writer = new PackWriter();
  const parts = [strToU8(`# v2 git bundle\n${refs.map(([name, oid]) => `${oid} ${name}`).join("\n")}\n\n`), writer.header(objects.length)];
  for (const o of objects) parts.push(writer.entry({ commit: 1, tree: 2, blob: 3, tag: 4 }[o.type], o.body.length, deflate(o.body)));
  parts.push(writer.trailer());
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const ndjson = (records: object[]) => records.map((r) => JSON.stringify(r)).join("\n") + "\n";

/** A repository of two commits on `master` and one on `feature`, as plain objects. */
async function fixtureRepository() {
  const ident = { name: "Fixture Author", email: "fixture@example.com", time: 1690000000, tz: "+0000" };
  const readme = await blobObject(strToU8("# fixture\n"));
  const tree1 = await treeObject([{ mode: "100644", name: "README.md", oid: readme.oid }]);
  const c1 = await commitObject({ tree: tree1.oid, parents: [], author: ident, committer: ident, extraHeaders: [], message: "Initial commit\n" });
  const code = await blobObject(strToU8("puts 1\n"));
  const tree2 = await treeObject([{ mode: "100644", name: "README.md", oid: readme.oid }, { mode: "100644", name: "main.rb", oid: code.oid }]);
  const c2 = await commitObject({ tree: tree2.oid, parents: [c1.oid], author: ident, committer: ident, extraHeaders: [], message: "Add main.rb\n" });
  const featureTree = await treeObject([{ mode: "100644", name: "README.md", oid: readme.oid }, { mode: "100644", name: "feature.rb", oid: code.oid }]);
  const c3 = await commitObject({ tree: featureTree.oid, parents: [c1.oid], author: ident, committer: ident, extraHeaders: [], message: "Feature\n" });
  return { objects: [readme, tree1, c1, code, tree2, c2, featureTree, c3], master: c2.oid, feature: c3.oid, first: c1.oid };
}

/**
 * An archive in GitLab 15.x's layout, written by hand from GitLab's documented format
 * (doc/user/project/settings/import_export.md, lib/gitlab/import_export/project/import_export.yml):
 * `./VERSION`, `./tree/project.json` with `project_feature`, ndjson relations with nested notes,
 * label links (with the label), award emoji and the milestone, and `./project.bundle`.
 */
async function gitlabFixture(memberEmail: string) {
  const repo = await fixtureRepository();
  const at = "2023-07-01T10:00:00.000Z";
  const files = {
    VERSION: "0.2.4",
    "tree/project.json": JSON.stringify({
      description: "Imported from GitLab 15",
      visibility_level: 10,
      archived: false,
      merge_requests_ff_only_enabled: true,
      merge_requests_rebase_enabled: false,
      default_branch: "master",
      project_feature: { issues_access_level: 20, merge_requests_access_level: 20, wiki_access_level: 0, builds_access_level: 20, snippets_access_level: 20 },
      project_setting: { squash_option: "always" },
    }),
    "tree/project/labels.ndjson": ndjson([{ id: 11, title: "bug", color: "#d9534f", description: "A bug", type: "ProjectLabel", created_at: at, updated_at: at }]),
    "tree/project/milestones.ndjson": ndjson([{ id: 21, iid: 1, title: "v1.0", state: "active", due_date: "2023-08-01", created_at: at, updated_at: at }]),
    "tree/project/project_members.ndjson": ndjson([
      { id: 31, access_level: 30, source_type: "Project", user_id: 101, user: { id: 101, public_email: memberEmail, username: "gl-dev" } },
      { id: 32, access_level: 40, source_type: "Project", user_id: 102, user: { id: 102, public_email: null, username: "gl-gone" } },
    ]),
    "tree/project/issues.ndjson": ndjson([
      {
        id: 41, iid: 3, title: "Crash on start", description: "It crashes", state: "opened", state_id: 1, author_id: 101, confidential: false,
        created_at: at, updated_at: at, issue_type: "issue", relative_position: 513, time_estimate: 0,
        milestone: { id: 21, iid: 1, title: "v1.0", state: "active" },
        notes: [
          { id: 51, note: "Confirmed", noteable_type: "Issue", author_id: 101, system: false, discussion_id: "a".repeat(40), created_at: at, updated_at: at, author: { name: "GL Dev" } },
          { id: 52, note: "Me too", noteable_type: "Issue", author_id: 102, system: false, discussion_id: "b".repeat(40), created_at: at, updated_at: "2023-07-02T11:12:13.456Z", author: { name: "Gone User" } },
        ],
        label_links: [{ id: 61, label_id: 11, target_type: "Issue", label: { id: 11, title: "bug", color: "#d9534f", type: "ProjectLabel" } }],
        award_emoji: [{ id: 71, name: "thumbsup", user_id: 101, awardable_type: "Issue" }],
        issue_assignees: [{ user_id: 101 }],
        timelogs: [{ id: 72, time_spent: 3600, user_id: 101, spent_at: at, summary: "triage", created_at: at }],
      },
      { id: 42, iid: 4, title: "Closed one", state: "closed", author_id: 102, closed_at: at, created_at: at, updated_at: at, notes: [], label_links: [{ label: { title: "wontfix", color: "#000000" } }] },
    ]),
    "tree/project/merge_requests.ndjson": ndjson([
      {
        id: 81, iid: 1, title: "Add feature", description: "Closes #3", state: "opened", source_branch: "feature", target_branch: "master",
        source_project_id: 999, target_project_id: 999, author_id: 101, merge_status: "can_be_merged", created_at: at, updated_at: at,
        merge_request_diff: { head_commit_sha: repo.feature, base_commit_sha: repo.first },
        notes: [{ id: 91, note: "LGTM", noteable_type: "MergeRequest", author_id: 101, discussion_id: "c".repeat(40), created_at: at, updated_at: at, author: { name: "GL Dev" } }],
        label_links: [],
        merge_request_assignees: [{ user_id: 101 }],
        merge_request_reviewers: [{ user_id: 102, state: "unreviewed" }],
      },
    ]),
    "tree/project/project_badges.ndjson": ndjson([{ id: 95, type: "ProjectBadge", name: "pipeline", link_url: "https://example.com/%{project_path}", image_url: "https://example.com/badge.svg" }]),
    "tree/project/snippets.ndjson": ndjson([
      {
        id: 96, title: "Setup notes", content: "make setup\n", file_name: "setup.sh", description: "How to set up", author_id: 101, project_id: 999, visibility_level: 0,
        created_at: at, updated_at: at,
        award_emoji: [{ id: 97, name: "heart", user_id: 101, awardable_type: "Snippet" }],
        notes: [{ id: 98, note: "Handy", noteable_type: "Snippet", author_id: 101, discussion_id: "d".repeat(40), created_at: at, updated_at: at, author: { name: "GL Dev" } }],
      },
    ]),
    // GitLab 15.4's layout: `ci_pipelines` → `stages` → `statuses`, each with its STI `type`.
    "tree/project/ci_pipelines.ndjson": ndjson([
      {
        id: 111, iid: 7, ref: "master", sha: repo.master, before_sha: repo.first, source: "push", status: "failed", tag: false, user_id: 101, project_id: 999,
        created_at: at, updated_at: at, started_at: at, finished_at: at, duration: 42, failure_reason: null,
        stages: [
          {
            id: 112, name: "test", position: 0, status: "failed", pipeline_id: 111,
            statuses: [
              { id: 113, type: "Ci::Build", name: "rspec", stage: "test", stage_idx: 0, status: "failed", allow_failure: false, user_id: 101, created_at: at, finished_at: at, options: { script: ["rspec"] } },
              { id: 114, type: "GenericCommitStatus", name: "external", stage: "test", stage_idx: 0, status: "success" },
            ],
          },
        ],
      },
      { id: 115, iid: 8, ref: "master", sha: repo.master, source: "web", status: "running", user_id: 102, created_at: at, updated_at: at, stages: [] },
    ]),
    "tree/project/protected_branches.ndjson": ndjson([
      { id: 121, name: "master", allow_force_push: false, created_at: at, updated_at: at, merge_access_levels: [{ id: 122, access_level: 30 }], push_access_levels: [{ id: 123, access_level: 40 }] },
      { id: 124, name: "release/*", allow_force_push: true, created_at: at, updated_at: at, merge_access_levels: [{ id: 125, access_level: 40 }], push_access_levels: [{ id: 126, access_level: 0 }] },
    ]),
    "project.bundle": bundle([["HEAD", repo.master], ["refs/heads/master", repo.master], ["refs/heads/feature", repo.feature]], repo.objects),
  };
  return { archive: targz(files), repo };
}

describe("POST /projects/import", () => {
  it("creates the project, answers 201 with GitLab's body, and the consumer imports a GitLab 15.x archive", async () => {
    const w = await world();
    const importer = await w.user();
    const dev = await w.user();
    const { archive, repo } = await gitlabFixture(dev.email);
    const path = unique("imported");
    const res = await w.as(importer).post("/projects/import", { multipart: multipart(archive, { path, "override_params[description]": "Overridden" }) });
    const [status, body] = await statusAndBody(res);
    expect(status).toBe(201);
    expect(body).toMatchObject({
      name: path,
      path,
      path_with_namespace: `${importer.username}/${path}`,
      name_with_namespace: `${importer.name} / ${path}`,
      import_status: "scheduled",
      import_type: "gitlab_project",
      failed_relations: [],
      import_error: null,
    });
    expect(Object.keys(body as Json)).toEqual(["id", "description", "name", "name_with_namespace", "path", "path_with_namespace", "created_at", "import_status", "import_type", "correlation_id", "failed_relations", "import_error"]);
    expect((body as Json).correlation_id).toEqual(expect.any(String));
    const id = (body as Json).id as number;
    const done = await settledImport(w, importer, id);
    expect([done.import_status, done.import_error, done.failed_relations]).toEqual(["finished", null, []]);

    const api = w.as(importer);
    const project = (await (await api.get(`/projects/${id}`)).json()) as Json;
    expect(project).toMatchObject({ description: "Overridden", visibility: "internal", default_branch: "master", wiki_enabled: false });
    const [settings] = await w.db((db) => db.select({ mergeMethod: projects.mergeMethod, squashOption: projects.squashOption }).from(projects).where(eq(projects.id, id)));
    expect(settings).toEqual({ mergeMethod: "ff", squashOption: "always" });
    // The repository with its commit ids.
    const branches = (await (await api.get(`/projects/${id}/repository/branches`)).json()) as Json[];
    expect(branches.map((b) => [b.name, b.commit.id]).sort()).toEqual([["feature", repo.feature], ["master", repo.master]]);
    const commits = (await (await api.get(`/projects/${id}/repository/commits`, { query: { ref_name: "master" } })).json()) as Json[];
    expect(commits.map((c) => c.id)).toEqual([repo.master, repo.first]);
    // Labels, the milestone, issues with notes, label links and award emoji; users by public email.
    expect(((await (await api.get(`/projects/${id}/labels`)).json()) as Json[]).map((l) => [l.name, l.color]).sort()).toEqual([["bug", "#d9534f"], ["wontfix", "#000000"]]);
    const list = (await (await api.get(`/projects/${id}/issues`, { query: { order_by: "relative_position", sort: "asc" } })).json()) as Json[];
    list.sort((a, b) => a.iid - b.iid);
    expect(list.map((i) => [i.iid, i.title, i.state, i.labels, i.milestone?.title ?? null, i.author.username, i.upvotes, i.user_notes_count])).toEqual([
      [3, "Crash on start", "opened", ["bug"], "v1.0", dev.username, 1, 2],
      [4, "Closed one", "closed", ["wontfix"], null, importer.username, 0, 0],
    ]);
    const imported3 = (await (await api.get(`/projects/${id}/issues/3`)).json()) as Json;
    expect([imported3.assignees.map((a: Json) => a.username), imported3.time_stats.total_time_spent]).toEqual([[dev.username], 3600]);
    const mr1 = (await (await api.get(`/projects/${id}/merge_requests/1`)).json()) as Json;
    expect([mr1.assignees.map((a: Json) => a.username), mr1.reviewers.map((r: Json) => r.username)]).toEqual([[dev.username], [importer.username]]);
    const notes = (await (await api.get(`/projects/${id}/issues/3/notes`, { query: { sort: "asc" } })).json()) as Json[];
    expect(notes.map((n) => [n.author.username, n.body])).toEqual([
      [dev.username, "Confirmed"],
      [importer.username, "*By Gone User on 2023-07-02T11:12:13 (imported from GitLab)*\n\nMe too"],
    ]);
    // The next issue continues after the imported iids.
    expect(((await (await api.post(`/projects/${id}/issues`, { json: { title: "after import" } })).json()) as Json).iid).toBe(5);
    const mrs = (await (await api.get(`/projects/${id}/merge_requests`)).json()) as Json[];
    expect(mrs.map((m) => [m.iid, m.title, m.source_branch, m.target_branch, m.state, m.author.username, m.source_project_id])).toEqual([
      [1, "Add feature", "feature", "master", "opened", dev.username, id],
    ]);
    expect(((await (await api.get(`/projects/${id}/merge_requests/1/notes`)).json()) as Json[]).map((n) => n.body)).toEqual(["LGTM"]);
    const members = (await (await api.get(`/projects/${id}/members`)).json()) as Json[];
    expect(members.map((m) => [m.username, m.access_level]).sort()).toEqual(
      [[importer.username, 50], [dev.username, 30]].sort(),
    );
    expect(((await (await api.get(`/projects/${id}/badges`)).json()) as Json[]).map((b) => b.name)).toEqual(["pipeline"]);
    // Snippets with their notes and award emoji; pipelines with their jobs (a generic commit status is not a
    // job here; a pipeline exported while running comes back canceled); protected branches with their levels.
    const snippets = (await (await api.get(`/projects/${id}/snippets`)).json()) as Json[];
    expect(snippets.map((x) => [x.title, x.file_name, x.description, x.author.username])).toEqual([["Setup notes", "setup.sh", "How to set up", dev.username]]);
    expect(((await (await api.get(`/projects/${id}/snippets/${snippets[0].id}/notes`)).json()) as Json[]).map((n) => [n.body, n.author.username])).toEqual([["Handy", dev.username]]);
    expect(((await (await api.get(`/projects/${id}/snippets/${snippets[0].id}/award_emoji`)).json()) as Json[]).map((a) => [a.name, a.user.username])).toEqual([["heart", dev.username]]);
    const pipelines = (await (await api.get(`/projects/${id}/pipelines`, { query: { sort: "asc" } })).json()) as Json[];
    expect(pipelines.map((x) => [x.iid, x.ref, x.sha, x.status, x.source])).toEqual([[7, "master", repo.master, "failed", "push"], [8, "master", repo.master, "canceled", "web"]]);
    const jobs = (await (await api.get(`/projects/${id}/pipelines/${pipelines[0].id}/jobs`)).json()) as Json[];
    expect(jobs.map((j) => [j.name, j.stage, j.status, j.user.username])).toEqual([["rspec", "test", "failed", dev.username]]);
    const protectedBranches = (await (await api.get(`/projects/${id}/protected_branches`)).json()) as Json[];
    expect(protectedBranches.map((b) => [b.name, b.allow_force_push, b.push_access_levels.map((l: Json) => l.access_level), b.merge_access_levels.map((l: Json) => l.access_level)]).sort()).toEqual([
      ["master", false, [40], [30]],
      ["release/*", true, [0], [40]],
    ]);
    // GitLab removes the uploaded archive once imported.
    const [job] = await jobOf(w, id);
    expect(await (env as unknown as Bindings).BLOBS.get(job.r2Key!)).toBeNull();
  });

  it("answers GitLab's 400 bodies: missing parameters, a file that is not .gz, a bad override, a taken path", async () => {
    const w = await world();
    const user = await w.user();
    const api = w.as(user);
    const archive = targz({ VERSION: "0.2.4" });
    const form = new FormData();
    expect(await statusAndBody(await api.post("/projects/import", { multipart: (form.append("name", "x"), form) }))).toEqual([400, { error: "path is missing, file is missing" }]);
    expect(await statusAndBody(await api.post("/projects/import", { multipart: multipart(archive, { path: "p1" }, "export.zip") }))).toEqual([400, { message: "The file is invalid" }]);
    expect(await statusAndBody(await api.post("/projects/import", { multipart: multipart(archive, { path: "p1", "override_params[visibility]": "secret" }) }))).toEqual([
      400,
      { error: "override_params[visibility] does not have a valid value" },
    ]);
    const taken = await w.project({ owner: user });
    expect(await statusAndBody(await api.post("/projects/import", { multipart: multipart(archive, { path: taken.path }) }))).toEqual([
      400,
      // Projects::CreateService validates the project namespace first (15.x), as POST /projects reports it.
      { message: "Project namespace name has already been taken" },
    ]);
    expect(await statusAndBody(await api.post("/projects/import", { multipart: multipart(archive, { path: "-bad", name: "Good name" }) }))).toEqual([
      400,
      { message: "Path can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'" },
    ]);
  });

  it("401 anonymous, 404 for a namespace the caller cannot read, 400 for one they cannot create in, 403 when gitlab_project imports are off", async () => {
    const w = await world();
    const user = await w.user();
    const other = await w.user();
    const archive = targz({ VERSION: "0.2.4" });
    expect((await w.anonymous.post("/projects/import", { multipart: multipart(archive, { path: "p" }) })).status).toBe(401);
    expect(await statusAndBody(await w.as(user).post("/projects/import", { multipart: multipart(archive, { path: "p", namespace: other.username }) }))).toEqual([
      404,
      { message: "404 Namespace Not Found" },
    ]);
    const group = await w.group({ developers: [user] });
    const reporterGroup = await w.group({ reporters: [user] });
    expect(await statusAndBody(await w.as(user).post("/projects/import", { multipart: multipart(archive, { path: "p", namespace: String(reporterGroup.id) }) }))).toEqual([
      400,
      { message: "Namespace is not valid" },
    ]);
    // A developer of a group may create projects there (project_creation_level "developer"), by path too.
    expect((await w.as(user).post("/projects/import", { multipart: multipart(archive, { path: unique("p"), namespace: group.fullPath }) })).status).toBe(201);

    const root = w.root;
    const settings = (await (await root.get("/application/settings")).json()) as Json;
    try {
      await root.put("/application/settings", { json: { import_sources: (settings.import_sources as string[]).filter((s) => s !== "gitlab_project") } });
      expect(await statusAndBody(await w.as(user).post("/projects/import", { multipart: multipart(archive, { path: unique("p") }) }))).toEqual([403, { message: "403 Forbidden" }]);
    } finally {
      await root.put("/application/settings", { json: { import_sources: settings.import_sources } });
    }
  });
});

describe("POST /projects/import with overwrite", () => {
  it("imports into a temporary path, then replaces the project at the path: members, stars and forks move, the old project is gone", async () => {
    const w = await world();
    const owner = await w.user();
    const developer = await w.user();
    const fan = await w.user();
    const old = await w.project({ owner, developers: [developer], visibility: "public" });
    const api = w.as(owner);
    expect((await api.post(`/projects/${old.id}/issues`, { json: { title: "Old issue" } })).status).toBe(201);
    expect((await w.as(fan).post(`/projects/${old.id}/star`)).status).toBe(201);
    const fork = (await (await w.as(fan).post(`/projects/${old.id}/fork`)).json()) as Json;
    const team = await w.group({ owners: [owner] });
    expect((await api.post(`/projects/${old.id}/share`, { json: { group_id: team.id, group_access: 30 } })).status).toBe(201);
    const { archive, repo } = await gitlabFixture("nobody@example.com");

    const res = await api.post("/projects/import", { multipart: multipart(archive, { path: old.path, overwrite: "true" }) });
    const [status, body] = await statusAndBody(res);
    expect(status).toBe(201);
    // GitLab's temporary project: `<path>-<SecureRandom.hex>`, named after that path.
    expect((body as Json).path).toMatch(new RegExp(`^${old.path}-[0-9a-f]{32}$`));
    expect((body as Json).name).toBe((body as Json).path);
    const id = (body as Json).id as number;
    expect(id).not.toBe(old.id);
    expect((await settledImport(w, owner, id)).import_status).toBe("finished");

    expect((await api.get(`/projects/${old.id}`)).status).toBe(404);
    const now = (await (await api.get(`/projects/${encodeURIComponent(`${owner.username}/${old.path}`)}`)).json()) as Json;
    expect([now.id, now.path, now.name, now.path_with_namespace, now.star_count, now.forks_count]).toEqual([id, old.path, old.path, `${owner.username}/${old.path}`, 1, 1]);
    expect(((await (await api.get(`/projects/${id}/issues`)).json()) as Json[]).map((i) => i.title).sort()).toEqual(["Closed one", "Crash on start"]);
    expect(((await (await api.get(`/projects/${id}/repository/branches`)).json()) as Json[]).map((b) => [b.name, b.commit.id]).sort()).toEqual([["feature", repo.feature], ["master", repo.master]]);
    expect(((await (await api.get(`/projects/${id}/members`)).json()) as Json[]).map((m) => [m.username, m.access_level]).sort()).toEqual(
      [[owner.username, 50], [developer.username, 30]].sort(),
    );
    expect(((await (await w.as(fan).get(`/projects/${fork.id}`)).json()) as Json).forked_from_project.id).toBe(id);
    expect(now.shared_with_groups.map((g: Json) => [g.group_id, g.group_access_level])).toEqual([[team.id, 30]]);
    // Without overwrite, a taken path stays a 400 (the existing project untouched).
    const again = await api.post("/projects/import", { multipart: multipart(archive, { path: old.path }) });
    expect(again.status).toBe(400);
    expect(((await (await api.get(`/projects/${id}`)).json()) as Json).path).toBe(old.path);
  });

  it("with no project at the path imports there directly; a group Maintainer (no admin_namespace) keeps the temporary path", async () => {
    const w = await world();
    const owner = await w.user();
    const maintainer = await w.user();
    const group = await w.group({ owners: [owner], maintainers: [maintainer] });
    const { archive } = await gitlabFixture("nobody@example.com");
    const free = unique("free");
    const direct = (await (await w.as(owner).post("/projects/import", { multipart: multipart(archive, { path: free, namespace: group.fullPath, overwrite: "true" }) })).json()) as Json;
    expect(direct.path).toBe(free);
    expect((await settledImport(w, owner, direct.id)).import_status).toBe("finished");

    const res = await w.as(maintainer).post("/projects/import", { multipart: multipart(archive, { path: free, namespace: group.fullPath, overwrite: "true" }) });
    expect(res.status).toBe(201);
    const temporary = (await res.json()) as Json;
    expect((await settledImport(w, maintainer, temporary.id)).import_status).toBe("finished");
    // Gitlab::ImportExport::Importer#overwrite_project: `return unless can?(current_user, :admin_namespace, …)`.
    expect(((await (await w.as(owner).get(`/projects/${temporary.id}`)).json()) as Json).path).toBe(temporary.path);
    expect(((await (await w.as(owner).get(`/projects/${direct.id}`)).json()) as Json).path).toBe(free);
  });
});

describe("GET /projects/:id/import", () => {
  it("none for a project never imported; failed with import_error (for maintainers) for a bad archive; 404 for non-readers", async () => {
    const w = await world();
    const user = await w.user();
    const plain = await w.project({ owner: user });
    expect(await statusAndBody(await w.as(user).get(`/projects/${plain.id}/import`))).toEqual([
      200,
      expect.objectContaining({ id: plain.id, import_status: "none", import_type: null, correlation_id: null, failed_relations: [], import_error: null }),
    ]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${plain.id}/import`))).toEqual([404, { message: "404 Project Not Found" }]);

    const wrongVersion = targz({ VERSION: "0.1.8", "tree/project.json": "{}" });
    const created = (await (await w.as(user).post("/projects/import", { multipart: multipart(wrongVersion, { path: unique("old"), "override_params[visibility]": "public" }) })).json()) as Json;
    const failed = await settledImport(w, user, created.id);
    expect([failed.import_status, failed.import_error]).toEqual(["failed", "Import version mismatch: Required 0.2.4 but was 0.1.8"]);
    // Readers who may not read the error get GitLab's hint.
    const guest = await w.user();
    expect(((await (await w.as(guest).get(`/projects/${created.id}/import`)).json()) as Json).import_error).toBe("Ask a maintainer to check the import status for more details.");

    const notGzip = (await (await w.as(user).post("/projects/import", { multipart: multipart(strToU8("plain text"), { path: unique("bad") }) })).json()) as Json;
    expect((await settledImport(w, user, notGzip.id)).import_error).toBe("Unable to decompress the import file: it is not a gzip archive");
  });
});

/** Exports `projectId` through the export consumer and returns the archive's bytes. */
async function exportArchive(w: World, maintainer: TestUser, projectId: number): Promise<Uint8Array> {
  const [job] = await w.db((db) => db.insert(projectTransferJobs).values({ kind: "export", projectId, userId: maintainer.id, correlationId: "test" }).returning());
  await consume("export", job.id);
  const res = await w.as(maintainer).get(`/projects/${projectId}/export/download`);
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

describe("export → import round trip", () => {
  it("keeps issues, notes, award emoji, labels, milestones, merge requests, badges, members, refs and commit ids", async () => {
    const w = await world();
    const maintainer = await w.user();
    const developer = await w.user();
    await w.db((db) => db.update(users).set({ publicEmail: developer.email }).where(eq(users.id, developer.id)));
    const source = await w.project({ maintainers: [maintainer], developers: [developer] });
    const api = w.as(maintainer);
    const dev = w.as(developer);
    const s = `/projects/${source.id}`;
    expect((await api.post(`${s}/repository/commits`, { json: { branch: "main", commit_message: "first", actions: [{ action: "create", file_path: "README.md", content: "# hi\n" }] } })).status).toBe(201);
    expect((await api.post(`${s}/repository/commits`, { json: { branch: "topic", start_branch: "main", commit_message: "topic work", actions: [{ action: "create", file_path: "t.txt", content: "t\n" }] } })).status).toBe(201);
    expect((await api.post(`${s}/repository/tags`, { json: { tag_name: "v1", ref: "main", message: "release" } })).status).toBe(201);
    expect((await api.post(`${s}/labels`, { json: { name: "bug", color: "#ff0000" } })).status).toBe(201);
    expect((await api.post(`${s}/labels`, { json: { name: "unused", color: "#00ff00" } })).status).toBe(201);
    const milestone = (await (await api.post(`${s}/milestones`, { json: { title: "M1" } })).json()) as Json;
    expect((await dev.post(`${s}/issues`, { json: { title: "By the developer", labels: "bug", milestone_id: milestone.id, assignee_ids: [developer.id] } })).status).toBe(201);
    expect((await dev.post(`${s}/issues/1/add_spent_time`, { json: { duration: "1h30m", summary: "digging" } })).status).toBe(201);
    expect((await dev.post(`${s}/issues/1/time_estimate`, { json: { duration: "3h" } })).status).toBe(200);
    expect((await api.post(`${s}/issues`, { json: { title: "Second", confidential: true } })).status).toBe(201);
    expect((await api.put(`${s}/issues/2`, { json: { state_event: "close" } })).status).toBe(200);
    expect((await dev.post(`${s}/issues/1/notes`, { json: { body: "developer comment" } })).status).toBe(201);
    expect((await api.post(`${s}/issues/1/notes`, { json: { body: "maintainer comment" } })).status).toBe(201);
    expect((await dev.post(`${s}/issues/1/award_emoji`, { json: { name: "thumbsup" } })).status).toBe(201);
    expect((await api.post(`${s}/merge_requests`, { json: { source_branch: "topic", target_branch: "main", title: "Topic", labels: "bug", assignee_ids: [developer.id], reviewer_ids: [developer.id] } })).status).toBe(201);
    expect((await dev.post(`${s}/merge_requests/1/notes`, { json: { body: "review" } })).status).toBe(201);
    expect((await api.post(`${s}/badges`, { json: { link_url: "https://example.com/l", image_url: "https://example.com/i.svg", name: "b" } })).status).toBe(201);

    const archive = await exportArchive(w, maintainer, source.id);
    const importer = await w.user();
    const created = (await (await w.as(importer).post("/projects/import", { multipart: multipart(archive, { path: unique("copy") }) })).json()) as Json;
    const done = await settledImport(w, importer, created.id);
    expect([done.import_status, done.failed_relations]).toEqual(["finished", []]);
    const t = `/projects/${created.id}`;
    const as = w.as(importer);

    const get = async (path: string, query?: Record<string, string>) => (await (await api.get(path, { query })).json()) as Json[];
    const getNew = async (path: string, query?: Record<string, string>) => (await (await as.get(path, { query })).json()) as Json[];
    // Refs with identical commit ids.
    const refs = (rows: Json[]) => rows.map((r) => [r.name, r.commit.id]).sort();
    expect(refs(await getNew(`${t}/repository/branches`))).toEqual(refs(await get(`${s}/repository/branches`)));
    expect(refs(await getNew(`${t}/repository/tags`))).toEqual(refs(await get(`${s}/repository/tags`)));
    expect(((await getNew(`${t}/repository/tags`))[0] as Json).message).toBe("release");
    expect(((await (await as.get(t)).json()) as Json).default_branch).toBe("main");
    // Issues, their notes, labels, milestones, votes; the developer matched by public email, the maintainer by no one (the importer).
    const issue = (rows: Json[], who: (u: string) => string) =>
      rows.map((i) => [i.iid, i.title, i.state, i.confidential, i.labels, i.milestone?.title ?? null, who(i.author.username), i.upvotes, i.user_notes_count, i.created_at]);
    const person = (name: string) => (name === maintainer.username || name === importer.username ? "someone" : name);
    expect(issue(await getNew(`${t}/issues`, { sort: "asc" }), person)).toEqual(issue(await get(`${s}/issues`, { sort: "asc" }), person));
    const comment = (rows: Json[]) => rows.filter((n) => !n.system).map((n) => [n.body, person(n.author.username), n.created_at]);
    expect(comment(await getNew(`${t}/issues/1/notes`, { sort: "asc" }))).toEqual(comment(await get(`${s}/issues/1/notes`, { sort: "asc" })));
    expect((await getNew(`${t}/issues/1/award_emoji`)).map((a) => [a.name, a.user.username])).toEqual([["thumbsup", developer.username]]);
    // Assignees, reviewers and time tracking.
    const tracked = (row: Json) => [row.assignees.map((a: Json) => a.username), row.time_stats];
    expect(tracked((await (await as.get(`${t}/issues/1`)).json()) as Json)).toEqual(tracked((await (await api.get(`${s}/issues/1`)).json()) as Json));
    expect(((await (await as.get(`${t}/issues/1`)).json()) as Json).time_stats).toMatchObject({ time_estimate: 10800, total_time_spent: 5400 });
    expect((await getNew(`${t}/labels`)).map((l) => [l.name, l.color]).sort()).toEqual((await get(`${s}/labels`)).map((l) => [l.name, l.color]).sort());
    expect((await getNew(`${t}/milestones`)).map((m) => [m.iid, m.title])).toEqual([[1, "M1"]]);
    const mr = (rows: Json[]) => rows.map((m) => [m.iid, m.title, m.state, m.source_branch, m.target_branch, m.labels, m.sha]);
    expect(mr(await getNew(`${t}/merge_requests`))).toEqual(mr(await get(`${s}/merge_requests`)));
    // (After the list: the single GET refreshes the merge request's head, as GitLab's does.)
    const people = (row: Json) => [row.assignees.map((a: Json) => a.username), row.reviewers.map((r: Json) => r.username)];
    expect(people((await (await as.get(`${t}/merge_requests/1`)).json()) as Json)).toEqual([[developer.username], [developer.username]]);
    expect(comment(await getNew(`${t}/merge_requests/1/notes`, { sort: "asc" }))).toEqual(comment(await get(`${s}/merge_requests/1/notes`, { sort: "asc" })));
    expect((await getNew(`${t}/badges`)).map((b) => [b.name, b.link_url, b.image_url])).toEqual([["b", "https://example.com/l", "https://example.com/i.svg"]]);
    expect((await getNew(`${t}/members`)).map((m) => [m.username, m.access_level]).sort()).toEqual([[importer.username, 50], [developer.username, 30]].sort());
  });
});

describe("export → import round trip of snippets, pipelines, protected branches, issue links, feature flags and CI variables", () => {
  it("keeps them all (links, flags and variables through Edgeforge's own archive files); a link to another project's issue is skipped", async () => {
    const w = await world();
    const maintainer = await w.user();
    const source = await w.project({ maintainers: [maintainer] });
    const api = w.as(maintainer);
    const s = `/projects/${source.id}`;
    const yaml = "stages: [build, test]\ncompile:\n  stage: build\n  script: [make]\nunit:\n  stage: test\n  script: [make test]\n  when: manual\n";
    expect((await api.post(`${s}/repository/commits`, { json: { branch: "main", commit_message: "ci [skip ci]", actions: [{ action: "create", file_path: ".gitlab-ci.yml", content: yaml }] } })).status).toBe(201);
    // Snippet with a note and an award.
    const snippet = (await (await api.post(`${s}/snippets`, { json: { title: "Snip", file_name: "a.txt", content: "hello\n", description: "d", visibility: "private" } })).json()) as Json;
    expect((await api.post(`${s}/snippets/${snippet.id}/notes`, { json: { body: "snippet note" } })).status).toBe(201);
    expect((await api.post(`${s}/snippets/${snippet.id}/award_emoji`, { json: { name: "rocket" } })).status).toBe(201);
    // Two pipelines: one canceled (over), one left pending (comes back canceled).
    const first = (await (await api.post(`${s}/pipeline`, { json: { ref: "main" } })).json()) as Json;
    expect((await api.post(`${s}/pipelines/${first.id}/cancel`)).status).toBe(200);
    const second = (await (await api.post(`${s}/pipeline`, { json: { ref: "main" } })).json()) as Json;
    expect(second.status).toBe("pending");
    // Protected branches.
    expect((await api.post(`${s}/protected_branches`, { json: { name: "release/*", push_access_level: 0, merge_access_level: 40, allow_force_push: true } })).status).toBe(201);
    // What GitLab does not export, Edgeforge's extensions carry: issue links (with their type), user
    // lists, feature flags (new-version with strategies and scopes, legacy with scopes), CI variables.
    for (const title of ["one", "two", "three"]) expect((await api.post(`${s}/issues`, { json: { title } })).status).toBe(201);
    expect((await api.post(`${s}/issues/1/links`, { json: { target_project_id: source.id, target_issue_iid: 2 } })).status).toBe(201);
    expect((await api.post(`${s}/issues/3/links`, { json: { target_project_id: source.id, target_issue_iid: 1, link_type: "blocks" } })).status).toBe(201);
    const other = await w.project({ maintainers: [maintainer] });
    expect((await api.post(`/projects/${other.id}/issues`, { json: { title: "elsewhere" } })).status).toBe(201);
    expect((await api.post(`${s}/issues/2/links`, { json: { target_project_id: other.id, target_issue_iid: 1 } })).status).toBe(201);
    for (const [name, xids] of [["unused", "z"], ["beta", "u1,u2"]]) {
      expect((await api.post(`${s}/feature_flags_user_lists`, { json: { name, user_xids: xids } })).status).toBe(201);
    }
    const strategies = [
      { name: "gitlabUserList", parameters: {}, user_list_id: ((await (await api.get(`${s}/feature_flags_user_lists`)).json()) as Json[]).find((l) => l.name === "beta")!.id, scopes: [{ environment_scope: "production" }] },
      { name: "gradualRolloutUserId", parameters: { groupId: "default", percentage: "25" }, scopes: [{ environment_scope: "review/*" }, { environment_scope: "staging" }] },
    ];
    expect((await api.post(`${s}/feature_flags`, { json: { name: "flag", version: "new_version_flag", description: "new", active: false, strategies } })).status).toBe(201);
    const legacyScopes = [
      { environment_scope: "*", active: false, strategies: [{ name: "default", parameters: {} }] },
      { environment_scope: "production", active: true, strategies: [{ name: "userWithId", parameters: { userIds: "1" } }] },
    ];
    expect((await api.post(`${s}/feature_flags`, { json: { name: "legacy", version: "legacy_flag", scopes: legacyScopes } })).status).toBe(201);
    const variables = [
      { key: "SECRET", value: "s3cret-value" },
      { key: "CONFIG", value: "a: $b", variable_type: "file", protected: true, masked: false, raw: true, environment_scope: "production", description: "config file" },
      { key: "TOKEN", value: "abcdefgh12345678", masked: true, environment_scope: "review/*" },
    ];
    for (const json of variables) expect((await api.post(`${s}/variables`, { json })).status).toBe(201);

    const archive = await exportArchive(w, maintainer, source.id);
    const importer = await w.user();
    const created = (await (await w.as(importer).post("/projects/import", { multipart: multipart(archive, { path: unique("copy") }) })).json()) as Json;
    const done = await settledImport(w, importer, created.id);
    expect([done.import_status, done.failed_relations]).toEqual(["finished", []]);
    const t = `/projects/${created.id}`;
    const as = w.as(importer);
    const get = async (client: typeof api, path: string, query?: Record<string, string>) => (await (await client.get(path, { query })).json()) as Json[];

    const snip = (rows: Json[]) => rows.map((x) => [x.title, x.file_name, x.description, x.visibility, x.created_at]);
    const newSnippets = await get(as, `${t}/snippets`);
    expect(snip(newSnippets)).toEqual(snip(await get(api, `${s}/snippets`)));
    // (The snippet's content through the database: GET …/raw is not built yet.)
    expect(await w.db((db) => db.select({ content: snippetsTable.content }).from(snippetsTable).where(eq(snippetsTable.id, newSnippets[0].id)))).toEqual([{ content: "hello\n" }]);
    expect((await get(as, `${t}/snippets/${newSnippets[0].id}/notes`)).map((n) => n.body)).toEqual(["snippet note"]);
    expect((await get(as, `${t}/snippets/${newSnippets[0].id}/award_emoji`)).map((a) => a.name)).toEqual(["rocket"]);

    const pipe = (rows: Json[]) => rows.map((x) => [x.iid, x.ref, x.sha, x.source, x.created_at]);
    const oldPipelines = await get(api, `${s}/pipelines`, { sort: "asc" });
    const newPipelines = await get(as, `${t}/pipelines`, { sort: "asc" });
    expect(pipe(newPipelines)).toEqual(pipe(oldPipelines));
    expect(newPipelines.map((x) => x.status)).toEqual(["canceled", "canceled"]);
    const job = (rows: Json[]) => rows.map((j) => [j.name, j.stage, j.status]).sort();
    expect(job(await get(as, `${t}/pipelines/${newPipelines[0].id}/jobs`))).toEqual(job(await get(api, `${s}/pipelines/${oldPipelines[0].id}/jobs`)));
    // The pending job of the second pipeline does not come back pending (no runner may claim it).
    expect((await get(as, `${t}/pipelines/${newPipelines[1].id}/jobs`)).map((j) => j.status).filter((x) => x === "pending" || x === "created")).toEqual([]);
    expect((await get(as, `${t}/pipelines/${newPipelines[1].id}/jobs`)).map((j) => j.name).sort()).toEqual(["compile", "unit"]);

    const prot = (rows: Json[]) =>
      rows.map((b) => [b.name, b.allow_force_push, b.push_access_levels.map((l: Json) => l.access_level), b.merge_access_levels.map((l: Json) => l.access_level)]).sort();
    expect(prot(await get(as, `${t}/protected_branches`))).toEqual(prot(await get(api, `${s}/protected_branches`)));

    // Issue links by iid with their type; the link to the other project's issue stays behind.
    const links = async (client: typeof api, base: string, iid: number) => (await get(client, `${base}/issues/${iid}/links`)).map((l) => [l.iid, l.link_type, l.project_id === source.id || l.project_id === created.id]);
    expect(await links(api, s, 2)).toEqual([[1, "relates_to", true], [1, "relates_to", false]]);
    for (const iid of [1, 2, 3]) expect(await links(as, t, iid)).toEqual((await links(api, s, iid)).filter((l) => l[2]));
    expect(await links(as, t, 1)).toEqual([[2, "relates_to", true], [3, "is_blocked_by", true]]);
    // User lists by iid, flags with strategies (the user list mapped), scopes and legacy scopes; ids aside.
    const noIds = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(noIds) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).filter(([k]) => k !== "id" && k !== "project_id" && !k.endsWith("path")).map(([k, x]) => [k, noIds(x)])) : v;
    const oldLists = await get(api, `${s}/feature_flags_user_lists`);
    expect(noIds(await get(as, `${t}/feature_flags_user_lists`))).toEqual(noIds(oldLists));
    expect(oldLists.map((l) => [l.iid, l.name, l.user_xids])).toEqual([[1, "unused", "z"], [2, "beta", "u1,u2"]]);
    const oldFlags = await get(api, `${s}/feature_flags`);
    const newFlags = await get(as, `${t}/feature_flags`);
    expect(noIds(newFlags)).toEqual(noIds(oldFlags));
    expect(newFlags.map((f) => [f.name, f.version, f.active, f.strategies.length, f.scopes.length])).toEqual([["flag", "new_version_flag", false, 2, 0], ["legacy", "legacy_flag", true, 0, 2]]);
    expect(newFlags[0].strategies[0].user_list).toMatchObject({ iid: 2, name: "beta", user_xids: "u1,u2" });
    expect(newFlags[0].strategies[1].scopes.map((x: Json) => x.environment_scope)).toEqual(["review/*", "staging"]);
    // The next flag and list take the iids after the imported ones.
    expect(((await (await as.post(`${t}/feature_flags_user_lists`, { json: { name: "later", user_xids: "x" } })).json()) as Json).iid).toBe(3);
    // Variables with every field, values as stored.
    const vars = (rows: Json[]) => rows.map((v) => [v.key, v.value, v.variable_type, v.protected, v.masked, v.raw, v.environment_scope, v.description]).sort();
    const oldVars = await get(api, `${s}/variables`);
    expect(vars(await get(as, `${t}/variables`))).toEqual(vars(oldVars));
    expect(vars(oldVars)).toContainEqual(["CONFIG", "a: $b", "file", true, false, true, "production", "config file"]);
  });
});

describe("concurrent imports", () => {
  it("10 imports of different archives, posted at once, all finish, each with its own relations and repository", { timeout: 180_000 }, async () => {
    const w = await world();
    const importer = await w.user();
    const api = w.as(importer);
    const repo = await fixtureRepository();
    const archives = Array.from({ length: 10 }, (_, i) =>
      targz({
        VERSION: "0.2.4",
        "tree/project.json": JSON.stringify({ description: `archive ${i}`, default_branch: "master" }),
        "tree/project/issues.ndjson": ndjson([{ iid: i + 1, title: `issue ${i}`, state: "opened", author_id: 1, notes: [{ note: `note ${i}`, author_id: 1 }] }]),
        "tree/project/labels.ndjson": ndjson([{ title: `label-${i}`, color: "#123456" }]),
        "project.bundle": bundle([["HEAD", repo.master], ["refs/heads/master", repo.master], [`refs/heads/only-${i}`, repo.feature]], repo.objects),
      }),
    );
    const responses = await Promise.all(archives.map((archive, i) => api.post("/projects/import", { multipart: multipart(archive, { path: unique(`concurrent-${i}`) }) })));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(201));
    const ids = await Promise.all(responses.map(async (r) => ((await r.json()) as Json).id as number));
    const deadline = Date.now() + 150_000;
    const status = new Map<number, Json>();
    while (Date.now() < deadline && status.size < 10) {
      for (const id of ids) {
        if (status.has(id)) continue;
        const body = (await (await api.get(`/projects/${id}/import`)).json()) as Json;
        if (!["scheduled", "started"].includes(body.import_status as string)) status.set(id, body);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(ids.map((id) => [status.get(id)?.import_status, status.get(id)?.failed_relations])).toEqual(Array(10).fill(["finished", []]));
    for (const [i, id] of ids.entries()) {
      const project = (await (await api.get(`/projects/${id}`)).json()) as Json;
      const issues = (await (await api.get(`/projects/${id}/issues`)).json()) as Json[];
      const branches = ((await (await api.get(`/projects/${id}/repository/branches`)).json()) as Json[]).map((b) => b.name).sort();
      const labels = ((await (await api.get(`/projects/${id}/labels`)).json()) as Json[]).map((l) => l.name);
      expect([project.description, issues.map((x) => [x.iid, x.title, x.user_notes_count]), branches, labels]).toEqual([
        `archive ${i}`,
        [[i + 1, `issue ${i}`, 1]],
        ["master", `only-${i}`],
        [`label-${i}`],
      ]);
    }
  });
});

describe("the import queue consumer", () => {
  /** An import job with its archive in R2 and no queue message: the test delivers it. */
  async function scheduledJob(w: World, owner: TestUser, archive: Uint8Array) {
    const project = await w.project({ owner });
    const key = `imports/project-${project.id}/${crypto.randomUUID()}.tar.gz`;
    await (env as unknown as Bindings).BLOBS.put(key, archive);
    const [job] = await w.db((db) =>
      db.insert(projectTransferJobs).values({ kind: "import", status: "scheduled", projectId: project.id, userId: owner.id, r2Key: key, correlationId: "test" }).returning(),
    );
    return { project, job };
  }

  it("a redelivered message changes nothing; a started job whose lease passed is taken over and starts its relations over", async () => {
    const w = await world();
    const owner = await w.user();
    const { archive } = await gitlabFixture("nobody@example.com");
    const { project, job } = await scheduledJob(w, owner, archive);
    await w.db((db) => db.update(projectTransferJobs).set({ status: "started", leaseUntil: new Date(Date.now() + 60_000) }).where(eq(projectTransferJobs.id, job.id)));
    await consume("import", job.id);
    expect((await jobOf(w, project.id)).map((j) => j.status)).toEqual(["started"]);
    // That consumer died after writing one issue: once its lease passed, the next delivery redoes the relations.
    await w.db((db) => db.insert(issues).values({ projectId: project.id, iid: 3, title: "half-imported" }));
    await w.db((db) => db.update(projectTransferJobs).set({ leaseUntil: new Date(Date.now() - 1000), attempts: 1 }).where(eq(projectTransferJobs.id, job.id)));
    expect((await consume("import", job.id)).explicitAcks).toEqual([`import-${job.id}-1`]);
    const [finished] = await jobOf(w, project.id);
    expect([finished.status, finished.attempts]).toEqual(["finished", 2]);
    const titles = await w.db((db) => db.select({ iid: issues.iid, title: issues.title }).from(issues).where(eq(issues.projectId, project.id)).orderBy(issues.iid));
    expect(titles).toEqual([{ iid: 3, title: "Crash on start" }, { iid: 4, title: "Closed one" }]);
    // A redelivery of the finished job: nothing moves.
    await consume("import", job.id, "edgeforge-exports", 2);
    const [again] = await jobOf(w, project.id);
    expect([again.status, again.attempts, again.updatedAt.getTime()]).toEqual(["finished", 2, finished.updatedAt.getTime()]);
  });

  it("a record that does not fit goes to failed_relations; the rest imports", async () => {
    const w = await world();
    const owner = await w.user();
    const archive = targz({
      VERSION: "0.2.4",
      "tree/project.json": "{}",
      "tree/project/issues.ndjson": ndjson([
        { iid: 1, title: "fine", state: "opened" },
        { iid: 2, title: null, state: "opened" },
        { iid: 3, title: "also fine", state: "closed" },
      ]),
    });
    const { project, job } = await scheduledJob(w, owner, archive);
    await consume("import", job.id);
    const status = (await (await w.as(owner).get(`/projects/${project.id}/import`)).json()) as Json;
    expect(status.import_status).toBe("finished");
    expect(status.failed_relations).toEqual([
      expect.objectContaining({ relation_name: "issues", source: "process_relation_item!", exception_message: expect.stringContaining("title") }),
    ]);
    expect(Object.keys(status.failed_relations[0])).toEqual(["id", "created_at", "exception_class", "exception_message", "source", "relation_name"]);
    const rows = await w.db((db) => db.select({ iid: issues.iid }).from(issues).where(eq(issues.projectId, project.id)).orderBy(issues.iid));
    expect(rows.map((r) => r.iid)).toEqual([1, 3]);
    const failures = await w.db((db) => db.select().from(importFailures).where(eq(importFailures.jobId, job.id)));
    expect(failures).toHaveLength(1);
  });

  it("a bundle git cannot read fails the import with its reason, not a retry", async () => {
    const w = await world();
    const owner = await w.user();
    const badBundle = strToU8(`# v2 git bundle\n${"a".repeat(40)} refs/heads/main\n\nnot a pack at all`);
    const { project, job } = await scheduledJob(w, owner, targz({ VERSION: "0.2.4", "tree/project.json": "{}", "project.bundle": badBundle }));
    expect((await consume("import", job.id)).explicitAcks).toEqual([`import-${job.id}-1`]);
    const [row] = await jobOf(w, project.id);
    expect(row.status).toBe("failed");
    expect(row.error).toMatch(/^Failed to restore the repository: /);
  });

  it("the dead-letter consumer marks the job failed; export messages on the same queues still reach the export consumer", async () => {
    const w = await world();
    const owner = await w.user();
    const { project, job } = await scheduledJob(w, owner, targz({ VERSION: "0.2.4" }));
    await consume("import", job.id, "edgeforge-exports-dlq", 6);
    const [row] = await jobOf(w, project.id);
    expect([row.status, row.error]).toEqual(["failed", "The import failed after 6 attempts"]);
    expect(((await (await w.as(owner).get(`/projects/${project.id}/import`)).json()) as Json).import_error).toBe("The import failed after 6 attempts");
    const [exportJob] = await w.db((db) => db.insert(projectTransferJobs).values({ kind: "export", projectId: project.id, userId: owner.id, correlationId: "t" }).returning());
    await consume("export", exportJob.id);
    const [exported] = await w.db((db) => db.select().from(projectTransferJobs).where(eq(projectTransferJobs.id, exportJob.id)));
    expect(exported.status).toBe("finished");
  });
});
