import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { addMember, BASES, setUser, source, storedMember } from "./fixtures";

for (const base of BASES) {
  const missing = base === "groups" ? "404 Group Not Found" : "404 Project Not Found";

  describe(`DELETE /${base}/:id/members/:user_id`, () => {
    it("removes a member: 204, gone from the database", async () => {
      const w = await world();
      const dev = await w.user();
      const s = await source(w, base, { developers: [dev] });
      const res = await w.as(s.manager).delete(`${s.path}/members/${dev.id}`, { json: { unassign_issuables: true } });
      expect(await statusAndBody(res)).toEqual([204, ""]);
      expect(await storedMember(w, base, s.id, dev.id)).toBeUndefined();
      expect(await statusAndBody(await w.as(s.manager).delete(`${s.path}/members/${dev.id}`))).toEqual([404, { message: "404 Not found" }]);
    });

    it("lets a member leave, but not remove others", async () => {
      const w = await world();
      const [dev, other] = [await w.user(), await w.user()];
      const s = await source(w, base, { developers: [dev, other] });
      expect(await statusAndBody(await w.as(dev).delete(`${s.path}/members/${other.id}`))).toEqual([403, { message: "403 Forbidden" }]);
      expect((await w.as(dev).delete(`${s.path}/members/${dev.id}`)).status).toBe(204);
      expect(await storedMember(w, base, s.id, dev.id)).toBeUndefined();
      expect(await storedMember(w, base, s.id, other.id)).toBeDefined();
    });

    it("answers 400, 404, 401 and 412 as GitLab", async () => {
      const w = await world();
      const dev = await w.user();
      const s = await source(w, base, { developers: [dev] });
      expect(await statusAndBody(await w.as(s.manager).delete(`${s.path}/members/x`))).toEqual([400, { error: "user_id is invalid" }]);
      expect(await statusAndBody(await w.as(s.manager).delete(`${s.path}/members/${dev.id}`, { query: { skip_subresources: "perhaps" } }))).toEqual([
        400,
        { error: "skip_subresources is invalid" },
      ]);
      expect(await statusAndBody(await w.as(w.stranger).delete(`${s.path}/members/${dev.id}`))).toEqual([404, { message: missing }]);
      expect(await statusAndBody(await w.anonymous.delete(`${s.path}/members/${dev.id}`))).toEqual([401, { message: "401 Unauthorized" }]);
      const stale = await w.as(s.manager).delete(`${s.path}/members/${dev.id}`, { headers: { "If-Unmodified-Since": "Mon, 01 Jan 2001 00:00:00 GMT" } });
      expect(await statusAndBody(stale)).toEqual([412, { message: "412 Precondition Failed" }]);
      expect(await storedMember(w, base, s.id, dev.id)).toBeDefined();
    });
  });
}

describe("DELETE /groups/:id/members/:user_id (owners and subresources)", () => {
  it("never removes the last owner; another owner may leave", async () => {
    const w = await world();
    const s = await source(w, "groups");
    expect(await statusAndBody(await w.as(s.manager).delete(`${s.path}/members/${s.manager.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await w.root.delete(`${s.path}/members/${s.manager.id}`)).status).toBe(403);
    const other = await w.user();
    await addMember(w, "Namespace", s.id, other, 50);
    expect((await w.as(s.manager).delete(`${s.path}/members/${s.manager.id}`)).status).toBe(204);
    expect(await storedMember(w, "groups", s.id, s.manager.id)).toBeUndefined();
  });

  it("also removes the user's memberships of subgroups and their projects unless skip_subresources", async () => {
    const w = await world();
    const [dev, kept] = [await w.user(), await w.user()];
    const s = await source(w, "groups", { developers: [dev, kept] });
    const sub = await w.group({ parent: s.group!, developers: [dev, kept] });
    const project = await w.project({ group: sub, reporters: [dev, kept] });
    const elsewhere = await w.project({ developers: [dev] });

    expect((await w.as(s.manager).delete(`${s.path}/members/${kept.id}`, { query: { skip_subresources: true } })).status).toBe(204);
    expect(await storedMember(w, "groups", sub.id, kept.id)).toBeDefined();
    expect(await storedMember(w, "projects", project.id, kept.id)).toBeDefined();

    const res = await w.as(s.manager).delete(`${s.path}/members/${dev.id}`);
    expect(res.status).toBe(204);
    expect(Number(res.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
    expect(await storedMember(w, "groups", s.id, dev.id)).toBeUndefined();
    expect(await storedMember(w, "groups", sub.id, dev.id)).toBeUndefined();
    expect(await storedMember(w, "projects", project.id, dev.id)).toBeUndefined();
    expect(await storedMember(w, "projects", elsewhere.id, dev.id)).toBeDefined();
  });
});

describe("DELETE /projects/:id/members/:user_id (owners)", () => {
  it("keeps the namespace holder and leaves Owner removals to owners", async () => {
    const w = await world();
    const owner = await w.user();
    const s = await source(w, "projects");
    await addMember(w, "Project", s.id, owner, 50);
    expect(await statusAndBody(await w.as(s.manager).delete(`${s.path}/members/${owner.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await w.root.delete(`${s.path}/members/${s.holder!.id}`)).status).toBe(403);
    expect((await w.as(s.holder!).delete(`${s.path}/members/${s.holder!.id}`)).status).toBe(403);
    expect((await w.as(s.holder!).delete(`${s.path}/members/${owner.id}`)).status).toBe(204);
    const bot = await w.user();
    await setUser(w, bot, { userType: "project_bot" });
    await addMember(w, "Project", s.id, bot, 40);
    expect(await statusAndBody(await w.as(s.holder!).delete(`${s.path}/members/${bot.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await storedMember(w, "projects", s.id, s.holder!.id)).toBeDefined();
    expect(await storedMember(w, "projects", s.id, owner.id)).toBeUndefined();
  });
});
