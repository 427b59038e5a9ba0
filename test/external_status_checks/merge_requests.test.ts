import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { unique, world, type World } from "../helpers/world";
import { insertMergeRequest } from "../helpers/noteables";
import { protectBranch, setBranch } from "../helpers/git";
import { type Json } from "../helpers/api";
import { allowLocalHooks, received, RECEIVER, waitFor, type Received } from "../helpers/hooks";

let w: World;
beforeAll(async () => {
  w = await world();
});

async function fixture() {
  const [maintainer, author, developer, reporter] = await Promise.all([w.user(), w.user(), w.user(), w.user()]);
  const project = await w.project({ visibility: "public", maintainers: [maintainer], developers: [author, developer], reporters: [reporter] });
  const head = "c".repeat(40);
  await setBranch(w, project, "feature", head);
  const mr = await insertMergeRequest(w, project, { authorId: author.id, sourceBranch: "feature", targetBranch: "main" });
  const checks = `/projects/${project.id}/external_status_checks`;
  const base = `/projects/${project.id}/merge_requests/${mr.iid}`;
  return { project, mr, head, maintainer, author, developer, reporter, checks, base };
}

async function create(u: Parameters<World["as"]>[0], path: string, json: Json): Promise<Json> {
  const res = await w.as(u).post(path, { json });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

describe("GET /projects/:id/merge_requests/:merge_request_iid/status_checks", () => {
  it("lists the checks that apply to the target branch with their status at the source head", async () => {
    const { project, maintainer, developer, checks, base, head } = await fixture();
    const main = await protectBranch(w, project, "main");
    const release = await protectBranch(w, project, "release");
    const all = await create(maintainer, checks, { name: "All", external_url: "https://all.example.com/check?token=1" });
    const onMain = await create(maintainer, checks, { name: "Main", external_url: "https://main.example.com", protected_branch_ids: [main] });
    await create(maintainer, checks, { name: "Release", external_url: "https://release.example.com", protected_branch_ids: [release] });
    const res = await w.as(developer).get(`${base}/status_checks`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { id: all.id, name: "All", external_url: "https://all.example.com/check?token=1", status: "pending" },
      { id: onMain.id, name: "Main", external_url: "https://main.example.com", status: "pending" },
    ]);
    // The newest answer at the head counts; an answer for an older sha does not.
    for (const status of ["failed", "passed"])
      expect((await w.as(developer).post(`${base}/status_check_responses`, { json: { external_status_check_id: all.id, sha: head, status } })).status).toBe(201);
    expect((await w.as(developer).post(`${base}/status_check_responses`, { json: { external_status_check_id: onMain.id, sha: head, status: "failed" } })).status).toBe(201);
    const statuses = ((await (await w.as(developer).get(`${base}/status_checks`)).json()) as Json[]).map((c) => c.status);
    expect(statuses).toEqual(["passed", "failed"]);
    await setBranch(w, project, "feature", "d".repeat(40));
    expect(((await (await w.as(developer).get(`${base}/status_checks`)).json()) as Json[]).map((c) => c.status)).toEqual(["pending", "pending"]);
    const page = await w.as(developer).get(`${base}/status_checks?per_page=1`);
    expect(page.headers.get("x-total")).toBe("2");
    expect(((await page.json()) as Json[]).map((c) => c.id)).toEqual([all.id]);
  });

  it("is 403 for who may not approve, 401 anonymous, 404 for an unknown merge request, 400 for a bad iid", async () => {
    const { project, reporter, developer, base } = await fixture();
    expect(await statusAndBody(await w.as(reporter).get(`${base}/status_checks`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.anonymous.get(`${base}/status_checks`))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(developer).get(`/projects/${project.id}/merge_requests/9999/status_checks`))).toEqual([
      404,
      { message: "404 Merge Request Not Found" },
    ]);
    expect(await statusAndBody(await w.as(developer).get(`/projects/${project.id}/merge_requests/x/status_checks`))).toEqual([
      400,
      { error: "merge_request_iid is invalid" },
    ]);
  });
});

