import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { labelLinks, labels, resourceLabelEvents, subscriptions } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { createIssue, createLabel, type Json } from "../helpers/api";

const names = async (res: Response) => ((await res.json()) as Json[]).map((l) => l.name);

async function groupLabel(w: Awaited<ReturnType<typeof world>>, groupId: number, title: string) {
  return w.db(async (db) => (await db.insert(labels).values({ groupId, title, color: "#000000" }).returning())[0]);
}

describe("GET /groups/:id/labels", () => {
  requiresAuthentication((w) => w.anonymous.get("/groups/1/labels"));

  it("lists the group's labels with its ancestors', descendants' and projects' on request", async () => {
    const w = await world();
    const guest = await w.user();
    const root = await w.group({ guests: [guest] });
    const group = await w.group({ parent: root });
    const sub = await w.group({ parent: group });
    const project = await w.project({ group });
    await groupLabel(w, root.id, "from-root");
    await groupLabel(w, group.id, "own");
    await groupLabel(w, sub.id, "from-sub");
    await w.db((db) => db.insert(labels).values({ projectId: project.id, title: "from-project", color: "#FFFFFF" }));
    const list = (query: Json) => w.as(guest).get(`/groups/${group.id}/labels`, { query });
    const res = await list({});
    expect(await names(res)).toEqual(["from-root", "own"]);
    expect(res.headers.get("x-total")).toBe("2");
    expect(await names(await list({ include_ancestor_groups: false }))).toEqual(["own"]);
    expect(await names(await list({ include_descendant_groups: true }))).toEqual(["from-root", "from-sub", "own"]);
    expect(await names(await list({ only_group_labels: false }))).toEqual(["from-project", "from-root", "own"]);
    expect(await names(await list({ search: "roo" }))).toEqual(["from-root"]);
    const page = await list({ per_page: 1, page: 2 });
    expect(await names(page)).toEqual(["own"]);
  });

  it("shows the GroupLabel entity, with counts on request", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group });
    const label = await groupLabel(w, group.id, "bug");
    await createIssue(w, owner, project, { labels: "bug" });
    const body = (await (await w.as(owner).get(`/groups/${group.id}/labels`, { query: { with_counts: true } })).json()) as Json[];
    expect(body).toEqual([
      {
        id: label.id,
        name: "bug",
        color: "#000000",
        description: null,
        description_html: null,
        text_color: "#FFFFFF",
        remove_on_close: false,
        open_issues_count: 1,
        closed_issues_count: 0,
        open_merge_requests_count: 0,
        subscribed: false,
      },
    ]);
  });

  it("hides a private group's labels from strangers (404) and answers 400 for bad parameters", async () => {
    const w = await world();
    const group = await w.group();
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${group.id}/labels`))).toEqual([404, { message: "404 Group Not Found" }]);
    expect(await statusAndBody(await w.root.get(`/groups/${group.id}/labels`, { query: { only_group_labels: "maybe" } }))).toEqual([
      400,
      { error: "only_group_labels is invalid" },
    ]);
  });
});

describe("GET /groups/:id/labels/:name", () => {
  it("finds a label by id or title, 404 Label Not Found otherwise", async () => {
    const w = await world();
    const guest = await w.user();
    const group = await w.group({ guests: [guest] });
    const label = await groupLabel(w, group.id, "needs review");
    expect(((await (await w.as(guest).get(`/groups/${group.id}/labels/${label.id}`)).json()) as Json).name).toBe("needs review");
    expect(((await (await w.as(guest).get(`/groups/${group.id}/labels/needs%20review`)).json()) as Json).id).toBe(label.id);
    expect(await statusAndBody(await w.as(guest).get(`/groups/${group.id}/labels/nope`))).toEqual([404, { message: "404 Label Not Found" }]);
  });
});

describe("POST /groups/:id/labels", () => {
  requiresAuthentication((w) => w.anonymous.post("/groups/1/labels", { json: { name: "x", color: "#000" } }));

  it("creates a group label (201); a title an ancestor has is 409", async () => {
    const w = await world();
    const reporter = await w.user();
    const root = await w.group({ reporters: [reporter] });
    const group = await w.group({ parent: root });
    const res = await w.as(reporter).post(`/groups/${group.id}/labels`, { json: { name: "feature", color: "red", description: "New" } });
    expect(res.status).toBe(201);
    expect((await res.json()) as Json).toMatchObject({ name: "feature", color: "#FF0000", description: "New", subscribed: false });
    await groupLabel(w, root.id, "inherited");
    expect(await statusAndBody(await w.as(reporter).post(`/groups/${group.id}/labels`, { json: { name: "inherited", color: "#000" } }))).toEqual([
      409,
      { message: "Label already exists" },
    ]);
    expect(await statusAndBody(await w.as(reporter).post(`/groups/${group.id}/labels`, { json: { name: "x", color: "nope" } }))).toEqual([
      400,
      { message: { color: ["must be a valid color code"] } },
    ]);
  });

  it("answers 403 to a guest and 400 without a name", async () => {
    const w = await world();
    const guest = await w.user();
    const group = await w.group({ guests: [guest] });
    expect((await w.as(guest).post(`/groups/${group.id}/labels`, { json: { name: "x", color: "#000" } })).status).toBe(403);
    expect(await statusAndBody(await w.as(guest).post(`/groups/${group.id}/labels`, { json: { color: "#000" } }))).toEqual([400, { error: "name is missing" }]);
  });
});

describe("PUT /groups/:id/labels/:name", () => {
  it("updates a group label; a taken title is 400; nothing sent is 400", async () => {
    const w = await world();
    const reporter = await w.user();
    const group = await w.group({ reporters: [reporter] });
    const label = await groupLabel(w, group.id, "old");
    await groupLabel(w, group.id, "taken");
    const res = await w.as(reporter).put(`/groups/${group.id}/labels/${label.id}`, { json: { new_name: "new", color: "#FFF" } });
    expect(res.status).toBe(200);
    expect((await res.json()) as Json).toMatchObject({ id: label.id, name: "new", color: "#FFF" });
    expect(await statusAndBody(await w.as(reporter).put(`/groups/${group.id}/labels/new`, { json: { new_name: "taken" } }))).toEqual([
      400,
      { message: { title: ["has already been taken"] } },
    ]);
    expect(await statusAndBody(await w.as(reporter).put(`/groups/${group.id}/labels/new`, { json: {} }))).toEqual([
      400,
      { error: "new_name, color, description are missing, at least one parameter must be provided" },
    ]);
  });
});

describe("PUT /groups/:id/labels", () => {
  it("updates the label named by label_id or name (deprecated form)", async () => {
    const w = await world();
    const reporter = await w.user();
    const group = await w.group({ reporters: [reporter] });
    const label = await groupLabel(w, group.id, "old");
    const res = await w.as(reporter).put(`/groups/${group.id}/labels`, { json: { label_id: label.id, description: "d" } });
    expect((await res.json()) as Json).toMatchObject({ id: label.id, description: "d" });
  });
});

describe("DELETE /groups/:id/labels/:name", () => {
  it("deletes a group label (204), 403 for a guest, 404 for an ancestor's label", async () => {
    const w = await world();
    const reporter = await w.user();
    const guest = await w.user();
    const root = await w.group({ reporters: [reporter], guests: [guest] });
    const group = await w.group({ parent: root });
    const label = await groupLabel(w, group.id, "gone");
    const inherited = await groupLabel(w, root.id, "inherited");
    expect((await w.as(guest).delete(`/groups/${group.id}/labels/${label.id}`)).status).toBe(403);
    expect((await w.as(reporter).delete(`/groups/${group.id}/labels/${inherited.id}`)).status).toBe(404);
    expect((await w.as(reporter).delete(`/groups/${group.id}/labels/${label.id}`)).status).toBe(204);
    expect(await w.db((db) => db.select().from(labels).where(eq(labels.id, label.id)))).toEqual([]);
  });
});

describe("DELETE /groups/:id/labels", () => {
  it("deletes the label by name (deprecated form)", async () => {
    const w = await world();
    const reporter = await w.user();
    const group = await w.group({ reporters: [reporter] });
    await groupLabel(w, group.id, "gone");
    expect((await w.as(reporter).delete(`/groups/${group.id}/labels`, { query: { name: "gone" } })).status).toBe(204);
    expect(await statusAndBody(await w.as(reporter).delete(`/groups/${group.id}/labels`))).toEqual([400, { error: "name is missing" }]);
  });
});

describe("POST /groups/:id/labels/:label_id/subscribe and /unsubscribe", () => {
  requiresAuthentication((w) => w.anonymous.post("/groups/1/labels/1/subscribe"));

  it("subscribes by id or title at the group level; `subscribed` follows; 304 when nothing changes", async () => {
    const w = await world();
    const guest = await w.user();
    const other = await w.user();
    const group = await w.group({ guests: [guest, other] });
    const label = await groupLabel(w, group.id, "needs review");
    const base = `/groups/${group.id}/labels`;
    const res = await w.as(guest).post(`${base}/${label.id}/subscribe`);
    expect(res.status).toBe(201);
    expect((await res.json()) as Json).toEqual({
      id: label.id,
      name: "needs review",
      color: "#000000",
      description: null,
      description_html: null,
      text_color: "#FFFFFF",
      remove_on_close: false,
      subscribed: true,
    });
    const rows = await w.db((db) => db.select().from(subscriptions).where(and(eq(subscriptions.subscribableType, "Label"), eq(subscriptions.subscribableId, label.id))));
    expect(rows.map((r) => [r.userId, r.subscribableType, r.projectId, r.subscribed])).toEqual([[guest.id, "Label", null, true]]);
    expect(((await (await w.as(guest).get(`${base}/${label.id}`)).json()) as Json).subscribed).toBe(true);
    expect(((await (await w.as(guest).get(base)).json()) as Json[])[0].subscribed).toBe(true);
    expect(((await (await w.as(other).get(base)).json()) as Json[])[0].subscribed).toBe(false);
    expect(await statusAndBody(await w.as(guest).post(`${base}/needs%20review/subscribe`))).toEqual([304, ""]);
    const off = await w.as(guest).post(`${base}/needs%20review/unsubscribe`);
    expect(off.status).toBe(201);
    expect(((await off.json()) as Json).subscribed).toBe(false);
    expect(await statusAndBody(await w.as(guest).post(`${base}/${label.id}/unsubscribe`))).toEqual([304, ""]);
    expect(await statusAndBody(await w.as(other).post(`${base}/${label.id}/unsubscribe`))).toEqual([304, ""]);
  });

  it("shows a group-level subscription in the labels of the group's projects; subscribing at a project ends it", async () => {
    const w = await world();
    const developer = await w.user();
    const group = await w.group({ developers: [developer] });
    const project = await w.project({ group });
    const label = await groupLabel(w, group.id, "bug");
    await w.as(developer).post(`/groups/${group.id}/labels/${label.id}/subscribe`);
    const inProject = async () => ((await (await w.as(developer).get(`/projects/${project.id}/labels/${label.id}`)).json()) as Json).subscribed;
    expect(await inProject()).toBe(true);
    // lib/api/subscriptions.rb checks the project's own level: not subscribed there yet, so 201.
    expect((await w.as(developer).post(`/projects/${project.id}/labels/${label.id}/subscribe`)).status).toBe(201);
    const rows = await w.db((db) => db.select().from(subscriptions).where(and(eq(subscriptions.subscribableType, "Label"), eq(subscriptions.subscribableId, label.id))));
    expect(rows.map((r) => [r.projectId, r.subscribed]).sort()).toEqual([
      [project.id, true],
      [null, false],
    ].sort());
    expect(await statusAndBody(await w.as(developer).post(`/groups/${group.id}/labels/${label.id}/unsubscribe`))).toEqual([304, ""]);
    expect(await inProject()).toBe(true);
  });

  it("answers 404 Label Not Found for a missing label or another group's, 404 Group Not Found to strangers", async () => {
    const w = await world();
    const guest = await w.user();
    const group = await w.group({ guests: [guest] });
    const elsewhere = await w.group({ guests: [guest] });
    const label = await groupLabel(w, elsewhere.id, "theirs");
    const base = `/groups/${group.id}/labels`;
    expect(await statusAndBody(await w.as(guest).post(`${base}/${label.id}/subscribe`))).toEqual([404, { message: "404 Label Not Found" }]);
    expect(await statusAndBody(await w.as(guest).post(`${base}/2147483648/subscribe`))).toEqual([404, { message: "404 Label Not Found" }]);
    expect(await statusAndBody(await w.as(w.stranger).post(`/groups/${elsewhere.id}/labels/${label.id}/subscribe`))).toEqual([
      404,
      { message: "404 Group Not Found" },
    ]);
  });
});

describe("PUT /projects/:id/labels/:name/promote", () => {
  it("promotes a project label to the group; same-titled labels of sibling projects merge into it", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group });
    const sibling = await w.project({ group });
    const label = await createLabel(w, owner, project, { name: "infra", color: "#00FF00" });
    const twin = await createLabel(w, owner, sibling, { name: "infra", color: "#0000FF" });
    const issue = await createIssue(w, owner, project, { labels: "infra" });
    const other = await createIssue(w, owner, sibling, { labels: "infra" });
    const res = await w.as(owner).put(`/projects/${project.id}/labels/${label.id}/promote`);
    expect(res.status).toBe(200);
    const promoted = (await res.json()) as Json;
    expect(promoted).toMatchObject({ name: "infra", color: "#00FF00", subscribed: false });
    expect(promoted.id).not.toBe(label.id);
    const [row] = await w.db((db) => db.select().from(labels).where(eq(labels.id, promoted.id)));
    expect(row).toMatchObject({ groupId: group.id, projectId: null });
    expect(await w.db((db) => db.select().from(labels).where(eq(labels.id, twin.id)))).toEqual([]);
    const links = await w.db((db) => db.select().from(labelLinks).where(eq(labelLinks.labelId, promoted.id)));
    expect(links.map((l) => l.targetId).sort()).toEqual([issue.id, other.id].sort());
    const events = await w.db((db) => db.select().from(resourceLabelEvents).where(eq(resourceLabelEvents.issueId, issue.id)));
    expect(events.every((e) => e.labelId === promoted.id)).toBe(true);
    const shown = (await (await w.as(owner).get(`/projects/${project.id}/issues/${issue.iid}`)).json()) as Json;
    expect(shown.labels).toEqual(["infra"]);
  });

  it("answers 400 for a personal project, 404 for a missing label, 403 for a guest", async () => {
    const w = await world();
    const owner = await w.user();
    const personal = await w.project({ owner });
    const label = await createLabel(w, owner, personal);
    expect(await statusAndBody(await w.as(owner).put(`/projects/${personal.id}/labels/${label.id}/promote`))).toEqual([
      400,
      { message: "Failed to promote project label to group label" },
    ]);
    const guest = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group, guests: [guest] });
    expect(await statusAndBody(await w.as(owner).put(`/projects/${project.id}/labels/nope/promote`))).toEqual([404, { message: "404 Label Not Found" }]);
    expect((await w.as(guest).put(`/projects/${project.id}/labels/nope/promote`)).status).toBe(403);
  });
});

describe("PUT /projects/:id/labels/promote", () => {
  requiresAuthentication((w) => w.anonymous.put("/projects/1/labels/promote", { json: { name: "x" } }));

  it("promotes the label named by `name` (deprecated form, still routed before PUT …/labels/:name)", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group });
    const label = await createLabel(w, owner, project, { name: "ops", color: "#123456" });
    const res = await w.as(owner).put(`/projects/${project.id}/labels/promote`, { json: { name: "ops" } });
    expect(res.status).toBe(200);
    const promoted = (await res.json()) as Json;
    expect(promoted).toMatchObject({ name: "ops", color: "#123456", subscribed: false });
    const [row] = await w.db((db) => db.select().from(labels).where(eq(labels.id, promoted.id)));
    expect(row).toMatchObject({ groupId: group.id, projectId: null });
    expect(await w.db((db) => db.select().from(labels).where(eq(labels.id, label.id)))).toEqual([]);
  });

  it("answers 400 without name, 404 for a missing label, 403 for a guest", async () => {
    const w = await world();
    const owner = await w.user();
    const guest = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group, guests: [guest] });
    expect(await statusAndBody(await w.as(owner).put(`/projects/${project.id}/labels/promote`, { json: {} }))).toEqual([
      400,
      { error: "name is missing" },
    ]);
    expect(await statusAndBody(await w.as(owner).put(`/projects/${project.id}/labels/promote`, { json: { name: "nope" } }))).toEqual([
      404,
      { message: "404 Label Not Found" },
    ]);
    expect((await w.as(guest).put(`/projects/${project.id}/labels/promote`, { json: { name: "nope" } })).status).toBe(403);
  });
});
