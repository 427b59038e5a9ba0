import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { labels, resourceLabelEvents } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { world, type TestGroup, type TestProject, type TestUser, type World } from "../helpers/world";

type Json = Record<string, any>;

let w: World;
let reporter: TestUser;
let root: TestGroup;
let group: TestGroup;
let project: TestProject;

beforeAll(async () => {
  w = await world();
  reporter = await w.user();
  root = await w.group({ reporters: [reporter] });
  group = await w.group({ parent: root });
  project = await w.project({ group });
  // A label of the ancestor group: available to the subgroup's epics.
  await w.db((db) => db.insert(labels).values({ groupId: root.id, title: "backend", color: "#ff0000", description: "server" }).returning());
});

const epics = `/groups/${0}/epics`;
const newEpic = async (json: Json, g: TestGroup = group): Promise<Json> => {
  const res = await w.as(reporter).post(epics.replace("0", String(g.id)), { json });
  expect(res.status).toBe(201);
  return (await res.json()) as Json;
};
const epicUrl = (e: Json) => `/groups/${e.group_id}/epics/${e.iid}`;
const notesOf = async (e: Json) =>
  ((await (await w.as(reporter).get(`/groups/${e.group_id}/epics/${e.id}/notes`, { query: { sort: "asc" } })).json()) as Json[]).filter((n) => n.system).map((n) => n.body);

describe("epic labels (POST and PUT /groups/:id/epics)", () => {
  it("takes ancestor group labels by title and makes missing ones labels of the epic's group", async () => {
    const e = await newEpic({ title: "labelled", labels: "backend,frontend" });
    expect(e.labels).toEqual(["backend", "frontend"]);
    const made = await w.db((db) => db.select().from(labels).where(eq(labels.groupId, group.id)));
    expect(made.map((l) => [l.title, l.color])).toEqual([["frontend", "#6699cc"]]);
    const events = await w.db((db) => db.select().from(resourceLabelEvents).where(eq(resourceLabelEvents.epicId, e.id)));
    expect(events.map((ev) => ev.action).sort()).toEqual(["add", "add"]);
  });

  it("replaces with labels, then adds and removes; resource label events record the changes", async () => {
    const e = await newEpic({ title: "changing", labels: ["backend"] });
    const put = (json: Json) => w.as(reporter).put(epicUrl(e), { json });
    expect(((await (await put({ add_labels: "ux", remove_labels: "backend" })).json()) as Json).labels).toEqual(["ux"]);
    expect(((await (await put({ labels: "backend,docs", remove_labels: "docs" })).json()) as Json).labels).toEqual(["backend"]);
    expect(((await (await put({ labels: "" })).json()) as Json).labels).toEqual([]);
    const events = await w.db((db) => db.select().from(resourceLabelEvents).where(eq(resourceLabelEvents.epicId, e.id)));
    expect(events.filter((ev) => ev.action === "remove")).toHaveLength(3);
  });
});

describe("GET /groups/:id/epics with labels and with_labels_details", () => {
  it("filters by every label given, None and Any; details are LabelBasic", async () => {
    const g = await w.group({ reporters: [reporter] });
    const both = await newEpic({ title: "both", labels: "l1,l2" }, g);
    const one = await newEpic({ title: "one", labels: "l1" }, g);
    const none = await newEpic({ title: "none" }, g);
    const list = async (query: Json) => ((await (await w.as(reporter).get(`/groups/${g.id}/epics`, { query })).json()) as Json[]).map((e) => e.id);
    expect(await list({ labels: "l1,l2" })).toEqual([both.id]);
    expect(await list({ labels: "l1" })).toEqual([one.id, both.id]);
    expect(await list({ labels: "None" })).toEqual([none.id]);
    expect(await list({ labels: "Any" })).toEqual([one.id, both.id]);
    const detailed = (await (await w.as(reporter).get(`/groups/${g.id}/epics`, { query: { labels: "l2", with_labels_details: true } })).json()) as Json[];
    expect(detailed[0].labels).toEqual([
      expect.objectContaining({ name: "l1", color: "#6699cc", text_color: "#FFFFFF", description: null }),
      expect.objectContaining({ name: "l2" }),
    ]);
    expect(await statusAndBody(await w.as(reporter).get(`/groups/${g.id}/epics`, { query: { with_labels_details: "maybe" } }))).toEqual([
      400,
      { error: "with_labels_details is invalid" },
    ]);
  });
});

