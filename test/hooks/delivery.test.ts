import { env } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import type { Bindings } from "../../functions/kernel/env";
import { consumeWebhooks, type WebhookMessage } from "../../functions/shared/webhooks";
import { statusAndBody } from "../helpers/client";
import { unique, world } from "../helpers/world";
import { ciProject, claim, createPipeline, finish, projectRunner } from "../helpers/ci";
import { allowLocalHooks, received, RECEIVER, waitFor, type Received } from "../helpers/hooks";

// Deliveries reach the local receiver (test/helpers/hooks.ts).

afterAll(async () => allowLocalHooks(await world(), false));

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

async function hookedProject(events: Record<string, boolean>, suffix = "") {
  const w = await world();
  const owner = await w.user();
  const project = await w.project({ owner, visibility: "private" });
  const path = `/${unique("proj")}${suffix}`;
  await allowLocalHooks(w, true);
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
    await allowLocalHooks(w, false);
  });

  it("answers 422 with the receiver's body when it fails, and with the guard's reason when local requests are off", async () => {
    const { w, project, hook, api } = await hookedProject({}, "/status/500");
    await api.post(`/projects/${project.id}/issues`, { json: { title: "Sample" } });
    expect(await statusAndBody(await api.post(`/projects/${project.id}/hooks/${hook.id}/test/issues_events`))).toEqual([422, { message: "answered 500" }]);
    await allowLocalHooks(w, false);
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
    await allowLocalHooks(w, false);
  });

  it("sends Note Hook for notes made through /discussions (thread and reply) and on merge requests, snippets and commits", async () => {
    const { w, project, path, api } = await hookedProject({ note_events: true, push_events: false });
    const commit = (await (
      await api.post(`/projects/${project.id}/repository/commits`, {
        json: { branch: "main", commit_message: "Init", actions: [{ action: "create", file_path: "a.txt", content: "a\n" }] },
      })
    ).json()) as { id: string };
    await api.post(`/projects/${project.id}/repository/branches`, { json: { branch: "feature", ref: "main" } });
    const issue = (await (await api.post(`/projects/${project.id}/issues`, { json: { title: "Threads" } })).json()) as { iid: number };
    const thread = await api.post(`/projects/${project.id}/issues/${issue.iid}/discussions`, { json: { body: "A thread" } });
    expect(thread.status).toBe(201);
    const discussionId = ((await thread.json()) as { id: string }).id;
    expect((await api.post(`/projects/${project.id}/issues/${issue.iid}/discussions/${discussionId}/notes`, { json: { body: "A reply" } })).status).toBe(201);
    const mr = (await (await api.post(`/projects/${project.id}/merge_requests`, { json: { source_branch: "feature", target_branch: "main", title: "MR" } })).json()) as { iid: number };
    expect((await api.post(`/projects/${project.id}/merge_requests/${mr.iid}/discussions`, { json: { body: "On the MR" } })).status).toBe(201);
    const snippet = (await (await api.post(`/projects/${project.id}/snippets`, { json: { title: "Snip", file_name: "s.txt", content: "x", visibility: "private" } })).json()) as { id: number };
    expect((await api.post(`/projects/${project.id}/snippets/${snippet.id}/notes`, { json: { body: "On the snippet" } })).status).toBe(201);
    expect((await api.post(`/projects/${project.id}/repository/commits/${commit.id}/comments`, { json: { note: "On the commit" } })).status).toBe(201);
    expect((await api.post(`/projects/${project.id}/repository/commits/${commit.id}/discussions`, { json: { body: "A commit thread" } })).status).toBe(201);

    const list = await waitFor(path, 6);
    const notes = list.map((d) => JSON.parse(d.body));
    expect(list.every((d) => d.headers["x-gitlab-event"] === "Note Hook")).toBe(true);
    const by = (body: string) => notes.find((n) => n.object_attributes.note === body);
    expect(by("A thread")).toMatchObject({ object_kind: "note", object_attributes: { noteable_type: "Issue", type: "DiscussionNote", discussion_id: discussionId }, issue: { iid: issue.iid } });
    expect(by("A reply")).toMatchObject({ object_attributes: { noteable_type: "Issue", discussion_id: discussionId }, issue: { iid: issue.iid } });
    expect(by("On the MR")).toMatchObject({ object_attributes: { noteable_type: "MergeRequest" }, merge_request: { iid: mr.iid, title: "MR" } });
    expect(by("On the MR").object_attributes.url).toMatch(new RegExp(`/-/merge_requests/${mr.iid}#note_\\d+$`));
    expect(by("On the snippet")).toMatchObject({ object_attributes: { noteable_type: "Snippet", noteable_id: snippet.id }, snippet: { id: snippet.id, title: "Snip", type: "ProjectSnippet" } });
    expect(by("On the commit")).toMatchObject({ object_attributes: { noteable_type: "Commit", commit_id: commit.id, noteable_id: null }, commit: { id: commit.id, message: "Init" } });
    expect(by("On the commit").object_attributes.url).toMatch(new RegExp(`/-/commit/${commit.id}#note_\\d+$`));
    expect(by("A commit thread")).toMatchObject({ object_attributes: { noteable_type: "Commit" }, commit: { id: commit.id } });
    expect(notes).toHaveLength(6);
    await allowLocalHooks(w, false);
  });

  it("sends the Merge Request Hook with action merge when a merge request is merged", async () => {
    const { w, project, path, api } = await hookedProject({ merge_requests_events: true, push_events: false });
    await api.post(`/projects/${project.id}/repository/commits`, {
      json: { branch: "main", commit_message: "Init", actions: [{ action: "create", file_path: "a.txt", content: "a\n" }] },
    });
    await api.post(`/projects/${project.id}/repository/commits`, {
      json: { branch: "feature", start_branch: "main", commit_message: "Feature", actions: [{ action: "create", file_path: "b.txt", content: "b\n" }] },
    });
    const mr = (await (await api.post(`/projects/${project.id}/merge_requests`, { json: { source_branch: "feature", target_branch: "main", title: "Ship it" } })).json()) as { iid: number };
    await waitFor(path, 1);
    const merged = await api.put(`/projects/${project.id}/merge_requests/${mr.iid}/merge`);
    expect(merged.status).toBe(200);
    const list = await waitFor(path, 2);
    const actions = list.map((d) => JSON.parse(d.body).object_attributes);
    expect(actions.map((a) => a.action)).toEqual(["open", "merge"]);
    expect(actions[1]).toMatchObject({ iid: mr.iid, state: "merged", title: "Ship it" });
    await allowLocalHooks(w, false);
  });

  it("sends the Wiki Page Hook for wiki pages created, updated and deleted through the API, and nothing to hooks without wiki_page_events", async () => {
    const { w, owner, project, path, api } = await hookedProject({ wiki_page_events: true, push_events: true });
    const quiet = `/${unique("quiet")}`;
    expect((await api.post(`/projects/${project.id}/hooks`, { json: { url: `${RECEIVER}${quiet}`, push_events: true } })).status).toBe(201);
    const base = `/projects/${project.id}/wikis`;
    const { id: hookId } = (await (await api.get(`/projects/${project.id}/hooks`)).json() as { id: number; url: string }[]).find((h) => h.url.endsWith(path))!;
    const trigger = `/projects/${project.id}/hooks/${hookId}/test/wiki_page_events`;
    expect(await statusAndBody(await api.post(trigger))).toEqual([422, { message: "Ensure the wiki is enabled and has pages." }]);
    expect((await api.post(base, { json: { title: "Awesome", content: "awesome content" } })).status).toBe(201);
    expect((await api.put(`${base}/Awesome`, { json: { content: "more awesome" } })).status).toBe(200);
    expect((await api.delete(`${base}/Awesome`)).status).toBe(204);
    const list = await waitFor(path, 3);
    expect(list.map((d) => d.headers["x-gitlab-event"])).toEqual(["Wiki Page Hook", "Wiki Page Hook", "Wiki Page Hook"]);
    const payloads = list.map((d) => JSON.parse(d.body));
    const by = (action: string) => payloads.find((p) => p.object_attributes.action === action);
    const webUrl = by("create").project.web_url as string;
    expect(by("create")).toMatchObject({
      object_kind: "wiki_page",
      user: { id: owner.id, username: owner.username, name: owner.name },
      project: { id: project.id, path_with_namespace: project.fullPath },
      wiki: {
        web_url: `${webUrl}/-/wikis/home`,
        git_http_url: `${webUrl}.wiki.git`,
        path_with_namespace: `${project.fullPath}.wiki`,
        default_branch: "main",
      },
      object_attributes: {
        title: "Awesome",
        content: "awesome content",
        format: "markdown",
        message: `${owner.username} created page: Awesome`,
        slug: "Awesome",
        url: `${webUrl}/-/wikis/Awesome`,
        action: "create",
      },
    });
    expect(by("create").object_attributes.version_id).toMatch(/^[0-9a-f]{40}$/);
    expect(by("update").object_attributes).toMatchObject({ content: "more awesome", message: `${owner.username} updated page: Awesome` });
    // The deleted page as it was before its deletion.
    expect(by("delete").object_attributes).toMatchObject({ content: "more awesome", slug: "Awesome", action: "delete" });
    // No push hook: wiki commits are not pushes of the project.
    expect(await received(quiet)).toEqual([]);
    // The test trigger sends the wiki's first page as created (TestHooks::ProjectService#wiki_page_events_data).
    expect((await api.post(base, { json: { title: "Sample page", content: "s" } })).status).toBe(201);
    expect(await statusAndBody(await api.post(trigger))).toEqual([201, { message: "201 Created" }]);
    const samples = (await waitFor(path, 5)).map((d) => JSON.parse(d.body)).filter((p) => p.object_attributes.slug === "Sample-page");
    expect(samples.map((p) => [p.object_kind, p.object_attributes.action, p.object_attributes.content])).toEqual([["wiki_page", "create", "s"], ["wiki_page", "create", "s"]]);
    await allowLocalHooks(w, false);
  });

  it("sends the Issue Hook with action close for each issue a merge closes, besides the merge's own hook", async () => {
    const { w, project, path, api } = await hookedProject({ merge_requests_events: true, issues_events: true, push_events: false });
    await api.post(`/projects/${project.id}/repository/commits`, {
      json: { branch: "main", commit_message: "Init", actions: [{ action: "create", file_path: "a.txt", content: "a\n" }] },
    });
    await api.post(`/projects/${project.id}/repository/commits`, {
      json: { branch: "fix", start_branch: "main", commit_message: "Fix", actions: [{ action: "create", file_path: "b.txt", content: "b\n" }] },
    });
    const issue = (await (await api.post(`/projects/${project.id}/issues`, { json: { title: "Broken" } })).json()) as { iid: number; id: number };
    const kept = (await (await api.post(`/projects/${project.id}/issues`, { json: { title: "Unrelated" } })).json()) as { iid: number };
    const mr = (await (await api.post(`/projects/${project.id}/merge_requests`, {
      json: { source_branch: "fix", target_branch: "main", title: "Fix it", description: `Closes #${issue.iid}` },
    })).json()) as { iid: number };
    await waitFor(path, 3);
    expect((await api.put(`/projects/${project.id}/merge_requests/${mr.iid}/merge`)).status).toBe(200);
    const list = await waitFor(path, 5);
    const after = list.slice(3).map((d) => ({ event: d.headers["x-gitlab-event"], body: JSON.parse(d.body) }));
    // Sent in that order, but deliveries run concurrently, so they may arrive in either.
    expect(after.map((d) => `${d.event}:${d.body.object_attributes.action}`).sort()).toEqual(["Issue Hook:close", "Merge Request Hook:merge"]);
    expect(after.find((d) => d.event === "Issue Hook")!.body.object_attributes).toMatchObject({ iid: issue.iid, state: "closed" });
    expect(list.some((d) => JSON.parse(d.body).object_attributes.iid === kept.iid && JSON.parse(d.body).object_attributes.action === "close")).toBe(false);
    await allowLocalHooks(w, false);
  });

  it("sends a group wiki's Wiki Page Hook to the group hooks of the group and its ancestors with wiki_page_events, not to a subgroup's or a project's", async () => {
    const w = await world();
    const owner = await w.user();
    const parent = await w.group({ owners: [owner] });
    const group = await w.group({ parent, owners: [owner] });
    const child = await w.group({ parent: group, owners: [owner] });
    const project = await w.project({ group });
    const [parentPath, groupPath, childPath, quietPath, projectPath] = ["gwp", "gwg", "gwc", "gwq", "gwproj"].map((p) => `/${unique(p)}`);
    await allowLocalHooks(w, true);
    const api = w.as(owner);
    const hook = async (base: string, path: string, events: Record<string, boolean>) =>
      expect((await api.post(`${base}/hooks`, { json: { url: `${RECEIVER}${path}`, push_events: false, ...events } })).status).toBe(201);
    await hook(`/groups/${parent.id}`, parentPath, { wiki_page_events: true });
    await hook(`/groups/${group.id}`, groupPath, { wiki_page_events: true });
    await hook(`/groups/${child.id}`, childPath, { wiki_page_events: true });
    await hook(`/groups/${group.id}`, quietPath, { issues_events: true });
    await hook(`/projects/${project.id}`, projectPath, { wiki_page_events: true });
    const base = `/groups/${group.id}/wikis`;
    expect((await api.post(base, { json: { title: "Group page", content: "first" } })).status).toBe(201);
    expect((await api.put(`${base}/Group-page`, { json: { content: "second" } })).status).toBe(200);
    expect((await api.delete(`${base}/Group-page`)).status).toBe(204);
    const [atGroup, atParent] = [await waitFor(groupPath, 3), await waitFor(parentPath, 3)];
    expect(atGroup.map((d) => d.headers["x-gitlab-event"])).toEqual(["Wiki Page Hook", "Wiki Page Hook", "Wiki Page Hook"]);
    const payloads = atGroup.map((d) => JSON.parse(d.body));
    const by = (action: string) => payloads.find((p) => p.object_attributes.action === action);
    const groupUrl = by("create").group.web_url as string;
    expect(groupUrl).toMatch(new RegExp(`/groups/${group.fullPath}$`));
    const instance = groupUrl.slice(0, groupUrl.length - `/groups/${group.fullPath}`.length);
    expect(by("create")).toEqual({
      object_kind: "wiki_page",
      user: expect.objectContaining({ id: owner.id, username: owner.username }),
      group: { group_id: group.id, group_name: expect.any(String), group_path: group.fullPath.split("/").pop(), full_path: group.fullPath, web_url: groupUrl },
      wiki: {
        web_url: `${groupUrl}/-/wikis/home`,
        git_ssh_url: expect.stringMatching(new RegExp(`^git@[^:]+:${group.fullPath}\\.wiki\\.git$`)),
        git_http_url: `${instance}/${group.fullPath}.wiki.git`,
        path_with_namespace: `${group.fullPath}.wiki`,
        default_branch: "main",
      },
      object_attributes: {
        title: "Group page",
        content: "first",
        format: "markdown",
        message: `${owner.username} created page: Group page`,
        slug: "Group-page",
        url: `${groupUrl}/-/wikis/Group-page`,
        action: "create",
        version_id: expect.stringMatching(/^[0-9a-f]{40}$/),
      },
    });
    expect(by("update").object_attributes).toMatchObject({ content: "second", action: "update" });
    expect(by("delete").object_attributes).toMatchObject({ content: "second", action: "delete" });
    expect(atParent.map((d) => JSON.parse(d.body).object_attributes.action).sort()).toEqual(["create", "delete", "update"]);
    // A descendant's hooks, hooks without the flag and the group's projects' hooks hear nothing.
    for (const path of [childPath, quietPath, projectPath]) expect(await received(path)).toEqual([]);
    await allowLocalHooks(w, false);
  });

  it("sends the Subgroup Hook of a subgroup created or deleted to the hooks of its parent and the parent's ancestors with subgroup_events", async () => {
    const w = await world();
    const owner = await w.user();
    const top = await w.group({ owners: [owner] });
    const parent = await w.group({ parent: top, owners: [owner] });
    const [topPath, parentPath, quietPath] = ["sgt", "sgp", "sgq"].map((p) => `/${unique(p)}`);
    await allowLocalHooks(w, true);
    const api = w.as(owner);
    const hook = async (group: { id: number }, path: string, events: Record<string, boolean>) =>
      expect((await api.post(`/groups/${group.id}/hooks`, { json: { url: `${RECEIVER}${path}`, push_events: false, ...events } })).status).toBe(201);
    await hook(top, topPath, { subgroup_events: true });
    await hook(parent, parentPath, { subgroup_events: true });
    await hook(parent, quietPath, { wiki_page_events: true });
    const path = unique("sub");
    const created = await api.post(`/groups`, { json: { name: "Sub group", path, parent_id: parent.id } });
    expect(created.status).toBe(201);
    const sub = (await created.json()) as { id: number; full_path: string; created_at: string };
    // A top-level group is nobody's subgroup: no event.
    expect((await api.post(`/groups`, { json: { name: "Top two", path: unique("top") } })).status).toBe(201);
    expect((await api.delete(`/groups/${sub.id}`)).status).toBe(202);
    const [atParent, atTop] = [await waitFor(parentPath, 2), await waitFor(topPath, 2)];
    expect(atParent.map((d) => d.headers["x-gitlab-event"])).toEqual(["Subgroup Hook", "Subgroup Hook"]);
    const payloads = atParent.map((d) => JSON.parse(d.body));
    const createdEvent = payloads.find((p) => p.event_name === "subgroup_create");
    expect(createdEvent).toEqual({
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      event_name: "subgroup_create",
      name: "Sub group",
      path,
      full_path: `${parent.fullPath}/${path}`,
      group_id: sub.id,
      parent_group_id: parent.id,
      parent_name: expect.any(String),
      parent_path: parent.fullPath.split("/").pop(),
      parent_full_path: parent.fullPath,
    });
    expect(createdEvent.created_at.slice(0, 19)).toBe(sub.created_at.slice(0, 19));
    expect(payloads.find((p) => p.event_name === "subgroup_destroy")).toMatchObject({ group_id: sub.id, full_path: sub.full_path, parent_group_id: parent.id });
    expect(atTop.map((d) => JSON.parse(d.body).event_name).sort()).toEqual(["subgroup_create", "subgroup_destroy"]);
    expect(await received(quietPath)).toEqual([]);
    await allowLocalHooks(w, false);
  });

  it("sends nothing to hooks without the event's flag, and reaches group hooks of ancestor groups", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group });
    const groupPath = `/${unique("grp")}`;
    const quietPath = `/${unique("quiet")}`;
    await allowLocalHooks(w, true);
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
    await allowLocalHooks(w, false);
  });
});

