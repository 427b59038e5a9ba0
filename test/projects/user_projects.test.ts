import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { users } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";

type Json = Record<string, any>;

describe("GET /users/:user_id/projects", () => {
  it("lists the user's personal projects the caller can see, newest first, with GET /projects' filters", async () => {
    const w = await world();
    const owner = await w.user();
    const pub = await w.project({ owner, visibility: "public" });
    const priv = await w.project({ owner, visibility: "private" });
    const internal = await w.project({ owner, visibility: "internal" });
    const group = await w.group({ visibility: "public", owners: [owner] });
    await w.project({ group, visibility: "public" });
    const anonymous = (await (await w.anonymous.get(`/users/${owner.id}/projects`)).json()) as Json[];
    expect(anonymous.map((p) => p.id)).toEqual([pub.id]);
    const stranger = (await (await w.as(w.stranger).get(`/users/${owner.id}/projects`)).json()) as Json[];
    expect(stranger.map((p) => p.id)).toEqual([internal.id, pub.id]);
    const self = await w.as(owner).get(`/users/${owner.id}/projects`, { query: { order_by: "id", sort: "asc" } });
    expect(((await self.json()) as Json[]).map((p) => p.id)).toEqual([pub.id, priv.id, internal.id]);
    expect(self.headers.get("x-total")).toBe("3");
    const filtered = (await (await w.as(owner).get(`/users/${owner.id}/projects`, { query: { visibility: "private" } })).json()) as Json[];
    expect(filtered.map((p) => p.id)).toEqual([priv.id]);
    const simple = (await (await w.as(owner).get(`/users/${owner.id}/projects`, { query: { simple: true, per_page: 1 } })).json()) as Json[];
    expect(simple.length).toBe(1);
    expect(simple[0]).not.toHaveProperty("permissions");
    const searched = (await (await w.as(owner).get(`/users/${owner.id}/projects`, { query: { search: priv.path } })).json()) as Json[];
    expect(searched.map((p) => p.id)).toEqual([priv.id]);
  });

  it("answers 400 for bad filters, 404 for an unknown user, nothing for a private profile", async () => {
    const w = await world();
    const owner = await w.user();
    await w.project({ owner, visibility: "public" });
    expect(await statusAndBody(await w.anonymous.get(`/users/${owner.id}/projects`, { query: { visibility: "secret" } }))).toEqual([
      400,
      { error: "visibility does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.anonymous.get("/users/2147483600/projects"))).toEqual([404, { message: "404 User Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get("/users/no.such-user/projects"))).toEqual([404, { message: "404 User Not Found" }]);
    // `:user_id` is the id or the username (find_user), in any case.
    const byName = (await (await w.anonymous.get(`/users/${owner.username.toUpperCase()}/projects`)).json()) as Json[];
    expect(byName.length).toBe(1);
    await w.db((db) => db.update(users).set({ privateProfile: true }).where(eq(users.id, owner.id)));
    expect(await statusAndBody(await w.anonymous.get(`/users/${owner.id}/projects`))).toEqual([200, []]);
    expect(((await (await w.as(owner).get(`/users/${owner.id}/projects`)).json()) as Json[]).length).toBe(1);
  });
});
