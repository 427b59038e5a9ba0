import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";

type Json = Record<string, any>;

describe("GET /groups/:id/transfer_locations", () => {
  it("lists the groups the caller owns but the group, its descendants and its parent, by path, paginated", async () => {
    const w = await world();
    const owner = await w.user();
    const tag = `tl${Date.now() % 100000}${Math.floor(Math.random() * 1000)}`;
    const parent = await w.group({ path: `${tag}-parent`, owners: [owner] });
    const moving = await w.group({ path: `${tag}-moving`, parent });
    await w.group({ path: `${tag}-child`, parent: moving });
    const sibling = await w.group({ path: `${tag}-b-sibling`, parent });
    const other = await w.group({ path: `${tag}-a-other`, owners: [owner] });
    const maintained = await w.group({ path: `${tag}-maintained`, maintainers: [owner] });
    const res = await w.as(owner).get(`/groups/${moving.id}/transfer_locations`);
    const [status, body] = (await statusAndBody(res)) as [number, Json[]];
    expect(status).toBe(200);
    expect(body.map((g) => g.id)).toEqual([other.id, sibling.id]);
    expect(body[0]).toEqual({
      id: other.id,
      web_url: expect.stringContaining(`/groups/${other.fullPath}`),
      name: other.name,
      avatar_url: null,
      full_name: other.name,
      full_path: other.fullPath,
    });
    expect(body.map((g) => g.id)).not.toContain(maintained.id);
    const searched = await w.as(owner).get(`/groups/${moving.id}/transfer_locations`, { query: { search: "b-sib" } });
    expect(((await searched.json()) as Json[]).map((g) => g.id)).toEqual([sibling.id]);
    const paged = await w.as(owner).get(`/groups/${moving.id}/transfer_locations`, { query: { per_page: 1, page: 2 } });
    expect([((await paged.json()) as Json[]).map((g) => g.id), paged.headers.get("x-total")]).toEqual([[sibling.id], "2"]);
  });

  it("answers 403 below owner, 404 for a group the caller cannot see", async () => {
    const w = await world();
    const maintainer = await w.user();
    const group = await w.group({ maintainers: [maintainer] });
    expect(await statusAndBody(await w.as(maintainer).get(`/groups/${group.id}/transfer_locations`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${group.id}/transfer_locations`))).toEqual([404, { message: "404 Group Not Found" }]);
  });

  it("answers 403 to an anonymous caller on a public group", async () => {
    const w = await world();
    const group = await w.group({ visibility: "public" });
    expect(await statusAndBody(await w.anonymous.get(`/groups/${group.id}/transfer_locations`))).toEqual([403, { message: "403 Forbidden" }]);
  });
});
