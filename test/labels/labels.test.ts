import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { labelLinks, labels, resourceLabelEvents } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { createIssue, createLabel, queryCount, team, token, type Json } from "../helpers/api";

const names = async (res: Response) => ((await res.json()) as Json[]).map((l) => l.name);

describe("GET /projects/:id/labels", () => {
  it("lists the project's labels by title, with ancestor group labels", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group });
    await createLabel(w, owner, project, { name: "zeta", color: "#FFFFFF", description: "Last <one>", priority: 3 });
    await createLabel(w, owner, project, { name: "alpha", color: "red" });
    await w.db((db) => db.insert(labels).values({ groupId: group.id, title: "group-wide", color: "#000000" }));
    const res = await w.as(owner).get(`/projects/${project.id}/labels`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.map((l) => l.name)).toEqual(["alpha", "group-wide", "zeta"]);
    expect(body[2]).toEqual({
      id: expect.any(Number),
      name: "zeta",
      color: "#FFFFFF",
      description: "Last <one>",
      description_html: "Last &lt;one&gt;",
      text_color: "#333333",
      remove_on_close: false,
      subscribed: false,
      priority: 3,
      is_project_label: true,
    });
    expect(body[0]).toMatchObject({ color: "#FF0000", text_color: "#FFFFFF", priority: null, description: null, description_html: null });
    expect(body[1]).toMatchObject({ is_project_label: false, priority: null });
    expect(res.headers.get("x-total")).toBe("3");
    expect(await names(await w.as(owner).get(`/projects/${project.id}/labels`, { query: { include_ancestor_groups: false } }))).toEqual([
      "alpha",
      "zeta",
    ]);
  });

  it("renders description_html with GitLab's single-line pipeline: emoji, autolinks and the references the caller may read", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owners: [owner], visibility: "public" });
    const issue = await w.issue(project, { title: "Tracked" });
    const secret = await w.issue(project, { title: "Secret", confidential: true });
    await createLabel(w, owner, project, { name: "a", color: "#FFFFFF", description: `:tada: *see* #${issue.iid} and #${secret.iid} at https://e.com` });
    await createLabel(w, owner, project, { name: "b", color: "#FFFFFF", description: `also #${issue.iid}` });
    const html = async (who: typeof owner) => ((await (await w.as(who).get(`/projects/${project.id}/labels`)).json()) as Json[]).map((l) => l.description_html as string);
    const [a, b] = await html(owner);
    expect(a).toMatch(/^<gl-emoji title="party popper" data-name="tada">🎉<\/gl-emoji> \*see\* <a href="[^"]+\/-\/issues\/1" data-reference-type="issue"/);
    expect(a).toContain('title="Secret" class="gfm gfm-issue">#2</a>');
    expect(a).toContain('<a href="https://e.com">https://e.com</a>');
    expect(b).toContain('title="Tracked" class="gfm gfm-issue">#1</a>');
    // A stranger reads the public project's labels, but not the confidential issue.
    const [forStranger] = await html(w.stranger);
    expect(forStranger).toContain('title="Tracked" class="gfm gfm-issue">#1</a>');
    expect(forStranger).toContain(" and #2 at ");
    expect(forStranger).not.toContain("Secret");
  });

  it("renders the descriptions of a page of labels in as many statements as of one", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owners: [owner] });
    await w.issue(project);
    for (const name of ["a", "b", "c", "d"]) await createLabel(w, owner, project, { name, color: "#FFFFFF", description: `#1 ~${name} @${owner.username}` });
    const one = await w.as(owner).get(`/projects/${project.id}/labels`, { query: { per_page: 1 } });
    const four = await w.as(owner).get(`/projects/${project.id}/labels`, { query: { per_page: 4 } });
    expect(((await four.json()) as Json[]).every((l) => l.description_html.includes("gfm-issue"))).toBe(true);
    expect(queryCount(four)).toBe(queryCount(one));
  });

  it("searches titles and descriptions, and counts issues and merge requests with with_counts", async () => {
    const w = await world();
    const t = await team(w);
    const word = token();
    await createLabel(w, t.owner, t.project, { name: `bug-${word}` });
    await createLabel(w, t.owner, t.project, { name: "other", description: `about ${word}` });
    await createLabel(w, t.owner, t.project, { name: "unrelated" });
    expect(await names(await w.as(t.guest).get(`/projects/${t.project.id}/labels`, { query: { search: word } }))).toEqual([`bug-${word}`, "other"]);
    await createIssue(w, t.owner, t.project, { labels: `bug-${word}` });
    await createIssue(w, t.owner, t.project, { labels: `bug-${word}`, confidential: true });
    const closed = await createIssue(w, t.owner, t.project, { labels: `bug-${word}` });
    await w.as(t.owner).put(`/projects/${t.project.id}/issues/${closed.iid}`, { json: { state_event: "close" } });
    const counted = (await (await w.as(t.guest).get(`/projects/${t.project.id}/labels`, { query: { search: `bug-${word}`, with_counts: true } })).json()) as Json[];
    // The guest does not see the confidential issue.
    expect(counted[0]).toMatchObject({ open_issues_count: 1, closed_issues_count: 1, open_merge_requests_count: 0 });
    const plain = (await (await w.as(t.guest).get(`/projects/${t.project.id}/labels`, { query: { search: `bug-${word}` } })).json()) as Json[];
    expect(plain[0]).not.toHaveProperty("open_issues_count");
  });

  it("paginates with a flat statement count", async () => {
    const w = await world();
    const t = await team(w);
    for (let i = 0; i < 3; i++) await createLabel(w, t.owner, t.project);
    const one = await w.as(t.owner).get(`/projects/${t.project.id}/labels`, { query: { per_page: 1, with_counts: true } });
    expect(one.headers.get("x-total")).toBe("3");
    expect(one.headers.get("x-next-page")).toBe("2");
    expect((await one.json()) as Json[]).toHaveLength(1);
    const hundred = await w.as(t.owner).get(`/projects/${t.project.id}/labels`, { query: { per_page: 100, with_counts: true } });
    expect(queryCount(one)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
  });

  it("answers 400 for bad parameters", async () => {
    const w = await world();
    const t = await team(w);
    expect(await statusAndBody(await w.as(t.owner).get(`/projects/${t.project.id}/labels`, { query: { with_counts: "maybe" } }))).toEqual([
      400,
      { error: "with_counts is invalid" },
    ]);
  });

  requiresAuthentication(async (w) => w.anonymous.get(`/projects/${(await w.project({ visibility: "public" })).id}/labels`));
  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/labels`));
});

describe("GET /projects/:id/labels/:name", () => {
  it("finds a label by id or by title", async () => {
    const w = await world();
    const t = await team(w);
    const label = await createLabel(w, t.owner, t.project, { name: "needs review" });
    const byId = await w.as(t.guest).get(`/projects/${t.project.id}/labels/${label.id}`);
    expect(byId.status).toBe(200);
    expect(await byId.json()).toMatchObject({ id: label.id, name: "needs review", is_project_label: true });
    const byTitle = await w.as(t.guest).get(`/projects/${t.project.id}/labels/needs%20review`);
    expect(await byTitle.json()).toMatchObject({ id: label.id });
  });

  it("answers 404 Label Not Found", async () => {
    const w = await world();
    const t = await team(w);
    expect(await statusAndBody(await w.as(t.guest).get(`/projects/${t.project.id}/labels/nope`))).toEqual([404, { message: "404 Label Not Found" }]);
  });

  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/labels/1`));
});

