import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { world, type TestProject, type TestUser, type World } from "../helpers/world";

type Strategy = { id: number; name: string; parameters: Record<string, string>; scopes: { id: number; environment_scope: string }[]; user_list: unknown };
type Flag = { name: string; description: string | null; active: boolean; version: string; scopes: unknown[]; strategies: Strategy[]; created_at: string };

async function setup() {
  const w = await world();
  const dev = await w.user();
  const project = await w.project({ developers: [dev] });
  return { w, dev, project };
}

async function createFlag(w: World, user: TestUser, project: TestProject, json: Record<string, unknown>): Promise<Flag> {
  const res = await w.as(user).post(`/projects/${project.id}/feature_flags`, { json: { version: "new_version_flag", ...json } });
  expect(res.status).toBe(201);
  return (await res.json()) as Flag;
}

describe("POST /projects/:id/feature_flags", () => {
  it("creates a new-version flag with every strategy kind and its scopes", async () => {
    const { w, dev, project } = await setup();
    const list = await (await w.as(dev).post(`/projects/${project.id}/feature_flags_user_lists`, { json: { name: "beta", user_xids: "u1,u2" } })).json() as { id: number; iid: number };
    const flag = await createFlag(w, dev, project, {
      name: "dark_mode",
      description: "Dark theme",
      strategies: [
        { name: "default", parameters: {}, scopes: [{ environment_scope: "production" }] },
        { name: "userWithId", parameters: { userIds: "a,b" }, scopes: [{ environment_scope: "*" }] },
        { name: "gradualRolloutUserId", parameters: { groupId: "default", percentage: "25" }, scopes: [{ environment_scope: "review/*" }] },
        { name: "flexibleRollout", parameters: { groupId: "default", rollout: "50", stickiness: "userId" }, scopes: [] },
        { name: "gitlabUserList", parameters: {}, user_list_id: list.id, scopes: [{ environment_scope: "staging" }] },
      ],
    });
    expect(flag).toMatchObject({ name: "dark_mode", description: "Dark theme", active: true, version: "new_version_flag", scopes: [] });
    expect(flag.strategies.map((s) => s.name)).toEqual(["default", "userWithId", "gradualRolloutUserId", "flexibleRollout", "svcUserList"]);
    expect(flag.strategies[0].scopes).toEqual([{ id: expect.any(Number), environment_scope: "production" }]);
    expect(flag.strategies[1].parameters).toEqual({ userIds: "a,b" });
    expect(flag.strategies[4].user_list).toEqual({ id: list.id, iid: list.iid, name: "beta", user_xids: "u1,u2" });
    expect(flag.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("accepts parameters as a JSON string (Grape's JSON type) and active false", async () => {
    const { w, dev, project } = await setup();
    const flag = await createFlag(w, dev, project, { name: "str_params", active: false, strategies: [{ name: "userWithId", parameters: '{"userIds":"x"}' }] });
    expect(flag.active).toBe(false);
    expect(flag.strategies[0].parameters).toEqual({ userIds: "x" });
  });

  it("creates a legacy flag when version is omitted, with a default scope", async () => {
    const { w, dev, project } = await setup();
    const res = await w.as(dev).post(`/projects/${project.id}/feature_flags`, { json: { name: "old_flag", active: false } });
    expect(res.status).toBe(201);
    const flag = (await res.json()) as Flag;
    expect(flag).toMatchObject({ version: "legacy_flag", strategies: [], active: false });
    expect(flag.scopes).toEqual([
      { id: expect.any(Number), active: false, environment_scope: "*", strategies: [{ name: "default", parameters: {} }], created_at: expect.any(String), updated_at: expect.any(String) },
    ]);
  });

  it("creates a legacy flag with its scopes, the default scope first", async () => {
    const { w, dev, project } = await setup();
    const scopes = [
      { environment_scope: "*", active: false, strategies: [{ name: "default", parameters: {} }] },
      { environment_scope: "production", active: true, strategies: '[{"name":"userWithId","parameters":{"userIds":"1"}}]' },
    ];
    const res = await w.as(dev).post(`/projects/${project.id}/feature_flags`, { json: { name: "legacy_two", version: "legacy_flag", scopes } });
    expect(res.status).toBe(201);
    const flag = (await res.json()) as { scopes: { environment_scope: string; active: boolean; strategies: unknown }[] };
    expect(flag.scopes.map((s) => [s.environment_scope, s.active])).toEqual([["*", false], ["production", true]]);
    expect(flag.scopes[1].strategies).toEqual([{ name: "userWithId", parameters: { userIds: "1" } }]);
    const bad = await w.as(dev).post(`/projects/${project.id}/feature_flags`, { json: { name: "legacy_bad", version: "legacy_flag", scopes: [scopes[1]] } });
    expect(await statusAndBody(bad)).toEqual([400, { message: ["Default scope has to be the first element"] }]);
  });

  it("answers 400 with the model's messages", async () => {
    const { w, dev, project } = await setup();
    await createFlag(w, dev, project, { name: "taken" });
    const post = (json: unknown) => w.as(dev).post(`/projects/${project.id}/feature_flags`, { json });
    expect(await statusAndBody(await post({}))).toEqual([400, { error: "name is missing" }]);
    expect(await statusAndBody(await post({ name: "ok_name", version: "v3" }))).toEqual([400, { message: "Version is invalid" }]);
    expect(await statusAndBody(await post({ name: "taken", version: "new_version_flag" }))).toEqual([400, { message: ["Name has already been taken"] }]);
    expect(await statusAndBody(await post({ name: "Bad-", version: "new_version_flag" }))).toEqual([
      400,
      { message: ["Name can contain only lowercase letters, digits, '_' and '-'. Must start with a letter, and cannot end with '-' or '_'"] },
    ]);
    expect(await statusAndBody(await post({ name: "s1", version: "new_version_flag", strategies: [{ name: "nope", parameters: {} }] }))).toEqual([
      400,
      { message: ["Strategies name strategy name is invalid"] },
    ]);
    const rollout = { name: "gradualRolloutUserId", parameters: { groupId: "default", percentage: "101" } };
    expect(await statusAndBody(await post({ name: "s2", version: "new_version_flag", strategies: [rollout] }))).toEqual([
      400,
      { message: ["Strategies parameters percentage must be a string between 0 and 100 inclusive"] },
    ]);
    const scope = { name: "default", parameters: {}, scopes: [{ environment_scope: "bad!" }] };
    expect(await statusAndBody(await post({ name: "s3", version: "new_version_flag", strategies: [scope] }))).toEqual([
      400,
      { message: ["Strategies scopes environment scope can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces"] },
    ]);
    expect(await statusAndBody(await post({ name: "s4", version: "new_version_flag", strategies: [{ name: "svcUserList", parameters: {} }] }))).toEqual([
      400,
      { message: ["Strategies user list can't be blank"] },
    ]);
    expect(await statusAndBody(await post({ name: "s5", version: "new_version_flag", strategies: [{ name: "default" }] }))).toEqual([
      400,
      { error: "strategies[0][parameters] is missing" },
    ]);
  });

  it("refuses a user list of another project", async () => {
    const { w, dev, project } = await setup();
    const other = await w.project({ developers: [dev] });
    const list = await (await w.as(dev).post(`/projects/${other.id}/feature_flags_user_lists`, { json: { name: "l", user_xids: "1" } })).json() as { id: number; iid: number };
    const res = await w.as(dev).post(`/projects/${project.id}/feature_flags`, {
      json: { name: "cross", version: "new_version_flag", strategies: [{ name: "svcUserList", parameters: {}, user_list_id: list.id }] },
    });
    expect(await statusAndBody(res)).toEqual([400, { message: ["Strategies user list must belong to the same project"] }]);
  });

  it("authorizes reading before it validates (the API's before block): 403 or 404 whatever the parameters", async () => {
    const w = await world();
    const reporter = await w.user();
    const project = await w.project({ visibility: "private", reporters: [reporter] });
    const base = `/projects/${project.id}/feature_flags`;
    expect(await statusAndBody(await w.as(reporter).post(base, { json: {} }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(reporter).get(base, { query: { scope: "all" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(reporter).put(`${base}/x`, { json: { active: "maybe" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).post(base, { json: {} }))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(base, { query: { scope: "all" } }))).toEqual([404, { message: "404 Project Not Found" }]);
  });

  forbidsRoles(["guest", "reporter"], (w, p, user) => w.as(user).post(`/projects/${p.id}/feature_flags`, { json: { name: "x", version: "new_version_flag" } }));
  hidesPrivateProject((w, p) => w.as(w.stranger).post(`/projects/${p.id}/feature_flags`, { json: { name: "x" } }));
});

describe("GET /projects/:id/feature_flags", () => {
  it("lists by name, filters by scope, paginates with a flat statement count", async () => {
    const { w, dev, project } = await setup();
    await createFlag(w, dev, project, { name: "bbb", active: false, strategies: [{ name: "default", parameters: {}, scopes: [{ environment_scope: "*" }] }] });
    await createFlag(w, dev, project, { name: "aaa" });
    await w.as(dev).post(`/projects/${project.id}/feature_flags`, { json: { name: "ccc" } });
    const all = await w.as(dev).get(`/projects/${project.id}/feature_flags`);
    expect(all.headers.get("x-total")).toBe("3");
    const body = (await all.json()) as Flag[];
    expect(body.map((f) => f.name)).toEqual(["aaa", "bbb", "ccc"]);
    expect(body[1].strategies[0].scopes[0].environment_scope).toBe("*");
    expect(body[2].version).toBe("legacy_flag");
    const enabled = (await (await w.as(dev).get(`/projects/${project.id}/feature_flags`, { query: { scope: "enabled" } })).json()) as Flag[];
    expect(enabled.map((f) => f.name)).toEqual(["aaa", "ccc"]);
    const disabled = (await (await w.as(dev).get(`/projects/${project.id}/feature_flags`, { query: { scope: "disabled" } })).json()) as Flag[];
    expect(disabled.map((f) => f.name)).toEqual(["bbb"]);
    const one = await w.as(dev).get(`/projects/${project.id}/feature_flags`, { query: { per_page: 1, page: 2 } });
    expect(((await one.json()) as Flag[]).map((f) => f.name)).toEqual(["bbb"]);
    expect(one.headers.get("x-next-page")).toBe("3");
    const many = await w.as(dev).get(`/projects/${project.id}/feature_flags`, { query: { per_page: 100 } });
    expect(one.headers.get("x-query-count")).toBe(many.headers.get("x-query-count"));
    expect(Number(many.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
  });

  it("answers 400 for an unknown scope", async () => {
    const { w, dev, project } = await setup();
    const res = await w.as(dev).get(`/projects/${project.id}/feature_flags`, { query: { scope: "all" } });
    expect(await statusAndBody(res)).toEqual([400, { error: "scope does not have a valid value" }]);
  });

  it("answers 403 to anonymous callers of a public project", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/feature_flags`))).toEqual([403, { message: "403 Forbidden" }]);
  });

  forbidsRoles(["guest", "reporter"], (w, p, user) => w.as(user).get(`/projects/${p.id}/feature_flags`));
  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/feature_flags`));
});

describe("GET /projects/:id/feature_flags/:feature_flag_name", () => {
  it("reads a flag, legacy flags included; 404 for an unknown name", async () => {
    const { w, dev, project } = await setup();
    await createFlag(w, dev, project, { name: "one" });
    await w.as(dev).post(`/projects/${project.id}/feature_flags`, { json: { name: "legacy_one" } });
    expect(await (await w.as(dev).get(`/projects/${project.id}/feature_flags/one`)).json()).toMatchObject({ name: "one", version: "new_version_flag" });
    expect(await (await w.as(dev).get(`/projects/${project.id}/feature_flags/legacy_one`)).json()).toMatchObject({ version: "legacy_flag" });
    expect(await statusAndBody(await w.as(dev).get(`/projects/${project.id}/feature_flags/nope`))).toEqual([404, { message: "404 Not found" }]);
  });

  forbidsRoles(["reporter"], (w, p, user) => w.as(user).get(`/projects/${p.id}/feature_flags/x`));
});

describe("PUT /projects/:id/feature_flags/:feature_flag_name", () => {
  it("adds a strategy without id (listed first), edits one, removes one with _destroy", async () => {
    const { w, dev, project } = await setup();
    const flag = await createFlag(w, dev, project, {
      name: "flip",
      strategies: [
        { name: "default", parameters: {}, scopes: [{ environment_scope: "production" }, { environment_scope: "staging" }] },
        { name: "userWithId", parameters: { userIds: "1" }, scopes: [{ environment_scope: "*" }] },
      ],
    });
    const [first, second] = flag.strategies;
    const res = await w.as(dev).put(`/projects/${project.id}/feature_flags/flip`, {
      json: {
        name: "flipped",
        active: false,
        strategies: [
          { name: "flexibleRollout", parameters: { groupId: "default", rollout: "10", stickiness: "default" }, scopes: [{ environment_scope: "review/*" }] },
          { id: first.id, scopes: [{ id: first.scopes[1].id, _destroy: true }, { id: first.scopes[0].id, environment_scope: "prod" }, { environment_scope: "qa" }] },
          { id: second.id, _destroy: true },
        ],
      },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Flag;
    expect(body).toMatchObject({ name: "flipped", active: false });
    expect(body.strategies.map((s) => s.name)).toEqual(["flexibleRollout", "default"]);
    expect(body.strategies[0].scopes.map((s) => s.environment_scope)).toEqual(["review/*"]);
    expect(body.strategies[1]).toMatchObject({ id: first.id });
    expect(body.strategies[1].scopes.map((s) => s.environment_scope)).toEqual(["prod", "qa"]);
    const again = (await (await w.as(dev).get(`/projects/${project.id}/feature_flags/flipped`)).json()) as Flag;
    expect(again.strategies.map((s) => s.id)).toEqual([first.id, body.strategies[0].id]);
    expect(await statusAndBody(await w.as(dev).get(`/projects/${project.id}/feature_flags/flip`))).toEqual([404, { message: "404 Not found" }]);
  });

  it("switches a strategy away from a user list, dropping the list", async () => {
    const { w, dev, project } = await setup();
    const list = await (await w.as(dev).post(`/projects/${project.id}/feature_flags_user_lists`, { json: { name: "l", user_xids: "1" } })).json() as { id: number; iid: number };
    const flag = await createFlag(w, dev, project, { name: "ul", strategies: [{ name: "svcUserList", parameters: {}, user_list_id: list.id }] });
    const res = await w.as(dev).put(`/projects/${project.id}/feature_flags/ul`, { json: { strategies: [{ id: flag.strategies[0].id, name: "default" }] } });
    expect(((await res.json()) as Flag).strategies[0]).toMatchObject({ name: "default", user_list: null });
    expect((await w.as(dev).delete(`/projects/${project.id}/feature_flags_user_lists/${list.iid}`)).status).toBe(204);
  });

  it("answers 400, 404 and 422 as GitLab does", async () => {
    const { w, dev, project } = await setup();
    await createFlag(w, dev, project, { name: "first" });
    await createFlag(w, dev, project, { name: "second" });
    await w.as(dev).post(`/projects/${project.id}/feature_flags`, { json: { name: "legacy" } });
    const put = (name: string, json: unknown) => w.as(dev).put(`/projects/${project.id}/feature_flags/${name}`, { json });
    expect(await statusAndBody(await put("second", { name: "first" }))).toEqual([400, { message: ["Name has already been taken"] }]);
    expect(await statusAndBody(await put("second", { strategies: [{ id: 2147483000, _destroy: true }] }))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await put("second", { strategies: [{ name: "userWithId", parameters: { userIds: "a,a" } }] }))).toEqual([
      400,
      { message: ["Strategies parameters userIds must be a string of unique comma separated values each 256 characters or less"] },
    ]);
    expect(await statusAndBody(await put("second", { strategies: [{ name: "svcUserList", parameters: {}, user_list_id: 2147483000 }] }))).toEqual([
      404,
      { message: "Not Found" },
    ]);
    expect(await statusAndBody(await put("legacy", { active: false }))).toEqual([422, { message: "PUT operations are not supported for legacy feature flags" }]);
  });

  forbidsRoles(["reporter"], (w, p, user) => w.as(user).put(`/projects/${p.id}/feature_flags/x`, { json: { active: false } }));
});

describe("DELETE /projects/:id/feature_flags/:feature_flag_name", () => {
  it("answers 200 with the deleted flag, then 404", async () => {
    const { w, dev, project } = await setup();
    await createFlag(w, dev, project, { name: "gone", strategies: [{ name: "default", parameters: {} }] });
    const res = await w.as(dev).delete(`/projects/${project.id}/feature_flags/gone`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: "gone", version: "new_version_flag", strategies: [{ name: "default" }] });
    expect(await statusAndBody(await w.as(dev).get(`/projects/${project.id}/feature_flags/gone`))).toEqual([404, { message: "404 Not found" }]);
  });

  it("answers 403 in an archived project", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev], archived: true });
    expect(await statusAndBody(await w.as(dev).delete(`/projects/${project.id}/feature_flags/x`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(dev).post(`/projects/${project.id}/feature_flags`, { json: { name: "x" } }))).toEqual([403, { message: "403 Forbidden" }]);
  });

  forbidsRoles(["guest", "reporter"], (w, p, user) => w.as(user).delete(`/projects/${p.id}/feature_flags/x`));
  hidesPrivateProject((w, p) => w.as(w.stranger).delete(`/projects/${p.id}/feature_flags/x`));
});
