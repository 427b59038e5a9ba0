import { describe, expect, it } from "vitest";
import { world, type World } from "../helpers/world";
import type { Json } from "../helpers/api";
import { browser } from "./support";
import { signedIn } from "./signed_in";

async function apiIssue(w: World, projectId: number, json: Json) {
  const res = await w.root.post(`/projects/${projectId}/issues`, { json });
  expect(res.status).toBe(201);
  return (await res.json()) as Json & { iid: number; id: number };
}

describe("GET /:project/-/issues", () => {
  it("lists the open issues, the closed ones on their tab, for an anonymous visitor of a public project", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const open = await apiIssue(w, project.id, { title: "Open one" });
    const closed = await apiIssue(w, project.id, { title: "Closed one" });
    await w.root.put(`/projects/${project.id}/issues/${closed.iid}`, { json: { state_event: "close" } });
    const b = browser();
    const page = await b.get(`/${project.fullPath}/-/issues`);
    expect(page.status).toBe(200);
    expect(page.res.headers.get("content-type")).toMatch(/text\/html/);
    expect(page.html).toContain(`href="/${project.fullPath}/-/issues/${open.iid}"`);
    expect(page.html).not.toContain("Closed one");
    const closedTab = await b.get(`/${project.fullPath}/-/issues?state=closed`);
    expect(closedTab.html).toContain("Closed one");
    expect(closedTab.html).not.toContain("Open one");
  });

  it("pages by 20 with previous and next links", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    for (let i = 0; i < 21; i++) await w.issue(project, { title: `Issue number ${i}` });
    const b = browser();
    const first = await b.get(`/${project.fullPath}/-/issues`);
    expect(first.html.match(/class="ref">#/g)?.length).toBe(20);
    expect(first.html).toContain("Page 1 of 2");
    expect(first.html).toContain(`href="/${project.fullPath}/-/issues?page=2"`);
    const second = await b.get(`/${project.fullPath}/-/issues?page=2`);
    expect(second.html.match(/class="ref">#/g)?.length).toBe(1);
    expect(second.html).toContain('rel="prev"');
  });

  it("answers bad input with the 400 page", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const page = await browser().get(`/${project.fullPath}/-/issues?state=bogus`);
    expect(page.status).toBe(400);
    expect(page.html).toContain("Bad request");
  });

  it("hides a private project's issues from anonymous visitors and outsiders (404 page), not from members", async () => {
    const w = await world();
    const reporter = await w.user();
    const project = await w.project({ visibility: "private", reporters: [reporter] });
    await w.issue(project, { title: "Secret plans" });
    const anonymous = await browser().get(`/${project.fullPath}/-/issues`);
    expect(anonymous.status).toBe(404);
    expect(anonymous.html).toContain("404");
    expect(anonymous.html).not.toContain("Secret plans");
    const outsider = await (await signedIn(await w.user())).get(`/${project.fullPath}/-/issues`);
    expect(outsider.status).toBe(404);
    const member = await (await signedIn(reporter)).get(`/${project.fullPath}/-/issues`);
    expect(member.status).toBe(200);
    expect(member.html).toContain("Secret plans");
  });
});

describe("GET /:project/-/issues/:iid", () => {
  it("shows the description and notes rendered by the Markdown renderer, the labels, assignees and state", async () => {
    const w = await world();
    const assignee = await w.user();
    const project = await w.project({ visibility: "public", developers: [assignee] });
    const issue = await apiIssue(w, project.id, { title: "Render me", description: "Some **bold** text", labels: "bug,ui", assignee_ids: [assignee.id] });
    await w.root.post(`/projects/${project.id}/issues/${issue.iid}/notes`, { json: { body: "A _note_" } });
    const page = await browser().get(`/${project.fullPath}/-/issues/${issue.iid}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain("<strong>bold</strong>");
    expect(page.html).toContain("<em>note</em>");
    expect(page.html).toContain(">bug</li>");
    expect(page.html).toContain(">ui</li>");
    expect(page.html).toContain(`href="/${assignee.username}"`);
    expect(page.html).toContain("state-opened");
  });

  it("escapes an issue's title, description, note and author name (no script runs)", async () => {
    const w = await world();
    const author = await w.user({ name: `<img src=x onerror=alert(1)>` });
    const project = await w.project({ visibility: "public", developers: [author] });
    const xss = `<script>alert("x")</script>`;
    const res = await w.as(author).post(`/projects/${project.id}/issues`, { json: { title: xss, description: `${xss}<img src=x onerror=alert(2)>` } });
    const issue = (await res.json()) as Json & { iid: number };
    await w.as(author).post(`/projects/${project.id}/issues/${issue.iid}/notes`, { json: { body: `${xss} [x](javascript:alert(3))` } });
    const page = await browser().get(`/${project.fullPath}/-/issues/${issue.iid}`);
    expect(page.status).toBe(200);
    expect(page.html).not.toContain("<script>alert");
    expect(page.html).not.toMatch(/<[^>]*\sonerror=/i);
    expect(page.html).not.toMatch(/href="javascript:/i);
    expect(page.html).toContain("&lt;script&gt;alert");
  });

  it("answers 404 for a confidential issue the visitor may not read, and for a missing one", async () => {
    const w = await world();
    const guest = await w.user();
    const project = await w.project({ visibility: "public", guests: [guest] });
    const secret = await w.issue(project, { title: "Confidential thing", confidential: true });
    const b = await signedIn(guest);
    expect((await b.get(`/${project.fullPath}/-/issues/${secret.iid}`)).status).toBe(404);
    expect((await b.get(`/${project.fullPath}/-/issues/999999`)).status).toBe(404);
    expect((await browser().get(`/${project.fullPath}/-/issues/${secret.iid}`)).status).toBe(404);
  });
});

describe("POST /:project/-/issues", () => {
  it("creates the issue through the API's service and redirects to it; the API sees it", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ visibility: "private", developers: [dev] });
    const b = await signedIn(dev);
    const form = await b.get(`/${project.fullPath}/-/issues/new`);
    expect(form.status).toBe(200);
    const res = await b.post(`/${project.fullPath}/-/issues`, { "issue[title]": "From the web", "issue[description]": "Made by a **form**" });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/${project.fullPath}/-/issues/1`);
    const [issue] = (await (await w.as(dev).get(`/projects/${project.id}/issues`)).json()) as Json[];
    expect(issue).toMatchObject({ iid: 1, title: "From the web", description: "Made by a **form**", author: { username: dev.username } });
    const shown = await b.get(res.location!);
    expect(shown.html).toContain("<strong>form</strong>");
  });

  it("refuses a POST without its CSRF token (422) and writes nothing", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ visibility: "private", developers: [dev] });
    const b = await signedIn(dev);
    const res = await b.post(`/${project.fullPath}/-/issues`, { authenticity_token: null, "issue[title]": "Forged" });
    expect(res.status).toBe(422);
    expect(await (await w.as(dev).get(`/projects/${project.id}/issues`)).json()).toEqual([]);
  });

  it("sends an anonymous visitor to sign in, and answers 404 to a user who may not create issues", async () => {
    const w = await world();
    const project = await w.project({ visibility: "private" });
    const anonymous = browser();
    await anonymous.get("/users/sign_in");
    const res = await anonymous.post(`/${project.fullPath}/-/issues`, { "issue[title]": "x" });
    expect(res.status).toBe(303);
    expect(res.location).toMatch(/^\/users\/sign_in\?redirect_to=/);
    const outsider = await signedIn(await w.user());
    await outsider.get("/");
    expect((await outsider.post(`/${project.fullPath}/-/issues`, { "issue[title]": "x" })).status).toBe(404);
    expect(await (await w.root.get(`/projects/${project.id}/issues`)).json()).toEqual([]);
  });

  it("answers a missing title with the 400 page", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ visibility: "private", developers: [dev] });
    const b = await signedIn(dev);
    await b.get(`/${project.fullPath}/-/issues/new`);
    expect((await b.post(`/${project.fullPath}/-/issues`, { "issue[description]": "no title" })).status).toBe(400);
  });
});

