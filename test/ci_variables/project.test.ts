import { beforeAll, describe, expect, it } from "vitest";
import { statusAndBody, type Client } from "../helpers/client";
import { world, type TestProject, type TestUser, type World } from "../helpers/world";

type Json = Record<string, any>;

let w: World;
let maintainer: TestUser;
let developer: TestUser;
let project: TestProject;
let api: Client;
let url: string;

beforeAll(async () => {
  w = await world();
  maintainer = await w.user();
  developer = await w.user();
  project = await w.project({ maintainers: [maintainer], developers: [developer] });
  api = w.as(maintainer);
  url = `/projects/${project.id}/variables`;
});

describe("POST /projects/:id/variables", () => {
  it("creates a variable with GitLab's defaults and keys", async () => {
    const res = await api.post(url, { json: { key: "PLAIN_VAR", value: "hello" } });
    expect(await statusAndBody(res)).toEqual([
      201,
      { variable_type: "env_var", key: "PLAIN_VAR", value: "hello", protected: false, masked: false, raw: false, environment_scope: "*", description: null },
    ]);
    const file = (await (await api.post(url, { form: { key: "FILE_VAR", value: "secret-value", variable_type: "file", protected: "true", masked: "true", environment_scope: "review/*" } })).json()) as Json;
    expect(file).toMatchObject({ variable_type: "file", protected: true, masked: true, environment_scope: "review/*" });
  });

  it("answers GitLab's 400 bodies", async () => {
    expect(await statusAndBody(await api.post(url, { json: {} }))).toEqual([400, { error: "key is missing, value is missing" }]);
    expect(await statusAndBody(await api.post(url, { json: { key: "K", value: "v", variable_type: "yaml" } }))).toEqual([400, { error: "variable_type does not have a valid value" }]);
    expect(await statusAndBody(await api.post(url, { json: { key: "bad-key", value: "v" } }))).toEqual([400, { message: { key: ["can contain only letters, digits and '_'."] } }]);
    expect(await statusAndBody(await api.post(url, { json: { key: "", value: "v" } }))).toEqual([400, { message: { key: ["can't be blank", "can contain only letters, digits and '_'."] } }]);
    expect(await statusAndBody(await api.post(url, { json: { key: "SHORT_MASK", value: "short", masked: true } }))).toEqual([400, { message: { value: ["is invalid"] } }]);
    expect(await statusAndBody(await api.post(url, { json: { key: "SPACE_MASK", value: "has a space", masked: true } }))).toEqual([400, { message: { value: ["is invalid"] } }]);
    expect(await statusAndBody(await api.post(url, { json: { key: "SCOPED", value: "v", environment_scope: "a|b" } }))).toEqual([
      400,
      { message: { environment_scope: ["can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces"] } },
    ]);
    await api.post(url, { json: { key: "DUP", value: "1" } });
    expect(await statusAndBody(await api.post(url, { json: { key: "DUP", value: "2" } }))).toEqual([400, { message: { key: ["(DUP) has already been taken"] } }]);
    // The same key in another environment scope is another variable.
    expect((await api.post(url, { json: { key: "DUP", value: "3", environment_scope: "production" } })).status).toBe(201);
  });

  it("is for maintainers: 401 anonymous, 403 developers, 404 strangers of a private project", async () => {
    expect(await statusAndBody(await w.anonymous.post(url, { json: { key: "X", value: "y" } }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(developer).post(url, { json: { key: "X", value: "y" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(await w.user()).post(url, { json: { key: "X", value: "y" } }))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("GET /projects/:id/variables", () => {
  it("lists in creation order, paginated", async () => {
    const own = await w.project({ owner: maintainer });
    for (const key of ["A1", "A2", "A3"]) await api.post(`/projects/${own.id}/variables`, { json: { key, value: key } });
    const res = await api.get(`/projects/${own.id}/variables`, { query: { per_page: 2, page: 2 } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBe("3");
    expect(((await res.json()) as Json[]).map((v) => v.key)).toEqual(["A3"]);
  });

  it("is 401 for anonymous callers even on a public project, 403 for developers", async () => {
    const pub = await w.project({ visibility: "public", developers: [developer] });
    expect((await w.anonymous.get(`/projects/${pub.id}/variables`)).status).toBe(401);
    expect((await w.as(developer).get(`/projects/${pub.id}/variables`)).status).toBe(403);
  });
});

describe("GET /projects/:id/variables/:key", () => {
  it("reads one, 404 Variable Not Found, 409 when two scopes share the key, filter[environment_scope]", async () => {
    await api.post(url, { json: { key: "SCOPED_KEY", value: "staging-v", environment_scope: "staging" } });
    await api.post(url, { json: { key: "SCOPED_KEY", value: "prod-v", environment_scope: "production" } });
    expect(((await (await api.get(`${url}/PLAIN_VAR`)).json()) as Json).value).toBe("hello");
    expect(await statusAndBody(await api.get(`${url}/NOPE`))).toEqual([404, { message: "404 Variable Not Found" }]);
    expect(await statusAndBody(await api.get(`${url}/SCOPED_KEY`))).toEqual([
      409,
      { message: "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'" },
    ]);
    const one = await api.get(`${url}/SCOPED_KEY`, { query: { "filter[environment_scope]": "production" } });
    expect(((await one.json()) as Json).value).toBe("prod-v");
    expect((await api.get(`${url}/SCOPED_KEY`, { query: { "filter[environment_scope]": "nope" } })).status).toBe(404);
    expect((await w.as(developer).get(`${url}/PLAIN_VAR`)).status).toBe(403);
  });
});

describe("PUT /projects/:id/variables/:key", () => {
  it("changes only what was sent, validates the result, picks a scope with filter", async () => {
    await api.post(url, { json: { key: "UPD", value: "before-value" } });
    const res = await api.put(`${url}/UPD`, { json: { value: "after-value", protected: true, variable_type: "file", key: "IGNORED" } });
    expect(await statusAndBody(res)).toEqual([
      200,
      { variable_type: "file", key: "UPD", value: "after-value", protected: true, masked: false, raw: false, environment_scope: "*", description: null },
    ]);
    expect(await statusAndBody(await api.put(`${url}/UPD`, { json: { value: "no", masked: true } }))).toEqual([400, { message: { value: ["is invalid"] } }]);
    expect((await api.put(`${url}/MISSING`, { json: { value: "x" } })).status).toBe(404);
    expect((await api.put(`${url}/SCOPED_KEY`, { json: { value: "x" } })).status).toBe(409);
    const scoped = await api.put(`${url}/SCOPED_KEY`, { json: { value: "new-staging", filter: { environment_scope: "staging" } } });
    expect(((await scoped.json()) as Json).value).toBe("new-staging");
    expect((await w.as(developer).put(`${url}/UPD`, { json: { value: "x" } })).status).toBe(403);
  });
});

describe("DELETE /projects/:id/variables/:key", () => {
  it("deletes (204), then 404", async () => {
    await api.post(url, { json: { key: "GONE", value: "x" } });
    expect((await w.as(developer).delete(`${url}/GONE`)).status).toBe(403);
    expect((await api.delete(`${url}/GONE`)).status).toBe(204);
    expect(await statusAndBody(await api.delete(`${url}/GONE`))).toEqual([404, { message: "404 Variable Not Found" }]);
  });
});