describe("POST /projects/:id/labels", () => {
  it("creates a label with a hex or CSS colour name", async () => {
    const w = await world();
    const t = await team(w);
    const res = await w.as(t.reporter).post(`/projects/${t.project.id}/labels`, {
      json: { name: " Feature ", color: "DarkOrange", description: "New things", priority: 2 },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toEqual({
      id: expect.any(Number),
      name: "Feature",
      color: "#FF8C00",
      description: "New things",
      description_html: "New things",
      text_color: "#FFFFFF",
      remove_on_close: false,
      subscribed: false,
      priority: 2,
      is_project_label: true,
    });
    const [row] = await w.db((db) => db.select().from(labels).where(eq(labels.id, body.id)));
    expect(row).toMatchObject({ projectId: t.project.id, title: "Feature", color: "#FF8C00", priority: 2 });
  });

  it("answers 409 Label already exists, also for an ancestor group's label", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group });
    await createLabel(w, owner, project, { name: "dup" });
    await w.db((db) => db.insert(labels).values({ groupId: group.id, title: "from-group", color: "#000000" }));
    for (const name of ["dup", "from-group"]) {
      expect(await statusAndBody(await w.as(owner).post(`/projects/${project.id}/labels`, { json: { name, color: "#000" } }))).toEqual([
        409,
        { message: "Label already exists" },
      ]);
    }
  });

  it("answers 400 for missing parameters and invalid attributes", async () => {
    const w = await world();
    const t = await team(w);
    const post = (json: Json) => w.as(t.owner).post(`/projects/${t.project.id}/labels`, { json });
    expect(await statusAndBody(await post({}))).toEqual([400, { error: "name is missing, color is missing" }]);
    expect(await statusAndBody(await post({ name: "x", color: "blurple" }))).toEqual([400, { message: { color: ["must be a valid color code"] } }]);
    // CSS names GitLab's table leaves out are not colours (lib/gitlab/color.rb).
    expect(await statusAndBody(await post({ name: "x", color: "cyan" }))).toEqual([400, { message: { color: ["must be a valid color code"] } }]);
    expect(await statusAndBody(await post({ name: "a,b", color: "#123" }))).toEqual([400, { message: { title: ["is invalid"] } }]);
    expect(await statusAndBody(await post({ name: " ", color: "" }))).toEqual([
      400,
      { message: { color: ["must be a valid color code"], title: ["can't be blank", "is invalid"] } },
    ]);
  });

  forbidsRoles(["guest"], (w, p, u) => w.as(u).post(`/projects/${p.id}/labels`, { json: { name: "x", color: "#000" } }));
  requiresAuthentication((w) => w.anonymous.post(`/projects/1/labels`, { json: { name: "x", color: "#000" } }));
  hidesPrivateProject((w, p) => w.as(w.stranger).post(`/projects/${p.id}/labels`, { json: { name: "x", color: "#000" } }));
});

