import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { addMember, BASES, dateIn, setUser, source, storedMember } from "./fixtures";

for (const base of BASES) {
  const missing = base === "groups" ? "404 Group Not Found" : "404 Project Not Found";

  describe(`PUT /${base}/:id/members/:user_id`, () => {
    it("changes the level and expiry: 200 with the member, stored", async () => {
      const w = await world();
      const dev = await w.user();
      const s = await source(w, base, { developers: [dev] });
      const res = await w.as(s.manager).put(`${s.path}/members/${dev.id}`, { json: { access_level: 20, expires_at: dateIn(9) } });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: dev.id, access_level: 20, expires_at: dateIn(9) });
      expect(await storedMember(w, base, s.id, dev.id)).toMatchObject({ accessLevel: 20, expiresAt: dateIn(9) });
      // A PUT without expires_at keeps it; an explicit null clears it.
      await w.as(s.manager).put(`${s.path}/members/${dev.id}`, { form: { access_level: 30 } });
      expect(await storedMember(w, base, s.id, dev.id)).toMatchObject({ accessLevel: 30, expiresAt: dateIn(9) });
      const cleared = await w.as(s.manager).put(`${s.path}/members/${dev.id}`, { json: { access_level: 30, expires_at: null } });
      expect(await cleared.json()).toMatchObject({ expires_at: null });
      expect((await storedMember(w, base, s.id, dev.id))?.expiresAt).toBeNull();
    });

    it("answers 400 for missing or invalid input", async () => {
      const w = await world();
      const dev = await w.user();
      const s = await source(w, base, { developers: [dev] });
      const as = w.as(s.manager);
      expect(await statusAndBody(await as.put(`${s.path}/members/${dev.id}`, { json: {} }))).toEqual([400, { error: "access_level is missing" }]);
      expect(await statusAndBody(await as.put(`${s.path}/members/x`, { json: {} }))).toEqual([
        400,
        { error: "user_id is invalid, access_level is missing" },
      ]);
      expect(await statusAndBody(await as.put(`${s.path}/members/${dev.id}`, { json: { access_level: 1 } }))).toEqual([
        400,
        { message: { access_level: ["is not included in the list"] } },
      ]);
      expect(await statusAndBody(await as.put(`${s.path}/members/${dev.id}`, { json: { access_level: 30, expires_at: dateIn(-1) } }))).toEqual([
        400,
        { message: { expires_at: ["cannot be a date in the past"] } },
      ]);
      expect((await storedMember(w, base, s.id, dev.id))?.accessLevel).toBe(30);
    });

    it("answers 404 Not found for a non-member, 403 below the managing role, 404 for strangers", async () => {
      const w = await world();
      const dev = await w.user();
      const s = await source(w, base, { developers: [dev] });
      expect(await statusAndBody(await w.as(s.manager).put(`${s.path}/members/${w.stranger.id}`, { json: { access_level: 30 } }))).toEqual([
        404,
        { message: "404 Not found" },
      ]);
      // authorize_admin_source! runs before the member lookup.
      expect(await statusAndBody(await w.as(dev).put(`${s.path}/members/${w.stranger.id}`, { json: { access_level: 30 } }))).toEqual([
        403,
        { message: "403 Forbidden" },
      ]);
      expect(await statusAndBody(await w.as(w.stranger).put(`${s.path}/members/${dev.id}`, { json: { access_level: 30 } }))).toEqual([
        404,
        { message: missing },
      ]);
      expect(await statusAndBody(await w.anonymous.put(`${s.path}/members/${dev.id}`, { json: { access_level: 30 } }))).toEqual([
        401,
        { message: "401 Unauthorized" },
      ]);
    });

    it("refuses to change a project bot", async () => {
      const w = await world();
      const bot = await w.user();
      await setUser(w, bot, { userType: "project_bot" });
      const s = await source(w, base, { developers: [bot] });
      expect(await statusAndBody(await w.as(s.manager).put(`${s.path}/members/${bot.id}`, { json: { access_level: 20 } }))).toEqual([
        403,
        { message: "403 Forbidden" },
      ]);
    });
  });
}

describe("PUT /groups/:id/members/:user_id (owners)", () => {
  it("refuses to change the last owner, even for an admin", async () => {
    const w = await world();
    const s = await source(w, "groups");
    expect(await statusAndBody(await w.root.put(`${s.path}/members/${s.manager.id}`, { json: { access_level: 40 } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
    const other = await w.user();
    await addMember(w, "Namespace", s.id, other, 50);
    expect((await w.as(other).put(`${s.path}/members/${s.manager.id}`, { json: { access_level: 40 } })).status).toBe(200);
    expect((await storedMember(w, "groups", s.id, s.manager.id))?.accessLevel).toBe(40);
  });
});

describe("PUT /projects/:id/members/:user_id (owners)", () => {
  it("keeps Owner changes for owners and never touches the namespace holder", async () => {
    const w = await world();
    const [dev, owner] = [await w.user(), await w.user()];
    const s = await source(w, "projects", { developers: [dev] });
    await addMember(w, "Project", s.id, owner, 50);
    const as = w.as(s.manager);
    expect(await statusAndBody(await as.put(`${s.path}/members/${dev.id}`, { json: { access_level: 50 } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await as.put(`${s.path}/members/${owner.id}`, { json: { access_level: 40 } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await w.as(s.holder!).put(`${s.path}/members/${dev.id}`, { json: { access_level: 50 } })).status).toBe(200);
    expect(await statusAndBody(await w.root.put(`${s.path}/members/${s.holder!.id}`, { json: { access_level: 40 } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
    expect((await storedMember(w, "projects", s.id, s.holder!.id))?.accessLevel).toBe(50);
  });
});
