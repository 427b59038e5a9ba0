import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { awardsOf, expectFlat, HEX40, issue, issueRow, note, noteRows, todosOf, type Json } from "../helpers/noteables";

const NOTE_KEYS = [
  "id", "type", "body", "attachment", "author", "created_at", "updated_at", "system", "noteable_id", "noteable_type",
  "resolvable", "confidential", "internal", "noteable_iid", "commands_changes",
];

const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000);

describe("GET /projects/:id/issues/:issue_iid/notes", () => {
  it("lists the notes, newest first by default, with the note entity and pagination headers", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const i = await issue(w, project);
    const old = await note(w, "Issue", i.id, project.id, { author: dev, body: "old", createdAt: ago(30), updatedAt: ago(1) });
    const mid = await note(w, "Issue", i.id, project.id, { author: dev, body: "mid", createdAt: ago(20), updatedAt: ago(25) });
    const sys = await note(w, "Issue", i.id, project.id, { author: dev, body: "changed the description", system: true, createdAt: ago(10) });
    const res = await w.as(dev).get(`/projects/${project.id}/issues/${i.iid}/notes`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.map((n) => n.id)).toEqual([sys.id, mid.id, old.id]);
    expect(Object.keys(body[1])).toEqual(NOTE_KEYS);
    expect(body[1]).toMatchObject({
      id: mid.id,
      type: null,
      body: "mid",
      attachment: null,
      author: { id: dev.id, username: dev.username, name: dev.name, state: "active", web_url: `http://edgeforge.test/${dev.username}` },
      created_at: mid.createdAt.toISOString(),
      system: false,
      noteable_id: i.id,
      noteable_type: "Issue",
      resolvable: false,
      confidential: false,
      internal: false,
      noteable_iid: i.iid,
      commands_changes: {},
    });
    expect(body[0].system).toBe(true);
    expect(res.headers.get("x-total")).toBe("3");
    expect(res.headers.get("x-page")).toBe("1");
    expect(res.headers.get("x-per-page")).toBe("20");
    const path = `/projects/${project.id}/issues/${i.iid}/notes`;
    const asc = (await (await w.as(dev).get(path, { query: { sort: "asc" } })).json()) as Json[];
    expect(asc.map((n) => n.id)).toEqual([old.id, mid.id, sys.id]);
    const byUpdate = (await (await w.as(dev).get(path, { query: { order_by: "updated_at" } })).json()) as Json[];
    expect(byUpdate.map((n) => n.id)).toEqual([old.id, sys.id, mid.id]);
    const comments = (await (await w.as(dev).get(path, { query: { activity_filter: "only_comments" } })).json()) as Json[];
    expect(comments.map((n) => n.id)).toEqual([mid.id, old.id]);
    const activity = (await (await w.as(dev).get(path, { query: { activity_filter: "only_activity" } })).json()) as Json[];
    expect(activity.map((n) => n.id)).toEqual([sys.id]);
  });

  it("paginates with Link headers and a flat statement count", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const i = await issue(w, project);
    for (let k = 0; k < 3; k++) await note(w, "Issue", i.id, project.id, { author: dev, createdAt: ago(10 - k) });
    const path = `/projects/${project.id}/issues/${i.iid}/notes`;
    const res = await w.as(dev).get(path, { query: { per_page: 2, page: 2 } });
    expect(((await res.json()) as Json[]).length).toBe(1);
    expect(res.headers.get("x-total")).toBe("3");
    expect(res.headers.get("x-total-pages")).toBe("2");
    expect(res.headers.get("x-prev-page")).toBe("1");
    expect(res.headers.get("x-next-page")).toBe("");
    expect(res.headers.get("link")).toContain('rel="first"');
    await expectFlat(w, dev, path);
  });

  it("hides confidential notes from guests and shows them to reporters", async () => {
    const w = await world();
    const guest = await w.user();
    const reporter = await w.user();
    const project = await w.project({ guests: [guest], reporters: [reporter] });
    const i = await issue(w, project);
    const open = await note(w, "Issue", i.id, project.id, { author: reporter, createdAt: ago(2) });
    const secret = await note(w, "Issue", i.id, project.id, { author: reporter, confidential: true, createdAt: ago(1) });
    const path = `/projects/${project.id}/issues/${i.iid}/notes`;
    const asGuest = await w.as(guest).get(path);
    expect(((await asGuest.json()) as Json[]).map((n) => n.id)).toEqual([open.id]);
    expect(asGuest.headers.get("x-total")).toBe("1");
    const asReporter = (await (await w.as(reporter).get(path)).json()) as Json[];
    expect(asReporter.map((n) => [n.id, n.confidential, n.internal])).toEqual([[secret.id, true, true], [open.id, false, false]]);
  });

  it("answers 404 Not found for a missing issue and a confidential issue the caller may not read", async () => {
    const w = await world();
    const guest = await w.user();
    const project = await w.project({ visibility: "public", guests: [guest] });
    const secret = await issue(w, project, { confidential: true });
    expect(await statusAndBody(await w.as(guest).get(`/projects/${project.id}/issues/${secret.iid}/notes`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(guest).get(`/projects/${project.id}/issues/999999/notes`))).toEqual([404, { message: "404 Not found" }]);
    // The confidential issue's author reads it.
    const author = await w.user();
    const own = await issue(w, project, { confidential: true, author });
    expect((await w.as(author).get(`/projects/${project.id}/issues/${own.iid}/notes`)).status).toBe(200);
  });

  it("answers 400 for bad parameters", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const i = await issue(w, project);
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${project.id}/issues/${i.iid}/notes`, { query: { sort: "up", order_by: "id" } }))).toEqual([
      400,
      { error: "order_by does not have a valid value, sort does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${project.id}/issues/abc/notes`))).toEqual([400, { error: "noteable_id is invalid" }]);
  });

  requiresAuthentication((w) => w.anonymous.get(`/projects/1/issues/1/notes`));
  hidesPrivateProject(async (w, project) => {
    const i = await issue(w, project);
    return w.as(w.stranger).get(`/projects/${project.id}/issues/${i.iid}/notes`);
  });
});