describe("POST /:project/-/issues/:iid/notes", () => {
  it("adds a comment as the API does (the note, then the page shows it)", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ visibility: "private", developers: [dev] });
    const issue = await w.issue(project, { title: "Discuss" });
    const b = await signedIn(dev);
    await b.get(`/${project.fullPath}/-/issues/${issue.iid}`);
    const res = await b.post(`/${project.fullPath}/-/issues/${issue.iid}/notes`, { "note[note]": "I agree :thumbsup: with ~nothing" });
    expect(res.status).toBe(303);
    const [note] = (await (await w.as(dev).get(`/projects/${project.id}/issues/${issue.iid}/notes`)).json()) as Json[];
    expect(note).toMatchObject({ body: "I agree :thumbsup: with ~nothing", author: { username: dev.username }, system: false });
    expect(res.location).toBe(`/${project.fullPath}/-/issues/${issue.iid}#note_${note.id}`);
    expect((await b.get(`/${project.fullPath}/-/issues/${issue.iid}`)).html).toContain(`id="note_${note.id}"`);
  });

  it("refuses an empty comment (400) and a comment without the CSRF token (422)", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ visibility: "private", developers: [dev] });
    const issue = await w.issue(project);
    const b = await signedIn(dev);
    await b.get(`/${project.fullPath}/-/issues/${issue.iid}`);
    expect((await b.post(`/${project.fullPath}/-/issues/${issue.iid}/notes`, { "note[note]": "" })).status).toBe(400);
    expect((await b.post(`/${project.fullPath}/-/issues/${issue.iid}/notes`, { authenticity_token: null, "note[note]": "forged" })).status).toBe(422);
    expect(await (await w.as(dev).get(`/projects/${project.id}/issues/${issue.iid}/notes`)).json()).toEqual([]);
  });
});

