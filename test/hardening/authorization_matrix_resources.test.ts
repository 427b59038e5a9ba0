import { beforeAll, describe, it } from "vitest";
import { request, type Client } from "../helpers/client";
import { unique, world, type TestGroup, type TestProject, type TestUser, type World } from "../helpers/world";
import { FULL, ok, runMatrix, type Endpoint } from "./matrix";
import { ROLES, roleClients, VISIBILITIES, type Role, type Vis } from "./roles";

/**
 * The authorization matrix, second part: repository (branches, files, tree, commits), CI
 * (pipelines, jobs), packages, notes, merge request writes, and groups. Every expected status comes from
 * ONE table and one rule (`expected`), following app/policies/project_policy.rb, note_policy.rb,
 * group_policy.rb and lib/api/*.rb:
 * - what the caller may not read is 404 (the project; the merge request a guest of a private project
 *   may not read, `read_merge_request` being a reporter ability there, where GitLab looks it up through a
 *   finder: notes (`find_noteable`), merge, delete (`find_project_merge_request`)); endpoints that use
 *   lib/api/helpers.rb `find_merge_request_with_access` find it first and then authorize: 403;
 * - a readable resource and a missing ability is 403 (`PUT …/merge` answers 401: `unauthorized! unless
 *   merge_request.can_be_merged_by?(current_user)`);
 * - an anonymous write is 401 (`authenticate_non_get!`), as are anonymous reads of APIs with
 *   `before { authenticate! }` (jobs, notes, members).
 * Every cell is one HTTP call through the Worker entry. Resources a successful cell consumes (a branch
 * or a note to delete, a job to retry or play, a merge request to merge) exist once per role, so that
 * cells are independent of their order and of each other's outcome.
 */
/**
 * Per visibility: the project and what each cell acts on. `byRole` resources are each role's own (the
 * note or merge request a role edits and then deletes), so that no two cells write the same row at once.
 */
type ProjectFixture = {
  project: TestProject;
  issueIid: number;
  mrIid: number;
  pipelineId: number;
  jobId: number;
  packageId: number;
  byRole: Record<
    Role,
    {
      branch: string;
      deleteBranch: string;
      issueNoteId: number;
      mrNoteId: number;
      mergeIid: number;
      deleteMrIid: number;
      retryJobId: number;
      playJobId: number;
      pipelineId: number;
      packageId: number;
    }
  >;
};

const SKIP = "[skip ci]";
const P = (f: ProjectFixture) => `/projects/${f.project.id}`;