describe("PUT /projects/:id/labels/:name", () => {
  it("updates the sent attributes and removes the priority with null", async () => {
    const w = await world();
    const t = await team(w);
    const label = await createLabel(w, t.owner, t.project, { name: "old", color: "#000000", description: "keep", priority: 5 });
    const res = await w.as(t.reporter).put(`/projects/${t.project.id}/labels/old`, { json: { new_name: "new", color: "white", priority: null } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: label.id, name: "new", color: "#FFFFFF", description: "keep", priority: null, text_color: "#333333" });
    const [row] = await w.db((db) => db.select().from(labels).where(eq(labels.id, label.id)));
    expect(row).toMatchObject({ title: "new", color: "#FFFFFF", description: "keep", priority: null });
    const byId = await w.as(t.owner).put(`/projects/${t.project.id}/labels/${label.id}`, { json: { description: "changed" } });
    expect(await byId.json()).toMatchObject({ name: "new", description: "changed" });
  });

  it("answers 400 when nothing is sent, for a taken title and a bad colour", async () => {
    const w = await world();
    const t = await team(w);
    await createLabel(w, t.owner, t.project, { name: "one" });
    await createLabel(w, t.owner, t.project, { name: "two" });
    const put = (name: string, json: Json) => w.as(t.owner).put(`/projects/${t.project.id}/labels/${name}`, { json });
    expect(await statusAndBody(await put("one", {}))).toEqual([
      400,
      { error: "new_name, color, description, priority are missing, at least one parameter must be provided" },
    ]);
    expect(await statusAndBody(await put("one", { new_name: "two" }))).toEqual([400, { message: { title: ["has already been taken"] } }]);
    expect(await statusAndBody(await put("one", { color: "nope" }))).toEqual([400, { message: { color: ["must be a valid color code"] } }]);
    expect(await statusAndBody(await put("missing", { color: "#000" }))).toEqual([404, { message: "404 Label Not Found" }]);
  });

  forbidsRoles(["guest"], (w, p, u) => w.as(u).put(`/projects/${p.id}/labels/x`, { json: { color: "#000" } }));
});

