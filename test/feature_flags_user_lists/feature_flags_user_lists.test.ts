import { describe, expect, it } from "vitest";
import { statusAndBody, worker } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";

type List = { id: number; iid: number; name: string; user_xids: string; project_id: number; path: string; edit_path: string };

async function setup() {
  const w = await world();
  const dev = await w.user();
  const project = await w.project({ developers: [dev] });
  const create = async (name: string, user_xids = "1,2") => {
    const res = await w.as(dev).post(`/projects/${project.id}/feature_flags_user_lists`, { json: { name, user_xids } });
    expect(res.status).toBe(201);
    return (await res.json()) as List;
  };
  return { w, dev, project, create };
}

describe("POST /projects/:id/feature_flags_user_lists", () => {
  it("creates lists with gapless iids", async () => {
    const { project, create } = await setup();
    const a = await create("alpha", "user1,user2");
    const b = await create("beta");
    expect(a).toMatchObject({ iid: 1, name: "alpha", user_xids: "user1,user2", project_id: project.id });
    expect(a.path).toBe(`/${project.fullPath}/-/feature_flags_user_lists/1`);
    expect(a.edit_path).toBe(`/${project.fullPath}/-/feature_flags_user_lists/1/edit`);
    expect(b.iid).toBe(2);
  });

  it("answers 400 for missing, invalid and taken values", async () => {
    const { w, dev, project, create } = await setup();
    await create("taken");
    const post = (json: unknown) => w.as(dev).post(`/projects/${project.id}/feature_flags_user_lists`, { json });
    expect(await statusAndBody(await post({ name: "x" }))).toEqual([400, { message: "user_xids is missing" }]);
    expect(await statusAndBody(await post({ name: "taken", user_xids: "1" }))).toEqual([400, { message: ["Name has already been taken"] }]);
    expect(await statusAndBody(await post({ name: "dup", user_xids: "1,1" }))).toEqual([
      400,
      { message: ["User xids user_xids must be a string of unique comma separated values each 256 characters or less"] },
    ]);
  });

  forbidsRoles(["reporter"], (w, p, user) => w.as(user).post(`/projects/${p.id}/feature_flags_user_lists`, { json: { name: "x", user_xids: "1" } }));
  hidesPrivateProject((w, p) => w.as(w.stranger).post(`/projects/${p.id}/feature_flags_user_lists`, { json: { name: "x", user_xids: "1" } }));
});

