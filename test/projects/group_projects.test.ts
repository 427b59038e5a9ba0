import { describe, expect, it } from "vitest";
import { projectGroupLinks } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { followPages } from "../helpers/shared";
import { unique, world, type World } from "../helpers/world";

type Json = Record<string, any>;
const ids = (body: unknown) => (body as Json[]).map((p) => p.id);
const sorted = (list: number[]) => [...list].sort((a, b) => a - b);

async function share(w: World, projectId: number, groupId: number, expiresAt: string | null = null) {
  await w.db((db) => db.insert(projectGroupLinks).values({ projectId, groupId, groupAccess: 30, expiresAt }));
}

/** A public group with public, internal and private projects, a subgroup project, and projects shared in. */
async function fixture() {
  const w = await world();
  const dev = await w.user();
  const group = await w.group({ visibility: "public", developers: [dev] });
  const sub = await w.group({ visibility: "public", parent: group });
  const pub = await w.project({ group, visibility: "public", path: unique("b-pub") });
  const internal = await w.project({ group, visibility: "internal", path: unique("c-int") });
  const priv = await w.project({ group, visibility: "private", path: unique("a-priv") });
  const nested = await w.project({ group: sub, visibility: "public", path: unique("d-nested") });
  const outside = await w.project({ visibility: "private", path: unique("e-shared") });
  const expired = await w.project({ visibility: "public", path: unique("f-expired") });
  await share(w, outside.id, group.id);
  await share(w, expired.id, group.id, "2001-01-01");
  return { w, dev, group, sub, pub, internal, priv, nested, outside, expired };
}

