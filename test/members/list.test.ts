import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { addMember, BASES, dateIn, levels, listed, pairs, share, source } from "./fixtures";

for (const base of BASES) {
  describe(`GET /${base}/:id/members`, () => {
    it("lists the direct members with the member entity", async () => {
      const w = await world();
      const dev = await w.user();
      const s = await source(w, base, { developers: [dev] });
      await addMember(w, base === "groups" ? "Namespace" : "Project", s.id, w.stranger, 20, {
        expiresAt: dateIn(30),
        createdById: s.manager.id,
      });
      const res = await w.as(dev).get(`${s.path}/members`);
      const body = (await listed(res)) as unknown as Record<string, unknown>[];
      const expected = base === "groups" ? pairs([s.manager, 50], [dev, 30], [w.stranger, 20]) : pairs([s.holder!, 50], [s.manager, 40], [dev, 30], [w.stranger, 20]);
      expect(body.map((m) => [m.id, m.access_level]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual(expected);
      expect(res.headers.get("x-total")).toBe(String(expected.length));
      const added = body.find((m) => m.id === w.stranger.id)!;
      expect(Object.keys(added)).toEqual([
        "id", "username", "name", "state", "avatar_url", "web_url", "access_level", "created_at", "created_by", "expires_at", "membership_state",
      ]);
      expect(added).toMatchObject({
        username: w.stranger.username,
        name: w.stranger.name,
        state: "active",
        web_url: `http://edgeforge.test/${w.stranger.username}`,
        expires_at: dateIn(30),
        membership_state: "active",
        created_by: { id: s.manager.id, username: s.manager.username },
      });
      expect(added.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      // `created_by` is left out when nobody is recorded (expose_nil: false).
      expect(body.find((m) => m.id === dev.id)).not.toHaveProperty("created_by");
    });

    it("does not list inherited members", async () => {
      const w = await world();
      const parentOwner = await w.user();
      const parent = await w.group({ owners: [parentOwner] });
      const owner = await w.user();
      const res =
        base === "groups"
          ? await w.as(parentOwner).get(`/groups/${(await w.group({ parent, owners: [owner] })).id}/members`)
          : await w.as(parentOwner).get(`/projects/${(await w.project({ group: parent, maintainers: [owner] })).id}/members`);
      expect(await levels(res)).toEqual(pairs([owner, base === "groups" ? 50 : 40]));
    });

    it("filters by query (name, username, exact e-mail), user_ids and skip_users", async () => {
      const w = await world();
      const alice = await w.user({ name: "Alice Zebra" });
      const bob = await w.user({ name: "Bob Yak" });
      const s = await source(w, base, { developers: [alice, bob] });
      const as = w.as(s.manager);
      expect(await levels(await as.get(`${s.path}/members`, { query: { query: "zeb" } }))).toEqual(pairs([alice, 30]));
      expect(await levels(await as.get(`${s.path}/members`, { query: { query: "ALICE zebra" } }))).toEqual(pairs([alice, 30]));
      expect(await levels(await as.get(`${s.path}/members`, { query: { query: `@${bob.username}` } }))).toEqual(pairs([bob, 30]));
      expect(await levels(await as.get(`${s.path}/members`, { query: { query: bob.email.toUpperCase() } }))).toEqual(pairs([bob, 30]));
      // Under 3 characters, only a whole, case-insensitive match counts.
      expect(await listed(await as.get(`${s.path}/members`, { query: { query: "al" } }))).toEqual([]);
      expect(await levels(await as.get(`${s.path}/members`, { query: { user_ids: `${alice.id},${w.stranger.id}` } }))).toEqual(pairs([alice, 30]));
      const rest = await levels(await as.get(`${s.path}/members`, { query: { "skip_users[]": [alice.id, s.manager.id] } }));
      expect(rest.map(([id]) => id)).toContain(bob.id);
      expect(rest.map(([id]) => id)).not.toContain(alice.id);
      expect(rest.map(([id]) => id)).not.toContain(s.manager.id);
    });

    it("answers 400 for bad parameters", async () => {
      const w = await world();
      const s = await source(w, base);
      expect(await statusAndBody(await w.as(s.manager).get(`${s.path}/members`, { query: { user_ids: "1,x" } }))).toEqual([
        400,
        { error: "user_ids is invalid" },
      ]);
      expect(
        await statusAndBody(await w.as(s.manager).get(`${s.path}/members`, { query: { show_seat_info: "maybe", per_page: 0 } })),
      ).toEqual([400, { error: "show_seat_info is invalid, per_page does not have a valid value" }]);
    });

    it("needs a signed-in caller, even on a public source", async () => {
      const w = await world();
      const s = await source(w, base, { visibility: "public" });
      expect(await statusAndBody(await w.anonymous.get(`${s.path}/members`))).toEqual([401, { message: "401 Unauthorized" }]);
      expect(await levels(await w.as(w.stranger).get(`${s.path}/members`))).toContainEqual([s.manager.id, base === "groups" ? 50 : 40]);
    });

    it("hides a private source from strangers and lets guests list", async () => {
      const w = await world();
      const guest = await w.user();
      const s = await source(w, base, { guests: [guest] });
      const missing = base === "groups" ? "404 Group Not Found" : "404 Project Not Found";
      expect(await statusAndBody(await w.as(w.stranger).get(`${s.path}/members`))).toEqual([404, { message: missing }]);
      expect((await listed(await w.as(guest).get(`${s.path}/members`))).length).toBeGreaterThan(1);
    });

    it("paginates with a flat statement count", async () => {
      const w = await world();
      const devs = [await w.user(), await w.user(), await w.user()];
      const s = await source(w, base, { developers: devs });
      const total = base === "groups" ? 4 : 5;
      const small = await w.as(s.manager).get(`${s.path}/members`, { query: { per_page: 1, page: 2 } });
      expect((await listed(small)).length).toBe(1);
      expect(small.headers.get("x-total")).toBe(String(total));
      expect(small.headers.get("x-total-pages")).toBe(String(total));
      expect(small.headers.get("x-next-page")).toBe("3");
      expect(small.headers.get("x-prev-page")).toBe("1");
      const large = await w.as(s.manager).get(`${s.path}/members`, { query: { per_page: 100, show_seat_info: true } });
      expect((await listed(large)).length).toBe(total);
      expect(small.headers.get("x-query-count")).toBe(large.headers.get("x-query-count"));
      expect(Number(large.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
    });
  });
}

describe("GET /groups/:id/members (EE seats and Minimal Access)", () => {
  it("lists Minimal Access members of a root group and shows seats on request", async () => {
    const w = await world();
    const minimal = await w.user();
    const guest = await w.user();
    const s = await source(w, "groups", { guests: [guest] });
    await addMember(w, "Namespace", s.id, minimal, 5);
    const body = (await listed(await w.as(s.manager).get(`${s.path}/members`, { query: { show_seat_info: true } }))) as unknown as {
      id: number;
      access_level: number;
      is_using_seat: boolean;
    }[];
    const seats = (list: [number, number, boolean][]) => list.sort((a, b) => a[0] - b[0]);
    expect(seats(body.map((m): [number, number, boolean] => [m.id, m.access_level, m.is_using_seat]))).toEqual(
      seats([[s.manager.id, 50, true], [guest.id, 10, false], [minimal.id, 5, false]]),
    );
    // Not in /members/all (GroupMembersFinder excludes Minimal Access).
    expect(await levels(await w.as(s.manager).get(`${s.path}/members/all`))).toEqual(pairs([s.manager, 50], [guest, 10]));
  });
});

describe("GET /groups/:id/members/all", () => {
  it("merges ancestors' members, one row per user at the highest level", async () => {
    const w = await world();
    const [top, upgraded, downgraded, subOnly] = [await w.user(), await w.user(), await w.user(), await w.user()];
    const parent = await w.group({ owners: [top], developers: [upgraded], maintainers: [downgraded] });
    const sub = await w.group({ parent, maintainers: [upgraded], guests: [downgraded], reporters: [subOnly] });
    const res = await w.as(subOnly).get(`/groups/${sub.id}/members/all`);
    expect(await levels(res)).toEqual(pairs([top, 50], [upgraded, 40], [downgraded, 40], [subOnly, 20]));
    expect(res.headers.get("x-total")).toBe("4");
    expect(await levels(await w.as(top).get(`/groups/${parent.id}/members/all`))).toEqual(pairs([top, 50], [upgraded, 30], [downgraded, 40]));
    // A member of a subgroup only sees the private parent exists, not who is in it (read_group_member).
    expect(await statusAndBody(await w.as(subOnly).get(`/groups/${parent.id}/members/all`))).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("shows the winning row's expiry", async () => {
    const w = await world();
    const user = await w.user();
    const parent = await w.group();
    const sub = await w.group({ parent });
    await addMember(w, "Namespace", parent.id, user, 40, { expiresAt: dateIn(10) });
    await addMember(w, "Namespace", sub.id, user, 30, { expiresAt: dateIn(20) });
    const [row] = await listed(await w.root.get(`/groups/${sub.id}/members/all`));
    expect(row).toMatchObject({ id: user.id, access_level: 40, expires_at: dateIn(10) });
  });

  it("filters, rejects a bad state, and needs a signed-in caller", async () => {
    const w = await world();
    const [anna, ben] = [await w.user({ name: "Annabel Q" }), await w.user()];
    const parent = await w.group({ visibility: "public", developers: [anna] });
    const sub = await w.group({ parent, visibility: "public", developers: [ben] });
    expect(await levels(await w.as(ben).get(`/groups/${sub.id}/members/all`, { query: { query: "annabel" } }))).toEqual(pairs([anna, 30]));
    expect(await listed(await w.as(ben).get(`/groups/${sub.id}/members/all`, { query: { state: "awaiting" } }))).toEqual([]);
    expect(await statusAndBody(await w.as(ben).get(`/groups/${sub.id}/members/all`, { query: { state: "gone" } }))).toEqual([
      400,
      { error: "state does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.anonymous.get(`/groups/${sub.id}/members/all`))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("GET /projects/:id/members/all", () => {
  it("merges the groups' members and shares (capped by the share), one row per user", async () => {
    const w = await world();
    const [groupOwner, projectDev, both, sharedMaintainer, sharedGuest, sharedParentDev] = [
      await w.user(), await w.user(), await w.user(), await w.user(), await w.user(), await w.user(),
    ];
    const parent = await w.group({ owners: [groupOwner] });
    const sub = await w.group({ parent, maintainers: [both] });
    const project = await w.project({ group: sub, developers: [projectDev] });
    await addMember(w, "Project", project.id, both, 30, { expiresAt: dateIn(5) });
    const sharedParent = await w.group({ visibility: "internal", developers: [sharedParentDev] });
    const shared = await w.group({ parent: sharedParent, visibility: "internal", maintainers: [sharedMaintainer], guests: [sharedGuest] });
    await share(w, project.id, shared.id, 20);
    const res = await w.as(projectDev).get(`/projects/${project.id}/members/all`);
    const body = await listed(res);
    expect(body.map((m): [number, number] => [m.id, m.access_level]).sort((a, b) => a[0] - b[0])).toEqual(
      pairs([groupOwner, 50], [projectDev, 30], [both, 40], [sharedMaintainer, 20], [sharedGuest, 10], [sharedParentDev, 20]),
    );
    // The project's own row is shown (its expiry), with the user's highest level.
    expect(body.find((m) => m.id === both.id)).toMatchObject({ access_level: 40, expires_at: dateIn(5) });
  });

  it("leaves out members of shared groups the caller cannot see", async () => {
    const w = await world();
    const dev = await w.user();
    const hidden = await w.user();
    const project = await w.project({ visibility: "public", developers: [dev] });
    const privateGroup = await w.group({ developers: [hidden] });
    await share(w, project.id, privateGroup.id, 30);
    expect((await levels(await w.as(w.stranger).get(`/projects/${project.id}/members/all`))).map(([id]) => id)).not.toContain(hidden.id);
    expect(await levels(await w.root.get(`/projects/${project.id}/members/all`, { query: { user_ids: [hidden.id] } }))).toEqual(pairs([hidden, 30]));
  });

  it("paginates with a flat statement count", async () => {
    const w = await world();
    const group = await w.group({ developers: [await w.user(), await w.user()] });
    const dev = await w.user();
    const project = await w.project({ group, developers: [dev] });
    const small = await w.as(dev).get(`/projects/${project.id}/members/all`, { query: { per_page: 1 } });
    expect((await listed(small)).length).toBe(1);
    expect(small.headers.get("x-total")).toBe("3");
    expect(small.headers.get("link")).toContain('rel="next"');
    const large = await w.as(dev).get(`/projects/${project.id}/members/all`, { query: { per_page: 100 } });
    expect((await listed(large)).length).toBe(3);
    expect(small.headers.get("x-query-count")).toBe(large.headers.get("x-query-count"));
    expect(Number(large.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
  });
});
