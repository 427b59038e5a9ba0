import { beforeAll, describe, expect, it } from "vitest";
import { statusAndBody, type Client } from "../helpers/client";
import { world, type TestProject, type TestUser, type World } from "../helpers/world";
import { ciProject, claim, createPipeline, eventually, finish, projectRunner } from "../helpers/ci";

type Json = Record<string, any>;

const YAML = "job:\n  script: [echo hi]\n";

let w: World;
let reporter: TestUser;
let project: TestProject;
let api: Client;
let sha: string;

async function commitTo(client: Client, projectId: number, branch: string, path: string, extra: Record<string, string> = {}) {
  const res = await client.post(`/projects/${projectId}/repository/commits`, {
    json: { branch, commit_message: `touch ${path} [skip ci]`, actions: [{ action: "create", file_path: path, content: "x\n" }], ...extra },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

beforeAll(async () => {
  w = await world();
  reporter = await w.user();
  ({ project, api, sha } = await ciProject(w, YAML, { reporters: [reporter], visibility: "public" }));
});

describe("GET /projects/:id/repository/commits/:sha (last_pipeline)", () => {
  it("shows the commit's newest pipeline as PipelineBasic and its status", async () => {
    const before = (await (await api.get(`/projects/${project.id}/repository/commits/${sha}`)).json()) as Json;
    expect(before).toMatchObject({ status: null, last_pipeline: null });
    await createPipeline(api, project.id);
    const newest = await createPipeline(api, project.id);
    const res = await w.as(reporter).get(`/projects/${project.id}/repository/commits/${sha}`);
    const body = (await res.json()) as Json;
    expect(res.status).toBe(200);
    expect(body.status).toBe("pending");
    expect(body.last_pipeline).toEqual({
      id: newest.id,
      iid: newest.iid,
      project_id: project.id,
      sha,
      ref: "main",
      status: "pending",
      source: "api",
      created_at: newest.created_at,
      updated_at: expect.any(String),
      web_url: `http://edgeforge.test/${project.fullPath}/-/pipelines/${newest.id}`,
    });
  });

  it("hides last_pipeline from callers who may not read pipelines", async () => {
    const w2 = await world();
    const { project: p2, api: ownerApi, sha: sha2 } = await ciProject(w2, YAML, { visibility: "public" });
    await createPipeline(ownerApi, p2.id);
    expect((await ownerApi.put(`/projects/${p2.id}`, { json: { public_jobs: false } })).status).toBe(200);
    const anon = (await (await w2.anonymous.get(`/projects/${p2.id}/repository/commits/${sha2}`)).json()) as Json;
    expect(anon).toMatchObject({ status: "pending", last_pipeline: null });
    const owner = (await (await ownerApi.get(`/projects/${p2.id}/repository/commits/${sha2}`)).json()) as Json;
    expect(owner.last_pipeline).toMatchObject({ sha: sha2, status: "pending" });
  });
});

describe("GET /projects/:id/merge_requests/:merge_request_iid (head_pipeline, pipeline)", () => {
  it("shows the source branch's newest pipeline on the head, and `pipeline` once it ran", async () => {
    await api.post(`/projects/${project.id}/repository/branches`, { json: { branch: "feat", ref: "main" } });
    const head = await commitTo(api, project.id, "feat", "a.txt");
    const mr = (await (await api.post(`/projects/${project.id}/merge_requests`, { json: { source_branch: "feat", target_branch: "main", title: "Feat" } })).json()) as Json;
    const url = `/projects/${project.id}/merge_requests/${mr.iid}`;
    expect((await (await api.get(url)).json()) as Json).toMatchObject({ head_pipeline: null, pipeline: null });
    const p = await createPipeline(api, project.id, "feat");
    let body = (await (await api.get(url)).json()) as Json;
    expect(body.head_pipeline).toMatchObject({ id: p.id, sha: head, ref: "feat", status: "pending", user: { id: expect.any(Number) }, detailed_status: { group: "pending" } });
    expect(body.pipeline).toBeNull();
    const runner = await projectRunner(api, project.id);
    const job = await claim(runner.token);
    expect(job.job_info.pipeline_id).toBeLessThanOrEqual(p.id);
    // Drain until this pipeline's job runs.
    let claimed = job;
    while (claimed.job_info.pipeline_id !== p.id) claimed = await claim(runner.token);
    // The claim makes the pipeline running through its coordinator, right after answering.
    body = await eventually(async () => (await (await api.get(url)).json()) as Json, (b) => b.head_pipeline?.status === "running");
    expect(body.head_pipeline).toMatchObject({ id: p.id, status: "running" });
    expect(body.pipeline).toMatchObject({ id: p.id, status: "running", web_url: `http://edgeforge.test/${project.fullPath}/-/pipelines/${p.id}` });
    expect(body.pipeline.detailed_status).toBeUndefined();
    expect(body.latest_build_started_at).not.toBeNull();
  });

  it("leaves head_pipeline out for callers who may not read pipelines", async () => {
    const w2 = await world();
    const { project: p2, api: ownerApi } = await ciProject(w2, YAML, { visibility: "public" });
    await ownerApi.post(`/projects/${p2.id}/repository/branches`, { json: { branch: "feat", ref: "main" } });
    await commitTo(ownerApi, p2.id, "feat", "b.txt");
    const mr = (await (await ownerApi.post(`/projects/${p2.id}/merge_requests`, { json: { source_branch: "feat", target_branch: "main", title: "F" } })).json()) as Json;
    await createPipeline(ownerApi, p2.id, "feat");
    await ownerApi.put(`/projects/${p2.id}`, { json: { public_jobs: false } });
    const anon = (await (await w2.anonymous.get(`/projects/${p2.id}/merge_requests/${mr.iid}`)).json()) as Json;
    expect("head_pipeline" in anon).toBe(false);
    expect(await statusAndBody(await w2.anonymous.get(`/projects/${p2.id}/merge_requests/${mr.iid}/pipelines`))).toEqual([200, []]);
  });
});

describe("GET /projects/:id/merge_requests/:merge_request_iid/pipelines", () => {
  it("lists the source branch's pipelines on the merge request's heads, newest first, paginated", async () => {
    const w3 = await world();
    const { project: p3, api: a3 } = await ciProject(w3, YAML);
    await a3.post(`/projects/${p3.id}/repository/branches`, { json: { branch: "topic", ref: "main" } });
    await commitTo(a3, p3.id, "topic", "1.txt");
    const mr = (await (await a3.post(`/projects/${p3.id}/merge_requests`, { json: { source_branch: "topic", target_branch: "main", title: "T" } })).json()) as Json;
    const url = `/projects/${p3.id}/merge_requests/${mr.iid}`;
    const first = await createPipeline(a3, p3.id, "topic");
    await createPipeline(a3, p3.id, "main"); // another branch: not listed
    await commitTo(a3, p3.id, "topic", "2.txt");
    const second = await createPipeline(a3, p3.id, "topic");
    const res = await a3.get(`${url}/pipelines`);
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Total")).toBe("2");
    const list = (await res.json()) as Json[];
    expect(list.map((p) => p.id)).toEqual([second.id, first.id]);
    expect(Object.keys(list[0]).sort()).toEqual(["created_at", "id", "iid", "project_id", "ref", "sha", "source", "status", "updated_at", "web_url"]);
    const page2 = await a3.get(`${url}/pipelines`, { query: { per_page: 1, page: 2 } });
    expect(((await page2.json()) as Json[]).map((p) => p.id)).toEqual([first.id]);
    expect(((await (await a3.get(url)).json()) as Json).head_pipeline.id).toBe(second.id);
    expect(await statusAndBody(await a3.get(`/projects/${p3.id}/merge_requests/999999/pipelines`))).toEqual([404, { message: "404 Merge Request Not Found" }]);
    expect(await statusAndBody(await w3.as(w3.stranger).get(`${url}/pipelines`))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("PUT /projects/:id/merge_requests/:merge_request_iid/merge (merge_when_pipeline_succeeds)", () => {
  /** A merge request from a new branch whose head pipeline is running, with the merge waiting on it. */
  async function waitingMerge(branch: string) {
    const { owner, project: p, api: a } = await ciProject(w, YAML);
    expect((await a.post(`/projects/${p.id}/repository/branches`, { json: { branch, ref: "main" } })).status).toBe(201);
    const head = await commitTo(a, p.id, branch, `${branch}.txt`);
    const mr = (await (await a.post(`/projects/${p.id}/merge_requests`, { json: { source_branch: branch, target_branch: "main", title: branch } })).json()) as Json;
    const pipeline = await createPipeline(a, p.id, branch);
    const runner = await projectRunner(a, p.id);
    const job = await claim(runner.token);
    expect(job.job_info.pipeline_id).toBe(pipeline.id);
    const url = `/projects/${p.id}/merge_requests/${mr.iid}`;
    const res = await a.put(`${url}/merge`, { json: { merge_when_pipeline_succeeds: true, should_remove_source_branch: true } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ state: "opened", merge_when_pipeline_succeeds: true, merge_user: { id: owner.id } });
    return { owner, p, a, head, url, job };
  }

  it("merges as the merge user once the head pipeline succeeds, removing the source branch as asked", async () => {
    const { owner, p, a, head, url, job } = await waitingMerge("auto");
    expect((await finish(job, "success")).status).toBe(200);
    const merged = await eventually(async () => (await (await a.get(url)).json()) as Json, (b) => b.state === "merged");
    expect(merged).toMatchObject({ state: "merged", merged_by: { id: owner.id }, merge_when_pipeline_succeeds: false, merge_error: null });
    const main = (await (await a.get(`/projects/${p.id}/repository/branches/main`)).json()) as Json;
    expect(main.commit.id).toBe(merged.merge_commit_sha);
    expect(main.commit.parent_ids).toContain(head);
    expect((await a.get(`/projects/${p.id}/repository/branches/auto`)).status).toBe(404);
  });

  it("leaves the merge request waiting when the pipeline fails", async () => {
    const { a, url, job } = await waitingMerge("auto-failing");
    expect((await finish(job, "failed", { failure_reason: "script_failure" })).status).toBe(200);
    const body = await eventually(async () => (await (await a.get(url)).json()) as Json, (b) => b.head_pipeline?.status === "failed");
    expect(body).toMatchObject({ state: "opened", merge_when_pipeline_succeeds: true, head_pipeline: { status: "failed" } });
  });
});