/** THE table (projects). */
const PROJECT_ENDPOINTS: Endpoint<ProjectFixture>[] = [
  // lib/api/branches.rb: reads need download_code (reporter; readers of public and internal projects);
  // writes `authorize_push_project` (developer); protection `authorize_admin_project` (maintainer).
  { name: "list branches", method: "GET", path: (f) => `${P(f)}/repository/branches`, min: "reporter", readers: true, ok: 200 },
  { name: "get branch", method: "GET", path: (f) => `${P(f)}/repository/branches/main`, min: "reporter", readers: true, ok: 200 },
  { name: "create branch", method: "POST", path: (f) => `${P(f)}/repository/branches`, body: () => ({ branch: unique("nb"), ref: "main" }), min: "developer", ok: 201 },
  { name: "delete branch", method: "DELETE", path: (f, r) => `${P(f)}/repository/branches/${f.byRole[r].deleteBranch}`, min: "developer", ok: 204 },
  { name: "protect branch", method: "POST", path: (f) => `${P(f)}/protected_branches`, body: () => ({ name: unique("pb") }), min: "maintainer", ok: 201 },
  // lib/api/files.rb: reads download_code, writes push_code on the branch (each role its own branch).
  { name: "get file", method: "GET", path: (f) => `${P(f)}/repository/files/README.md?ref=main`, min: "reporter", readers: true, ok: 200 },
  { name: "get raw file", method: "GET", path: (f) => `${P(f)}/repository/files/README.md/raw?ref=main`, min: "reporter", readers: true, ok: 200 },
  {
    name: "create file",
    method: "POST",
    path: (f) => `${P(f)}/repository/files/${unique("new")}.txt`,
    body: (f, r) => ({ branch: f.byRole[r].branch, content: "new", commit_message: `create ${SKIP}` }),
    min: "developer",
    ok: 201,
  },
  {
    name: "update file",
    method: "PUT",
    path: (f) => `${P(f)}/repository/files/README.md`,
    body: (f, r) => ({ branch: f.byRole[r].branch, content: unique("readme"), commit_message: `update ${SKIP}` }),
    min: "developer",
    ok: 200,
  },
  {
    name: "delete file",
    method: "DELETE",
    path: (f) => `${P(f)}/repository/files/gone.txt`,
    body: (f, r) => ({ branch: f.byRole[r].branch, commit_message: `delete ${SKIP}` }),
    min: "developer",
    ok: 204,
  },
  { name: "tree", method: "GET", path: (f) => `${P(f)}/repository/tree`, min: "reporter", readers: true, ok: 200 },
  {
    name: "create commit",
    method: "POST",
    path: (f) => `${P(f)}/repository/commits`,
    body: (f, r) => ({ branch: f.byRole[r].branch, commit_message: `commit ${SKIP}`, actions: [{ action: "create", file_path: `${unique("c")}.txt`, content: "c" }] }),
    min: "developer",
    ok: 201,
  },
  // lib/api/ci/pipelines.rb (`authenticate_non_get!`). read_pipeline: reporters, readers of public and
  // internal projects, and guests while jobs are public (`public_builds & can?(:guest_access)`).
  { name: "list pipelines", method: "GET", path: (f) => `${P(f)}/pipelines`, min: "guest", readers: true, ok: 200 },
  { name: "get pipeline", method: "GET", path: (f) => `${P(f)}/pipelines/${f.pipelineId}`, min: "guest", readers: true, ok: 200 },
  { name: "create pipeline", method: "POST", path: (f) => `${P(f)}/pipeline`, body: () => ({ ref: "ci-small" }), min: "developer", ok: 201 },
  { name: "cancel pipeline", method: "POST", path: (f) => `${P(f)}/pipelines/${f.pipelineId}/cancel`, min: "developer", ok: 200 },
  { name: "retry pipeline", method: "POST", path: (f) => `${P(f)}/pipelines/${f.pipelineId}/retry`, min: "developer", ok: 201 },
  // Ci::PipelinePolicy: `destroy_pipeline` is an owner ability.
  { name: "delete pipeline", method: "DELETE", path: (f, r) => `${P(f)}/pipelines/${f.byRole[r].pipelineId}`, min: "owner", ok: 204 },
  // lib/api/ci/jobs.rb: `before { authenticate! }`. read_build: reporters, and whoever reads the project
  // while jobs are public (`rule { public_builds }.enable :read_build`); update_build: developers.
  { name: "list jobs", method: "GET", path: (f) => `${P(f)}/jobs`, min: "guest", readers: true, signedIn: true, ok: 200 },
  { name: "get job", method: "GET", path: (f) => `${P(f)}/jobs/${f.jobId}`, min: "guest", readers: true, signedIn: true, ok: 200 },
  { name: "cancel job", method: "POST", path: (f) => `${P(f)}/jobs/${f.jobId}/cancel`, min: "developer", ok: 201 },
  { name: "retry job", method: "POST", path: (f, r) => `${P(f)}/jobs/${f.byRole[r].retryJobId}/retry`, min: "developer", ok: 201 },
  { name: "play job", method: "POST", path: (f, r) => `${P(f)}/jobs/${f.byRole[r].playJobId}/play`, min: "developer", ok: 200 },
  { name: "job trace", method: "GET", path: (f) => `${P(f)}/jobs/${f.jobId}/trace`, min: "guest", readers: true, signedIn: true, ok: 200 },
  // lib/api/project_packages.rb: read_package (reporters, readers); destroy_package (see abilities.ts).
  { name: "list packages", method: "GET", path: (f) => `${P(f)}/packages`, min: "reporter", readers: true, ok: 200 },
  { name: "get package", method: "GET", path: (f) => `${P(f)}/packages/${f.packageId}`, min: "reporter", readers: true, ok: 200 },
  { name: "package pipelines", method: "GET", path: (f) => `${P(f)}/packages/${f.packageId}/pipelines`, min: "reporter", readers: true, ok: 200 },
  { name: "delete package", method: "DELETE", path: (f, r) => `${P(f)}/packages/${f.byRole[r].packageId}`, min: "developer", ok: 204 },
  // lib/api/notes.rb (`before { authenticate! }`): create_note is a guest ability (readers of public and
  // internal projects have guest access); editing another's note is `admin_note` (maintainers).
  { name: "list issue notes", method: "GET", path: (f) => `${P(f)}/issues/${f.issueIid}/notes`, min: "guest", readers: true, signedIn: true, ok: 200 },
  { name: "create issue note", method: "POST", path: (f) => `${P(f)}/issues/${f.issueIid}/notes`, body: () => ({ body: "n" }), min: "guest", readers: true, ok: 201 },
  { name: "update issue note", method: "PUT", path: (f, r) => `${P(f)}/issues/${f.issueIid}/notes/${f.byRole[r].issueNoteId}`, body: () => ({ body: unique("e") }), min: "maintainer", ok: 200 },
  { name: "delete issue note", method: "DELETE", path: (f, r) => `${P(f)}/issues/${f.issueIid}/notes/${f.byRole[r].issueNoteId}`, min: "maintainer", ok: 204 },
  // Merge request notes: a guest of a private project may not read the merge request (404: NotesFinder).
  { name: "list MR notes", method: "GET", path: (f) => `${P(f)}/merge_requests/${f.mrIid}/notes`, min: "reporter", readers: true, signedIn: true, readMin: "reporter", ok: 200 },
  { name: "create MR note", method: "POST", path: (f) => `${P(f)}/merge_requests/${f.mrIid}/notes`, body: () => ({ body: "n" }), min: "reporter", readers: true, readMin: "reporter", ok: 201 },
  { name: "update MR note", method: "PUT", path: (f, r) => `${P(f)}/merge_requests/${f.mrIid}/notes/${f.byRole[r].mrNoteId}`, body: () => ({ body: unique("e") }), min: "maintainer", readMin: "reporter", ok: 200 },
  { name: "delete MR note", method: "DELETE", path: (f, r) => `${P(f)}/merge_requests/${f.mrIid}/notes/${f.byRole[r].mrNoteId}`, min: "maintainer", readMin: "reporter", ok: 204 },
  // lib/api/merge_requests.rb (create is in authorization_matrix.test.ts). The single GET, its
  // sub-resources and update use `find_merge_request_with_access` (403 for a guest of a private
  // project); merge and delete `find_project_merge_request` (404).
  { name: "read MR", method: "GET", path: (f) => `${P(f)}/merge_requests/${f.mrIid}`, min: "reporter", readers: true, readMin: "reporter", unreadable: 403, ok: 200 },
  { name: "MR changes", method: "GET", path: (f) => `${P(f)}/merge_requests/${f.mrIid}/changes`, min: "reporter", readers: true, readMin: "reporter", unreadable: 403, ok: 200 },
  { name: "MR commits", method: "GET", path: (f) => `${P(f)}/merge_requests/${f.mrIid}/commits`, min: "reporter", readers: true, readMin: "reporter", unreadable: 403, ok: 200 },
  { name: "MR participants", method: "GET", path: (f) => `${P(f)}/merge_requests/${f.mrIid}/participants`, min: "reporter", readers: true, readMin: "reporter", unreadable: 403, ok: 200 },
  { name: "MR versions", method: "GET", path: (f) => `${P(f)}/merge_requests/${f.mrIid}/versions`, min: "reporter", readers: true, readMin: "reporter", unreadable: 403, ok: 200 },
  { name: "MR time stats", method: "GET", path: (f) => `${P(f)}/merge_requests/${f.mrIid}/time_stats`, min: "reporter", readers: true, readMin: "reporter", ok: 200 },
  { name: "update MR", method: "PUT", path: (f, r) => `${P(f)}/merge_requests/${f.byRole[r].deleteMrIid}`, body: () => ({ description: unique("d") }), min: "developer", readMin: "reporter", unreadable: 403, ok: 200 },
  { name: "merge MR", method: "PUT", path: (f, r) => `${P(f)}/merge_requests/${f.byRole[r].mergeIid}/merge`, min: "developer", readMin: "reporter", denied: 401, ok: 200 },
  { name: "delete MR", method: "DELETE", path: (f, r) => `${P(f)}/merge_requests/${f.byRole[r].deleteMrIid}`, min: "owner", readMin: "reporter", ok: 204 },
];

