import { beforeAll, describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world, type TestGroup, type TestProject, type TestUser, type World } from "../helpers/world";

type Json = Record<string, any>;

let w: World;
let reporter: TestUser;
let guest: TestUser;
let group: TestGroup;
let project: TestProject;

beforeAll(async () => {
  w = await world();
  [reporter, guest] = [await w.user(), await w.user()];
  group = await w.group({ reporters: [reporter], guests: [guest] });
  project = await w.project({ group });
});

async function newEpic(title: string): Promise<Json> {
  return (await (await w.as(reporter).post(`/groups/${group.id}/epics`, { json: { title } })).json()) as Json;
}
async function newIssue(title: string, extra: Json = {}, p: TestProject = project): Promise<Json> {
  const res = await w.as(reporter).post(`/projects/${p.id}/issues`, { json: { title, ...extra } });
  expect(res.status).toBe(201);
  return (await res.json()) as Json;
}
const issuesOf = (e: Json) => `/groups/${group.id}/epics/${e.iid}/issues`;

describe("POST /groups/:id/epics/:epic_iid/issues/:issue_id", () => {
  it("assigns an issue, first in the epic, and moves it from another epic", async () => {
    const epic = await newEpic("with issues");
    const other = await newEpic("other");
    const a = await newIssue("a");
    const b = await newIssue("b");
    const res = await w.as(reporter).post(`${issuesOf(epic)}/${a.id}`);
    expect(res.status).toBe(201);
    const link = (await res.json()) as Json;
    expect(Object.keys(link).sort()).toEqual(["epic", "id", "issue", "relative_position"]);
    expect(link).toMatchObject({ epic: { id: epic.id, iid: epic.iid }, issue: { id: a.id, iid: a.iid, title: "a" } });
    await w.as(reporter).post(`${issuesOf(epic)}/${b.id}`);
    const listed = (await (await w.as(reporter).get(issuesOf(epic))).json()) as Json[];
    expect(listed.map((i) => i.id)).toEqual([b.id, a.id]);
    expect(listed[1]).toMatchObject({ epic_issue_id: link.id, title: "a", project_id: project.id });

    expect(await statusAndBody(await w.as(reporter).post(`${issuesOf(epic)}/${a.id}`))).toEqual([409, { message: "Issue(s) already assigned" }]);
    expect((await w.as(reporter).post(`${issuesOf(other)}/${a.id}`)).status).toBe(201);
    expect(((await (await w.as(reporter).get(issuesOf(epic))).json()) as Json[]).map((i) => i.id)).toEqual([b.id]);
    const compact = (await (await w.as(reporter).post(`/groups/${group.id}/epics/${epic.iid}/epics`, { json: { title: "sub" } })).json()) as Json;
    expect(compact.has_issues).toBe(false);
  });

  it("refuses issues outside the epic's group tree, unknown ids, and callers below reporter", async () => {
    const epic = await newEpic("guarded");
    const elsewhere = await w.project({ owner: reporter });
    const outside = await newIssue("outside", {}, elsewhere);
    expect(await statusAndBody(await w.as(reporter).post(`${issuesOf(epic)}/${outside.id}`))).toEqual([
      404,
      { message: "No matching issue found. Make sure that you are adding a valid issue URL." },
    ]);
    expect(await statusAndBody(await w.as(reporter).post(`${issuesOf(epic)}/99999999`))).toEqual([404, { message: "404 Not found" }]);
    const mine = await newIssue("mine");
    expect(await statusAndBody(await w.as(guest).post(`${issuesOf(epic)}/${mine.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await w.anonymous.post(`${issuesOf(epic)}/${mine.id}`)).status).toBe(401);
    expect(await statusAndBody(await w.as(w.stranger).post(`${issuesOf(epic)}/${mine.id}`))).toEqual([404, { message: "404 Group Not Found" }]);
  });
});

describe("GET /groups/:id/epics/:epic_iid/issues", () => {
  it("lists only what the caller may read, paginated", async () => {
    const epic = await newEpic("listing");
    for (const title of ["one", "two", "three"]) await w.as(reporter).post(`${issuesOf(epic)}/${(await newIssue(title)).id}`);
    await w.as(reporter).post(`${issuesOf(epic)}/${(await newIssue("hidden", { confidential: true })).id}`);
    expect(((await (await w.as(reporter).get(issuesOf(epic))).json()) as Json[]).length).toBe(4);
    expect(((await (await w.as(guest).get(issuesOf(epic))).json()) as Json[]).map((i) => i.title)).toEqual(["three", "two", "one"]);
    const page = await w.as(reporter).get(issuesOf(epic), { query: { per_page: 3, page: 2 } });
    expect(((await page.json()) as Json[]).map((i) => i.title)).toEqual(["one"]);
    expect(page.headers.get("x-total")).toBe("4");
    expect((await w.anonymous.get(issuesOf(epic))).status).toBe(401);
  });
});

describe("PUT /groups/:id/epics/:epic_iid/issues/:epic_issue_id", () => {
  it("moves an issue between the others and answers the list", async () => {
    const epic = await newEpic("ordering");
    const links: number[] = [];
    for (const title of ["x", "y", "z"]) {
      const link = (await (await w.as(reporter).post(`${issuesOf(epic)}/${(await newIssue(title)).id}`)).json()) as Json;
      links.push(link.id);
    }
    const [x, , z] = links; // listed z, y, x
    const res = await w.as(reporter).put(`${issuesOf(epic)}/${z}`, { json: { move_before_id: x } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json[]).map((i) => i.title)).toEqual(["y", "x", "z"]);
    expect(await statusAndBody(await w.as(reporter).put(`${issuesOf(epic)}/99999999`, { json: { move_before_id: x } }))).toEqual([404, { message: "404 Not found" }]);
    expect((await w.as(guest).put(`${issuesOf(epic)}/${z}`, { json: { move_before_id: x } })).status).toBe(403);
  });
});

describe("DELETE /groups/:id/epics/:epic_iid/issues/:epic_issue_id", () => {
  it("removes the issue from the epic and answers the link", async () => {
    const epic = await newEpic("removal");
    const issue = await newIssue("leaving");
    const link = (await (await w.as(reporter).post(`${issuesOf(epic)}/${issue.id}`)).json()) as Json;
    expect(await statusAndBody(await w.as(guest).delete(`${issuesOf(epic)}/${link.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    const res = await w.as(reporter).delete(`${issuesOf(epic)}/${link.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: link.id, issue: { id: issue.id }, epic: { id: epic.id } });
    expect(await (await w.as(reporter).get(issuesOf(epic))).json()).toEqual([]);
    expect(await statusAndBody(await w.as(reporter).delete(`${issuesOf(epic)}/${link.id}`))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("GET /projects/:id/issues/:issue_iid (the issue's epic, EE::API::Entities::Issue)", () => {
  it("shows the epic's iid and EpicBaseEntity, and nothing for a confidential epic the caller may not read", async () => {
    const epic = await newEpic("parent of an issue");
    const issue = await newIssue("in an epic");
    const path = `/projects/${project.id}/issues/${issue.iid}`;
    expect(await (await w.as(reporter).get(path)).json()).toMatchObject({ epic_iid: null, epic: null });
    expect((await w.as(reporter).post(`${issuesOf(epic)}/${issue.id}`)).status).toBe(201);
    const shown = (await (await w.as(reporter).get(path)).json()) as Json;
    expect(shown.epic_iid).toBe(epic.iid);
    expect(shown.epic).toEqual({ id: epic.id, iid: epic.iid, title: "parent of an issue", url: `/groups/${group.fullPath}/-/epics/${epic.iid}`, group_id: group.id });
    // The lists load issues the same way.
    const listed = (await (await w.as(reporter).get(`/projects/${project.id}/issues`, { query: { iids: [issue.iid] } })).json()) as Json[];
    expect(listed.map((i) => i.epic_iid)).toEqual([epic.iid]);

    // Dates: fixed ones, in EpicBaseEntity's words.
    const dated = await newEpic("dated");
    await w.as(reporter).put(`/groups/${group.id}/epics/${dated.iid}`, { json: { due_date_is_fixed: true, due_date_fixed: "2000-01-31" } });
    const old = await newIssue("under a dated epic");
    await w.as(reporter).post(`${issuesOf(dated)}/${old.id}`);
    expect(((await (await w.as(reporter).get(`/projects/${project.id}/issues/${old.iid}`)).json()) as Json).epic).toMatchObject({
      human_readable_end_date: "Jan 31, 2000",
      human_readable_timestamp: "<strong>Past due</strong>",
    });

    // A confidential epic is for reporters: a guest reads their own confidential issue, not its epic.
    const secret = (await (await w.as(reporter).post(`/groups/${group.id}/epics`, { json: { title: "secret", confidential: true } })).json()) as Json;
    const created = await w.as(guest).post(`/projects/${project.id}/issues`, { json: { title: "under a confidential epic", confidential: true } });
    expect(created.status).toBe(201);
    const hidden = (await created.json()) as Json;
    expect((await w.as(reporter).post(`${issuesOf(secret)}/${hidden.id}`)).status).toBe(201);
    expect(await (await w.as(reporter).get(`/projects/${project.id}/issues/${hidden.iid}`)).json()).toMatchObject({ epic_iid: secret.iid });
    const asGuest = (await (await w.as(guest).get(`/projects/${project.id}/issues/${hidden.iid}`)).json()) as Json;
    expect(asGuest).toMatchObject({ id: hidden.id, epic_iid: null, epic: null });
  });
});
