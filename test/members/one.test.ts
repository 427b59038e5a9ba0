import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { eq } from "drizzle-orm";
import { projects } from "../../db/schema";
import type { World } from "../helpers/world";
import { addMember, BASES, dateIn, source } from "./fixtures";

async function storedPath(w: World, projectId: number): Promise<string> {
  const [row] = await w.db((db) => db.select({ path: projects.path }).from(projects).where(eq(projects.id, projectId)));
  return row.path;
}

for (const base of BASES) {
  const missing = base === "groups" ? "404 Group Not Found" : "404 Project Not Found";

  describe(`GET /${base}/:id/members/:user_id`, () => {
    it("answers a direct member, and 404 Not found for anyone else", async () => {
      const w = await world();
      const dev = await w.user();
      const s = await source(w, base, { visibility: "internal", developers: [dev] });
      const res = await w.as(w.stranger).get(`${s.path}/members/${dev.id}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: dev.id, username: dev.username, access_level: 30, expires_at: null, membership_state: "active" });
      expect(await statusAndBody(await w.as(dev).get(`${s.path}/members/${w.stranger.id}`))).toEqual([404, { message: "404 Not found" }]);
      // The source may be addressed by its URL-encoded full path.
      const fullPath = base === "groups" ? s.group!.fullPath : `${s.holder!.username}/${(await storedPath(w, s.id))}`;
      const byPath = await w.as(dev).get(`/${base}/${encodeURIComponent(fullPath)}/members/${dev.id}`);
      expect(await byPath.json()).toMatchObject({ id: dev.id, access_level: 30 });
    });

    it("does not answer inherited members", async () => {
      const w = await world();
      const parentDev = await w.user();
      const parent = await w.group({ developers: [parentDev] });
      const path = base === "groups" ? `/groups/${(await w.group({ parent })).id}` : `/projects/${(await w.project({ group: parent })).id}`;
      expect(await statusAndBody(await w.as(parentDev).get(`${path}/members/${parentDev.id}`))).toEqual([404, { message: "404 Not found" }]);
      const inherited = await w.as(parentDev).get(`${path}/members/all/${parentDev.id}`);
      expect(await inherited.json()).toMatchObject({ id: parentDev.id, access_level: 30 });
    });

    it("validates user_id, hides private sources and needs a signed-in caller", async () => {
      const w = await world();
      const s = await source(w, base);
      expect(await statusAndBody(await w.as(s.manager).get(`${s.path}/members/abc`))).toEqual([400, { error: "user_id is invalid" }]);
      expect(await statusAndBody(await w.as(w.stranger).get(`${s.path}/members/${s.manager.id}`))).toEqual([404, { message: missing }]);
      expect(await statusAndBody(await w.anonymous.get(`${s.path}/members/${s.manager.id}`))).toEqual([401, { message: "401 Unauthorized" }]);
    });
  });

  describe(`GET /${base}/:id/members/all/:user_id`, () => {
    it("answers the highest membership, with its row's details", async () => {
      const w = await world();
      const user = await w.user();
      const parent = await w.group();
      await addMember(w, "Namespace", parent.id, user, 40, { expiresAt: dateIn(3) });
      const s = base === "groups" ? await w.group({ parent }) : await w.project({ group: parent });
      await addMember(w, base === "groups" ? "Namespace" : "Project", s.id, user, 20);
      const res = await w.as(user).get(`/${base}/${s.id}/members/all/${user.id}`);
      expect(res.status).toBe(200);
      // Groups keep the highest row; projects show their own row at the effective level.
      const expires = base === "groups" ? dateIn(3) : null;
      expect(await res.json()).toMatchObject({ id: user.id, access_level: 40, expires_at: expires });
      expect(res.headers.get("x-total")).toBeNull();
      expect(Number(res.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
    });

    it("answers 404 Not found for a non-member and 400 for a bad id", async () => {
      const w = await world();
      const s = await source(w, base);
      expect(await statusAndBody(await w.as(s.manager).get(`${s.path}/members/all/${w.stranger.id}`))).toEqual([404, { message: "404 Not found" }]);
      expect(await statusAndBody(await w.as(s.manager).get(`${s.path}/members/all/1x`))).toEqual([400, { error: "user_id is invalid" }]);
      expect(await statusAndBody(await w.as(w.stranger).get(`${s.path}/members/all/${s.manager.id}`))).toEqual([404, { message: missing }]);
    });
  });
}