type GroupFixture = { group: TestGroup };
const G = (f: GroupFixture) => `/groups/${f.group.id}`;

/** THE table (groups): app/policies/group_policy.rb. */
const GROUP_ENDPOINTS: Endpoint<GroupFixture>[] = [
  { name: "read group", method: "GET", path: (f) => G(f), min: "guest", readers: true, ok: 200 },
  // `admin_group` is an owner ability.
  { name: "edit group", method: "PUT", path: (f) => G(f), body: () => ({ description: unique("d") }), min: "owner", ok: 200 },
  { name: "list group members", method: "GET", path: (f) => `${G(f)}/members`, min: "guest", readers: true, signedIn: true, ok: 200 },
  { name: "list group issues", method: "GET", path: (f) => `${G(f)}/issues`, min: "guest", readers: true, ok: 200 },
  { name: "list group merge requests", method: "GET", path: (f) => `${G(f)}/merge_requests`, min: "guest", readers: true, ok: 200 },
];

const CI_YAML = (roles: readonly Role[]) =>
  roles.map((r) => `r_${r.replace("-", "_")}:\n  script: [echo r]\nm_${r.replace("-", "_")}:\n  script: [echo m]\n  when: manual\n`).join("");

async function projectFixture(w: World, vis: Vis, owner: TestUser, members: Record<"guest" | "reporter" | "developer" | "maintainer", TestUser>): Promise<ProjectFixture> {
  const project = await w.project({
    visibility: vis,
    owner,
    guests: [members.guest],
    reporters: [members.reporter],
    developers: [members.developer],
    maintainers: [members.maintainer],
  });
  const api = w.as(owner);
  const p = `/projects/${project.id}`;
  const commit = (branch: string, actions: Record<string, unknown>[], startBranch?: string) =>
    api.post(`${p}/repository/commits`, { json: { branch, ...(startBranch ? { start_branch: startBranch } : {}), commit_message: `setup ${SKIP}`, actions } }).then((r) => ok(r, 201, `commit to ${branch}`));
  const create = (file_path: string, content: string) => ({ action: "create", file_path, content });
  await commit("main", [create("README.md", "readme"), create("gone.txt", "gone")]);
  await Promise.all([
    commit("ci", [create(".gitlab-ci.yml", `build:\n  script: [echo build]\n${CI_YAML(ROLES)}`)], "main"),
    commit("ci-small", [create(".gitlab-ci.yml", "build:\n  script: [echo build]\n")], "main"),
  ]);
  const issue = await ok<{ iid: number }>(await api.post(`${p}/issues`, { json: { title: "i" } }), 201, "issue");
  const mr = await ok<{ iid: number }>(await api.post(`${p}/merge_requests`, { json: { title: "m", source_branch: "ci-small", target_branch: "main" } }), 201, "MR");
  const note = (kind: "issues" | "merge_requests", iid: number) =>
    api.post(`${p}/${kind}/${iid}/notes`, { json: { body: "note" } }).then((r) => ok<{ id: number }>(r, 201, "note"));
  const pipeline = (ref: string) => api.post(`${p}/pipeline`, { json: { ref } }).then((r) => ok<{ id: number }>(r, 201, `pipeline ${ref}`));
  const [shared, jobs] = await Promise.all([pipeline("ci-small"), pipeline("ci")]);
  const jobsOf = async (id: number) => ok<{ id: number; name: string; status: string }[]>(await api.get(`${p}/pipelines/${id}/jobs`, { query: { per_page: 100 } }), 200, "jobs");
  const [sharedJobs, roleJobs] = await Promise.all([jobsOf(shared.id), jobsOf(jobs.id)]);
  const jobNamed = (name: string) => roleJobs.find((j) => j.name === name)!;
  // A retry needs a finished job: each role's own job, canceled.
  for (const r of ROLES) await ok(await api.post(`${p}/jobs/${jobNamed(`r_${r.replace("-", "_")}`).id}/cancel`), 201, "cancel job");
  const put = (name: string) =>
    request("PUT", `${p}/packages/generic/${name}/1.0.0/f.txt`, owner.token, { formBody: "package" }).then((r) => ok(r, 201, `package ${name}`));
  for (const name of ["shared", ...ROLES.map((r) => `del-${r}`)]) await put(name);
  const packages = await ok<{ id: number; name: string }[]>(await api.get(`${p}/packages`, { query: { per_page: 100 } }), 200, "packages");
  const packageNamed = (name: string) => packages.find((x) => x.name === name)!.id;

  const byRole = {} as ProjectFixture["byRole"];
  // One role at a time: the test database answers a few connections at once, not fifty.
  for (const r of ROLES) {
    {
      const branch = `w-${r}`;
      const deleteBranch = `del-${r}`;
      const source = `s-${r}`;
      await Promise.all([
        api.post(`${p}/repository/branches`, { json: { branch, ref: "main" } }).then((res) => ok(res, 201, "branch")),
        api.post(`${p}/repository/branches`, { json: { branch: deleteBranch, ref: "main" } }).then((res) => ok(res, 201, "branch")),
        commit(source, [create(`${source}.txt`, r)], "main"),
      ]);
      const [merge, doomed, issueNoteR, mrNoteR, pipelineR] = await Promise.all([
        api.post(`${p}/merge_requests`, { json: { title: `merge ${r}`, source_branch: source, target_branch: branch } }).then((res) => ok<{ iid: number }>(res, 201, "MR")),
        api.post(`${p}/merge_requests`, { json: { title: `delete ${r}`, source_branch: deleteBranch, target_branch: "main" } }).then((res) => ok<{ iid: number }>(res, 201, "MR")),
        note("issues", issue.iid),
        note("merge_requests", mr.iid),
        pipeline("ci-small"),
      ]);
      byRole[r] = {
        branch,
        deleteBranch,
        issueNoteId: issueNoteR.id,
        mrNoteId: mrNoteR.id,
        mergeIid: merge.iid,
        deleteMrIid: doomed.iid,
        retryJobId: jobNamed(`r_${r.replace("-", "_")}`).id,
        playJobId: jobNamed(`m_${r.replace("-", "_")}`).id,
        pipelineId: pipelineR.id,
        packageId: packageNamed(`del-${r}`),
      };
    }
  }
  return {
    project,
    issueIid: issue.iid,
    mrIid: mr.iid,
    pipelineId: shared.id,
    jobId: sharedJobs[0].id,
    packageId: packageNamed("shared"),
    byRole,
  };
}

