import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { subscriptions } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world, type TestUser, type World } from "../helpers/world";
import { issue, mergeRequest, type Json } from "../helpers/noteables";
import { createLabel } from "../helpers/api";

async function rowsOf(w: World, user: TestUser, type: string, id: number) {
  return w.db((db) =>
    db
      .select({ subscribed: subscriptions.subscribed, projectId: subscriptions.projectId })
      .from(subscriptions)
      .where(and(eq(subscriptions.userId, user.id), eq(subscriptions.subscribableType, type), eq(subscriptions.subscribableId, id))),
  );
}

describe("POST /projects/:id/issues/:issue_iid/subscribe and /unsubscribe", () => {
  it("subscribes and unsubscribes, 304 when nothing changes, and `subscribed` follows", async () => {
    const w = await world();
    const reader = await w.user();
    const project = await w.project({ visibility: "public", guests: [reader] });
    const i = await issue(w, project);
    const path = `/projects/${project.id}/issues/${i.iid}`;
    expect(((await (await w.as(reader).get(path)).json()) as Json).subscribed).toBe(false);
    const res = await w.as(reader).post(`${path}/subscribe`);
    expect(res.status).toBe(201);
    expect((await res.json()) as Json).toMatchObject({ id: i.id, iid: i.iid, subscribed: true });
    expect(await rowsOf(w, reader, "Issue", i.id)).toEqual([{ subscribed: true, projectId: project.id }]);
    expect(((await (await w.as(reader).get(path)).json()) as Json).subscribed).toBe(true);
    expect(await statusAndBody(await w.as(reader).post(`${path}/subscribe`))).toEqual([304, ""]);
    const off = await w.as(reader).post(`${path}/unsubscribe`);
    expect(off.status).toBe(201);
    expect(((await off.json()) as Json).subscribed).toBe(false);
    expect(await statusAndBody(await w.as(reader).post(`${path}/unsubscribe`))).toEqual([304, ""]);
    expect(await rowsOf(w, reader, "Issue", i.id)).toEqual([{ subscribed: false, projectId: project.id }]);
  });

  it("lets a participant unsubscribe (an explicit row wins over participation)", async () => {
    const w = await world();
    const author = await w.user();
    const project = await w.project({ developers: [author] });
    const i = await issue(w, project, { author });
    const path = `/projects/${project.id}/issues/${i.iid}`;
    expect(await statusAndBody(await w.as(author).post(`${path}/subscribe`))).toEqual([304, ""]);
    expect(((await (await w.as(author).post(`${path}/unsubscribe`)).json()) as Json).subscribed).toBe(false);
    expect(((await (await w.as(author).get(path)).json()) as Json).subscribed).toBe(false);
  });

  it("answers 404 for a missing or unreadable issue", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const secret = await issue(w, project, { confidential: true });
    expect(await statusAndBody(await w.as(w.stranger).post(`/projects/${project.id}/issues/${secret.iid}/subscribe`))).toEqual([
      404,
      { message: "404 Issue Not Found" },
    ]);
    expect(await statusAndBody(await w.as(w.stranger).post(`/projects/${project.id}/issues/999999/subscribe`))).toEqual([404, { message: "404 Issue Not Found" }]);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).post(`/projects/${project.id}/issues/1/subscribe`));
  requiresAuthentication((w) => w.anonymous.post(`/projects/1/issues/1/subscribe`));
});

describe("POST /projects/:id/merge_requests/:merge_request_iid/subscribe and /unsubscribe", () => {
  it("subscribes and unsubscribes, 304 when nothing changes", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const mr = await mergeRequest(w, project);
    const path = `/projects/${project.id}/merge_requests/${mr.iid}`;
    const res = await w.as(dev).post(`${path}/subscribe`);
    expect(res.status).toBe(201);
    expect((await res.json()) as Json).toMatchObject({ id: mr.id, iid: mr.iid, subscribed: true });
    expect(((await (await w.as(dev).get(path)).json()) as Json).subscribed).toBe(true);
    expect(await statusAndBody(await w.as(dev).post(`${path}/subscribe`))).toEqual([304, ""]);
    expect(((await (await w.as(dev).post(`${path}/unsubscribe`)).json()) as Json).subscribed).toBe(false);
    expect(await statusAndBody(await w.as(dev).post(`${path}/unsubscribe`))).toEqual([304, ""]);
  });

  // `find_merge_request_with_access(id, :update_merge_request)`: found, then authorized.
  it("answers 403 to a guest of a private project", async () => {
    const w = await world();
    const guest = await w.user();
    const project = await w.project({ guests: [guest] });
    const mr = await mergeRequest(w, project);
    expect(await statusAndBody(await w.as(guest).post(`/projects/${project.id}/merge_requests/${mr.iid}/subscribe`))).toEqual([403, { message: "403 Forbidden" }]);
  });

  requiresAuthentication((w) => w.anonymous.post(`/projects/1/merge_requests/1/subscribe`));
});

describe("POST /projects/:id/labels/:label_id/subscribe and /unsubscribe", () => {
  it("subscribes by id or title; the label's `subscribed` follows; 304 when nothing changes", async () => {
    const w = await world();
    const owner = await w.user();
    const guest = await w.user();
    const project = await w.project({ owner, guests: [guest] });
    const label = await createLabel(w, owner, project);
    const base = `/projects/${project.id}/labels`;
    expect(label.subscribed).toBe(false);
    const res = await w.as(guest).post(`${base}/${label.id}/subscribe`);
    expect(res.status).toBe(201);
    expect((await res.json()) as Json).toMatchObject({ id: label.id, name: label.name, subscribed: true });
    expect(((await (await w.as(guest).get(`${base}/${label.id}`)).json()) as Json).subscribed).toBe(true);
    const listed = ((await (await w.as(guest).get(base)).json()) as Json[]).find((l) => l.id === label.id);
    expect(listed?.subscribed).toBe(true);
    expect(((await (await w.as(owner).get(`${base}/${label.id}`)).json()) as Json).subscribed).toBe(false);
    expect(await statusAndBody(await w.as(guest).post(`${base}/${encodeURIComponent(label.name)}/subscribe`))).toEqual([304, ""]);
    expect(((await (await w.as(guest).post(`${base}/${label.id}/unsubscribe`)).json()) as Json).subscribed).toBe(false);
    expect(await statusAndBody(await w.as(guest).post(`${base}/${label.id}/unsubscribe`))).toEqual([304, ""]);
    expect(await statusAndBody(await w.as(guest).post(`${base}/nope-${label.id}/subscribe`))).toEqual([404, { message: "404 Label Not Found" }]);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).post(`/projects/${project.id}/labels/1/subscribe`));
  requiresAuthentication((w) => w.anonymous.post(`/projects/1/labels/1/subscribe`));
});
