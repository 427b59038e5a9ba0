import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { awardEmoji, projects } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { followPages, hidesPrivateProject } from "../helpers/shared";
import { world, type TestUser, type World } from "../helpers/world";
import { createIssue, createLabel, createMilestone, queryCount, team, token, type Json } from "../helpers/api";
import { setIssue } from "./support";

const iids = async (res: Response) => {
  const body = (await res.json()) as Json[];
  if (!Array.isArray(body)) throw new Error(`not a list: ${res.status} ${JSON.stringify(body)}`);
  return body.map((i) => i.iid as number);
};
const sorted = (list: number[]) => [...list].sort((a, b) => a - b);
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/**
 * A private project with four issues covering the filters:
 * #1 bug+ui, milestone "current" (started, due in 10 days), assigned to the reporter, weight 1, due today
 * #2 bug, confidential and closed, by the reporter, no milestone, 👍 by the owner
 * #3 incident, milestone "later" (due in 40 days), assigned to reporter and guest, weight 3, overdue, iteration 7
 * #4 no labels, no milestone, no assignee, searchable description, health at_risk
 */
async function fixture(w: World) {
  const t = await team(w);
  const word = token();
  await createLabel(w, t.owner, t.project, { name: "bug", priority: 2 });
  await createLabel(w, t.owner, t.project, { name: "ui", priority: 1 });
  const current = await createMilestone(w, t.owner, t.project, { title: "current", start_date: day(-5), due_date: day(10) });
  const later = await createMilestone(w, t.owner, t.project, { title: "later", due_date: day(40) });
  const i1 = await createIssue(w, t.owner, t.project, {
    title: `Alpha ${word}`,
    labels: "bug,ui",
    milestone_id: current.id,
    assignee_ids: [t.reporter.id],
    weight: 1,
    due_date: day(0),
  });
  const i2 = await createIssue(w, t.reporter, t.project, { title: "Beta", labels: "bug", confidential: true });
  await w.as(t.owner).put(`/projects/${t.project.id}/issues/${i2.iid}`, { json: { state_event: "close" } });
  const i3 = await createIssue(w, t.owner, t.project, {
    title: "Gamma",
    issue_type: "incident",
    milestone_id: later.id,
    assignee_ids: [t.reporter.id, t.guest.id],
    weight: 3,
    due_date: day(-3),
  });
  const i4 = await createIssue(w, t.owner, t.project, { title: "Delta", description: `the ${word} is here` });
  await setIssue(w, i3.id, { iterationId: 7, relativePosition: 5, upvotes: 3 });
  await setIssue(w, i1.id, { relativePosition: 10, upvotes: 1 });
  await setIssue(w, i4.id, { healthStatus: "at_risk", createdAt: new Date("2001-01-01T00:00:00Z"), updatedAt: new Date("2001-01-02T00:00:00Z") });
  await w.db((db) => db.insert(awardEmoji).values({ name: "thumbsup", userId: t.owner.id, awardableType: "Issue", awardableId: i2.id }));
  return { ...t, word, current, later, issues: [i1, i2, i3, i4] };
}

type Fixture = Awaited<ReturnType<typeof fixture>>;
let shared: Promise<{ w: World; f: Fixture }> | undefined;
/** The read-only tests share one fixture (its names are unique, so parallel tests do not see it). */
const sharedFixture = () =>
  (shared ??= (async () => {
    const w = await world();
    return { w, f: await fixture(w) };
  })());