describe("authorization matrix: repository, CI, packages, notes, merge request writes, groups", () => {
  let w: World;
  const clients = {} as Record<Role, Client>;
  const projects = {} as Record<Vis, ProjectFixture>;
  const groups = {} as Record<Vis, GroupFixture>;

  beforeAll(async () => {
    w = await world();
    const roles = await roleClients(w);
    const { guest, reporter, developer, maintainer, owner } = roles.users;
    Object.assign(clients, roles.clients);
    for (const vis of VISIBILITIES) {
      projects[vis] = await projectFixture(w, vis, owner, { guest, reporter, developer, maintainer });
      groups[vis] = {
        group: await w.group({ visibility: vis, guests: [guest], reporters: [reporter], developers: [developer], maintainers: [maintainer], owners: [owner] }),
      };
    }
  }, 300_000);

  // Three parts, each with its own time budget.
  const parts = [
    ["repository", PROJECT_ENDPOINTS.filter((e) => !/pipeline|job|package|note|MR/.test(e.name))],
    ["CI", PROJECT_ENDPOINTS.filter((e) => /pipeline|job/.test(e.name))],
    ["packages, notes, merge requests", PROJECT_ENDPOINTS.filter((e) => /package|note|MR/.test(e.name))],
  ] as const;
  for (const [part, endpoints] of parts)
    it(`projects, ${part}: ${ROLES.length} roles × ${FULL ? VISIBILITIES.length : 1} visibilities × ${endpoints.length} endpoints`, { timeout: 600_000 }, async () => {
      await runMatrix(endpoints, projects, clients);
    });

  it(`groups: ${ROLES.length} roles × ${FULL ? VISIBILITIES.length : 1} visibilities × ${GROUP_ENDPOINTS.length} endpoints`, { timeout: 600_000 }, async () => {
    await runMatrix(GROUP_ENDPOINTS, groups, clients);
  });
});
