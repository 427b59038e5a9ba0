import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";

// Public URLs only: whether local addresses are accepted depends on an instance setting, which
// test/hooks/delivery.test.ts alone changes.
const URL_A = "https://hooks.example.com/a";
const URL_B = "https://hooks.example.com/b";

async function setup() {
  const w = await world();
  const maintainer = await w.user();
  const developer = await w.user();
  const project = await w.project({ maintainers: [maintainer], developers: [developer] });
  return { w, maintainer, developer, project };
}

describe("POST /projects/:id/hooks", () => {
  it("creates a hook with GitLab's defaults and never returns the token", async () => {
    const { w, maintainer, project } = await setup();
    const res = await w.as(maintainer).post(`/projects/${project.id}/hooks`, { json: { url: URL_A, token: "s3cret", issues_events: true } });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body).toEqual({
      id: expect.any(Number),
      url: URL_A,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
      push_events: true,
      tag_push_events: false,
      merge_requests_events: false,
      repository_update_events: false,
      enable_ssl_verification: true,
      alert_status: "executable",
      disabled_until: null,
      project_id: project.id,
      issues_events: true,
      confidential_issues_events: false,
      note_events: false,
      confidential_note_events: false,
      pipeline_events: false,
      wiki_page_events: false,
      deployment_events: false,
      job_events: false,
      releases_events: false,
      push_events_branch_filter: null,
    });
  });

  it("answers 400 without url and 422 for a bad url or branch filter", async () => {
    const { w, maintainer, project } = await setup();
    const post = (json: unknown) => w.as(maintainer).post(`/projects/${project.id}/hooks`, { json });
    expect(await statusAndBody(await post({ push_events: true }))).toEqual([400, { error: "url is missing" }]);
    expect(await statusAndBody(await post({ url: URL_A, push_events: "maybe" }))).toEqual([400, { error: "push_events is invalid" }]);
    expect(await statusAndBody(await post({ url: "ftp://hooks.example.com" }))).toEqual([422, { message: "Invalid url given" }]);
    expect(await statusAndBody(await post({ url: "not a url" }))).toEqual([422, { message: "Invalid url given" }]);
    expect(await statusAndBody(await post({ url: URL_A, push_events_branch_filter: "a b~" }))).toEqual([422, { message: "Invalid branch filter given" }]);
  });

  it("refuses loopback, private, link-local and shared addresses in any spelling (local requests are off by default)", async () => {
    const { w, maintainer, project } = await setup();
    for (const url of [
      "http://127.0.0.1/x",
      "http://localhost:8080/",
      "http://2130706433/",
      "http://0x7f.1/",
      "http://[::1]/",
      "http://[::ffff:10.0.0.1]/",
      "http://10.1.2.3/",
      "http://192.168.0.10/",
      "http://172.16.5.4/",
      "http://169.254.169.254/latest/meta-data",
      "http://100.64.0.1/",
      "http://0.0.0.0/",
      "http://metadata.google.internal/",
    ]) {
      const res = await w.as(maintainer).post(`/projects/${project.id}/hooks`, { json: { url } });
      expect([url, ...(await statusAndBody(res))]).toEqual([url, 422, { message: "Invalid url given" }]);
    }
  });

  requiresAuthentication((w) => w.anonymous.post(`/projects/1/hooks`, { json: { url: URL_A } }));
  forbidsRoles(["developer"], (w, p, user) => w.as(user).post(`/projects/${p.id}/hooks`, { json: { url: URL_A } }));
  hidesPrivateProject((w, p) => w.as(w.stranger).post(`/projects/${p.id}/hooks`, { json: { url: URL_A } }));
});