describe("pipeline events (Pipeline Hook)", () => {
  it("sends one hook per status transition, pending → running → success, with GitLab's payload; the test endpoint sends the newest pipeline", async () => {
    const w = await world();
    const { owner, project, api, sha } = await ciProject(w, "stages: [test]\nunit:\n  stage: test\n  script: [echo ok]\n");
    const path = `/${unique("pipe")}`;
    await allowLocalHooks(w, true);
    const res = await api.post(`/projects/${project.id}/hooks`, { json: { url: `${RECEIVER}${path}`, token: "pipe-token", push_events: false, pipeline_events: true } });
    expect(res.status).toBe(201);
    const hook = (await res.json()) as { id: number };
    expect(await statusAndBody(await api.post(`/projects/${project.id}/hooks/${hook.id}/test/pipeline_events`))).toEqual([422, { message: "Ensure the project has CI pipelines." }]);

    const runner = await projectRunner(api, project.id);
    const pipeline = await createPipeline(api, project.id, "main", [{ key: "DEPLOY", value: "no" }]);
    // One transition at a time, so the order of arrival is the order of the transitions.
    await waitFor(path, 1);
    const job = await claim(runner.token);
    await waitFor(path, 2);
    expect((await finish(job, "success")).status).toBe(200);
    const list = await waitFor(path, 3);
    expect(list.map((d) => d.headers["x-gitlab-event"])).toEqual(["Pipeline Hook", "Pipeline Hook", "Pipeline Hook"]);
    for (const d of list) expect(d.headers["x-gitlab-token"]).toBe("pipe-token");
    const payloads = list.map((d) => JSON.parse(d.body));
    expect(payloads.map((p) => [p.object_attributes.status, p.object_attributes.detailed_status])).toEqual([
      ["pending", "pending"],
      ["running", "running"],
      ["success", "passed"],
    ]);
    const done = payloads[2];
    expect(done).toMatchObject({
      object_kind: "pipeline",
      object_attributes: { id: pipeline.id, iid: pipeline.iid, ref: "main", tag: false, sha, source: "api", stages: ["test"], variables: [{ key: "DEPLOY", value: "no" }] },
      merge_request: null,
      user: { id: owner.id, username: owner.username },
      project: { id: project.id, path_with_namespace: project.fullPath },
      commit: { id: sha, title: "Add CI [skip ci]" },
      builds: [{ id: job.id, stage: "test", name: "unit", status: "success", when: "on_success", manual: false, allow_failure: false, runner: { id: runner.id, runner_type: "project_type", is_shared: false } }],
    });
    expect(done.object_attributes.finished_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(payloads[0].object_attributes.finished_at).toBeNull();

    expect(await statusAndBody(await api.post(`/projects/${project.id}/hooks/${hook.id}/test/pipeline_events`))).toEqual([201, { message: "201 Created" }]);
    const sample = (await waitFor(path, 4))[3];
    expect(sample.headers["x-gitlab-event"]).toBe("Pipeline Hook");
    expect(JSON.parse(sample.body).object_attributes).toMatchObject({ id: pipeline.id, status: "success" });
    await allowLocalHooks(w, false);
  });
});

describe("job events (Job Hook)", () => {
  it("sends one hook per job status change from every writer (creation, processing, claim, finish, play, cancel, retry) with GitLab's payload; the test endpoint sends the newest job", async () => {
    const w = await world();
    const yaml = "stages: [build, test]\ncompile:\n  stage: build\n  script: [echo ok]\nship:\n  stage: test\n  when: manual\n  script: [echo ship]\n";
    const { owner, project, api, sha } = await ciProject(w, yaml);
    const path = `/${unique("job")}`;
    await allowLocalHooks(w, true);
    const res = await api.post(`/projects/${project.id}/hooks`, { json: { url: `${RECEIVER}${path}`, token: "job-token", push_events: false, job_events: true } });
    expect(res.status).toBe(201);
    const hook = (await res.json()) as { id: number };
    expect(await statusAndBody(await api.post(`/projects/${project.id}/hooks/${hook.id}/test/job_events`))).toEqual([422, { message: "Ensure the project has CI jobs." }]);

    const runner = await projectRunner(api, project.id);
    const pipeline = await createPipeline(api, project.id);
    type Job = { id: number; name: string; status: string };
    const jobs = (await (await api.get(`/projects/${project.id}/pipelines/${pipeline.id}/jobs`)).json()) as Job[];
    const compile = jobs.find((j) => j.name === "compile")!;
    const ship = jobs.find((j) => j.name === "ship")!;
    // Each step's events are enqueued together and may arrive in any order: compared as sets, step by step.
    const seen = (list: Received[]) => list.map((d) => JSON.parse(d.body) as Record<string, unknown>).map((p) => `${p.build_name}#${p.build_id}:${p.build_status}`);
    let count = 0;
    async function step(expected: string[]) {
      count += expected.length;
      const list = await waitFor(path, count);
      expect(seen(list.slice(count - expected.length)).sort()).toEqual([...expected].sort());
      return list;
    }
    // Creation (both jobs), and compile enqueued by the first processing run; `ship` waits in `created`.
    await step([`compile#${compile.id}:created`, `compile#${compile.id}:pending`, `ship#${ship.id}:created`]);
    const claimed = await claim(runner.token);
    expect(claimed.id).toBe(compile.id);
    await step([`compile#${compile.id}:running`]);
    expect((await finish(claimed, "success")).status).toBe(200);
    // `ship` becomes manual: GitLab's build hooks do not report that move.
    await step([`compile#${compile.id}:success`]);
    expect((await api.post(`/projects/${project.id}/jobs/${ship.id}/play`)).status).toBe(200);
    await step([`ship#${ship.id}:pending`]);
    expect((await api.post(`/projects/${project.id}/jobs/${ship.id}/cancel`)).status).toBe(201);
    await step([`ship#${ship.id}:canceled`]);
    const retried = (await (await api.post(`/projects/${project.id}/jobs/${ship.id}/retry`)).json()) as Job;
    const list = await step([`ship#${retried.id}:created`]);

    const all = list.map((d) => ({ headers: d.headers, payload: JSON.parse(d.body) as Record<string, unknown> }));
    for (const d of all) expect([d.headers["x-gitlab-event"], d.headers["x-gitlab-token"]]).toEqual(["Job Hook", "job-token"]);
    const done = all.find((d) => d.payload.build_id === compile.id && d.payload.build_status === "success")!.payload;
    expect(done).toMatchObject({
      object_kind: "build",
      ref: "main",
      tag: false,
      before_sha: "0000000000000000000000000000000000000000",
      sha,
      build_id: compile.id,
      build_name: "compile",
      build_stage: "build",
      build_status: "success",
      build_allow_failure: false,
      build_failure_reason: null,
      pipeline_id: pipeline.id,
      runner: { id: runner.id, description: "test runner", runner_type: "project_type", active: true, is_shared: false, tags: [] },
      project_id: project.id,
      user: { id: owner.id, username: owner.username },
      commit: { id: pipeline.id, sha, message: "Add CI [skip ci]", author_url: expect.stringMatching(new RegExp(`^https?://[^/]+/${owner.username}$`)) },
      repository: { name: project.name, homepage: expect.stringMatching(new RegExp(`/${project.fullPath}$`)), git_http_url: expect.stringMatching(new RegExp(`/${project.fullPath}\\.git$`)) },
      environment: null,
    });
    expect(done.build_created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(done.build_finished_at).toMatch(/Z$/);
    expect(typeof done.build_duration).toBe("number");
    expect(typeof done.build_queued_duration).toBe("number");

    expect(await statusAndBody(await api.post(`/projects/${project.id}/hooks/${hook.id}/test/job_events`))).toEqual([201, { message: "201 Created" }]);
    const sample = (await waitFor(path, count + 1))[count];
    expect(sample.headers["x-gitlab-event"]).toBe("Job Hook");
    expect(JSON.parse(sample.body)).toMatchObject({ object_kind: "build", build_id: retried.id, build_name: "ship", build_status: "manual" });
    await allowLocalHooks(w, false);
  });

  it("sends nothing to hooks without job_events", async () => {
    const w = await world();
    const { project, api } = await ciProject(w, "unit:\n  script: [echo ok]\n");
    const path = `/${unique("nojob")}`;
    await allowLocalHooks(w, true);
    expect((await api.post(`/projects/${project.id}/hooks`, { json: { url: `${RECEIVER}${path}`, push_events: false, pipeline_events: true } })).status).toBe(201);
    const runner = await projectRunner(api, project.id);
    await createPipeline(api, project.id);
    expect((await finish(await claim(runner.token), "success")).status).toBe(200);
    // The job's four changes were enqueued before the pipeline's success.
    const list = await waitFor(path, 3);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await received(path)).map((d) => d.headers["x-gitlab-event"])).toEqual(["Pipeline Hook", "Pipeline Hook", "Pipeline Hook"]);
    expect(list).toHaveLength(3);
    await allowLocalHooks(w, false);
  });
});