describe("the API's error formatter (string errors are {message}) and its before-block authorization", () => {
  it("writes parameter errors as {message: string}, keeps the model's arrays and the 404s", async () => {
    const { w, dev, project, create } = await setup();
    const base = `/projects/${project.id}/feature_flags_user_lists`;
    const list = await create("first");
    const api = w.as(dev);
    expect(await statusAndBody(await api.post(base, { json: { user_xids: "user1" } }))).toEqual([400, { message: "name is missing" }]);
    expect(await statusAndBody(await api.post(base, { json: { name: "empty_list" } }))).toEqual([400, { message: "user_xids is missing" }]);
    expect(await statusAndBody(await api.post(base, { json: {} }))).toEqual([400, { message: "name is missing, user_xids is missing" }]);
    expect(await statusAndBody(await api.post(base, { json: { name: ["a"], user_xids: "1" } }))).toEqual([400, { message: "name is invalid" }]);
    expect(await statusAndBody(await api.put(`${base}/${list.iid}`, { json: { user_xids: { a: 1 } } }))).toEqual([400, { message: "user_xids is invalid" }]);
    expect(await statusAndBody(await api.get(base, { query: { per_page: 0 } }))).toEqual([400, { message: "per_page does not have a valid value" }]);
    const badJson = await worker.fetch(
      new Request(`http://edgeforge.test/api/v4${base}`, { method: "POST", headers: { "PRIVATE-TOKEN": dev.token, "Content-Type": "application/json" }, body: "{" }),
    );
    expect(await statusAndBody(badJson)).toEqual([400, { message: "message body does not match declared format" }]);
    // Errors that are objects in GitLab too are unchanged.
    expect(await statusAndBody(await api.post(base, { json: { name: "first", user_xids: "a" } }))).toEqual([400, { message: ["Name has already been taken"] }]);
    expect(await statusAndBody(await api.get(`${base}/99`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await api.put(`${base}/99`, { json: { name: "new_name" } }))).toEqual([404, { message: "404 Not found" }]);
    // Other APIs keep GitLab's default formatter.
    expect(await statusAndBody(await api.get(`/projects/${project.id}/feature_flags`, { query: { per_page: 0 } }))).toEqual([
      400,
      { error: "per_page does not have a valid value" },
    ]);
  });

  it("authorizes before it validates: 403 for a reporter and 404 for a stranger, whatever the parameters", async () => {
    const w = await world();
    const reporter = await w.user();
    const project = await w.project({ visibility: "private", reporters: [reporter] });
    const base = `/projects/${project.id}/feature_flags_user_lists`;
    expect(await statusAndBody(await w.as(reporter).post(base, { json: {} }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(reporter).put(`${base}/1`, { json: { name: ["x"] } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(reporter).get(base, { query: { per_page: 0 } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).post(base, { json: {} }))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("GET /projects/:id/feature_flags_user_lists", () => {
  it("lists by id, filters with search, paginates with a flat statement count", async () => {
    const { w, dev, project, create } = await setup();
    await create("mobile testers");
    await create("web testers");
    await create("staff");
    const all = (await (await w.as(dev).get(`/projects/${project.id}/feature_flags_user_lists`)).json()) as List[];
    expect(all.map((l) => l.name)).toEqual(["mobile testers", "web testers", "staff"]);
    const found = (await (await w.as(dev).get(`/projects/${project.id}/feature_flags_user_lists`, { query: { search: "TEST" } })).json()) as List[];
    expect(found.map((l) => l.name)).toEqual(["mobile testers", "web testers"]);
    const short = (await (await w.as(dev).get(`/projects/${project.id}/feature_flags_user_lists`, { query: { search: "st" } })).json()) as List[];
    expect(short.map((l) => l.name)).toEqual(["mobile testers", "web testers", "staff"]);
    const one = await w.as(dev).get(`/projects/${project.id}/feature_flags_user_lists`, { query: { per_page: 1 } });
    expect(one.headers.get("x-total")).toBe("3");
    const many = await w.as(dev).get(`/projects/${project.id}/feature_flags_user_lists`, { query: { per_page: 100 } });
    expect(one.headers.get("x-query-count")).toBe(many.headers.get("x-query-count"));
    expect(Number(many.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
  });

  forbidsRoles(["guest", "reporter"], (w, p, user) => w.as(user).get(`/projects/${p.id}/feature_flags_user_lists`));
  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/feature_flags_user_lists`));
});

describe("GET /projects/:id/feature_flags_user_lists/:iid", () => {
  it("reads by iid; 404 for an unknown one", async () => {
    const { w, dev, project, create } = await setup();
    const list = await create("one");
    expect(await (await w.as(dev).get(`/projects/${project.id}/feature_flags_user_lists/${list.iid}`)).json()).toMatchObject({ id: list.id, name: "one" });
    expect(await statusAndBody(await w.as(dev).get(`/projects/${project.id}/feature_flags_user_lists/99`))).toEqual([404, { message: "404 Not found" }]);
  });

  forbidsRoles(["reporter"], (w, p, user) => w.as(user).get(`/projects/${p.id}/feature_flags_user_lists/1`));
});

describe("PUT /projects/:id/feature_flags_user_lists/:iid", () => {
  it("changes name and ids; 400 for a taken name", async () => {
    const { w, dev, project, create } = await setup();
    const list = await create("before");
    await create("other");
    const res = await w.as(dev).put(`/projects/${project.id}/feature_flags_user_lists/${list.iid}`, { json: { name: "after", user_xids: "9" } });
    expect(await res.json()).toMatchObject({ id: list.id, name: "after", user_xids: "9" });
    const taken = await w.as(dev).put(`/projects/${project.id}/feature_flags_user_lists/${list.iid}`, { json: { name: "other" } });
    expect(await statusAndBody(taken)).toEqual([400, { message: ["Name has already been taken"] }]);
  });

  forbidsRoles(["reporter"], (w, p, user) => w.as(user).put(`/projects/${p.id}/feature_flags_user_lists/1`, { json: { name: "x" } }));
});

describe("DELETE /projects/:id/feature_flags_user_lists/:iid", () => {
  it("answers 204, and 409 while a strategy uses the list", async () => {
    const { w, dev, project, create } = await setup();
    const used = await create("used");
    const free = await create("free");
    const flag = await w.as(dev).post(`/projects/${project.id}/feature_flags`, {
      json: { name: "uses_list", version: "new_version_flag", strategies: [{ name: "gitlabUserList", parameters: {}, user_list_id: used.id }] },
    });
    expect(flag.status).toBe(201);
    expect((await w.as(dev).delete(`/projects/${project.id}/feature_flags_user_lists/${free.iid}`)).status).toBe(204);
    expect(await statusAndBody(await w.as(dev).delete(`/projects/${project.id}/feature_flags_user_lists/${used.iid}`))).toEqual([
      409,
      { message: ["User list is associated with a strategy"] },
    ]);
    expect(await statusAndBody(await w.as(dev).delete(`/projects/${project.id}/feature_flags_user_lists/${free.iid}`))).toEqual([404, { message: "404 Not found" }]);
  });

  forbidsRoles(["reporter"], (w, p, user) => w.as(user).delete(`/projects/${p.id}/feature_flags_user_lists/1`));
});
