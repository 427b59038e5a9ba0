import { beforeAll, describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { unique, world, type TestGroup, type TestUser, type World } from "../helpers/world";

type Json = Record<string, any>;

let w: World;
let owner: TestUser;
let maintainer: TestUser;
let group: TestGroup;

beforeAll(async () => {
  w = await world();
  owner = await w.user();
  maintainer = await w.user();
  group = await w.group({ owners: [owner], maintainers: [maintainer] });
});

describe("/groups/:id/variables", () => {
  it("creates, lists, reads, updates and deletes for group owners", async () => {
    const api = w.as(owner);
    const url = `/groups/${group.id}/variables`;
    const created = await api.post(url, { json: { key: "GROUP_VAR", value: "g-value", protected: true } });
    expect(await statusAndBody(created)).toEqual([
      201,
      { variable_type: "env_var", key: "GROUP_VAR", value: "g-value", protected: true, masked: false, raw: false, environment_scope: "*", description: null },
    ]);
    expect(await statusAndBody(await api.post(url, { json: { key: "GROUP_VAR", value: "x" } }))).toEqual([400, { message: { key: ["(GROUP_VAR) has already been taken"] } }]);
    const list = await api.get(url);
    expect(list.headers.get("x-total")).toBe("1");
    expect(((await (await api.get(`${url}/GROUP_VAR`)).json()) as Json).value).toBe("g-value");
    expect(((await (await api.put(`${url}/GROUP_VAR`, { json: { value: "changed" } })).json()) as Json).value).toBe("changed");
    expect(await statusAndBody(await api.get(`${url}/NOPE`))).toEqual([404, { message: "404 GroupVariable Not Found" }]);
    expect(await statusAndBody(await api.put(`${url}/NOPE`, { json: { value: "x" } }))).toEqual([404, { message: "404 GroupVariable Not Found" }]);
    expect((await api.delete(`${url}/GROUP_VAR`)).status).toBe(204);
    expect((await api.delete(`${url}/GROUP_VAR`)).status).toBe(404);
  });

  it("is 401 anonymous, 403 for maintainers (admin_group), 404 for strangers of a private group", async () => {
    const url = `/groups/${group.id}/variables`;
    expect((await w.anonymous.get(url)).status).toBe(401);
    expect(await statusAndBody(await w.as(maintainer).get(url))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(await w.user()).get(url))).toEqual([404, { message: "404 Group Not Found" }]);
  });
});

describe("/admin/ci/variables", () => {
  it("is for admins; no environment_scope; GitLab's errors", async () => {
    const key = unique("INST").replace(/[^A-Za-z0-9_]/g, "_");
    const admin = w.root;
    expect((await w.anonymous.get("/admin/ci/variables")).status).toBe(401);
    expect((await w.as(owner).get("/admin/ci/variables")).status).toBe(403);
    const res = await admin.post("/admin/ci/variables", { json: { key, value: "instance-value" } });
    expect(await statusAndBody(res)).toEqual([201, { variable_type: "env_var", key, value: "instance-value", protected: false, masked: false, raw: false, description: null }]);
    expect(await statusAndBody(await admin.post("/admin/ci/variables", { json: { key, value: "x" } }))).toEqual([400, { message: { key: [`(${key}) has already been taken`] } }]);
    expect(await statusAndBody(await admin.post("/admin/ci/variables", { json: { key: `${key}_LONG`, value: "x".repeat(10_001) } }))).toEqual([
      400,
      { message: { value: ["The value of the provided variable exceeds the 10000 character limit"] } },
    ]);
    expect(((await (await admin.get(`/admin/ci/variables/${key}`)).json()) as Json).value).toBe("instance-value");
    expect(((await (await admin.put(`/admin/ci/variables/${key}`, { json: { masked: true, value: "masked-value" } })).json()) as Json).masked).toBe(true);
    expect((await admin.get("/admin/ci/variables")).status).toBe(200);
    expect((await admin.delete(`/admin/ci/variables/${key}`)).status).toBe(204);
    expect(await statusAndBody(await admin.get(`/admin/ci/variables/${key}`))).toEqual([404, { message: "404 InstanceVariable Not Found" }]);
  });
});
