import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";

// The links' CRUD against the database; the directory and the sync itself are exercised against a real
// OpenLDAP server in test/e2e/directory_and_imports.test.mjs (this suite's Worker has no LDAP_SERVERS).

async function setup() {
  const w = await world();
  const [owner, maintainer, outsider] = [await w.user(), await w.user(), await w.user()];
  const group = await w.group({ owners: [owner], maintainers: [maintainer] });
  return { w, owner, maintainer, outsider, group };
}

describe("POST /groups/:id/ldap_group_links", () => {
  it("creates a link by cn or by filter; 201 with LdapGroupLink", async () => {
    const { w, owner, group } = await setup();
    const byCn = await w.as(owner).post(`/groups/${group.id}/ldap_group_links`, { json: { cn: "developers", group_access: 30, provider: "ldapmain" } });
    expect(await statusAndBody(byCn)).toEqual([201, { cn: "developers", group_access: 30, provider: "ldapmain", filter: null }]);
    const byFilter = await w.as(owner).post(`/groups/${group.id}/ldap_group_links`, { json: { filter: "(&(objectClass=person)(ou=eng*))", group_access: 20, provider: "ldapmain" } });
    expect(await statusAndBody(byFilter)).toEqual([201, { cn: null, group_access: 20, provider: "ldapmain", filter: "(&(objectClass=person)(ou=eng*))" }]);
    // The same cn of another provider is another link.
    expect((await w.as(owner).post(`/groups/${group.id}/ldap_group_links`, { json: { cn: "developers", group_access: 40, provider: "ldapsecondary" } })).status).toBe(201);
  });

  it("answers Grape's 400 for missing or conflicting parameters, 409 for a duplicate or a bad filter", async () => {
    const { w, owner, group } = await setup();
    const url = `/groups/${group.id}/ldap_group_links`;
    expect(await statusAndBody(await w.as(owner).post(url, { json: { group_access: 30, provider: "ldapmain" } }))).toEqual([400, { error: "cn, filter are missing, exactly one parameter must be provided" }]);
    expect(await statusAndBody(await w.as(owner).post(url, { json: { cn: "a", filter: "(a=b)", group_access: 30, provider: "ldapmain" } }))).toEqual([400, { error: "cn, filter are mutually exclusive" }]);
    expect(await statusAndBody(await w.as(owner).post(url, { json: { cn: "a", group_access: 35, provider: "ldapmain" } }))).toEqual([400, { error: "group_access does not have a valid value" }]);
    expect(await statusAndBody(await w.as(owner).post(url, { json: { cn: "a", group_access: 30 } }))).toEqual([400, { error: "provider is missing" }]);
    expect((await w.as(owner).post(url, { json: { cn: "a", group_access: 30, provider: "ldapmain" } })).status).toBe(201);
    expect(await statusAndBody(await w.as(owner).post(url, { json: { cn: "a", group_access: 10, provider: "ldapmain" } }))).toEqual([409, { message: "Cn has already been taken" }]);
    expect(await statusAndBody(await w.as(owner).post(url, { json: { filter: "(uid=a", group_access: 10, provider: "ldapmain" } }))).toEqual([409, { message: "Filter must be a valid filter" }]);
  });

  it("401 anonymous, 403 for a maintainer, 404 for a group the caller cannot read", async () => {
    const { w, maintainer, outsider, group } = await setup();
    const body = { json: { cn: "a", group_access: 30, provider: "ldapmain" } };
    expect((await w.anonymous.post(`/groups/${group.id}/ldap_group_links`, body)).status).toBe(401);
    expect(await statusAndBody(await w.as(maintainer).post(`/groups/${group.id}/ldap_group_links`, body))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(outsider).post(`/groups/${group.id}/ldap_group_links`, body))).toEqual([404, { message: "404 Group Not Found" }]);
  });
});