// Chat integrations (functions/shared/webhooks/chat.ts) post GitLab's notifications through the same
// queue and guard. They are tested here because they toggle the same instance setting as the hooks above.
const slackPayload = (r: Received) => JSON.parse(new URLSearchParams(r.body).get("payload")!);

async function chatProject() {
  const w = await world();
  const owner = await w.user({ name: "Ada Lovelace" });
  const project = await w.project({ owner });
  const api = w.as(owner);
  const info = (await (await api.get(`/projects/${project.id}`)).json()) as { name_with_namespace: string; web_url: string };
  return { w, owner, project, api, info };
}

/** Puts integration `slug` with a webhook at a fresh receiver path; returns the path. */
async function integrate(api: ReturnType<Awaited<ReturnType<typeof world>>["as"]>, projectId: number, slug: string, extra: Record<string, unknown> = {}) {
  const path = `/${unique(slug)}`;
  const res = await api.put(`/projects/${projectId}/integrations/${slug}`, { json: { webhook: `${RECEIVER}${path}`, ...extra } });
  expect(res.status).toBe(200);
  return path;
}

describe("chat integrations: saving a webhook", () => {
  it("refuses a local webhook (400) unless local requests are allowed; secrets stay hidden", async () => {
    const { w, api, project } = await chatProject();
    await allowLocalHooks(w, false);
    expect(await statusAndBody(await api.put(`/projects/${project.id}/integrations/slack`, { json: { webhook: `${RECEIVER}/slack` } }))).toEqual([
      400,
      { message: "400 Bad Request" },
    ]);
    expect(await statusAndBody(await api.put(`/projects/${project.id}/services/discord`, { json: { webhook: "http://169.254.169.254/latest" } }))).toEqual([
      400,
      { message: "400 Bad Request" },
    ]);
    expect(await statusAndBody(await api.put(`/projects/${project.id}/integrations/mattermost`, { json: { username: "bot" } }))).toEqual([400, { error: "webhook is missing" }]);
    await allowLocalHooks(w, true);
    const res = await api.put(`/projects/${project.id}/integrations/slack`, { json: { webhook: `${RECEIVER}/slack`, channel: "#dev", labels_to_be_notified_behavior: "match_all" } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ slug: "slack", title: "Slack notifications", active: true, properties: { channel: "#dev", labels_to_be_notified_behavior: "match_all" } });
    expect(JSON.stringify(body)).not.toContain(RECEIVER);
    expect((await api.put(`/projects/${project.id}/integrations/slack`, { json: { webhook: "https://hooks.slack.com/x", labels_to_be_notified_behavior: "any" } })).status).toBe(400);
  });
});