describe("GET /groups/:id/projects", () => {
  it("lists the group's projects and those shared into it, as each caller may read them", async () => {
    const { w, dev, group, pub, internal, priv, outside } = await fixture();
    const list = async (client: ReturnType<World["as"]>) => sorted(ids(await (await client.get(`/groups/${group.id}/projects`)).json()));
    expect(await list(w.anonymous)).toEqual([pub.id]);
    expect(await list(w.as(w.stranger))).toEqual(sorted([pub.id, internal.id]));
    expect(await list(w.as(dev))).toEqual(sorted([pub.id, internal.id, priv.id, outside.id]));
    expect(await list(w.root)).toEqual(sorted([pub.id, internal.id, priv.id, outside.id]));
    const shared = ((await (await w.as(dev).get(`/groups/${group.id}/projects`)).json()) as Json[]).find((p) => p.id === outside.id)!;
    expect(shared.namespace.id).not.toBe(group.id);
    expect(shared).not.toHaveProperty("permissions");
    expect(shared).toHaveProperty("_links");
  });

  it("honours with_shared, include_subgroups, owned, min_access_level, archived and visibility", async () => {
    const { w, dev, group, pub, internal, priv, nested, outside } = await fixture();
    const owner = await w.user();
    const ownerGroup = await w.group({ owners: [owner] });
    const ownerProject = await w.project({ group: ownerGroup });
    await share(w, ownerProject.id, group.id);
    const list = async (client: ReturnType<World["as"]>, query: Json) =>
      sorted(ids(await (await client.get(`/groups/${group.id}/projects`, { query })).json()));
    expect(await list(w.as(dev), { with_shared: false })).toEqual(sorted([pub.id, internal.id, priv.id]));
    expect(await list(w.as(dev), { with_shared: false, include_subgroups: true })).toEqual(sorted([pub.id, internal.id, priv.id, nested.id]));
    expect(await list(w.as(owner), { owned: true })).toEqual([ownerProject.id]);
    // The share grants developer access (capped at its group_access) to the group's members.
    expect(await list(w.as(dev), { min_access_level: 30 })).toEqual(sorted([pub.id, internal.id, priv.id, outside.id, ownerProject.id]));
    expect(await list(w.as(dev), { min_access_level: 40 })).toEqual([]);
    expect(await list(w.as(dev), { visibility: "internal" })).toEqual([internal.id]);
    expect(await list(w.as(dev), { archived: true })).toEqual([]);
  });

  it("orders, searches, simplifies and paginates", async () => {
    const { w, dev, group, pub, internal, priv, outside } = await fixture();
    const byName = ids(await (await w.as(dev).get(`/groups/${group.id}/projects`, { query: { order_by: "path", sort: "asc" } })).json());
    expect(byName).toEqual([priv.id, pub.id, internal.id, outside.id]);
    const byDefault = ids(await (await w.as(dev).get(`/groups/${group.id}/projects`)).json());
    expect(byDefault).toEqual([pub.id, internal.id, priv.id, outside.id].sort((a, b) => b - a));
    const search = ids(await (await w.as(dev).get(`/groups/${group.id}/projects`, { query: { search: priv.path } })).json());
    expect(search).toEqual([priv.id]);
    const similar = ids(await (await w.as(dev).get(`/groups/${group.id}/projects`, { query: { order_by: "similarity" } })).json());
    expect(similar).toEqual([priv.id, pub.id, internal.id, outside.id]);
    const simple = ((await (await w.as(dev).get(`/groups/${group.id}/projects`, { query: { simple: true } })).json()) as Json[])[0];
    expect(simple).not.toHaveProperty("_links");
    expect(simple).toHaveProperty("path_with_namespace");

    const first = await w.as(dev).get(`/groups/${group.id}/projects`, { query: { per_page: 3 } });
    expect(first.headers.get("x-total")).toBe("4");
    expect(sorted(ids(await followPages(w, first, dev.token)))).toEqual(sorted([pub.id, internal.id, priv.id, outside.id]));
    const one = await w.as(dev).get(`/groups/${group.id}/projects`, { query: { per_page: 1 } });
    const hundred = await w.as(dev).get(`/groups/${group.id}/projects`, { query: { per_page: 100 } });
    expect(one.headers.get("x-query-count")).toBe(hundred.headers.get("x-query-count"));
    expect(Number(one.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
  });

  it("answers 404 Group Not Found for a group the caller may not read, and 400/405 for bad paging", async () => {
    const w = await world();
    const group = await w.group({ visibility: "private" });
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${group.id}/projects`))).toEqual([404, { message: "404 Group Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get(`/groups/${encodeURIComponent(group.fullPath)}/projects`))).toEqual([
      404,
      { message: "404 Group Not Found" },
    ]);
    expect((await w.root.get(`/groups/${encodeURIComponent(group.fullPath)}/projects`)).status).toBe(200);
    expect(await statusAndBody(await w.root.get(`/groups/${group.id}/projects`, { query: { order_by: "stars", with_shared: "x" } }))).toEqual([
      400,
      { error: "order_by does not have a valid value, with_shared is invalid" },
    ]);
    expect(await statusAndBody(await w.root.get(`/groups/${group.id}/projects`, { query: { pagination: "keyset" } }))).toEqual([
      405,
      { error: "Keyset pagination is not yet available for this type of request" },
    ]);
  });
});

describe("GET /groups/:id/projects/shared", () => {
  it("lists only the readable projects shared into the group, without expired shares", async () => {
    const { w, dev, group, outside } = await fixture();
    const res = await w.as(dev).get(`/groups/${group.id}/projects/shared`);
    expect(ids(await res.json())).toEqual([outside.id]);
    expect(res.headers.get("x-total")).toBe("1");
    expect(ids(await (await w.as(w.stranger).get(`/groups/${group.id}/projects/shared`)).json())).toEqual([]);
    expect(await statusAndBody(await w.as(dev).get(`/groups/${group.id}/projects/shared`, { query: { order_by: "similarity" } }))).toEqual([
      400,
      { error: "order_by does not have a valid value" },
    ]);
    const hidden = await w.group({ visibility: "private" });
    expect(await statusAndBody(await w.as(dev).get(`/groups/${hidden.id}/projects/shared`))).toEqual([404, { message: "404 Group Not Found" }]);
  });
});