describe("GET /projects/:id/hooks", () => {
  it("lists the project's hooks by id, paginated, in a flat number of statements", async () => {
    const { w, maintainer, project } = await setup();
    const other = await w.project({ maintainers: [maintainer] });
    for (const url of [URL_A, URL_B]) await w.as(maintainer).post(`/projects/${project.id}/hooks`, { json: { url } });
    await w.as(maintainer).post(`/projects/${other.id}/hooks`, { json: { url: URL_A } });

    const res = await w.as(maintainer).get(`/projects/${project.id}/hooks`, { query: { per_page: "1" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBe("2");
    expect(res.headers.get("x-next-page")).toBe("2");
    expect(((await res.json()) as { url: string }[]).map((h) => h.url)).toEqual([URL_A]);
    const all = await w.as(maintainer).get(`/projects/${project.id}/hooks`, { query: { per_page: "100" } });
    expect(((await all.json()) as { url: string }[]).map((h) => h.url)).toEqual([URL_A, URL_B]);
    expect(all.headers.get("x-query-count")).toBe(res.headers.get("x-query-count"));
    expect(Number(all.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
  });

  forbidsRoles(["guest", "reporter", "developer"], (w, p, user) => w.as(user).get(`/projects/${p.id}/hooks`));
  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/hooks`));
  requiresAuthentication((w) => w.anonymous.get(`/projects/1/hooks`));
});

describe("GET /projects/:id/hooks/:hook_id", () => {
  it("answers the hook, 404 for another project's hook, 400 for a non-integer id", async () => {
    const { w, maintainer, project } = await setup();
    const other = await w.project({ maintainers: [maintainer] });
    const created = (await (await w.as(maintainer).post(`/projects/${other.id}/hooks`, { json: { url: URL_A } })).json()) as { id: number };
    const mine = (await (await w.as(maintainer).post(`/projects/${project.id}/hooks`, { json: { url: URL_B } })).json()) as { id: number };
    const got = await w.as(maintainer).get(`/projects/${project.id}/hooks/${mine.id}`);
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ id: mine.id, url: URL_B, project_id: project.id });
    expect(await statusAndBody(await w.as(maintainer).get(`/projects/${project.id}/hooks/${created.id}`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(maintainer).get(`/projects/${project.id}/hooks/abc`))).toEqual([400, { error: "hook_id is invalid" }]);
    expect(await statusAndBody(await w.as(maintainer).get(`/projects/${project.id}/hooks/99999999999`))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("PUT /projects/:id/hooks/:hook_id", () => {
  it("updates the sent fields (url required, as in 15.4) and keeps the token write-only", async () => {
    const { w, maintainer, developer, project } = await setup();
    const { id } = (await (await w.as(maintainer).post(`/projects/${project.id}/hooks`, { json: { url: URL_A } })).json()) as { id: number };
    const res = await w.as(maintainer).put(`/projects/${project.id}/hooks/${id}`, {
      json: { url: URL_B, push_events: false, note_events: true, push_events_branch_filter: "release/*", token: "t" },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ id, url: URL_B, push_events: false, note_events: true, push_events_branch_filter: "release/*", issues_events: false });
    expect(body).not.toHaveProperty("token");
    const put = (json: unknown) => w.as(maintainer).put(`/projects/${project.id}/hooks/${id}`, { json });
    expect(await statusAndBody(await put({ note_events: true }))).toEqual([400, { error: "url is missing" }]);
    expect(await statusAndBody(await put({ url: "http://10.0.0.1/" }))).toEqual([422, { message: "Invalid url given" }]);
    expect(await statusAndBody(await w.as(developer).put(`/projects/${project.id}/hooks/${id}`, { json: { url: URL_A } }))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("DELETE /projects/:id/hooks/:hook_id", () => {
  it("answers 204, then 404", async () => {
    const { w, maintainer, project } = await setup();
    const { id } = (await (await w.as(maintainer).post(`/projects/${project.id}/hooks`, { json: { url: URL_A } })).json()) as { id: number };
    const res = await w.as(maintainer).delete(`/projects/${project.id}/hooks/${id}`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect(await statusAndBody(await w.as(maintainer).delete(`/projects/${project.id}/hooks/${id}`))).toEqual([404, { message: "404 Not found" }]);
  });

  forbidsRoles(["developer"], (w, p, user) => w.as(user).delete(`/projects/${p.id}/hooks/1`));
});

describe("/groups/:id/hooks", () => {
  it("lets group owners create, list, get, update and delete group hooks (subgroup_events included)", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const created = await w.as(owner).post(`/groups/${group.id}/hooks`, { json: { url: URL_A, subgroup_events: true, token: "x" } });
    expect(created.status).toBe(201);
    const hook = (await created.json()) as Record<string, unknown>;
    expect(hook).toMatchObject({ url: URL_A, group_id: group.id, subgroup_events: true, push_events: true, issues_events: false });
    expect(hook).not.toHaveProperty("project_id");
    expect(hook).not.toHaveProperty("token");
    const list = await w.as(owner).get(`/groups/${encodeURIComponent(group.fullPath)}/hooks`);
    expect(((await list.json()) as { id: number }[]).map((h) => h.id)).toEqual([hook.id]);
    const updated = await w.as(owner).put(`/groups/${group.id}/hooks/${hook.id}`, { json: { url: URL_B, job_events: true } });
    expect(await updated.json()).toMatchObject({ id: hook.id, url: URL_B, job_events: true });
    expect((await w.as(owner).delete(`/groups/${group.id}/hooks/${hook.id}`)).status).toBe(204);
    expect(await statusAndBody(await w.as(owner).get(`/groups/${group.id}/hooks/${hook.id}`))).toEqual([404, { message: "404 Not found" }]);
  });

  it("answers 403 for maintainers of the group and 404 for strangers to a private group", async () => {
    const w = await world();
    const maintainer = await w.user();
    const group = await w.group({ maintainers: [maintainer] });
    expect(await statusAndBody(await w.as(maintainer).get(`/groups/${group.id}/hooks`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${group.id}/hooks`))).toEqual([404, { message: "404 Group Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get(`/groups/${group.id}/hooks`))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("/hooks (system hooks)", () => {
  it("lets administrators manage system hooks with SystemHook's defaults", async () => {
    const w = await world();
    const created = await w.root.post(`/hooks`, { json: { url: URL_A, token: "x", tag_push_events: true } });
    expect(created.status).toBe(201);
    const hook = (await created.json()) as Record<string, unknown>;
    expect(hook).toEqual({
      id: expect.any(Number),
      url: URL_A,
      created_at: expect.any(String),
      push_events: false,
      tag_push_events: true,
      merge_requests_events: false,
      repository_update_events: true,
      enable_ssl_verification: true,
      alert_status: "executable",
      disabled_until: null,
    });
    expect(await (await w.root.get(`/hooks/${hook.id}`)).json()).toEqual(hook);
    const listed = (await (await w.root.get(`/hooks`, { query: { per_page: "100" } })).json()) as { id: number }[];
    expect(listed.map((h) => h.id)).toContain(hook.id);
    expect(await (await w.root.put(`/hooks/${hook.id}`, { json: { push_events: true } })).json()).toMatchObject({ id: hook.id, url: URL_A, push_events: true });
    expect(await statusAndBody(await w.root.put(`/hooks/${hook.id}`, { json: {} }))).toEqual([400, { message: "No parameters provided" }]);
    expect((await w.root.delete(`/hooks/${hook.id}`)).status).toBe(204);
    expect(await statusAndBody(await w.root.get(`/hooks/${hook.id}`))).toEqual([404, { message: "404 Not found" }]);
  });

  it("answers 401 anonymous and 403 for non-administrators, even project owners", async () => {
    const w = await world();
    const user = await w.user();
    expect(await statusAndBody(await w.anonymous.get(`/hooks`))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(user).get(`/hooks`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(user).post(`/hooks`, { json: { url: URL_A } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.root.post(`/hooks`, { json: {} }))).toEqual([400, { error: "url is missing" }]);
  });
});