describe("POST /projects/:id/merge_requests/:merge_request_iid/status_check_responses", () => {
  it("records a service's answer and returns it with the merge request and the check (201)", async () => {
    const { project, mr, maintainer, developer, checks, base, head } = await fixture();
    const check = await create(maintainer, checks, { name: "QA", external_url: "https://qa.example.com" });
    const res = await w.as(developer).post(`${base}/status_check_responses`, { json: { external_status_check_id: check.id, sha: head, status: "passed" } });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({
      id: expect.any(Number),
      merge_request: expect.objectContaining({ id: mr.id, iid: mr.iid, project_id: project.id, source_branch: "feature", target_branch: "main" }),
      external_status_check: { id: check.id, name: "QA", project_id: project.id, external_url: "https://qa.example.com", protected_branches: [] },
    });
  });

  it("answers 409 for another sha, 404 for another project's check, 400 for a bad status", async () => {
    const { maintainer, developer, checks, base, head } = await fixture();
    const other = await fixture();
    const foreign = await create(other.maintainer, other.checks, { name: "X", external_url: "https://x.example.com" });
    const check = await create(maintainer, checks, { name: "QA", external_url: "https://qa.example.com" });
    const api = w.as(developer);
    expect(await statusAndBody(await api.post(`${base}/status_check_responses`, { json: { external_status_check_id: check.id, sha: "e".repeat(40), status: "passed" } }))).toEqual([
      409,
      { message: `SHA does not match HEAD of source branch: ${head}` },
    ]);
    expect(await statusAndBody(await api.post(`${base}/status_check_responses`, { json: { external_status_check_id: foreign.id, sha: head, status: "passed" } }))).toEqual([
      404,
      { message: "404 Not found" },
    ]);
    expect(await statusAndBody(await api.post(`${base}/status_check_responses`, { json: { external_status_check_id: check.id, sha: head, status: "approved" } }))).toEqual([
      400,
      { error: "status does not have a valid value" },
    ]);
    expect(await statusAndBody(await api.post(`${base}/status_check_responses`, { json: { external_status_check_id: check.id, status: "passed" } }))).toEqual([
      400,
      { error: "sha is missing" },
    ]);
  });

  it("is 403 for reporters and 404 for an author below Developer (provide_status_check_response)", async () => {
    const { project, maintainer, reporter, checks, head, base } = await fixture();
    const check = await create(maintainer, checks, { name: "QA", external_url: "https://qa.example.com" });
    const json = { external_status_check_id: check.id, sha: head, status: "passed" };
    expect(await statusAndBody(await w.as(reporter).post(`${base}/status_check_responses`, { json }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
    // A reporter who wrote the merge request may update (and approve) it, but answers only as a Developer.
    await setBranch(w, project, "reporter-feature", head);
    const mine = await insertMergeRequest(w, project, { authorId: reporter.id, sourceBranch: "reporter-feature", targetBranch: "main" });
    expect(await statusAndBody(await w.as(reporter).post(`/projects/${project.id}/merge_requests/${mine.iid}/status_check_responses`, { json }))).toEqual([
      404,
      { message: "404 Not Found" },
    ]);
  });
});

// Deliveries reach the local receiver (test/helpers/hooks.ts); the instance must allow local requests
// from hooks and services for it, as for project hooks.

afterAll(async () => {
  await allowLocalHooks(w, false);
});

describe("merge request events sent to external status checks", () => {
  it("POSTs the merge request hook payload with external_approval_rule to the checks that apply", async () => {
    const maintainer = await w.user();
    const project = await w.project({ visibility: "private", maintainers: [maintainer] });
    const api = w.as(maintainer);
    const releaseId = await protectBranch(w, project, "release");
    const path = `/${unique("check")}`;
    const otherPath = `/${unique("release-check")}`;
    await allowLocalHooks(w, true);
    const check = await create(maintainer, `/projects/${project.id}/external_status_checks`, { name: "QA", external_url: `${RECEIVER}${path}` });
    await create(maintainer, `/projects/${project.id}/external_status_checks`, { name: "Release", external_url: `${RECEIVER}${otherPath}`, protected_branch_ids: [releaseId] });
    await api.post(`/projects/${project.id}/repository/commits`, {
      json: { branch: "main", commit_message: "Init", actions: [{ action: "create", file_path: "a.txt", content: "a\n" }] },
    });
    await api.post(`/projects/${project.id}/repository/branches`, { json: { branch: "feature", ref: "main" } });
    const mr = await api.post(`/projects/${project.id}/merge_requests`, { json: { source_branch: "feature", target_branch: "main", title: "Feature" } });
    expect(mr.status).toBe(201);
    const [delivery] = await waitFor(path, 1);
    expect(delivery.method).toBe("POST");
    expect(delivery.headers["content-type"]).toBe("application/json");
    expect(delivery.headers["x-gitlab-event"]).toBeUndefined();
    expect(JSON.parse(delivery.body)).toMatchObject({
      object_kind: "merge_request",
      object_attributes: { action: "open", title: "Feature", source_branch: "feature", target_branch: "main" },
      external_approval_rule: { id: check.id, name: "QA", external_url: `${RECEIVER}${path}` },
    });
    // An update is sent too; the check scoped to another branch receives nothing.
    const iid = ((await mr.json()) as Json).iid;
    expect((await api.put(`/projects/${project.id}/merge_requests/${iid}`, { json: { title: "Feature 2" } })).status).toBe(200);
    const both = await waitFor(path, 2);
    expect(JSON.parse(both[1].body)).toMatchObject({ object_attributes: { action: "update", title: "Feature 2" } });
    expect(await received(otherPath)).toEqual([]);
  });

  it("refuses a local URL at delivery while local requests are not allowed", async () => {
    const maintainer = await w.user();
    const project = await w.project({ visibility: "private", maintainers: [maintainer] });
    const api = w.as(maintainer);
    const path = `/${unique("blocked")}`;
    const control = `/${unique("control")}`;
    await allowLocalHooks(w, false);
    await create(maintainer, `/projects/${project.id}/external_status_checks`, { name: "Blocked", external_url: `${RECEIVER}${path}` });
    // A system hook (local requests are allowed for those by default) shows when the event was processed.
    const hook = await w.root.post(`/hooks`, { json: { url: `${RECEIVER}${control}`, merge_requests_events: true, push_events: false } });
    expect(hook.status).toBe(201);
    await api.post(`/projects/${project.id}/repository/commits`, {
      json: { branch: "main", commit_message: "Init", actions: [{ action: "create", file_path: "a.txt", content: "a\n" }] },
    });
    await api.post(`/projects/${project.id}/repository/branches`, { json: { branch: "feature", ref: "main" } });
    expect((await api.post(`/projects/${project.id}/merge_requests`, { json: { source_branch: "feature", target_branch: "main", title: "Feature" } })).status).toBe(201);
    const until = Date.now() + 20_000;
    const ours = (list: Received[]) => list.some((d) => (JSON.parse(d.body) as Json).project?.id === project.id);
    while (!ours(await received(control)) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 150));
    expect(ours(await received(control))).toBe(true);
    // The check's delivery left in the same batch; give it the time a delivery takes.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await received(path)).toEqual([]);
    await w.root.delete(`/hooks/${((await hook.json()) as Json).id}`);
  });
});