describe("chat integrations: notifications through the webhook queue", () => {
  it("posts issue, merge request, note and push messages in each service's format", async () => {
    const { w, owner, project, api, info } = await chatProject();
    await allowLocalHooks(w, true);
    const slack = await integrate(api, project.id, "slack", { channel: "#dev, #ops", username: "forge" });
    const mattermost = await integrate(api, project.id, "mattermost", { issues_events: false });
    const discord = await integrate(api, project.id, "rtc-chat-a");
    const teams = await integrate(api, project.id, "microsoft-teams");
    const google = await integrate(api, project.id, "hangouts-chat", { branches_to_be_notified: "all" });

    const issue = (await (await api.post(`/projects/${project.id}/issues`, { json: { title: "Broken [build]", description: "It fails" } })).json()) as { iid: number; web_url: string };
    const who = `Ada Lovelace (${owner.username})`;
    const projectLink = `<${info.web_url}|${info.name_with_namespace}>`;

    // Slack: one form-encoded `payload` per channel, the message in Slack's link syntax.
    const slackIssue = (await waitFor(slack, 2)).map(slackPayload);
    expect(slackIssue.map((p) => p.channel).sort()).toEqual(["#dev", "#ops"]);
    expect(slackIssue[0]).toEqual({
      channel: slackIssue[0].channel,
      username: "forge",
      text: `[${projectLink}] Issue <${issue.web_url}|#${issue.iid} Broken build> opened by ${who}`,
      attachments: [{ title: `#${issue.iid} Broken build`, title_link: issue.web_url, text: "It fails", color: "#C95823" }],
      fallback: `[${projectLink}] Issue <${issue.web_url}|#${issue.iid} Broken build> opened by ${who}`,
    });
    expect((await received(slack))[0].headers["content-type"]).toBe("application/x-www-form-urlencoded");

    // Discord: one embed, Markdown links, the user as author.
    const [discordIssue] = await waitFor(discord, 1);
    expect(discordIssue.headers["content-type"]).toBe("application/json");
    const embed = JSON.parse(discordIssue.body).embeds[0];
    expect(embed).toMatchObject({
      description: `[[${info.name_with_namespace}](${info.web_url})] Issue [#${issue.iid} Broken build](${issue.web_url}) opened by ${who}\nIt fails`,
      color: 16543014,
      author: { name: owner.username },
    });

    // Microsoft Teams: a MessageCard with the activity and the description as details.
    const [teamsIssue] = await waitFor(teams, 1);
    expect(JSON.parse(teamsIssue.body)).toEqual({
      sections: [
        {
          activityTitle: `Issue opened by ${who}`,
          activitySubtitle: `in [${info.name_with_namespace}](${info.web_url})`,
          activityText: `[#${issue.iid} Broken build](${issue.web_url})`,
          activityImage: expect.any(String),
        },
        { title: "Details", facts: [{ name: "Attachments", value: "It fails" }] },
      ],
      title: info.name_with_namespace,
      summary: `[[${info.name_with_namespace}](${info.web_url})] Issue [#${issue.iid} Broken build](${issue.web_url}) opened by ${who}`,
    });

    // Google Chat: the header, the linked title, the description.
    const [googleIssue] = await waitFor(google, 1);
    expect(JSON.parse(googleIssue.body)).toEqual({
      text: `[${projectLink}] Issue <${issue.web_url}|#${issue.iid} Broken build> opened by ${who}\n<${issue.web_url}|#${issue.iid} Broken build>\nIt fails`,
    });

    // A note, then a push to the default branch and one to another branch.
    await api.post(`/projects/${project.id}/issues/${issue.iid}/notes`, { json: { body: "On it" } });
    const commit = (await (
      await api.post(`/projects/${project.id}/repository/commits`, {
        json: { branch: "main", commit_message: "Add README", actions: [{ action: "create", file_path: "README.md", content: "hi\n" }] },
      })
    ).json()) as { id: string; web_url: string };
    await api.post(`/projects/${project.id}/repository/commits`, {
      json: { branch: "topic", start_branch: "main", commit_message: "Topic work", actions: [{ action: "create", file_path: "t.txt", content: "t\n" }] },
    });

    // Mattermost has issue events off: the note first, then the push to main (not `topic`: default branch only).
    const mm = (await waitFor(mattermost, 2)).map(slackPayload);
    const mmNote = mm.find((p) => p.text.includes("commented on"));
    expect(mmNote).toMatchObject({
      text: expect.stringMatching(new RegExp(`^${escape(who)} <${escape(issue.web_url)}#note_\\d+\\|commented on issue #${issue.iid}> in ${escape(projectLink)}: \\*Broken \\[build\\]\\*$`)),
      attachments: [{ text: "On it", color: "#334455" }],
    });
    expect(mm.find((p) => p.text.includes("pushed"))).toEqual({
      text: `Ada Lovelace pushed new branch <${info.web_url}/-/commits/main|main> to ${projectLink}`,
      attachments: [],
      fallback: `Ada Lovelace pushed new branch <${info.web_url}/-/commits/main|main> to ${projectLink}`,
    });
    // Google Chat notifies every branch (`branches_to_be_notified: all`): issue, note, main, topic.
    const googleAll = (await waitFor(google, 4)).map((r) => JSON.parse(r.body).text as string);
    expect(googleAll.filter((t) => t.includes("pushed new branch")).length).toBe(2);
    expect(commit.id).toMatch(/^[0-9a-f]{40}$/);

    // A merge request opened: no attachments; an update sends nothing.
    const mr = (await (await api.post(`/projects/${project.id}/merge_requests`, { json: { source_branch: "topic", target_branch: "main", title: "Topic" } })).json()) as {
      iid: number;
    };
    await api.put(`/projects/${project.id}/merge_requests/${mr.iid}`, { json: { description: "edited" } });
    const teamsAll = (await waitFor(teams, 4)).map((r) => JSON.parse(r.body));
    const mrCard = teamsAll.find((b) => String(b.summary).includes("merge request"));
    expect(mrCard).toEqual({
      sections: [
        {
          activityTitle: `Merge request opened by ${who}`,
          activitySubtitle: `in [${info.name_with_namespace}](${info.web_url})`,
          activityText: `[!${mr.iid} *Topic*](${info.web_url}/-/merge_requests/${mr.iid})`,
          activityImage: expect.any(String),
        },
      ],
      title: info.name_with_namespace,
      summary: `${who} opened merge request [!${mr.iid} *Topic*](${info.web_url}/-/merge_requests/${mr.iid}) in [${info.name_with_namespace}](${info.web_url})`,
    });
    await allowLocalHooks(w, false);
  });
});

