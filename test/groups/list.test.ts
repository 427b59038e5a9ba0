import { describe, expect, it } from "vitest";
import { request, statusAndBody } from "../helpers/client";
import { followPages } from "../helpers/shared";
import { world } from "../helpers/world";
import { ids, queryCount, rename, setCustomAttribute, token, type Json } from "./support";

/** Three top-level groups (public, internal, private) and a private subgroup of the public one, named `<tag>-…`. */
async function visibilityTree() {
  const w = await world();
  const tag = token();
  const owner = await w.user();
  const pub = await w.group({ path: `${tag}-pub`, visibility: "public", owners: [owner] });
  const int = await w.group({ path: `${tag}-int`, visibility: "internal", owners: [owner] });
  const priv = await w.group({ path: `${tag}-priv`, visibility: "private", owners: [owner] });
  const sub = await w.group({ path: `${tag}-sub`, visibility: "private", parent: pub, owners: [owner] });
  return { w, tag, owner, pub, int, priv, sub };
}

describe("GET /groups", () => {
  it("lists only public groups to anonymous callers, with offset pagination headers", async () => {
    const { w, tag, pub } = await visibilityTree();
    const res = await w.anonymous.get("/groups", { query: { search: tag } });
    expect(res.status).toBe(200);
    expect(await ids(res)).toEqual([pub.id]);
    expect(res.headers.get("x-total")).toBe("1");
    expect(res.headers.get("x-total-pages")).toBe("1");
    expect(res.headers.get("x-page")).toBe("1");
    expect(res.headers.get("x-per-page")).toBe("20");
    expect(res.headers.get("x-next-page")).toBe("");
  });

  it("lists a user's groups by membership by default: member groups, their descendants and ancestors", async () => {
    const w = await world();
    const tag = token();
    const user = await w.user();
    const root = await w.group({ path: `${tag}-root`, visibility: "private" });
    const mid = await w.group({ path: `${tag}-mid`, parent: root, developers: [user] });
    const leaf = await w.group({ path: `${tag}-leaf`, parent: mid });
    const other = await w.group({ path: `${tag}-other`, visibility: "private" });
    await w.project({ group: other, developers: [user] });
    await w.group({ path: `${tag}-public`, visibility: "public" });
    const res = await w.as(user).get("/groups", { query: { search: tag, order_by: "id" } });
    expect(await ids(res)).toEqual([root.id, mid.id, leaf.id, other.id]);
  });

  it("adds the groups the user may see with all_available=true: internal and public, public only for external users", async () => {
    const { w, tag, pub, int, priv, sub } = await visibilityTree();
    const external = await w.user({ external: true });
    const stranger = await w.as(w.stranger).get("/groups", { query: { search: tag, order_by: "id" } });
    expect(await ids(stranger)).toEqual([]);
    const all = await w.as(w.stranger).get("/groups", { query: { search: tag, order_by: "id", all_available: true } });
    expect(await ids(all)).toEqual([pub.id, int.id]);
    const ext = await w.as(external).get("/groups", { query: { search: tag, all_available: true } });
    expect(await ids(ext)).toEqual([pub.id]);
    const admin = await w.root.get("/groups", { query: { search: tag, order_by: "id" } });
    expect(await ids(admin)).toEqual([pub.id, int.id, priv.id, sub.id]);
    const adminOwn = await w.root.get("/groups", { query: { search: tag, all_available: false } });
    expect(await ids(adminOwn)).toEqual([]);
  });

  it("filters by owned, min_access_level, top_level_only and skip_groups", async () => {
    const w = await world();
    const tag = token();
    const user = await w.user();
    const owned = await w.group({ path: `${tag}-owned`, owners: [user] });
    const sub = await w.group({ path: `${tag}-ownedsub`, parent: owned });
    const maintained = await w.group({ path: `${tag}-maint`, maintainers: [user] });
    const developed = await w.group({ path: `${tag}-dev`, developers: [user] });
    const as = w.as(user);
    const get = (query: Json) => as.get("/groups", { query: { search: tag, order_by: "id", ...query } });
    expect(await ids(await get({ owned: true }))).toEqual([owned.id]);
    expect(await ids(await get({ min_access_level: 40 }))).toEqual([owned.id, sub.id, maintained.id]);
    expect(await ids(await get({ top_level_only: true }))).toEqual([owned.id, maintained.id, developed.id]);
    expect(await ids(await get({ "skip_groups[]": [owned.id, developed.id] }))).toEqual([sub.id, maintained.id]);
    expect(await ids(await get({ skip_groups: `${sub.id},${maintained.id}` }))).toEqual([owned.id, developed.id]);
    // `owned` and `min_access_level` mean nothing to anonymous callers.
    expect(await ids(await w.anonymous.get("/groups", { query: { search: tag, owned: true } }))).toEqual([]);
  });

  it("orders by name ascending by default, ties broken by id; by path or id on request", async () => {
    const w = await world();
    const tag = token();
    const user = await w.user();
    const a = await w.group({ path: `${tag}-c`, owners: [user] });
    const b = await w.group({ path: `${tag}-b`, owners: [user] });
    const c = await w.group({ path: `${tag}-a`, owners: [user] });
    await rename(w, a.id, `${tag} same`);
    await rename(w, b.id, `${tag} same`);
    await rename(w, c.id, `${tag} zzz`);
    const as = w.as(user);
    const get = (query: Json) => as.get("/groups", { query: { search: tag, ...query } });
    expect(await ids(await get({}))).toEqual([a.id, b.id, c.id]);
    expect(await ids(await get({ sort: "desc" }))).toEqual([c.id, a.id, b.id]);
    expect(await ids(await get({ order_by: "path" }))).toEqual([c.id, b.id, a.id]);
    expect(await ids(await get({ order_by: "id", sort: "desc" }))).toEqual([c.id, b.id, a.id]);
  });

  it("searches full paths and names; a term under 3 characters must match exactly", async () => {
    const w = await world();
    const tag = token();
    const user = await w.user();
    const parent = await w.group({ path: `${tag}-parent`, owners: [user] });
    const child = await w.group({ path: "kid", parent });
    await w.group({ path: "q7", owners: [user] });
    const res = await w.as(user).get("/groups", { query: { search: `${tag}-parent`, order_by: "id" } });
    expect(await ids(res)).toEqual([parent.id, child.id]);
    const multi = await w.as(user).get("/groups", { query: { search: `kid ${tag}` } });
    expect(await ids(multi)).toEqual([child.id]);
    const short = await w.as(user).get("/groups", { query: { search: "Q7" } });
    expect(((await short.json()) as Json[]).map((g) => g.full_path)).toEqual(["q7"]);
  });

  it("shows statistics and custom attributes to admins only, and filters by custom attributes for admins", async () => {
    const w = await world();
    const tag = token();
    const owner = await w.user();
    const tagged = await w.group({ path: `${tag}-tagged`, owners: [owner] });
    const plain = await w.group({ path: `${tag}-plain`, owners: [owner] });
    await setCustomAttribute(w, tagged.id, "team", "red");
    const query = { search: tag, statistics: true, with_custom_attributes: true, order_by: "id" };
    const admin = (await (await w.root.get("/groups", { query })).json()) as Json[];
    expect(admin.map((g) => g.id)).toEqual([tagged.id, plain.id]);
    expect(admin[0].custom_attributes).toEqual([{ key: "team", value: "red" }]);
    expect(admin[1].custom_attributes).toEqual([]);
    expect(admin[0].statistics).toEqual({
      storage_size: 0,
      repository_size: 0,
      wiki_size: 0,
      lfs_objects_size: 0,
      job_artifacts_size: 0,
      pipeline_artifacts_size: 0,
      packages_size: 0,
      snippets_size: 0,
      uploads_size: 0,
    });
    const filtered = await w.root.get("/groups", { query: { search: tag, "custom_attributes[team]": "red" } });
    expect(await ids(filtered)).toEqual([tagged.id]);
    const mine = (await (await w.as(owner).get("/groups", { query: { ...query, "custom_attributes[team]": "red" } })).json()) as Json[];
    expect(mine.map((g) => g.id)).toEqual([tagged.id, plain.id]);
    expect(mine[0]).not.toHaveProperty("statistics");
    expect(mine[0]).not.toHaveProperty("custom_attributes");
  });

  it("answers Grape's 400 for bad parameters", async () => {
    const w = await world();
    const as = w.as(w.stranger);
    expect(await statusAndBody(await as.get("/groups", { query: { order_by: "similarity" } }))).toEqual([
      400,
      { error: "order_by does not have a valid value" },
    ]);
    expect(await statusAndBody(await as.get("/groups", { query: { skip_groups: "a,b", sort: "up", min_access_level: 15 } }))).toEqual([
      400,
      { error: "skip_groups is invalid, sort does not have a valid value, min_access_level does not have a valid value" },
    ]);
    expect(await statusAndBody(await as.get("/groups", { query: { all_available: "maybe", per_page: 0 } }))).toEqual([
      400,
      { error: "all_available is invalid, per_page does not have a valid value" },
    ]);
  });

  it("paginates with Link headers and runs the same statements for per_page=1 and per_page=100 (at most 6)", async () => {
    const w = await world();
    const tag = token();
    const user = await w.user();
    const created = [];
    for (const suffix of ["a", "b", "c"]) created.push(await w.group({ path: `${tag}-${suffix}`, owners: [user] }));
    const first = await w.as(user).get("/groups", { query: { search: tag, per_page: 1 } });
    expect(first.headers.get("x-total")).toBe("3");
    expect(first.headers.get("x-next-page")).toBe("2");
    expect(first.headers.get("link")).toContain(`rel="next"`);
    const all = await followPages(w, first, user.token);
    expect(all.map((g) => (g as Json).id)).toEqual(created.map((g) => g.id));
    const hundred = await w.as(user).get("/groups", { query: { search: tag, per_page: 100 } });
    expect(queryCount(first)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
    const admin1 = await w.root.get("/groups", { query: { search: tag, per_page: 1, with_custom_attributes: true } });
    const admin100 = await w.root.get("/groups", { query: { search: tag, per_page: 100, with_custom_attributes: true } });
    expect(queryCount(admin1)).toBe(queryCount(admin100));
    expect(queryCount(admin100)).toBeLessThanOrEqual(6);
  });

  it("offers anonymous callers keyset pagination by name ascending, with only a next link", async () => {
    const w = await world();
    const tag = token();
    const groups = [];
    for (const suffix of ["a", "b", "c"]) groups.push(await w.group({ path: `${tag}-${suffix}`, visibility: "public" }));
    await rename(w, groups[0].id, `${tag} same`);
    await rename(w, groups[1].id, `${tag} same`);
    await rename(w, groups[2].id, `${tag} zzz`);
    const first = await w.anonymous.get("/groups", { query: { search: tag, pagination: "keyset", per_page: 1 } });
    expect(first.status).toBe(200);
    expect(first.headers.get("x-total")).toBeNull();
    expect(first.headers.get("link")).toMatch(/^<[^>]*cursor=[^>]*>; rel="next"$/);
    const all = await followPages(w, first, null);
    expect(all.map((g) => (g as Json).id)).toEqual(groups.map((g) => g.id));
    const oneQuery = await w.anonymous.get("/groups", { query: { search: tag, pagination: "keyset", per_page: 100 } });
    expect(oneQuery.headers.get("link")).toBeNull();
    expect(queryCount(first)).toBe(queryCount(oneQuery));
  });

  it("refuses keyset orders Group does not support, bad cursors, and deep offsets for anonymous callers", async () => {
    const w = await world();
    const keyset = { pagination: "keyset" };
    expect(await statusAndBody(await w.anonymous.get("/groups", { query: { ...keyset, order_by: "path" } }))).toEqual([
      405,
      { error: "Keyset pagination is not yet available for this type of request" },
    ]);
    expect(await statusAndBody(await w.anonymous.get("/groups", { query: { ...keyset, sort: "desc" } }))).toEqual([
      405,
      { error: "Keyset pagination is not yet available for this type of request" },
    ]);
    expect(await statusAndBody(await w.anonymous.get("/groups", { query: { ...keyset, cursor: "not json" } }))).toEqual([
      400,
      { error: "cursor is invalid" },
    ]);
    expect(await statusAndBody(await w.anonymous.get("/groups", { query: { page: 3000, per_page: 25 } }))).toEqual([
      405,
      {
        error:
          "Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Group. Remaining records can be retrieved using keyset pagination.",
      },
    ]);
    // Signed-in callers get plain offset pagination, whatever they ask.
    const signedIn = await w.as(w.stranger).get("/groups", { query: { page: 3000, per_page: 25, pagination: "keyset", order_by: "path" } });
    expect(await statusAndBody(signedIn)).toEqual([200, []]);
  });

  it("answers 401 for a bad token even though anonymous callers are welcome", async () => {
    expect(await statusAndBody(await request("GET", "/groups", "glpat-not-a-real-token"))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

/** A public group with a public and a private child, and a grandchild under the public child. */
async function family() {
  const w = await world();
  const tag = token();
  const member = await w.user();
  const parent = await w.group({ path: `${tag}-parent`, visibility: "public" });
  const pubChild = await w.group({ path: `${tag}-pubchild`, visibility: "public", parent });
  const privChild = await w.group({ path: `${tag}-privchild`, visibility: "private", parent });
  const grandchild = await w.group({ path: `${tag}-grand`, visibility: "public", parent: pubChild });
  const privateGroup = await w.group({ path: `${tag}-private`, visibility: "private", owners: [member] });
  await w.addMembers("Namespace", parent.id, { guests: [member] });
  return { w, tag, member, parent, pubChild, privChild, grandchild, privateGroup };
}

describe("GET /groups/:id/subgroups", () => {
  it("lists direct public subgroups to anonymous callers and 404s a private group", async () => {
    const { w, parent, pubChild, privateGroup } = await family();
    const res = await w.anonymous.get(`/groups/${parent.id}/subgroups`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.map((g) => g.id)).toEqual([pubChild.id]);
    expect(body[0].parent_id).toBe(parent.id);
    expect(await statusAndBody(await w.anonymous.get(`/groups/${privateGroup.id}/subgroups`))).toEqual([
      404,
      { message: "404 Group Not Found" },
    ]);
  });

  it("lists private subgroups to members, nothing to strangers unless all_available, everything to admins", async () => {
    const { w, member, parent, pubChild, privChild } = await family();
    const path = `/groups/${encodeURIComponent(parent.fullPath)}/subgroups`;
    expect(await ids(await w.as(member).get(path, { query: { order_by: "id" } }))).toEqual([pubChild.id, privChild.id]);
    expect(await ids(await w.as(w.stranger).get(path))).toEqual([]);
    expect(await ids(await w.as(w.stranger).get(path, { query: { all_available: true } }))).toEqual([pubChild.id]);
    expect(await ids(await w.root.get(path, { query: { order_by: "id" } }))).toEqual([pubChild.id, privChild.id]);
  });

  it("searches the subgroups' own paths and names, not their full paths", async () => {
    const { w, tag, member, parent, pubChild } = await family();
    expect(await ids(await w.as(member).get(`/groups/${parent.id}/subgroups`, { query: { search: `${tag}-pub` } }))).toEqual([pubChild.id]);
    expect(await ids(await w.as(member).get(`/groups/${parent.id}/subgroups`, { query: { search: `${tag}-parent` } }))).toEqual([]);
  });

  it("answers 404 for an unknown group and 400 for bad parameters", async () => {
    const w = await world();
    expect(await statusAndBody(await w.as(w.stranger).get("/groups/999999999/subgroups"))).toEqual([
      404,
      { message: "404 Group Not Found" },
    ]);
    expect(await statusAndBody(await w.as(w.stranger).get("/groups/1/subgroups", { query: { owned: "perhaps" } }))).toEqual([
      400,
      { error: "owned is invalid" },
    ]);
  });

  it("paginates and runs the same statements for per_page=1 and per_page=100 (at most 6)", async () => {
    const { w, member, parent } = await family();
    const one = await w.as(member).get(`/groups/${parent.id}/subgroups`, { query: { per_page: 1 } });
    expect(one.headers.get("x-total")).toBe("2");
    expect(one.headers.get("x-total-pages")).toBe("2");
    const hundred = await w.as(member).get(`/groups/${parent.id}/subgroups`, { query: { per_page: 100 } });
    expect(queryCount(one)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
  });
});

describe("GET /groups/:id/descendant_groups", () => {
  it("lists every visible group below, to anonymous callers the public ones", async () => {
    const { w, parent, pubChild, grandchild, privateGroup } = await family();
    expect(await ids(await w.anonymous.get(`/groups/${parent.id}/descendant_groups`, { query: { order_by: "id" } }))).toEqual([
      pubChild.id,
      grandchild.id,
    ]);
    expect(await statusAndBody(await w.anonymous.get(`/groups/${privateGroup.id}/descendant_groups`))).toEqual([
      404,
      { message: "404 Group Not Found" },
    ]);
  });

  it("includes private descendants for members and admins; strangers need all_available", async () => {
    const { w, member, parent, pubChild, privChild, grandchild } = await family();
    const path = `/groups/${parent.id}/descendant_groups`;
    const everyone = [pubChild.id, privChild.id, grandchild.id];
    expect(await ids(await w.as(member).get(path, { query: { order_by: "id" } }))).toEqual(everyone);
    expect(await ids(await w.root.get(path, { query: { order_by: "id" } }))).toEqual(everyone);
    expect(await ids(await w.as(w.stranger).get(path))).toEqual([]);
    expect(await ids(await w.as(w.stranger).get(path, { query: { all_available: true, order_by: "id" } }))).toEqual([
      pubChild.id,
      grandchild.id,
    ]);
  });

  it("paginates and runs the same statements for per_page=1 and per_page=100 (at most 6)", async () => {
    const { w, member, parent } = await family();
    const one = await w.as(member).get(`/groups/${parent.id}/descendant_groups`, { query: { per_page: 1, page: 2 } });
    expect(one.headers.get("x-total")).toBe("3");
    expect(one.headers.get("x-prev-page")).toBe("1");
    expect(one.headers.get("x-next-page")).toBe("3");
    const hundred = await w.as(member).get(`/groups/${parent.id}/descendant_groups`, { query: { per_page: 100 } });
    expect(queryCount(one)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
  });
});