describe("GET /projects/:id/issues/:issue_iid/notes/:note_id", () => {
  it("returns one note", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const i = await issue(w, project);
    const n = await note(w, "Issue", i.id, project.id, { author: w.stranger, body: "hello" });
    const res = await w.as(w.stranger).get(`/projects/${project.id}/issues/${i.iid}/notes/${n.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: n.id, body: "hello", noteable_iid: i.iid, author: { id: w.stranger.id } });
  });

  it("answers 404 Not found for a missing note or another issue's, 404 Note Not Found for a confidential one", async () => {
    const w = await world();
    const guest = await w.user();
    const project = await w.project({ guests: [guest] });
    const i = await issue(w, project);
    const other = await issue(w, project);
    const elsewhere = await note(w, "Issue", other.id, project.id, { author: guest });
    const secret = await note(w, "Issue", i.id, project.id, { author: w.stranger, confidential: true });
    const base = `/projects/${project.id}/issues/${i.iid}/notes`;
    expect(await statusAndBody(await w.as(guest).get(`${base}/${elsewhere.id}`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(guest).get(`${base}/99999999`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(guest).get(`${base}/${secret.id}`))).toEqual([404, { message: "404 Note Not Found" }]);
    expect(await statusAndBody(await w.as(guest).get(`${base}/x`))).toEqual([400, { error: "note_id is invalid" }]);
  });
});

describe("POST /projects/:id/issues/:issue_iid/notes", () => {
  it("creates a note in its own discussion, counts it on the issue and touches the issue", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const i = await issue(w, project);
    const before = await issueRow(w, i.id);
    const res = await w.as(dev).post(`/projects/${project.id}/issues/${i.iid}/notes`, { json: { body: "First!" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(Object.keys(body)).toEqual(NOTE_KEYS);
    expect(body).toMatchObject({ body: "First!", type: null, system: false, noteable_type: "Issue", noteable_id: i.id, noteable_iid: i.iid, author: { id: dev.id }, confidential: false });
    const [row] = await noteRows(w, "Issue", i.id);
    expect(row).toMatchObject({ id: body.id, note: "First!", authorId: dev.id, projectId: project.id, type: null, system: false });
    expect(row.discussionId).toMatch(HEX40);
    const after = await issueRow(w, i.id);
    expect(after.userNotesCount).toBe(before.userNotesCount + 1);
    expect(after.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
    const second = (await (await w.as(dev).post(`/projects/${project.id}/issues/${i.iid}/notes`, { form: { body: "Second" } })).json()) as Json;
    const rows = await noteRows(w, "Issue", i.id);
    expect(rows.map((r) => r.id)).toEqual([body.id, second.id]);
    expect(rows[0].discussionId).not.toBe(rows[1].discussionId);
  });

  it("answers GitLab's 400s for a missing, blank or too long body", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const i = await issue(w, project);
    const path = `/projects/${project.id}/issues/${i.iid}/notes`;
    expect(await statusAndBody(await w.as(dev).post(path, { json: {} }))).toEqual([400, { error: "body is missing" }]);
    expect(await statusAndBody(await w.as(dev).post(path, { json: { body: "  " } }))).toEqual([
      400,
      { message: `400 Bad request - Note {:note=>["can't be blank"]}` },
    ]);
    expect(await statusAndBody(await w.as(dev).post(path, { json: { body: "x".repeat(1_000_001) } }))).toEqual([
      400,
      { message: `400 Bad request - Note {:note=>["is too long (maximum is 1000000 characters)"]}` },
    ]);
    expect(await noteRows(w, "Issue", i.id)).toEqual([]);
    const max = await w.as(dev).post(path, { json: { body: "y".repeat(1_000_000) } });
    expect(max.status).toBe(201);
  });

  it("makes a note confidential only for who may read confidential notes", async () => {
    const w = await world();
    const guest = await w.user();
    const reporter = await w.user();
    const project = await w.project({ guests: [guest], reporters: [reporter] });
    const i = await issue(w, project);
    const path = `/projects/${project.id}/issues/${i.iid}/notes`;
    const byReporter = (await (await w.as(reporter).post(path, { json: { body: "secret", confidential: true } })).json()) as Json;
    expect([byReporter.confidential, byReporter.internal]).toEqual([true, true]);
    const byInternal = (await (await w.as(reporter).post(path, { json: { body: "secret 2", internal: true } })).json()) as Json;
    expect(byInternal.confidential).toBe(true);
    const byGuest = (await (await w.as(guest).post(path, { json: { body: "not secret", confidential: true } })).json()) as Json;
    expect(byGuest.confidential).toBe(false);
  });

  it("sets created_at for admins and owners only", async () => {
    const w = await world();
    const owner = await w.user();
    const dev = await w.user();
    const admin = await w.user({ admin: true });
    const project = await w.project({ owner, developers: [dev] });
    const i = await issue(w, project);
    const path = `/projects/${project.id}/issues/${i.iid}/notes`;
    const when = "2020-01-02T03:04:05.000Z";
    for (const user of [owner, admin]) {
      const body = (await (await w.as(user).post(path, { json: { body: "back then", created_at: when } })).json()) as Json;
      expect([body.created_at, body.updated_at]).toEqual([when, when]);
    }
    const byDev = (await (await w.as(dev).post(path, { json: { body: "now", created_at: when } })).json()) as Json;
    expect(byDev.created_at).not.toBe(when);
  });

  it("awards the emoji instead when the body is only an award emoji", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const i = await issue(w, project);
    const path = `/projects/${project.id}/issues/${i.iid}/notes`;
    const res = await w.as(dev).post(path, { json: { body: ":+1:" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(Object.keys(body)).toEqual(["id", "name", "user", "created_at", "updated_at", "awardable_id", "awardable_type"]);
    expect(body).toMatchObject({ name: "thumbsup", awardable_id: i.id, awardable_type: "Issue", user: { id: dev.id } });
    expect(await noteRows(w, "Issue", i.id)).toEqual([]);
    expect((await awardsOf(w, "Issue", i.id)).map((a) => [a.id, a.name, a.userId])).toEqual([[body.id, "thumbsup", dev.id]]);
    expect((await issueRow(w, i.id)).upvotes).toBe(1);
    expect(await statusAndBody(await w.as(dev).post(path, { json: { body: ":thumbsup:" } }))).toEqual([
      404,
      { message: `404 Note {:name=>["has already been taken"]} Not Found` },
    ]);
    // Text around the emoji, or an unknown emoji name, is a plain note.
    expect(((await (await w.as(dev).post(path, { json: { body: ":thumbsup: yes" } })).json()) as Json).body).toBe(":thumbsup: yes");
    expect(((await (await w.as(dev).post(path, { json: { body: ":not_an_emoji_x:" } })).json()) as Json).body).toBe(":not_an_emoji_x:");
  });

  it("runs the /award quick action: 202 for a body of commands only, toggling the award", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const i = await issue(w, project);
    const path = `/projects/${project.id}/issues/${i.iid}/notes`;
    expect(await statusAndBody(await w.as(dev).post(path, { json: { body: "/award :+1:" } }))).toEqual([
      202,
      { commands_changes: { emoji_award: "+1" }, summary: ["Toggled :+1: emoji award."] },
    ]);
    expect((await awardsOf(w, "Issue", i.id)).map((a) => a.name)).toEqual(["thumbsup"]);
    expect((await issueRow(w, i.id)).upvotes).toBe(1);
    // With other text, the note is saved without the command line and shows the change.
    const mixed = await w.as(dev).post(path, { json: { body: "Agreed.\n/award :thumbsup:" } });
    expect(mixed.status).toBe(201);
    expect(await mixed.json()).toMatchObject({ body: "Agreed.", commands_changes: { emoji_award: "thumbsup" } });
    expect(await awardsOf(w, "Issue", i.id)).toEqual([]);
    expect((await issueRow(w, i.id)).upvotes).toBe(0);
    expect(await statusAndBody(await w.as(dev).post(path, { json: { body: "/award :nope_nope:" } }))).toEqual([
      400,
      { message: `400 Bad request - Note {:commands_only=>["Failed to apply commands."], :commands=>["Failed to apply commands."]}` },
    ]);
    expect((await noteRows(w, "Issue", i.id)).map((r) => r.note)).toEqual(["Agreed."]);
  });

  it("creates mention and direct-address to-dos for users who may read the issue", async () => {
    const w = await world();
    const dev = await w.user();
    const addressed = await w.user();
    const mentioned = await w.user();
    const outsider = await w.user();
    const project = await w.project({ developers: [dev], guests: [addressed, mentioned] });
    const i = await issue(w, project);
    const res = await w.as(dev).post(`/projects/${project.id}/issues/${i.iid}/notes`, {
      json: { body: `@${addressed.username} please ask @${mentioned.username} and @${outsider.username}` },
    });
    const created = (await res.json()) as Json;
    const [direct] = await todosOf(w, addressed.id, "Issue", i.id);
    expect(direct).toMatchObject({ action: 7, noteId: created.id, authorId: dev.id, projectId: project.id, state: "pending" });
    const [mention] = await todosOf(w, mentioned.id, "Issue", i.id);
    expect(mention).toMatchObject({ action: 2, noteId: created.id });
    expect(await todosOf(w, outsider.id, "Issue", i.id)).toEqual([]);
    // A second mention while the to-do is pending adds none (one pending to-do per user and target).
    await w.as(dev).post(`/projects/${project.id}/issues/${i.iid}/notes`, { json: { body: `again @${mentioned.username}` } });
    expect((await todosOf(w, mentioned.id, "Issue", i.id)).length).toBe(1);
    // Commenting finishes the author's own pending to-dos on the issue.
    await w.as(mentioned).post(`/projects/${project.id}/issues/${i.iid}/notes`, { json: { body: "done" } });
    expect((await todosOf(w, mentioned.id, "Issue", i.id)).map((t) => t.state)).toEqual(["done"]);
  });

  it("refuses comments on locked discussions to non-members and on archived projects", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ visibility: "public", developers: [dev] });
    const locked = await issue(w, project, { locked: true });
    const path = `/projects/${project.id}/issues/${locked.iid}/notes`;
    expect(await statusAndBody(await w.as(w.stranger).post(path, { json: { body: "hi" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await w.as(dev).post(path, { json: { body: "hi" } })).status).toBe(201);
    const archived = await w.project({ archived: true, developers: [dev] });
    const j = await issue(w, archived);
    expect(await statusAndBody(await w.as(dev).post(`/projects/${archived.id}/issues/${j.iid}/notes`, { json: { body: "hi" } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
    // On a public project, anyone signed in may comment.
    const open = await issue(w, project);
    expect((await w.as(w.stranger).post(`/projects/${project.id}/issues/${open.iid}/notes`, { json: { body: "hi" } })).status).toBe(201);
  });

  it("is rate limited per user (notes_create_limit) with GitLab's 429", async () => {
    const w = await world();
    const user = await w.user();
    const project = await w.project({ developers: [user] });
    const i = await issue(w, project);
    const path = `/projects/${project.id}/issues/${i.iid}/notes`;
    // The global limit stays at its default (300): other test files create notes in parallel. This
    // user's counters of the current and the next one-minute window start at 298, so the third note
    // of the window is refused whichever minute the requests land in.
    const key = `notes_create:${user.id}`;
    await w.db((db) =>
      db.execute(sql`INSERT INTO application_rate_limits (key, window_start, count) VALUES
        (${key}, date_trunc('minute', now()), 298), (${key}, date_trunc('minute', now()) + interval '1 minute', 298)`),
    );
    const first = await w.as(user).post(path, { json: { body: "n1" } });
    const second = await w.as(user).post(path, { json: { body: "n2" } });
    const limited = await w.as(user).post(path, { json: { body: "too many" } });
    const created = [first.status, second.status].filter((status) => status === 201).length;
    // Two notes fit in a window; a minute boundary between requests can only let fewer through.
    expect(created).toBeGreaterThanOrEqual(1);
    expect(await statusAndBody(limited)).toEqual([429, { message: { error: "This endpoint has been requested too many times. Try again later." } }]);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await noteRows(w, "Issue", i.id)).length).toBe(created);
    await w.db((db) => db.execute(sql`DELETE FROM application_rate_limits WHERE key = ${key}`));
  });

  requiresAuthentication((w) => w.anonymous.post(`/projects/1/issues/1/notes`, { json: { body: "x" } }));
  hidesPrivateProject(async (w, project) => {
    const i = await issue(w, project);
    return w.as(w.stranger).post(`/projects/${project.id}/issues/${i.iid}/notes`, { json: { body: "x" } });
  });
});

describe("PUT /projects/:id/issues/:issue_iid/notes/:note_id", () => {
  it("lets the author and maintainers change the body, and only them", async () => {
    const w = await world();
    const author = await w.user();
    const other = await w.user();
    const maintainer = await w.user();
    const project = await w.project({ developers: [author, other], maintainers: [maintainer] });
    const i = await issue(w, project);
    const n = await note(w, "Issue", i.id, project.id, { author, body: "before", createdAt: ago(5) });
    const path = `/projects/${project.id}/issues/${i.iid}/notes/${n.id}`;
    const res = await w.as(author).put(path, { json: { body: "after" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ id: n.id, body: "after", author: { id: author.id } });
    expect(Date.parse(body.updated_at)).toBeGreaterThan(n.updatedAt.getTime());
    const [row] = await noteRows(w, "Issue", i.id);
    expect([row.note, row.updatedById]).toEqual(["after", author.id]);
    expect(await statusAndBody(await w.as(other).put(path, { json: { body: "mine" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(((await (await w.as(maintainer).put(path, { json: { body: "moderated" } })).json()) as Json).body).toBe("moderated");
  });

  it("takes body as optional on issues, never blank, and never changes confidentiality", async () => {
    const w = await world();
    const author = await w.user();
    const project = await w.project({ reporters: [author] });
    const i = await issue(w, project);
    const n = await note(w, "Issue", i.id, project.id, { author, body: "same" });
    const path = `/projects/${project.id}/issues/${i.iid}/notes/${n.id}`;
    expect(await statusAndBody(await w.as(author).put(path))).toEqual([200, expect.objectContaining({ id: n.id, body: "same" })]);
    expect(await statusAndBody(await w.as(author).put(path, { json: { body: " " } }))).toEqual([400, { error: "body is empty" }]);
    expect(await statusAndBody(await w.as(author).put(path, { json: { body: "z".repeat(1_000_001) } }))).toEqual([
      400,
      { message: `400 Bad request - Note {:note=>["is too long (maximum is 1000000 characters)"]}` },
    ]);
    expect(await statusAndBody(await w.as(author).put(path, { json: { body: "x", confidential: true } }))).toEqual([
      400,
      { message: `400 Bad request - Note {:confidential=>["can not be changed for existing notes"]}` },
    ]);
    expect((await noteRows(w, "Issue", i.id))[0].note).toBe("same");
  });

  it("refuses system notes and answers 404 Not found for a missing note", async () => {
    const w = await world();
    const author = await w.user();
    const project = await w.project({ maintainers: [author] });
    const i = await issue(w, project);
    const sys = await note(w, "Issue", i.id, project.id, { author, system: true });
    const base = `/projects/${project.id}/issues/${i.iid}/notes`;
    expect(await statusAndBody(await w.as(author).put(`${base}/${sys.id}`, { json: { body: "x" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(author).put(`${base}/99999999`, { json: { body: "x" } }))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("DELETE /projects/:id/issues/:issue_iid/notes/:note_id", () => {
  it("deletes the note with its award emoji and uncounts it; 404 afterwards", async () => {
    const w = await world();
    const author = await w.user();
    const project = await w.project({ developers: [author] });
    const i = await issue(w, project);
    const created = (await (await w.as(author).post(`/projects/${project.id}/issues/${i.iid}/notes`, { json: { body: "bye" } })).json()) as Json;
    const path = `/projects/${project.id}/issues/${i.iid}/notes/${created.id}`;
    await w.as(author).post(`${path}/award_emoji`, { json: { name: "tada" } });
    expect((await issueRow(w, i.id)).userNotesCount).toBe(1);
    const res = await w.as(author).delete(path);
    expect(await statusAndBody(res)).toEqual([204, ""]);
    expect(await noteRows(w, "Issue", i.id)).toEqual([]);
    expect(await awardsOf(w, "Note", created.id)).toEqual([]);
    expect((await issueRow(w, i.id)).userNotesCount).toBe(0);
    expect(await statusAndBody(await w.as(author).delete(path))).toEqual([404, { message: "404 Not found" }]);
  });

  it("lets maintainers delete others' notes and refuses other members", async () => {
    const w = await world();
    const author = await w.user();
    const dev = await w.user();
    const maintainer = await w.user();
    const project = await w.project({ developers: [author, dev], maintainers: [maintainer] });
    const i = await issue(w, project);
    const n = await note(w, "Issue", i.id, project.id, { author });
    const path = `/projects/${project.id}/issues/${i.iid}/notes/${n.id}`;
    expect(await statusAndBody(await w.as(dev).delete(path))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await w.as(maintainer).delete(path)).status).toBe(204);
  });

  forbidsRoles(["guest", "reporter"], async (w, project, user) => {
    const i = await issue(w, project);
    const n = await note(w, "Issue", i.id, project.id, { author: { id: 1 } });
    return w.as(user).delete(`/projects/${project.id}/issues/${i.iid}/notes/${n.id}`);
  });
});