describe("dates inherited from milestones", () => {
  it("takes the earliest start and latest due date of the milestones of its issues and child epics, unless fixed", async () => {
    const milestone = async (start: string, due: string) => {
      const res = await w.as(reporter).post(`/projects/${project.id}/milestones`, { json: { title: `m-${start}-${due}-${Math.random()}`, start_date: start, due_date: due } });
      expect(res.status).toBe(201);
      return (await res.json()) as Json;
    };
    const issueWith = async (m: Json) =>
      (await (await w.as(reporter).post(`/projects/${project.id}/issues`, { json: { title: "i", milestone_id: m.id } })).json()) as Json;
    const parent = await newEpic({ title: "parent" });
    const child = await newEpic({ title: "child" });
    const [m1, m2, m3] = [await milestone("2030-02-01", "2030-03-01"), await milestone("2030-01-10", "2030-02-15"), await milestone("2029-12-01", "2030-06-30")];
    for (const m of [m1, m2]) expect((await w.as(reporter).post(`${epicUrl(parent)}/issues/${(await issueWith(m)).id}`)).status).toBe(201);
    expect((await w.as(reporter).post(`${epicUrl(child)}/issues/${(await issueWith(m3)).id}`)).status).toBe(201);
    expect((await w.as(reporter).post(`${epicUrl(parent)}/epics/${child.id}`)).status).toBe(201);

    const read = async () => (await (await w.as(reporter).get(epicUrl(parent))).json()) as Json;
    expect(await read()).toMatchObject({
      start_date_is_fixed: false,
      start_date_fixed: null,
      start_date_from_milestones: "2030-01-10",
      start_date_from_inherited_source: "2029-12-01",
      start_date: "2029-12-01",
      due_date_from_milestones: "2030-03-01",
      due_date_from_inherited_source: "2030-06-30",
      due_date: "2030-06-30",
      end_date: "2030-06-30",
    });
    // A child with a fixed date gives that date, not its milestones'.
    await w.as(reporter).put(epicUrl(child), { json: { start_date_is_fixed: true, start_date_fixed: "2030-01-20" } });
    expect(await read()).toMatchObject({ start_date: "2030-01-10", start_date_from_inherited_source: "2030-01-10" });
    // A fixed date wins over the inherited one.
    const fixed = (await (await w.as(reporter).put(epicUrl(parent), { json: { due_date_is_fixed: true, due_date_fixed: "2031-01-01" } })).json()) as Json;
    expect(fixed).toMatchObject({ due_date: "2031-01-01", due_date_fixed: "2031-01-01", due_date_from_inherited_source: "2030-06-30" });
  });
});

describe("epic system notes", () => {
  it("notes title, description and date changes of an update", async () => {
    const e = await newEpic({ title: "Old name" });
    await w.as(reporter).put(epicUrl(e), { json: { title: "New name", description: "text", start_date_is_fixed: true, start_date_fixed: "2030-04-05" } });
    await w.as(reporter).put(epicUrl(e), { json: { start_date_is_fixed: false } });
    await w.as(reporter).put(epicUrl(e), { json: { due_date_is_fixed: true, due_date_fixed: "2030-12-31" } });
    expect(await notesOf(e)).toEqual([
      "changed title from **{-Old-} name** to **{+New+} name**",
      "changed the description",
      "changed start date to Apr 5, 2030",
      "removed the start date",
      "changed finish date to Dec 31, 2030",
    ]);
  });

  it("notes child epic relations on both epics", async () => {
    const parent = await newEpic({ title: "p" });
    const child = await newEpic({ title: "c" });
    const other = await newEpic({ title: "o" }, root);
    expect((await w.as(reporter).post(`${epicUrl(parent)}/epics/${child.id}`)).status).toBe(201);
    expect((await w.as(reporter).delete(`${epicUrl(parent)}/epics/${child.id}`)).status).toBe(200);
    const created = (await (await w.as(reporter).post(`${epicUrl(other)}/epics`, { json: { title: "new child" } })).json()) as Json;
    expect(await notesOf(parent)).toEqual([`added epic &${child.iid} as child epic`, `removed child epic &${child.iid}`]);
    expect(await notesOf(child)).toEqual([`added epic &${parent.iid} as parent epic`, `removed parent epic &${parent.iid}`]);
    expect(await notesOf(other)).toEqual([`added epic &${created.iid} as child epic`]);
  });

  it("notes issues added, moved and removed on the epics and on the issue", async () => {
    const a = await newEpic({ title: "a" });
    const b = await newEpic({ title: "b" });
    const issue = (await (await w.as(reporter).post(`/projects/${project.id}/issues`, { json: { title: "work" } })).json()) as Json;
    const ref = `${project.fullPath}#${issue.iid}`;
    expect((await w.as(reporter).post(`${epicUrl(a)}/issues/${issue.id}`)).status).toBe(201);
    const moved = (await (await w.as(reporter).post(`${epicUrl(b)}/issues/${issue.id}`)).json()) as Json;
    expect((await w.as(reporter).delete(`${epicUrl(b)}/issues/${moved.id}`)).status).toBe(200);
    expect(await notesOf(a)).toEqual([`added issue ${ref}`, `moved issue ${ref} to epic &${b.iid}`]);
    expect(await notesOf(b)).toEqual([`added issue ${ref} from epic &${a.iid}`, `removed issue ${ref}`]);
    const issueNotes = ((await (await w.as(reporter).get(`/projects/${project.id}/issues/${issue.iid}/notes`, { query: { sort: "asc" } })).json()) as Json[])
      .filter((n) => n.system)
      .map((n) => n.body);
    expect(issueNotes).toEqual([`added to epic &${a.iid}`, `changed epic to &${b.iid}`, `removed from epic &${b.iid}`]);
  });
});
