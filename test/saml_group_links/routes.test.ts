import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { members } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { unique, world } from "../helpers/world";

async function setup() {
  const w = await world();
  const [owner, maintainer, outsider] = [await w.user(), await w.user(), await w.user()];
  const group = await w.group({ owners: [owner], maintainers: [maintainer] });
  return { w, owner, maintainer, outsider, group };
}

describe("POST /groups/:id/saml_group_links", () => {
  it("creates a link (201, `name` and `access_level`); a duplicate is 400; bad input is Grape's 400", async () => {
    const { w, owner, group } = await setup();
    const url = `/groups/${group.id}/saml_group_links`;
    expect(await statusAndBody(await w.as(owner).post(url, { json: { saml_group_name: "devs", access_level: 30 } }))).toEqual([201, { name: "devs", access_level: 30 }]);
    expect(await statusAndBody(await w.as(owner).post(url, { json: { saml_group_name: "devs", access_level: 10 } }))).toEqual([400, { message: "Saml group name has already been taken" }]);
    expect(await statusAndBody(await w.as(owner).post(url, { json: { access_level: 10 } }))).toEqual([400, { error: "saml_group_name is missing" }]);
    expect(await statusAndBody(await w.as(owner).post(url, { json: { saml_group_name: "x", access_level: 7 } }))).toEqual([400, { error: "access_level does not have a valid value" }]);
  });

  it("401 anonymous and for a maintainer (GitLab's `unauthorized!`), 404 for a group the caller cannot read", async () => {
    const { w, maintainer, outsider, group } = await setup();
    const body = { json: { saml_group_name: "devs", access_level: 30 } };
    expect((await w.anonymous.post(`/groups/${group.id}/saml_group_links`, body)).status).toBe(401);
    expect(await statusAndBody(await w.as(maintainer).post(`/groups/${group.id}/saml_group_links`, body))).toEqual([401, { message: "401 Unauthorized" }]);
    expect((await w.as(outsider).post(`/groups/${group.id}/saml_group_links`, body)).status).toBe(404);
  });
});

describe("GET /groups/:id/saml_group_links and /:saml_group_name; DELETE /:saml_group_name", () => {
  it("lists, shows and deletes; 404 `Linked SAML group link not found`", async () => {
    const { w, owner, maintainer, group } = await setup();
    const url = `/groups/${group.id}/saml_group_links`;
    expect(await statusAndBody(await w.as(owner).get(url))).toEqual([200, []]);
    await w.as(owner).post(url, { json: { saml_group_name: "devs", access_level: 30 } });
    await w.as(owner).post(url, { json: { saml_group_name: "leads", access_level: 40 } });
    expect(await statusAndBody(await w.as(owner).get(url))).toEqual([200, [{ name: "devs", access_level: 30 }, { name: "leads", access_level: 40 }]]);
    expect(await statusAndBody(await w.as(owner).get(`${url}/leads`))).toEqual([200, { name: "leads", access_level: 40 }]);
    expect((await w.as(maintainer).get(`${url}/leads`)).status).toBe(401);
    expect((await w.as(owner).delete(`${url}/leads`)).status).toBe(204);
    expect(await statusAndBody(await w.as(owner).get(`${url}/leads`))).toEqual([404, { message: "Linked SAML group link not found" }]);
    expect(await statusAndBody(await w.as(owner).delete(`${url}/leads`))).toEqual([404, { message: "Linked SAML group link not found" }]);
  });
});

describe("SAML group sync of users provisioned with a SAML identity", () => {
  it("PUT /users/:id with a saml identity and the `saml_groups` attribute give the linked access; removing the group removes it", async () => {
    const { w, owner, group } = await setup();
    const user = await w.user();
    const membership = async () =>
      (await w.db((db) => db.select().from(members).where(and(eq(members.sourceType, "Namespace"), eq(members.sourceId, group.id), eq(members.userId, user.id)))))[0]?.accessLevel;
    await w.as(owner).post(`/groups/${group.id}/saml_group_links`, { json: { saml_group_name: "devs", access_level: 30 } });
    expect((await w.root.put(`/users/${user.id}/custom_attributes/saml_groups`, { json: { value: "devs" } })).status).toBe(200);
    // No SAML identity yet: the links do not apply.
    expect(await membership()).toBeUndefined();
    expect((await w.root.put(`/users/${user.id}`, { json: { provider: "saml", extern_uid: unique("uid") } })).status).toBe(200);
    expect(await membership()).toBe(30);
    await w.as(owner).post(`/groups/${group.id}/saml_group_links`, { json: { saml_group_name: "leads", access_level: 40 } });
    await w.root.put(`/users/${user.id}/custom_attributes/saml_groups`, { json: { value: "devs,leads" } });
    expect(await membership()).toBe(40);
    expect((await w.root.delete(`/users/${user.id}/custom_attributes/saml_groups`)).status).toBe(204);
    expect(await membership()).toBeUndefined();
  });
});