describe("GET /projects/:id/issues", () => {
  it("lists readable issues newest first with the issue entity, without `subscribed`", async () => {
    const { w, f } = await sharedFixture();
    const res = await w.as(f.owner).get(`/projects/${f.project.id}/issues`);
    expect(res.status).toBe(200);
    expect(await iids(res.clone())).toEqual([3, 2, 1, 4]);
    expect(res.headers.get("x-total")).toBe("4");
    const body = (await res.json()) as Json[];
    expect(body[2]).not.toHaveProperty("subscribed");
    expect(body[2]).toMatchObject({ iid: 1, labels: ["bug", "ui"], milestone: { title: "current" }, references: { relative: "#1" } });
    const detailed = (await (await w.as(f.owner).get(`/projects/${f.project.id}/issues`, { query: { with_labels_details: true, iids: "1" } })).json()) as Json[];
    expect(detailed[0].labels.map((l: Json) => [l.name, l.text_color])).toEqual([["bug", "#FFFFFF"], ["ui", "#FFFFFF"]]);
    // Guests do not see the confidential issue of someone else.
    expect(await iids(await w.as(f.guest).get(`/projects/${f.project.id}/issues`))).toEqual([3, 1, 4]);
  });

  it("renders the labels' description_html with_labels_details: emoji and references in the project's context, for the page at once", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owners: [owner] });
    const target = await w.issue(project, { title: "Target" });
    await createLabel(w, owner, project, { name: "bug", color: "#FF0000", description: ":bug: see #1" });
    await createLabel(w, owner, project, { name: "ui", color: "#FF0000", description: "also #1" });
    for (const labels of ["bug", "ui", "bug,ui"]) await createIssue(w, owner, project, { labels });
    const one = await w.as(owner).get(`/projects/${project.id}/issues`, { query: { with_labels_details: true, per_page: 1 } });
    const res = await w.as(owner).get(`/projects/${project.id}/issues`, { query: { with_labels_details: true, per_page: 3 } });
    const labels = ((await res.json()) as Json[]).flatMap((i) => i.labels as Json[]);
    const bug = labels.find((l) => l.name === "bug")!;
    expect(bug.description_html).toMatch(/^<gl-emoji title="bug" data-name="bug">🐛<\/gl-emoji> see <a href="[^"]+\/-\/issues\/1" /);
    expect(bug.description_html).toContain(`data-issue="${target.id}"`);
    expect(labels.find((l) => l.name === "ui")!.description_html).toContain('title="Target" class="gfm gfm-issue">#1</a>');
    expect(queryCount(res)).toBe(queryCount(one));
  });

  it("filters by state, labels, milestone, iids, search, author, assignee and confidentiality", async () => {
    const { w, f } = await sharedFixture();
    const get = async (query: Json) => sorted(await iids(await w.as(f.owner).get(`/projects/${f.project.id}/issues`, { query })));
    expect(await get({ state: "closed" })).toEqual([2]);
    expect(await get({ state: "opened" })).toEqual([1, 3, 4]);
    expect(await get({ labels: "bug" })).toEqual([1, 2]);
    expect(await get({ labels: "bug,ui" })).toEqual([1]);
    expect(await get({ "labels[]": ["ui", "bug"] })).toEqual([1]);
    expect(await get({ labels: "Bug" })).toEqual([]);
    expect(await get({ labels: "bug,nope" })).toEqual([]);
    expect(await get({ labels: "none" })).toEqual([3, 4]);
    expect(await get({ labels: "No Label" })).toEqual([3, 4]);
    expect(await get({ labels: "ANY" })).toEqual([1, 2]);
    expect(await get({ milestone: "current" })).toEqual([1]);
    expect(await get({ milestone: "None" })).toEqual([2, 4]);
    expect(await get({ milestone: "any" })).toEqual([1, 3]);
    expect(await get({ milestone: "#upcoming" })).toEqual([1]);
    expect(await get({ milestone_id: "Upcoming" })).toEqual([1]);
    expect(await get({ milestone_id: "Started" })).toEqual([1]);
    expect(await get({ milestone_id: "None" })).toEqual([2, 4]);
    expect(await get({ "iids[]": [1, 3] })).toEqual([1, 3]);
    expect(await get({ search: f.word })).toEqual([1, 4]);
    expect(await get({ search: f.word, in: "title" })).toEqual([1]);
    expect(await get({ search: f.word, in: "description" })).toEqual([4]);
    expect(await get({ search: "GAMMA" })).toEqual([3]);
    expect(await get({ author_id: f.reporter.id })).toEqual([2]);
    expect(await get({ author_username: f.reporter.username.toUpperCase() })).toEqual([2]);
    expect(await get({ author_username: "nobody-at-all" })).toEqual([]);
    expect(await get({ assignee_id: f.guest.id })).toEqual([3]);
    expect(await get({ assignee_id: 99999999999, "iids[]": [99999999999] })).toEqual([]);
    expect(await get({ assignee_id: "None" })).toEqual([2, 4]);
    expect(await get({ assignee_id: "any" })).toEqual([1, 3]);
    expect(await get({ "assignee_username[]": [f.reporter.username, f.guest.username] })).toEqual([3]);
    expect(await get({ assignee_username: f.reporter.username })).toEqual([1, 3]);
    expect(await get({ confidential: true })).toEqual([2]);
    expect(await get({ confidential: false })).toEqual([1, 3, 4]);
    expect(await get({ scope: "created-by-me" })).toEqual([1, 3, 4]);
    expect(await get({ scope: "assigned_to_me" })).toEqual([]);
  });

  it("filters by dates, due date, weight, iteration, type, health, epic and reaction", async () => {
    const { w, f } = await sharedFixture();
    const get = async (query: Json, user: TestUser = f.owner) => sorted(await iids(await w.as(user).get(`/projects/${f.project.id}/issues`, { query })));
    expect(await get({ created_before: "2002-01-01T00:00:00Z" })).toEqual([4]);
    expect(await get({ created_after: "2002-01-01T00:00:00Z" })).toEqual([1, 2, 3]);
    expect(await get({ updated_before: "2001-01-02T00:00:00Z" })).toEqual([4]);
    expect(await get({ updated_after: "2001-01-02T00:00:01Z" })).toEqual([1, 2, 3]);
    expect(await get({ due_date: "0" })).toEqual([2, 4]);
    expect(await get({ due_date: "any" })).toEqual([1, 3]);
    expect(await get({ due_date: "today" })).toEqual([1]);
    expect(await get({ due_date: "overdue" })).toEqual([3]);
    expect(await get({ due_date: "tomorrow" })).toEqual([]);
    expect(await get({ due_date: "next_month_and_previous_two_weeks" })).toEqual([1, 3]);
    expect(await get({ due_date: "" })).toEqual([1, 2, 3, 4]);
    expect((await get({ due_date: "week" })).includes(1)).toBe(true);
    expect((await get({ due_date: "month" })).includes(1)).toBe(true);
    expect(await get({ weight: 3 })).toEqual([3]);
    expect(await get({ weight: "None" })).toEqual([2, 4]);
    expect(await get({ weight: "Any" })).toEqual([1, 3]);
    expect(await get({ iteration_id: 7 })).toEqual([3]);
    expect(await get({ iteration_id: "none" })).toEqual([1, 2, 4]);
    expect(await get({ iteration_id: "Any" })).toEqual([3]);
    // Iterations are not built: a title or `current` matches nothing.
    expect(await get({ iteration_title: "Sprint 1" })).toEqual([]);
    expect(await get({ iteration_id: "current" })).toEqual([]);
    expect(await get({ issue_type: "incident" })).toEqual([3]);
    expect(await get({ health_status: "at_risk" })).toEqual([4]);
    expect(await get({ health_status: "None" })).toEqual([1, 2, 3]);
    expect(await get({ epic_id: "None" })).toEqual([1, 2, 3, 4]);
    expect(await get({ epic_id: "Any" })).toEqual([]);
    expect(await get({ my_reaction_emoji: "thumbsup" })).toEqual([2]);
    expect(await get({ my_reaction_emoji: "Any" })).toEqual([2]);
    expect(await get({ my_reaction_emoji: "None" })).toEqual([1, 3, 4]);
    expect(await get({ my_reaction_emoji: "thumbsup" }, f.reporter)).toEqual([]);
  });

  it("negates filters with not[...]", async () => {
    const { w, f } = await sharedFixture();
    const get = async (query: Json) => sorted(await iids(await w.as(f.owner).get(`/projects/${f.project.id}/issues`, { query })));
    expect(await get({ "not[labels]": "ui" })).toEqual([2, 3, 4]);
    expect(await get({ "not[labels]": "bug,ui" })).toEqual([3, 4]);
    expect(await get({ "not[milestone]": "current" })).toEqual([2, 3, 4]);
    expect(await get({ "not[milestone_id]": "Upcoming" })).toEqual([]);
    expect(await get({ "not[milestone_id]": "Started" })).toEqual([]);
    expect(await get({ "not[iids][]": [1, 2] })).toEqual([3, 4]);
    expect(await get({ "not[author_id]": f.owner.id })).toEqual([2]);
    expect(await get({ "not[author_username]": f.reporter.username })).toEqual([1, 3, 4]);
    expect(await get({ "not[assignee_id]": f.guest.id })).toEqual([1, 2, 4]);
    expect(await get({ "not[assignee_username][]": [f.guest.username, f.reporter.username] })).toEqual([2, 4]);
    expect(await get({ "not[weight]": 1 })).toEqual([3]);
    expect(await get({ "not[iteration_id]": 7 })).toEqual([1, 2, 4]);
    expect(await get({ "not[iteration_title]": "Sprint" })).toEqual([1, 2, 3, 4]);
    expect(await get({ "not[my_reaction_emoji]": "thumbsup" })).toEqual([1, 3, 4]);
    expect(await statusAndBody(await w.as(f.owner).get(`/projects/${f.project.id}/issues`, { query: { "not[author_id]": "x" } }))).toEqual([
      400,
      { error: "not[author_id] is invalid" },
    ]);
  });

  it("orders by every order_by", async () => {
    const { w, f } = await sharedFixture();
    const get = async (order_by: string, sort = "desc", query: Json = {}) =>
      iids(await w.as(f.owner).get(`/projects/${f.project.id}/issues`, { query: { order_by, sort, ...query } }));
    expect(await get("created_at", "asc")).toEqual([4, 1, 2, 3]);
    // #2 was closed (updated) before #3 was created; #4 was last updated in 2001.
    expect(await get("updated_at")).toEqual([3, 2, 1, 4]);
    expect(await get("due_date", "asc")).toEqual([3, 1, 4, 2]);
    expect(await get("due_date", "desc")).toEqual([1, 3, 4, 2]);
    expect(await get("relative_position", "asc")).toEqual([3, 1, 2, 4]);
    expect(await get("relative_position", "desc")).toEqual([4, 3, 2, 1]);
    expect(await get("label_priority", "asc")).toEqual([1, 2, 4, 3]);
    expect(await get("label_priority", "asc", { labels: "ui" })).toEqual([1]);
    expect(await get("milestone_due", "asc")).toEqual([1, 3, 4, 2]);
    expect(await get("milestone_due", "desc")).toEqual([3, 1, 4, 2]);
    expect(await get("popularity", "desc")).toEqual([3, 1, 4, 2]);
    expect(await get("popularity", "asc")).toEqual([4, 2, 1, 3]);
    expect(await get("priority", "asc")).toEqual([1, 3, 2, 4]);
    expect(await get("title", "asc")).toEqual([1, 2, 4, 3]);
    expect(await get("weight", "desc")).toEqual([3, 1, 4, 2]);
  });

  it("answers 400 for invalid values and exclusive parameters", async () => {
    const w = await world();
    const t = await team(w);
    const get = (query: Json) => w.as(t.owner).get(`/projects/${t.project.id}/issues`, { query });
    expect(await statusAndBody(await get({ state: "open" }))).toEqual([400, { error: "state does not have a valid value" }]);
    expect(await statusAndBody(await get({ order_by: "id" }))).toEqual([400, { error: "order_by does not have a valid value" }]);
    expect(await statusAndBody(await get({ sort: "up" }))).toEqual([400, { error: "sort does not have a valid value" }]);
    expect(await statusAndBody(await get({ due_date: "soon" }))).toEqual([400, { error: "due_date does not have a valid value" }]);
    expect(await statusAndBody(await get({ scope: "mine" }))).toEqual([400, { error: "scope does not have a valid value" }]);
    expect(await statusAndBody(await get({ assignee_id: "foo" }))).toEqual([400, { error: "assignee_id should be an integer, None, or Any, however got foo" }]);
    expect(await statusAndBody(await get({ iteration_id: "x" }))).toEqual([400, { error: "iteration_id should be an integer, none, any, or current, however got x" }]);
    expect(await statusAndBody(await get({ author_id: 1, author_username: "a" }))).toEqual([400, { error: "author_id, author_username are mutually exclusive" }]);
    expect(await statusAndBody(await get({ assignee_id: 1, assignee_username: "a" }))).toEqual([400, { error: "assignee_id, assignee_username are mutually exclusive" }]);
    expect(await statusAndBody(await get({ milestone: "a", milestone_id: "Any" }))).toEqual([400, { error: "milestone_id, milestone are mutually exclusive" }]);
    expect(await statusAndBody(await get({ page: 0 }))).toEqual([400, { error: "page does not have a valid value" }]);
  });

  it("paginates with Link headers and a flat statement count", async () => {
    const { w, f } = await sharedFixture();
    const path = `/projects/${f.project.id}/issues`;
    const first = await w.as(f.owner).get(path, { query: { per_page: 1, labels: "bug" } });
    expect(first.headers.get("x-total")).toBe("2");
    expect(first.headers.get("x-next-page")).toBe("2");
    expect(await followPages(w, first, f.owner.token)).toHaveLength(2);
    const one = await w.as(f.owner).get(path, { query: { per_page: 1 } });
    // Unfiltered: the prepared statements, one for a first page and one for the pages after it.
    expect(one.headers.get("x-total")).toBe("4");
    const everyPage = (await followPages(w, one, f.owner.token)) as { iid: number }[];
    expect(sorted(everyPage.map((i) => i.iid))).toEqual(sorted(f.issues.map((i) => i.iid as number)));
    const hundred = await w.as(f.owner).get(path, { query: { per_page: 100, order_by: "priority" } });
    expect(queryCount(one)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
  });

  it("lets anonymous callers list a public project's public issues", async () => {
    const w = await world();
    const t = await team(w, "public");
    await createIssue(w, t.owner, t.project);
    await createIssue(w, t.owner, t.project, { confidential: true });
    expect(await iids(await w.anonymous.get(`/projects/${t.project.id}/issues`))).toEqual([1]);
    expect(await iids(await w.anonymous.get(`/projects/${t.project.id}/issues`, { query: { scope: "created_by_me" } }))).toEqual([]);
    // A project without the issues feature lists nothing.
    await w.db((db) => db.update(projects).set({ issuesEnabled: false }).where(eq(projects.id, t.project.id)));
    expect(await iids(await w.as(t.owner).get(`/projects/${t.project.id}/issues`))).toEqual([]);
  });

  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/issues`));
});

describe("GET /projects/:id/issues (labels filter after label changes)", () => {
  it("follows labels removed from an issue and labels deleted from the project", async () => {
    const w = await world();
    const t = await team(w);
    const path = `/projects/${t.project.id}/issues`;
    const iids = async (labels: string) =>
      ((await (await w.as(t.owner).get(path, { query: { labels } })).json()) as Json[]).map((i) => i.iid);
    const one = await createIssue(w, t.owner, t.project, { labels: "red,green" });
    const two = await createIssue(w, t.owner, t.project, { labels: "red" });
    expect(await iids("red")).toEqual([two.iid, one.iid]);
    expect(await iids("red,green")).toEqual([one.iid]);

    expect((await w.as(t.owner).put(`${path}/${one.iid}`, { json: { remove_labels: "red" } })).status).toBe(200);
    expect(await iids("red")).toEqual([two.iid]);
    expect(await iids("green")).toEqual([one.iid]);

    expect((await w.as(t.owner).delete(`/projects/${t.project.id}/labels/green`)).status).toBe(204);
    expect(await iids("green")).toEqual([]);
    expect(await iids("None")).toEqual([one.iid]);
  });
});

describe("GET /groups/:id/issues", () => {
  it("lists the issues of the group's projects and subgroups, archived projects only on request", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const sub = await w.group({ parent: group });
    const direct = await w.project({ group });
    const nested = await w.project({ group: sub });
    const archived = await w.project({ group });
    const a = await createIssue(w, owner, direct);
    const b = await createIssue(w, owner, nested);
    const c = await createIssue(w, owner, archived);
    await w.db((db) => db.update(projects).set({ archived: true }).where(eq(projects.id, archived.id)));
    const res = await w.as(owner).get(`/groups/${group.id}/issues`);
    const body = (await res.json()) as Json[];
    expect(body.map((i) => i.id)).toEqual([b.id, a.id]);
    expect(body.find((i) => i.id === a.id)!.references.relative).toBe(`${direct.path}#1`);
    expect(body.find((i) => i.id === b.id)!.references.relative).toBe(`${nested.fullPath}#1`);
    const all = (await (await w.as(owner).get(`/groups/${group.id}/issues`, { query: { non_archived: false } })).json()) as Json[];
    expect(all.map((i) => i.id)).toEqual([c.id, b.id, a.id]);
    const sublist = (await (await w.as(owner).get(`/groups/${sub.id}/issues`)).json()) as Json[];
    expect(sublist.map((i) => i.id)).toEqual([b.id]);
  });

  it("hides private groups and the confidential issues a member may not read", async () => {
    const w = await world();
    const owner = await w.user();
    const guest = await w.user();
    const group = await w.group({ owners: [owner], guests: [guest] });
    const project = await w.project({ group });
    await createIssue(w, owner, project, { confidential: true });
    const open = await createIssue(w, owner, project);
    expect(((await (await w.as(guest).get(`/groups/${group.id}/issues`)).json()) as Json[]).map((i) => i.id)).toEqual([open.id]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${group.id}/issues`))).toEqual([404, { message: "404 Group Not Found" }]);
  });

  it("keeps a flat statement count", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group });
    for (let i = 0; i < 3; i++) await createIssue(w, owner, project, { labels: "x" });
    const one = await w.as(owner).get(`/groups/${group.id}/issues`, { query: { per_page: 1, labels: "x" } });
    const hundred = await w.as(owner).get(`/groups/${group.id}/issues`, { query: { per_page: 100, labels: "x" } });
    expect(one.headers.get("x-total")).toBe("3");
    expect(queryCount(one)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
  });
});

describe("GET /issues", () => {
  it("defaults to the caller's own issues; assigned_to_me and all widen it", async () => {
    const w = await world();
    const t = await team(w);
    const mine = await createIssue(w, t.reporter, t.project);
    const assigned = await createIssue(w, t.owner, t.project, { assignee_ids: [t.reporter.id] });
    const ids = async (query: Json) => ((await (await w.as(t.reporter).get(`/issues`, { query })).json()) as Json[]).map((i) => i.id);
    expect(await ids({})).toEqual([mine.id]);
    expect(await ids({ scope: "assigned_to_me" })).toEqual([assigned.id]);
    expect(await ids({ scope: "all", author_id: t.owner.id })).toEqual([assigned.id]);
    const body = (await (await w.as(t.reporter).get(`/issues`)).json()) as Json[];
    expect(body[0].references).toEqual({ short: "#1", relative: "#1", full: `${t.project.fullPath}#1` });
  });

  it("answers 401 without credentials unless scope=all, which shows only public issues", async () => {
    const w = await world();
    const t = await team(w, "public");
    const word = token();
    const visible = await createIssue(w, t.owner, t.project, { title: `open ${word}` });
    await createIssue(w, t.owner, t.project, { title: `secret ${word}`, confidential: true });
    const priv = await team(w);
    await createIssue(w, priv.owner, priv.project, { title: `private ${word}` });
    expect(await statusAndBody(await w.anonymous.get(`/issues`))).toEqual([401, { message: "401 Unauthorized" }]);
    const res = await w.anonymous.get(`/issues`, { query: { scope: "all", search: word } });
    expect(((await res.json()) as Json[]).map((i) => i.id)).toEqual([visible.id]);
    const stranger = (await (await w.as(w.stranger).get(`/issues`, { query: { scope: "all", search: word } })).json()) as Json[];
    expect(stranger.map((i) => i.id)).toEqual([visible.id]);
  });

  it("skips archived projects unless non_archived=false, with a flat statement count", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const issue = await createIssue(w, owner, project);
    await w.db((db) => db.update(projects).set({ archived: true }).where(eq(projects.id, project.id)));
    expect(((await (await w.as(owner).get(`/issues`)).json()) as Json[]).map((i) => i.id)).toEqual([]);
    const one = await w.as(owner).get(`/issues`, { query: { non_archived: false, per_page: 1 } });
    expect(((await one.json()) as Json[]).map((i) => i.id)).toEqual([issue.id]);
    const hundred = await w.as(owner).get(`/issues`, { query: { non_archived: false, per_page: 100, state: "opened", order_by: "label_priority" } });
    expect(queryCount(one)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
  });
});
