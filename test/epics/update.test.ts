import { asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { resourceStateEvents } from "../../db/schema";
import { titleNote } from "../../functions/shared/issuables/system_notes";
import { statusAndBody } from "../helpers/client";
import { world, type TestGroup, type TestUser, type World } from "../helpers/world";

type Json = Record<string, any>;

let w: World;
let reporter: TestUser;
let owner: TestUser;
let guest: TestUser;
let group: TestGroup;

beforeAll(async () => {
  w = await world();
  [reporter, owner, guest] = [await w.user(), await w.user(), await w.user()];
  group = await w.group({ reporters: [reporter], owners: [owner], guests: [guest] });
});

async function newEpic(title: string, extra: Json = {}): Promise<Json> {
  const res = await w.as(reporter).post(`/groups/${group.id}/epics`, { json: { title, ...extra } });
  expect(res.status).toBe(201);
  return (await res.json()) as Json;
}
const path = (e: Json) => `/groups/${group.id}/epics/${e.iid}`;

describe("PUT /groups/:id/epics/:epic_iid", () => {
  it("changes title, description and fixed dates", async () => {
    const e = await newEpic("before");
    const res = await w.as(reporter).put(path(e), {
      json: { title: " after ", description: "new", start_date_fixed: "2026-01-05", start_date_is_fixed: true, due_date_fixed: "2026-02-30" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      title: "after",
      description: "new",
      start_date: "2026-01-05",
      start_date_fixed: "2026-01-05",
      start_date_is_fixed: true,
      due_date: null, // not fixed, and no milestone dates here
      due_date_fixed: null, // 2026-02-30 is no date: Rails casts it to nil
      due_date_is_fixed: false,
    });
    const fixed = (await (await w.as(reporter).put(path(e), { form: { end_date: "2026-03-01", due_date_is_fixed: "true" } })).json()) as Json;
    expect(fixed).toMatchObject({ due_date: "2026-03-01", end_date: "2026-03-01", due_date_fixed: "2026-03-01" });
  });

  it("closes and reopens with closed_at", async () => {
    const e = await newEpic("stateful");
    const closed = (await (await w.as(reporter).put(path(e), { json: { state_event: "close" } })).json()) as Json;
    expect(closed.state).toBe("closed");
    expect(closed.closed_at).not.toBeNull();
    const reopened = (await (await w.as(reporter).put(path(e), { json: { state_event: "reopen" } })).json()) as Json;
    expect(reopened).toMatchObject({ state: "opened", closed_at: null });
  });

  it("records a resource state event for each close and reopen, none for a no-op, and no note row", async () => {
    const e = await newEpic("evented");
    const events = () =>
      w.db((db) =>
        db.select({ state: resourceStateEvents.state, userId: resourceStateEvents.userId, issueId: resourceStateEvents.issueId }).from(resourceStateEvents).where(eq(resourceStateEvents.epicId, e.id)).orderBy(asc(resourceStateEvents.id)),
      );
    expect((await w.as(reporter).put(path(e), { json: { state_event: "close" } })).status).toBe(200);
    // Closing a closed epic, reopening an open one: no transition, no event (Epic's state machine).
    expect((await w.as(reporter).put(path(e), { json: { state_event: "close" } })).status).toBe(200);
    expect((await w.as(owner).put(path(e), { json: { state_event: "reopen" } })).status).toBe(200);
    expect((await w.as(owner).put(path(e), { json: { state_event: "reopen" } })).status).toBe(200);
    expect(await events()).toEqual([
      { state: "closed", userId: reporter.id, issueId: null },
      { state: "reopened", userId: owner.id, issueId: null },
    ]);
    // GitLab 15.4's change_status writes the event only; the notes API lists no "closed"/"opened" note.
    const notes = (await (await w.as(reporter).get(`/groups/${group.id}/epics/${e.id}/notes`)).json()) as Json[];
    expect(notes.map((n) => n.body)).toEqual([]);
    // A title change together with a close: the title note and the state event, in one write.
    expect((await w.as(reporter).put(path(e), { json: { state_event: "close", title: "evented, closed" } })).status).toBe(200);
    expect((await events()).map((ev) => ev.state)).toEqual(["closed", "reopened", "closed"]);
    const after = (await (await w.as(reporter).get(`/groups/${group.id}/epics/${e.id}/notes`)).json()) as Json[];
    expect(after.map((n) => n.body)).toEqual([titleNote("evented", "evented, closed")]);
  });

  it("lets no guest close an epic (403) and writes no event then", async () => {
    const e = await newEpic("guarded");
    expect(await statusAndBody(await w.as(guest).put(path(e), { json: { state_event: "close" } }))).toEqual([403, { message: "403 Forbidden" }]);
    const rows = await w.db((db) => db.select().from(resourceStateEvents).where(eq(resourceStateEvents.epicId, e.id)));
    expect(rows).toEqual([]);
  });

  it("sets a parent through parent_id, with Epic#validate_parent's rules as a 400", async () => {
    const parent = await newEpic("new parent");
    const child = await newEpic("new child");
    const res = await w.as(reporter).put(path(child), { json: { parent_id: parent.id } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ parent_id: parent.id, parent_iid: parent.iid });
    expect(await statusAndBody(await w.as(reporter).put(path(parent), { json: { parent_id: child.id } }))).toEqual([
      400,
      { message: { parent: ["This epic cannot be added. It is already an ancestor of the parent epic."] } },
    ]);
    expect(await statusAndBody(await w.as(reporter).put(path(child), { json: { parent_id: 99999999 } }))).toEqual([404, { message: "404 Not found" }]);
  });

  it("keeps confidentiality consistent along the tree", async () => {
    const parent = await newEpic("open parent");
    await w.as(reporter).post(`/groups/${group.id}/epics/${parent.iid}/epics`, { json: { title: "open child" } });
    expect(await statusAndBody(await w.as(reporter).put(path(parent), { json: { confidential: true } }))).toEqual([
      400,
      { message: { confidential: ["Cannot make the epic confidential if it contains non-confidential child epics"] } },
    ]);
    const secret = await newEpic("secret parent", { confidential: true });
    const inner = (await (await w.as(reporter).post(`/groups/${group.id}/epics/${secret.iid}/epics`, { json: { title: "inner" } })).json()) as Json;
    expect(await statusAndBody(await w.as(reporter).put(path(inner), { json: { confidential: false } }))).toEqual([
      400,
      { message: { confidential: ["A non-confidential epic cannot be assigned to a confidential parent epic"] } },
    ]);
  });

  it("lets owners set updated_at; others' updated_at is ignored", async () => {
    const e = await newEpic("timestamps");
    const asOwner = (await (await w.as(owner).put(path(e), { json: { title: "t1", updated_at: "2020-01-02T03:04:05Z" } })).json()) as Json;
    expect(asOwner.updated_at).toBe("2020-01-02T03:04:05.000Z");
    const asReporter = (await (await w.as(reporter).put(path(e), { json: { title: "t2", updated_at: "2020-01-02T03:04:05Z" } })).json()) as Json;
    expect(asReporter.updated_at).not.toBe("2020-01-02T03:04:05.000Z");
  });

  it("answers GitLab's 400, 401, 403 and 404", async () => {
    const e = await newEpic("guarded");
    expect(await statusAndBody(await w.as(reporter).put(path(e), { json: {} }))).toEqual([
      400,
      {
        error:
          "add_labels, color, confidential, description, due_date_fixed, due_date_is_fixed, labels, parent_id, remove_labels, start_date_fixed, start_date_is_fixed, state_event, title are missing, at least one parameter must be provided",
      },
    ]);
    expect(await statusAndBody(await w.as(reporter).put(path(e), { json: { state_event: "merge" } }))).toEqual([400, { error: "state_event does not have a valid value" }]);
    expect(await statusAndBody(await w.as(reporter).put(path(e), { json: { title: "" } }))).toEqual([400, { message: { title: ["can't be blank"] } }]);
    expect((await w.anonymous.put(path(e), { json: { title: "x" } })).status).toBe(401);
    expect(await statusAndBody(await w.as(guest).put(path(e), { json: { title: "x" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).put(path(e), { json: { title: "x" } }))).toEqual([404, { message: "404 Group Not Found" }]);
    expect(await statusAndBody(await w.as(reporter).put(`/groups/${group.id}/epics/99999`, { json: { title: "x" } }))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("DELETE /groups/:id/epics/:epic_iid", () => {
  it("lets owners delete an epic, its child epics with it", async () => {
    const parent = await newEpic("doomed");
    const child = (await (await w.as(reporter).post(`/groups/${group.id}/epics/${parent.iid}/epics`, { json: { title: "doomed child" } })).json()) as Json;
    expect(await statusAndBody(await w.as(reporter).delete(path(parent)))).toEqual([403, { message: "403 Forbidden" }]);
    const res = await w.as(owner).delete(path(parent));
    expect(res.status).toBe(204);
    expect((await w.as(owner).get(path(parent))).status).toBe(403); // gone: GitLab's 403 for a missing epic
    expect((await w.as(owner).get(`/groups/${group.id}/epics/${child.iid}`)).status).toBe(403);
    expect((await w.anonymous.delete(path(parent))).status).toBe(401);
  });
});
