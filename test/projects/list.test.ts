import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { projects } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { followPages } from "../helpers/shared";
import { unique, world, type TestProject, type World } from "../helpers/world";

type Json = Record<string, any>;
const ids = (body: unknown) => (body as Json[]).map((p) => p.id);
const sorted = (list: number[]) => [...list].sort((a, b) => a - b);

async function setColumns(w: World, project: TestProject, values: Partial<typeof projects.$inferInsert>) {
  await w.db((db) => db.update(projects).set(values).where(eq(projects.id, project.id)));
}

/** Projects named `<prefix>-<n>` so a `search` keeps other tests' projects out. */
async function fixture() {
  const w = await world();
  const prefix = unique("lst");
  const member = await w.user();
  const pub = await w.project({ visibility: "public", path: `${prefix}-pub` });
  const internal = await w.project({ visibility: "internal", path: `${prefix}-int` });
  const mine = await w.project({ visibility: "private", path: `${prefix}-mine`, developers: [member] });
  const hidden = await w.project({ visibility: "private", path: `${prefix}-hidden` });
  return { w, prefix, member, pub, internal, mine, hidden };
}

describe("GET /projects", () => {
  it("lists what each caller may read", async () => {
    const { w, prefix, member, pub, internal, mine, hidden } = await fixture();
    const external = await w.user({ external: true });
    const list = async (client: ReturnType<World["as"]>) => sorted(ids(await (await client.get("/projects", { query: { search: prefix } })).json()));
    expect(await list(w.anonymous)).toEqual([pub.id]);
    expect(await list(w.as(external))).toEqual([pub.id]);
    expect(await list(w.as(w.stranger))).toEqual(sorted([pub.id, internal.id]));
    expect(await list(w.as(member))).toEqual(sorted([pub.id, internal.id, mine.id]));
    expect(await list(w.root)).toEqual(sorted([pub.id, internal.id, mine.id, hidden.id]));
  });

  it("lists what each caller may read without any filter (its ids and count are a prepared statement per caller shape)", async () => {
    const { w, member, pub, internal, mine, hidden } = await fixture();
    const external = await w.user({ external: true });
    // The newest projects come first (created_at desc): the fixture's four are on the first page, unless
    // other test files create a hundred projects in between.
    const firstPage = async (client: ReturnType<World["as"]>, query: Json = {}) => {
      const res = await client.get("/projects", { query: { per_page: 100, ...query } });
      expect(res.status).toBe(200);
      return { ids: new Set(ids(await res.json())), total: Number(res.headers.get("x-total")) };
    };
    const shown = async (client: ReturnType<World["as"]>) => {
      const seen = (await firstPage(client)).ids;
      return [pub, internal, mine, hidden].filter((p) => seen.has(p.id)).map((p) => p.id);
    };
    expect(await shown(w.anonymous)).toEqual([pub.id]);
    expect(await shown(w.as(external))).toEqual([pub.id]);
    expect(await shown(w.as(w.stranger))).toEqual([pub.id, internal.id]);
    expect(await shown(w.as(member))).toEqual([pub.id, internal.id, mine.id]);
    expect(await shown(w.root)).toEqual([pub.id, internal.id, mine.id, hidden.id]);
    // The count is the caller's too: an anonymous caller counts fewer projects than root.
    const [anonymous, root] = [await firstPage(w.anonymous), await firstPage(w.root)];
    expect(anonymous.total).toBeGreaterThan(0);
    expect(root.total).toBeGreaterThan(anonymous.total);
    // Another order is another prepared statement.
    const ascending = ids(await (await w.root.get("/projects", { query: { per_page: 100, order_by: "id", sort: "asc", page: 1 } })).json());
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    const descending = [...(await firstPage(w.root, { order_by: "id" })).ids];
    expect(descending).toEqual([...descending].sort((a, b) => b - a));
  });

  it("presents ProjectWithAccess to signed-in callers and BasicProjectDetails to anonymous ones or with simple=true", async () => {
    const { w, prefix, member, mine, pub } = await fixture();
    const signedIn = ((await (await w.as(member).get("/projects", { query: { search: `${prefix}-mine` } })).json()) as Json[])[0];
    expect(signedIn).toMatchObject({ id: mine.id, permissions: { project_access: { access_level: 30 } }, visibility: "private" });
    const basicKeys = [
      "id", "description", "name", "name_with_namespace", "path", "path_with_namespace", "created_at", "default_branch", "tag_list",
      "topics", "ssh_url_to_repo", "http_url_to_repo", "web_url", "readme_url", "forks_count", "avatar_url", "star_count",
      "last_activity_at", "namespace",
    ];
    const anonymous = ((await (await w.anonymous.get("/projects", { query: { search: prefix } })).json()) as Json[])[0];
    expect(Object.keys(anonymous)).toEqual(basicKeys);
    expect(anonymous.id).toBe(pub.id);
    const simple = ((await (await w.as(member).get("/projects", { query: { search: `${prefix}-mine`, simple: true } })).json()) as Json[])[0];
    expect(Object.keys(simple)).toEqual(basicKeys);
  });

  it("filters by owned, membership, min_access_level, visibility, archived, features, ids, activity and topic", async () => {
    const { w, prefix, member, pub, internal, mine, hidden } = await fixture();
    const owner = await w.user();
    const owned = await w.project({ owner, visibility: "public", path: `${prefix}-owned`, reporters: [member] });
    await setColumns(w, internal, { archived: true, issuesEnabled: false, tagList: ["ruby", "go"], lastActivityAt: new Date("2001-01-01T00:00:00Z") });
    const query = async (client: ReturnType<World["as"]>, extra: Json) =>
      sorted(ids(await (await client.get("/projects", { query: { search: prefix, ...extra } })).json()));
    expect(await query(w.as(owner), { owned: true })).toEqual([owned.id]);
    expect(await query(w.as(member), { membership: true })).toEqual(sorted([mine.id, owned.id]));
    expect(await query(w.as(member), { min_access_level: 30 })).toEqual([mine.id]);
    expect(await query(w.anonymous, { owned: true })).toEqual([]);
    expect(await query(w.root, { visibility: "private" })).toEqual(sorted([mine.id, hidden.id]));
    expect(await query(w.root, { archived: true })).toEqual([internal.id]);
    expect(await query(w.root, { archived: false })).toEqual(sorted([pub.id, mine.id, hidden.id, owned.id]));
    expect(await query(w.root, { with_issues_enabled: true })).not.toContain(internal.id);
    expect(await query(w.root, { id_after: mine.id, id_before: owned.id })).toEqual([hidden.id]);
    expect(await query(w.root, { last_activity_before: "2010-01-01T00:00:00Z" })).toEqual([internal.id]);
    expect(await query(w.root, { topic: "go, ruby" })).toEqual([internal.id]);
    expect(await query(w.root, { topic: "go,java" })).toEqual([]);
    expect(await query(w.as(member), { starred: true })).toEqual([]);
    expect((await w.as(member).post(`/projects/${pub.id}/star`)).status).toBe(201);
    expect(await query(w.as(member), { starred: true })).toEqual([pub.id]);
  });

  it("searches name, path and description (short queries must match exactly), and namespaces on request", async () => {
    const w = await world();
    const owner = await w.user();
    const prefix = unique("srch");
    const described = await w.project({ owner, visibility: "public", path: `${prefix}-a` });
    await setColumns(w, described, { description: `about ${prefix}-zebra things` });
    const short = await w.project({ owner, visibility: "public", path: "ab" });
    const search = async (extra: Json) => ids(await (await w.as(owner).get("/projects", { query: { owned: true, ...extra } })).json());
    expect(await search({ search: `${prefix}-zebra` })).toEqual([described.id]);
    expect(await search({ search: `ZEBRA ${prefix}` })).toEqual([described.id]);
    expect(await search({ search: "AB" })).toEqual([short.id]);
    expect(await search({ search: owner.username })).toEqual([]);
    expect(sorted(await search({ search: owner.username, search_namespaces: true }))).toEqual(sorted([described.id, short.id]));
  });

  it("orders by created_at desc by default, and by the requested column and direction", async () => {
    const { w, prefix, pub, internal, mine, hidden } = await fixture();
    const created = [pub, internal, mine, hidden];
    const list = async (extra: Json) => ids(await (await w.root.get("/projects", { query: { search: prefix, ...extra } })).json());
    expect(await list({})).toEqual(created.map((p) => p.id).reverse());
    expect(await list({ order_by: "name", sort: "asc" })).toEqual([hidden.id, internal.id, mine.id, pub.id]);
    expect(await list({ order_by: "id", sort: "asc" })).toEqual(created.map((p) => p.id));
    expect(await statusAndBody(await w.root.get("/projects", { query: { order_by: "stars" } }))).toEqual([
      400,
      { error: "order_by does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.root.get("/projects", { query: { sort: "up", visibility: "secret" } }))).toEqual([
      400,
      { error: "sort does not have a valid value, visibility does not have a valid value" },
    ]);
  });

  it("orders the caller's own projects by similarity when searching", async () => {
    const { w, prefix, member, mine } = await fixture();
    const exact = await w.project({ visibility: "private", path: `${prefix}-sim`, developers: [member] });
    const longer = await w.project({ visibility: "public", path: `x-${prefix}-sim-longer`, developers: [member] });
    const res = await w.as(member).get("/projects", { query: { search: `${prefix}-sim`, order_by: "similarity" } });
    expect(ids(await res.json())).toEqual([exact.id, longer.id]);
    const all = ids(await (await w.as(member).get("/projects", { query: { search: prefix, order_by: "similarity" } })).json());
    expect(all).toContain(mine.id);
  });

  it("paginates by offset with headers, flat statement counts and a 50,000 offset cap", async () => {
    const { w, prefix, pub, internal, mine, hidden } = await fixture();
    const res = await w.root.get("/projects", { query: { search: prefix, per_page: 1, page: 2 } });
    expect(ids(await res.json())).toEqual([mine.id]);
    expect(Object.fromEntries(["x-page", "x-per-page", "x-next-page", "x-prev-page", "x-total", "x-total-pages"].map((h) => [h, res.headers.get(h)]))).toEqual({
      "x-page": "2", "x-per-page": "1", "x-next-page": "3", "x-prev-page": "1", "x-total": "4", "x-total-pages": "4",
    });
    expect(res.headers.get("link")).toContain(`search=${prefix}`);
    const all = await followPages(w, await w.root.get("/projects", { query: { search: prefix, per_page: 3 } }), w.rootToken);
    expect(sorted(ids(all))).toEqual(sorted([pub.id, internal.id, mine.id, hidden.id]));
    for (const client of [w.root, w.anonymous]) {
      const one = await client.get("/projects", { query: { search: prefix, per_page: 1 } });
      const hundred = await client.get("/projects", { query: { search: prefix, per_page: 100 } });
      expect(one.headers.get("x-query-count")).toBe(hundred.headers.get("x-query-count"));
      expect(Number(one.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
    }
    expect(await statusAndBody(await w.root.get("/projects", { query: { page: 501, per_page: 100 } }))).toEqual([
      405,
      { error: "Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Project. Remaining records can be retrieved using keyset pagination." },
    ]);
  });

  it("paginates by keyset on id with id_after / id_before links, to the end and without totals", async () => {
    const { w, prefix, pub, internal, mine, hidden } = await fixture();
    const created = [pub, internal, mine, hidden].map((p) => p.id);
    const first = await w.root.get("/projects", { query: { search: prefix, pagination: "keyset", order_by: "id", sort: "asc", per_page: 3 } });
    expect(first.headers.get("x-total")).toBeNull();
    expect(first.headers.get("link")).toContain(`id_after=${mine.id}`);
    expect(ids(await first.clone().json())).toEqual(created.slice(0, 3));
    expect(ids(await followPages(w, first, w.rootToken))).toEqual(created);
    const desc = await w.root.get("/projects", { query: { search: prefix, pagination: "keyset", order_by: "id", sort: "desc", per_page: 2 } });
    expect(desc.headers.get("link")).toContain(`id_before=${mine.id}`);
    expect(ids(await followPages(w, desc, w.rootToken))).toEqual([...created].reverse());
    const last = await w.root.get("/projects", { query: { search: prefix, pagination: "keyset", order_by: "id", per_page: 4 } });
    expect(last.headers.get("link")).toBeNull();
  });

  it("paginates by keyset on the other columns with GitLab's cursor, and refuses similarity", async () => {
    const { w, prefix, pub, internal, mine, hidden } = await fixture();
    await setColumns(w, internal, { name: `${prefix}-pub` }); // a tie on name, broken by id
    const byName = await w.root.get("/projects", { query: { search: prefix, pagination: "keyset", order_by: "name", sort: "asc", per_page: 1 } });
    expect(byName.headers.get("link")).toMatch(/[?&]cursor=/);
    expect(ids(await followPages(w, byName, w.rootToken))).toEqual([hidden.id, mine.id, pub.id, internal.id]);
    const byCreated = await w.anonymous.get("/projects", { query: { search: prefix, pagination: "keyset", per_page: 1 } });
    expect(ids(await followPages(w, byCreated, null))).toEqual([pub.id]);
    expect(await statusAndBody(await w.root.get("/projects", { query: { pagination: "keyset", order_by: "similarity", search: prefix } }))).toEqual([
      405,
      { error: "Keyset pagination is not yet available for this type of request" },
    ]);
    expect(await statusAndBody(await w.root.get("/projects", { query: { pagination: "keyset", order_by: "name", cursor: "garbage" } }))).toEqual([
      400,
      { error: "cursor is invalid" },
    ]);
  });
});
