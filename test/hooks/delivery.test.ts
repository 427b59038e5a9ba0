import { afterAll, describe, expect, inject, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { unique, world } from "../helpers/world";
import type {} from "./receiver";

// Deliveries reach the local receiver of test/hooks/receiver.ts (started by the global setup).
const RECEIVER = inject("hookReceiver");

type Received = { method: string; path: string; headers: Record<string, string>; body: string };

afterAll(async () => {
  const w = await world();
  await w.root.put(`/application/settings`, { json: { allow_local_requests_from_web_hooks_and_services: false } });
});

async function received(path: string): Promise<Received[]> {
  return (await (await fetch(`${RECEIVER}/__received${path}`)).json()) as Received[];
}

describe("POST /hooks/:hook_id (test a system hook)", () => {
  it("delivers GitLab's sample to the receiver (system hooks may reach local addresses by default) and answers 201 with it", async () => {
    const w = await world();
    const path = `/${unique("system")}`;
    const { id } = (await (await w.root.post(`/hooks`, { json: { url: `${RECEIVER}${path}`, token: "sys-token" } })).json()) as { id: number };
    const res = await w.root.post(`/hooks/${id}`);
    const sample = {
      event_name: "project_create",
      name: "Ruby",
      path: "ruby",
      project_id: 1,
      owner_name: "Someone",
      owner_email: "example@gitlabhq.com",
    };
    expect(await statusAndBody(res)).toEqual([201, sample]);
    const [delivery, ...more] = await received(path);
    expect(more).toEqual([]);
    expect(delivery.method).toBe("POST");
    expect(JSON.parse(delivery.body)).toEqual(sample);
    expect(delivery.headers).toMatchObject({
      "content-type": "application/json",
      "x-gitlab-event": "System Hook",
      "x-gitlab-token": "sys-token",
      "user-agent": "GitLab/15.4.0",
    });
    expect(delivery.headers["x-gitlab-event-uuid"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("answers 404 for an unknown hook and 403 for non-administrators", async () => {
    const w = await world();
    const user = await w.user();
    expect(await statusAndBody(await w.root.post(`/hooks/2147483647`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(user).post(`/hooks/1`))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

// The tests below change `allow_local_requests_from_web_hooks_and_services` (the receiver is on
// 127.0.0.1); they run in this file only, one after the other, and leave it off.
async function allowLocal(w: Awaited<ReturnType<typeof world>>, on: boolean) {
  const res = await w.root.put(`/application/settings`, { json: { allow_local_requests_from_web_hooks_and_services: on } });
  expect(res.status).toBe(200);
}

/** Polls the receiver until `count` deliveries arrived at `path` (the queue delivers asynchronously). */
async function waitFor(path: string, count: number, timeoutMs = 20_000): Promise<Received[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const list = await received(path);
    if (list.length >= count || Date.now() > until) return list;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

async function hookedProject(events: Record<string, boolean>, suffix = "") {
  const w = await world();
  const owner = await w.user();
  const project = await w.project({ owner, visibility: "private" });
  const path = `/${unique("proj")}${suffix}`;
  await allowLocal(w, true);
  const res = await w.as(owner).post(`/projects/${project.id}/hooks`, { json: { url: `${RECEIVER}${path}`, token: "proj-token", ...events } });
  expect(res.status).toBe(201);
  const hook = (await res.json()) as { id: number };
  return { w, owner, project, path, hook, api: w.as(owner) };
}

describe("POST /projects/:id/hooks/:hook_id/test/:trigger", () => {
  it("delivers a sample issue event to the receiver and answers 201", async () => {
    const { w, owner, project, path, hook, api } = await hookedProject({ issues_events: false });
    expect(await statusAndBody(await api.post(`/projects/${project.id}/hooks/${hook.id}/test/issues_events`))).toEqual([422, { message: "Ensure the project has issues." }]);
    await api.post(`/projects/${project.id}/issues`, { json: { title: "Sample" } });
    expect(await statusAndBody(await api.post(`/projects/${project.id}/hooks/${hook.id}/test/issues_events`))).toEqual([201, { message: "201 Created" }]);
    const [delivery] = await received(path);
    expect(delivery.headers).toMatchObject({ "x-gitlab-event": "Issue Hook", "x-gitlab-token": "proj-token", "content-type": "application/json" });
    const payload = JSON.parse(delivery.body);
    expect(payload).toMatchObject({
      object_kind: "issue",
      event_type: "issue",
      user: { id: owner.id, username: owner.username, name: owner.name },
      project: { id: project.id, path_with_namespace: project.fullPath, visibility_level: 0 },
      object_attributes: { title: "Sample", iid: 1, state: "opened", action: "open", project_id: project.id, url: expect.stringMatching(new RegExp(`/${project.fullPath}/-/issues/1$`)) },
      labels: [],
      repository: { name: project.name },
    });
    expect(await statusAndBody(await api.post(`/projects/${project.id}/hooks/${hook.id}/test/nope`))).toEqual([400, { error: "trigger does not have a valid value" }]);
    expect(await statusAndBody(await api.post(`/projects/${project.id}/hooks/${hook.id}/test/push_events`))).toEqual([422, { message: "Ensure the project has at least 1 commit." }]);
    await allowLocal(w, false);
  });

  it("answers 422 with the receiver's body when it fails, and with the guard's reason when local requests are off", async () => {
    const { w, project, hook, api } = await hookedProject({}, "/status/500");
    await api.post(`/projects/${project.id}/issues`, { json: { title: "Sample" } });
    expect(await statusAndBody(await api.post(`/projects/${project.id}/hooks/${hook.id}/test/issues_events`))).toEqual([422, { message: "answered 500" }]);
    await allowLocal(w, false);
    expect(await statusAndBody(await api.post(`/projects/${project.id}/hooks/${hook.id}/test/issues_events`))).toEqual([
      422,
      { message: "URL is blocked: Requests to localhost are not allowed" },
    ]);
  });

  it("answers 403 for developers", async () => {
    const w = await world();
    const developer = await w.user();
    const project = await w.project({ developers: [developer] });
    expect(await statusAndBody(await w.as(developer).post(`/projects/${project.id}/hooks/1/test/push_events`))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("event deliveries through the edgeforge-webhooks queue", () => {
  it("delivers issue open and close events (with changes), notes and pushes with GitLab's payloads", async () => {
    const { w, owner, project, path, api } = await hookedProject({ issues_events: true, note_events: true, push_events: true });
    const created = (await (await api.post(`/projects/${project.id}/issues`, { json: { title: "Broken build" } })).json()) as { iid: number };
    await api.put(`/projects/${project.id}/issues/${created.iid}`, { json: { state_event: "close" } });
    await api.post(`/projects/${project.id}/issues/${created.iid}/notes`, { json: { body: "Looking into it" } });
    const commit = (await (
      await api.post(`/projects/${project.id}/repository/commits`, {
        json: { branch: "main", commit_message: "Add README", actions: [{ action: "create", file_path: "README.md", content: "hi\n" }] },
      })
    ).json()) as { id: string };

    const list = await waitFor(path, 4);
    const byEvent = (name: string) => list.filter((d) => d.headers["x-gitlab-event"] === name).map((d) => JSON.parse(d.body));
    const issueEvents = byEvent("Issue Hook");
    expect(issueEvents.map((e) => e.object_attributes.action).sort()).toEqual(["close", "open"]);
    const closed = issueEvents.find((e) => e.object_attributes.action === "close");
    expect(closed).toMatchObject({ object_kind: "issue", object_attributes: { state: "closed" }, changes: { state_id: { previous: 1, current: 2 } } });
    const [note] = byEvent("Note Hook");
    expect(note).toMatchObject({
      object_kind: "note",
      event_type: "note",
      project_id: project.id,
      object_attributes: { note: "Looking into it", noteable_type: "Issue" },
      issue: { iid: created.iid, title: "Broken build" },
    });
    const [push] = byEvent("Push Hook");
    expect(push).toMatchObject({
      object_kind: "push",
      event_name: "push",
      ref: "refs/heads/main",
      before: "0000000000000000000000000000000000000000",
      after: commit.id,
      checkout_sha: commit.id,
      user_id: owner.id,
      user_username: owner.username,
      project_id: project.id,
      total_commits_count: 1,
      commits: [{ id: commit.id, message: "Add README", title: "Add README", added: ["README.md"], modified: [], removed: [] }],
    });
    for (const d of list) expect(d.headers["x-gitlab-token"]).toBe("proj-token");
    await allowLocal(w, false);
  });

  it("sends nothing to hooks without the event's flag, and reaches group hooks of ancestor groups", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group });
    const groupPath = `/${unique("grp")}`;
    const quietPath = `/${unique("quiet")}`;
    await allowLocal(w, true);
    const api = w.as(owner);
    expect((await api.post(`/groups/${group.id}/hooks`, { json: { url: `${RECEIVER}${groupPath}`, merge_requests_events: true, push_events: false } })).status).toBe(201);
    expect((await api.post(`/projects/${project.id}/hooks`, { json: { url: `${RECEIVER}${quietPath}`, push_events: false } })).status).toBe(201);
    await api.post(`/projects/${project.id}/repository/commits`, {
      json: { branch: "main", commit_message: "Init", actions: [{ action: "create", file_path: "a.txt", content: "a\n" }] },
    });
    await api.post(`/projects/${project.id}/repository/branches`, { json: { branch: "feature", ref: "main" } });
    const mr = await api.post(`/projects/${project.id}/merge_requests`, { json: { source_branch: "feature", target_branch: "main", title: "Feature" } });
    expect(mr.status).toBe(201);
    const [delivery] = await waitFor(groupPath, 1);
    expect(delivery.headers["x-gitlab-event"]).toBe("Merge Request Hook");
    expect(JSON.parse(delivery.body)).toMatchObject({
      object_kind: "merge_request",
      object_attributes: { action: "open", title: "Feature", source_branch: "feature", target_branch: "main", state: "opened" },
    });
    expect(await received(quietPath)).toEqual([]);
    await allowLocal(w, false);
  });
});