function escape(s: string) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** One queue batch for the consumer, recording what it acked and retried. */
function batchOf(body: WebhookMessage) {
  const outcome: string[] = [];
  const message = { id: "m1", timestamp: new Date(), body, attempts: 1, ack: () => outcome.push("ack"), retry: () => outcome.push("retry") };
  const batch = { queue: "edgeforge-webhooks", messages: [message], metadata: {}, ackAll: () => outcome.push("ack"), retryAll: () => outcome.push("retry") };
  return { batch: batch as unknown as MessageBatch<WebhookMessage>, outcome };
}

describe("chat integrations: pipeline messages", () => {
  it("posts ChatMessage::PipelineMessage for failed and successful pipelines only; notify_only_broken_pipelines and the branch choice filter", async () => {
    const w = await world();
    const { owner, project, api, sha } = await ciProject(w, "stages: [test]\nunit:\n  stage: test\n  script: [echo ok]\nlint:\n  stage: test\n  script: [echo lint]\n");
    await allowLocalHooks(w, true);
    const quiet = { push_events: false, issues_events: false, merge_requests_events: false, note_events: false, tag_push_events: false };
    const slack = await integrate(api, project.id, "slack", { ...quiet, pipeline_channel: "#ci" });
    const broken = await integrate(api, project.id, "mattermost", { ...quiet, notify_only_broken_pipelines: true });
    const teams = await integrate(api, project.id, "microsoft-teams", { ...quiet });
    const otherBranch = await integrate(api, project.id, "hangouts-chat", { ...quiet, branches_to_be_notified: "protected", pipeline_events: true });
    // `main` was protected by its first push: with the protection gone, "protected" leaves it out.
    expect((await api.delete(`/projects/${project.id}/protected_branches/main`)).status).toBe(204);
    const shown = (await (await api.get(`/projects/${project.id}`)).json()) as { name: string; path_with_namespace: string; name_with_namespace: string };
    const me = (await (await api.get(`/user`)).json()) as { name: string; username: string };
    const runner = await projectRunner(api, project.id);

    async function run(outcomes: Record<string, "success" | "failed">) {
      const pipeline = await createPipeline(api, project.id);
      const ids: Record<string, number> = {};
      for (let i = 0; i < Object.keys(outcomes).length; i++) {
        const job = await claim(runner.token);
        ids[job.job_info.name] = job.id;
        expect((await finish(job, outcomes[job.job_info.name], outcomes[job.job_info.name] === "failed" ? { failure_reason: "script_failure" } : {})).status).toBe(200);
      }
      return { pipeline, ids };
    }

    const failed = await run({ unit: "success", lint: "failed" });
    const [slackFailed] = (await waitFor(slack, 1)).map(slackPayload);
    // Pipeline events come from the pipeline's coordinator, which links with the instance's EXTERNAL_URL.
    const info = { ...shown, web_url: `${new URL(slackFailed.attachments[0].title_link).origin}/${shown.path_with_namespace}` };
    const who = `${me.name} (${me.username})`;
    const failures = `${info.web_url}/-/pipelines/${failed.pipeline.id}/failures`;
    const message = `<${info.web_url}|${info.name}>: Pipeline <${failures}|#${failed.pipeline.id}> of branch <${info.web_url}/-/commits/main|main> by ${who} has failed in 00:00`;
    expect(slackFailed).toEqual({
      channel: "#ci",
      text: "",
      fallback: message,
      attachments: [
        {
          fallback: message,
          color: "danger",
          author_name: who,
          author_icon: expect.any(String),
          author_link: null,
          title: `Pipeline #${failed.pipeline.id} has failed in 00:00`,
          title_link: failures,
          fields: [
            { title: "Branch", value: `<${info.web_url}/-/commits/main|main>`, short: true },
            // The commit title loses the characters of links (SlackMarkdownSanitizer).
            { title: "Commit", value: `<${info.web_url}/-/commit/${sha}|Add CI skip ci>`, short: true },
            { title: "Failed stage", value: `<${failures}|test>`, short: true },
            { title: "Failed job", value: `<${info.web_url}/-/jobs/${failed.ids.lint}|lint>`, short: true },
          ],
          footer: info.name,
          footer_icon: null,
          ts: expect.any(Number),
        },
      ],
    });
    expect(slackPayload((await waitFor(broken, 1))[0]).attachments[0].title).toBe(`Pipeline #${failed.pipeline.id} has failed in 00:00`);
    const [teamsFailed] = await waitFor(teams, 1);
    const markdown = `[${info.name}](${info.web_url}): Pipeline [#${failed.pipeline.id}](${failures}) of branch [main](${info.web_url}/-/commits/main) by ${who} has failed in 00:00`;
    expect(JSON.parse(teamsFailed.body)).toEqual({
      sections: [
        {
          activityTitle: `Pipeline [#${failed.pipeline.id}](${failures}) of branch [main](${info.web_url}/-/commits/main) by ${who} has failed`,
          activitySubtitle: `in [${info.name}](${info.web_url})`,
          activityText: "in 00:00",
          activityImage: expect.any(String),
        },
        { title: "Details", facts: [{ name: "Attachments", value: markdown }] },
      ],
      title: info.name_with_namespace,
      summary: markdown,
    });

    const passed = await run({ unit: "success", lint: "success" });
    const slackPassed = slackPayload((await waitFor(slack, 2))[1]);
    expect(slackPassed.attachments[0]).toMatchObject({ color: "good", title: `Pipeline #${passed.pipeline.id} has passed in 00:00`, title_link: `${info.web_url}/-/pipelines/${passed.pipeline.id}` });
    expect(slackPassed.attachments[0].fields.map((f: { title: string }) => f.title)).toEqual(["Branch", "Commit"]);
    await waitFor(teams, 2);
    // Only broken pipelines for mattermost; `main` is not protected here, so Google Chat heard nothing.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await received(broken)).toHaveLength(1);
    expect(await received(otherBranch)).toHaveLength(0);
    expect(await received(slack)).toHaveLength(2);
    await allowLocalHooks(w, false);
  });
});