describe("POST /:project/-/issues/:iid/close and /reopen", () => {
  it("closes and reopens through the API's update service, with its state events", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ visibility: "private", developers: [dev] });
    const issue = await w.issue(project);
    const b = await signedIn(dev);
    const shown = await b.get(`/${project.fullPath}/-/issues/${issue.iid}`);
    expect(shown.html).toContain("Close issue");
    expect((await b.post(`/${project.fullPath}/-/issues/${issue.iid}/close`)).status).toBe(303);
    expect(await (await w.as(dev).get(`/projects/${project.id}/issues/${issue.iid}`)).json()).toMatchObject({ state: "closed", closed_by: { username: dev.username } });
    const closed = await b.get(`/${project.fullPath}/-/issues/${issue.iid}`);
    expect(closed.html).toContain("Reopen issue");
    expect((await b.post(`/${project.fullPath}/-/issues/${issue.iid}/reopen`)).status).toBe(303);
    expect(await (await w.as(dev).get(`/projects/${project.id}/issues/${issue.iid}`)).json()).toMatchObject({ state: "opened" });
    const events = (await (await w.as(dev).get(`/projects/${project.id}/issues/${issue.iid}/resource_state_events`)).json()) as Json[];
    expect(events.map((e) => [e.state, (e.user as Json).username])).toEqual([
      ["closed", dev.username],
      ["reopened", dev.username],
    ]);
  });

  it("answers 404 to a guest who may not close the issue, and the issue stays open", async () => {
    const w = await world();
    const guest = await w.user();
    const project = await w.project({ visibility: "private", guests: [guest] });
    const issue = await w.issue(project);
    const b = await signedIn(guest);
    const shown = await b.get(`/${project.fullPath}/-/issues/${issue.iid}`);
    expect(shown.html).not.toContain("Close issue");
    expect((await b.post(`/${project.fullPath}/-/issues/${issue.iid}/close`)).status).toBe(404);
    expect(await (await w.root.get(`/projects/${project.id}/issues/${issue.iid}`)).json()).toMatchObject({ state: "opened" });
  });
});

describe("GET /:project/-/issues/:iid (statements)", () => {
  it("reads a fixed number of statements whatever the number of notes and issues (no N+1)", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const issue = await apiIssue(w, project.id, { title: "Counted", description: "See #1" });
    const count = async (path: string) => Number((await browser().get(path)).res.headers.get("x-query-count"));
    // One note with a reference first: the notes' references resolve in one statement per kind, for all notes.
    await w.root.post(`/projects/${project.id}/issues/${issue.iid}/notes`, { json: { body: `First for #${issue.iid}` } });
    const before = [await count(`/${project.fullPath}/-/issues/${issue.iid}`), await count(`/${project.fullPath}/-/issues`)];
    for (let i = 0; i < 5; i++) {
      await w.root.post(`/projects/${project.id}/issues/${issue.iid}/notes`, { json: { body: `Note ${i} for #${issue.iid}` } });
      await w.issue(project, { title: `More ${i}` });
    }
    const after = [await count(`/${project.fullPath}/-/issues/${issue.iid}`), await count(`/${project.fullPath}/-/issues`)];
    expect(before[0]).toBeGreaterThan(0);
    expect(after).toEqual(before);
  });
});
