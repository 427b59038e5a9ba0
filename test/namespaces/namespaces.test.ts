import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";

type Json = Record<string, any>;

const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));

describe("GET /namespaces", () => {
  requiresAuthentication((w) => w.anonymous.get("/namespaces"));

  it("lists the caller's own namespace and the groups they are a direct member of", async () => {
    const w = await world();
    const me = await w.user();
    const mine = await w.group({ owners: [me] });
    const dev = await w.group({ developers: [me] });
    await w.group({ visibility: "public" });
    const res = await w.as(me).get("/namespaces");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.map((n) => n.id)).toEqual([me.namespaceId, mine.id, dev.id].sort((a, b) => a - b));
    const personal = body.find((n) => n.id === me.namespaceId)!;
    expect(personal).toEqual({
      id: me.namespaceId,
      name: me.name,
      path: me.username,
      kind: "user",
      full_path: me.username,
      parent_id: null,
      avatar_url: null,
      web_url: `http://edgeforge.test/${me.username}`,
    });
    // Owners see the member count; developers do not.
    expect(body.find((n) => n.id === mine.id)).toMatchObject({ kind: "group", members_count_with_descendants: 1, root_repository_size: null });
    expect(body.find((n) => n.id === dev.id)).not.toHaveProperty("members_count_with_descendants");
    const owned = (await (await w.as(me).get("/namespaces", { query: { owned_only: true } })).json()) as Json[];
    expect(owned.map((n) => n.id)).toEqual([me.namespaceId, mine.id]);
    const searched = (await (await w.as(me).get("/namespaces", { query: { search: dev.path } })).json()) as Json[];
    expect(searched.map((n) => n.id)).toEqual([dev.id]);
  });

  it("paginates with a flat statement count; admins see every namespace", async () => {
    const w = await world();
    const me = await w.user();
    await w.group({ owners: [me] });
    await w.group({ owners: [me] });
    const one = await w.as(me).get("/namespaces", { query: { per_page: 1 } });
    expect(one.headers.get("x-total")).toBe("3");
    expect(one.headers.get("x-total-pages")).toBe("3");
    const hundred = await w.as(me).get("/namespaces", { query: { per_page: 100 } });
    expect(queryCount(one)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
    const asRoot = (await (await w.root.get("/namespaces", { query: { search: me.username } })).json()) as Json[];
    expect(asRoot.map((n) => n.id)).toEqual([me.namespaceId]);
    expect(await statusAndBody(await w.as(me).get("/namespaces", { query: { page: 0 } }))).toEqual([400, { error: "page does not have a valid value" }]);
  });
});

describe("GET /namespaces/:id", () => {
  requiresAuthentication((w) => w.anonymous.get("/namespaces/1"));

  it("shows a namespace by id or full path to its owner or members; 404 to others", async () => {
    const w = await world();
    const me = await w.user();
    const parent = await w.group({ maintainers: [me] });
    const child = await w.group({ parent });
    const byId = await w.as(me).get(`/namespaces/${child.id}`);
    expect(byId.status).toBe(200);
    expect(await byId.json()).toEqual({
      id: child.id,
      name: child.name,
      path: child.path,
      kind: "group",
      full_path: child.fullPath,
      parent_id: parent.id,
      avatar_url: null,
      web_url: `http://edgeforge.test/groups/${child.fullPath}`,
    });
    expect(((await (await w.as(me).get(`/namespaces/${encodeURIComponent(child.fullPath)}`)).json()) as Json).id).toBe(child.id);
    expect(((await (await w.as(me).get(`/namespaces/${me.username}`)).json()) as Json).kind).toBe("user");
    const notFound = [404, { message: "404 Namespace Not Found" }];
    expect(await statusAndBody(await w.as(w.stranger).get(`/namespaces/${child.id}`))).toEqual(notFound);
    expect(await statusAndBody(await w.as(w.stranger).get(`/namespaces/${me.namespaceId}`))).toEqual(notFound);
    expect(await statusAndBody(await w.as(me).get("/namespaces/99999999999"))).toEqual(notFound);
    const publicGroup = await w.group({ visibility: "public" });
    expect(await statusAndBody(await w.as(me).get(`/namespaces/${publicGroup.id}`))).toEqual(notFound);
    expect((await w.root.get(`/namespaces/${publicGroup.id}`)).status).toBe(200);
  });
});

describe("GET /namespaces/:namespace/exists", () => {
  requiresAuthentication((w) => w.anonymous.get("/namespaces/x/exists"));

  it("answers whether a top-level path is taken, with a free suggestion", async () => {
    const w = await world();
    const me = await w.user();
    const group = await w.group();
    expect(await (await w.as(me).get(`/namespaces/${group.path}/exists`)).json()).toEqual({ exists: true, suggests: [`${group.path}1`] });
    expect(await (await w.as(me).get(`/namespaces/${group.path.toUpperCase()}/exists`)).json()).toEqual({
      exists: true,
      suggests: [`${group.path.toUpperCase()}1`],
    });
    expect(await (await w.as(me).get(`/namespaces/${group.path}-free/exists`)).json()).toEqual({ exists: false, suggests: [] });
  });

  it("looks under parent_id when given", async () => {
    const w = await world();
    const me = await w.user();
    const parent = await w.group();
    const child = await w.group({ parent });
    expect(await (await w.as(me).get(`/namespaces/${child.path}/exists`)).json()).toEqual({ exists: false, suggests: [] });
    expect(await (await w.as(me).get(`/namespaces/${child.path}/exists`, { query: { parent_id: parent.id } })).json()).toEqual({
      exists: true,
      suggests: [`${child.path}1`],
    });
    expect(await statusAndBody(await w.as(me).get(`/namespaces/${child.path}/exists`, { query: { parent_id: "x" } }))).toEqual([
      400,
      { error: "parent_id is invalid" },
    ]);
  });
});