describe("PUT /projects/:id/labels", () => {
  it("finds the label by label_id or name (deprecated form)", async () => {
    const w = await world();
    const t = await team(w);
    const label = await createLabel(w, t.owner, t.project, { name: "legacy" });
    const byName = await w.as(t.owner).put(`/projects/${t.project.id}/labels`, { json: { name: "legacy", new_name: "renamed" } });
    expect(await byName.json()).toMatchObject({ id: label.id, name: "renamed" });
    const byId = await w.as(t.owner).put(`/projects/${t.project.id}/labels`, { json: { label_id: label.id, color: "#00F" } });
    expect(await byId.json()).toMatchObject({ id: label.id, color: "#00F" });
  });

  it("needs exactly one of label_id and name", async () => {
    const w = await world();
    const t = await team(w);
    expect(await statusAndBody(await w.as(t.owner).put(`/projects/${t.project.id}/labels`, { json: { color: "#000" } }))).toEqual([
      400,
      { error: "label_id, name are missing, exactly one parameter must be provided" },
    ]);
    expect(
      await statusAndBody(await w.as(t.owner).put(`/projects/${t.project.id}/labels`, { json: { label_id: 1, name: "x", color: "#000" } })),
    ).toEqual([400, { error: "label_id, name are mutually exclusive" }]);
  });
});

describe("DELETE /projects/:id/labels/:name", () => {
  it("deletes the label and its links; events keep a null label", async () => {
    const w = await world();
    const t = await team(w);
    const label = await createLabel(w, t.owner, t.project, { name: "gone" });
    const issue = await createIssue(w, t.owner, t.project, { labels: "gone" });
    const res = await w.as(t.reporter).delete(`/projects/${t.project.id}/labels/gone`);
    expect(await statusAndBody(res)).toEqual([204, ""]);
    expect(await w.db((db) => db.select().from(labels).where(eq(labels.id, label.id)))).toEqual([]);
    expect(await w.db((db) => db.select().from(labelLinks).where(eq(labelLinks.labelId, label.id)))).toEqual([]);
    const events = await w.db((db) => db.select().from(resourceLabelEvents).where(eq(resourceLabelEvents.issueId, issue.id)));
    expect(events).toMatchObject([{ action: "add", labelId: null }]);
    expect((await (await w.as(t.owner).get(`/projects/${t.project.id}/issues/${issue.iid}`)).json()) as Json).toMatchObject({ labels: [] });
  });

  it("answers 404 for a missing label and 412 for an older If-Unmodified-Since", async () => {
    const w = await world();
    const t = await team(w);
    await createLabel(w, t.owner, t.project, { name: "kept" });
    expect(await statusAndBody(await w.as(t.owner).delete(`/projects/${t.project.id}/labels/nope`))).toEqual([404, { message: "404 Label Not Found" }]);
    const res = await w.as(t.owner).delete(`/projects/${t.project.id}/labels/kept`, { headers: { "If-Unmodified-Since": "Thu, 01 Jan 2015 00:00:00 GMT" } });
    expect(await statusAndBody(res)).toEqual([412, { message: "412 Precondition Failed" }]);
  });

  forbidsRoles(["guest"], (w, p, u) => w.as(u).delete(`/projects/${p.id}/labels/x`));
});

describe("DELETE /projects/:id/labels", () => {
  it("deletes by label_id (deprecated form)", async () => {
    const w = await world();
    const t = await team(w);
    const label = await createLabel(w, t.owner, t.project);
    expect((await w.as(t.owner).delete(`/projects/${t.project.id}/labels`, { query: { label_id: label.id } })).status).toBe(204);
    expect(await statusAndBody(await w.as(t.owner).delete(`/projects/${t.project.id}/labels`))).toEqual([
      400,
      { error: "label_id, name are missing, exactly one parameter must be provided" },
    ]);
  });
});