describe("chat integrations: the delivery guard", () => {
  it("drops a queued notification to a local webhook once local requests are off (acked, never sent), sends it while on", async () => {
    const { w, api, project } = await chatProject();
    await allowLocalHooks(w, true);
    const path = await integrate(api, project.id, "slack");
    const integration = (await (await api.get(`/projects/${project.id}/integrations/slack`)).json()) as { id: number };
    const message: WebhookMessage = { type: "chat", baseUrl: "http://edgeforge.test", integrationId: integration.id, contentType: "application/x-www-form-urlencoded", body: "payload=%7B%7D" };

    await allowLocalHooks(w, false);
    const refused = batchOf(message);
    await consumeWebhooks(refused.batch, env as unknown as Bindings);
    expect(refused.outcome).toEqual(["ack"]);
    expect(await received(path)).toEqual([]);

    await allowLocalHooks(w, true);
    const sent = batchOf(message);
    await consumeWebhooks(sent.batch, env as unknown as Bindings);
    expect(sent.outcome).toEqual(["ack"]);
    const [delivery] = await received(path);
    expect(delivery).toMatchObject({ method: "POST", body: "payload=%7B%7D", headers: { "content-type": "application/x-www-form-urlencoded" } });

    // A receiver's 5xx is retried; a deactivated integration sends nothing.
    const failing = await integrate(api, project.id, "hangouts-chat", { webhook: `${RECEIVER}/${unique("g")}/status/503` });
    const google = (await (await api.get(`/projects/${project.id}/integrations/hangouts-chat`)).json()) as { id: number };
    const retried = batchOf({ ...message, integrationId: google.id, contentType: "application/json", body: "{}" });
    await consumeWebhooks(retried.batch, env as unknown as Bindings);
    expect(retried.outcome).toEqual(["retry"]);
    expect(failing).toBeTruthy();
    expect((await api.delete(`/projects/${project.id}/integrations/slack`)).status).toBe(204);
    const gone = batchOf(message);
    await consumeWebhooks(gone.batch, env as unknown as Bindings);
    expect(gone.outcome).toEqual(["ack"]);
    expect((await received(path)).length).toBe(1);
    await allowLocalHooks(w, false);
  });
});