describe("GET /groups/:id/ldap_group_links", () => {
  it("lists the links; 404 `No linked LDAP groups found` when there are none; 403 for a maintainer", async () => {
    const { w, owner, maintainer, group } = await setup();
    expect(await statusAndBody(await w.as(owner).get(`/groups/${group.id}/ldap_group_links`))).toEqual([404, { message: "No linked LDAP groups found" }]);
    await w.as(owner).post(`/groups/${group.id}/ldap_group_links`, { json: { cn: "b", group_access: 30, provider: "ldapmain" } });
    await w.as(owner).post(`/groups/${group.id}/ldap_group_links`, { json: { cn: "a", group_access: 10, provider: "ldapmain" } });
    const res = await w.as(owner).get(`/groups/${group.id}/ldap_group_links`);
    expect(await statusAndBody(res)).toEqual([
      200,
      [
        { cn: "b", group_access: 30, provider: "ldapmain", filter: null },
        { cn: "a", group_access: 10, provider: "ldapmain", filter: null },
      ],
    ]);
    expect((await w.as(maintainer).get(`/groups/${group.id}/ldap_group_links`)).status).toBe(403);
    expect((await w.anonymous.get(`/groups/${group.id}/ldap_group_links`)).status).toBe(401);
  });
});

describe("DELETE /groups/:id/ldap_group_links (and /:cn, /:provider/:cn)", () => {
  it("deletes by cn, by provider and cn, by filter and provider; 404 `Linked LDAP group not found`", async () => {
    const { w, owner, maintainer, group } = await setup();
    const base = `/groups/${group.id}/ldap_group_links`;
    for (const json of [
      { cn: "one", group_access: 30, provider: "ldapmain" },
      { cn: "two", group_access: 30, provider: "ldapmain" },
      { cn: "two", group_access: 30, provider: "other" },
      { filter: "(uid=x)", group_access: 30, provider: "ldapmain" },
    ])
      expect((await w.as(owner).post(base, { json })).status).toBe(201);
    expect((await w.as(maintainer).delete(`${base}/one`)).status).toBe(403);
    expect((await w.as(owner).delete(`${base}/one`)).status).toBe(204);
    expect(await statusAndBody(await w.as(owner).delete(`${base}/one`))).toEqual([404, { message: "Linked LDAP group not found" }]);
    expect((await w.as(owner).delete(`${base}/other/two`)).status).toBe(204);
    expect(await statusAndBody(await w.as(owner).delete(`${base}/other/two`))).toEqual([404, { message: "Linked LDAP group not found" }]);
    expect(await statusAndBody(await w.as(owner).delete(`${base}?provider=ldapmain`))).toEqual([400, { error: "cn, filter are missing, exactly one parameter must be provided" }]);
    expect((await w.as(owner).delete(`${base}?provider=ldapmain&filter=${encodeURIComponent("(uid=x)")}`)).status).toBe(204);
    const left = await (await w.as(owner).get(base)).json();
    expect(left).toEqual([{ cn: "two", group_access: 30, provider: "ldapmain", filter: null }]);
  });
});

describe("POST /groups/:id/ldap_sync", () => {
  it("404 while no LDAP server is configured (group_sync_enabled? is false)", async () => {
    const { w, owner, group } = await setup();
    expect(await statusAndBody(await w.as(owner).post(`/groups/${group.id}/ldap_sync`))).toEqual([404, { message: "404 Not Found" }]);
  });
});

describe("GET /ldap/groups and /ldap/:provider/groups", () => {
  it("403 for users who own no group; 404 for owners and admins while no LDAP server is configured; 401 anonymous", async () => {
    const { w, owner, outsider } = await setup();
    expect((await w.anonymous.get(`/ldap/groups`)).status).toBe(401);
    expect(await statusAndBody(await w.as(outsider).get(`/ldap/groups`))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await w.as(owner).get(`/ldap/groups`)).status).toBe(404);
    expect((await w.root.get(`/ldap/ldapmain/groups?search=dev`)).status).toBe(404);
  });
});
