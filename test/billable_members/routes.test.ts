import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../functions/index";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world, type TestUser, type World } from "../helpers/world";

type Billable = { id: number; username: string; membership_type: string; removable: boolean; is_last_owner: boolean; last_activity_on: string | null };

/** A root group with an owner, a developer, a guest (not billable under Ultimate), and a maintainer of a project in a subgroup. */
async function hierarchy(w: World) {
  const owner = await w.user({ name: "Aaron Owner" });
  const developer = await w.user({ name: "Bea Developer" });
  const guest = await w.user({ name: "Cid Guest" });
  const maintainer = await w.user({ name: "Dee Maintainer" });
  const root = await w.group({ owners: [owner], developers: [developer], guests: [guest] });
  const sub = await w.group({ parent: root });
  const project = await w.project({ group: sub, maintainers: [maintainer] });
  return { owner, developer, guest, maintainer, root, sub, project };
}

const usernames = async (res: Response) => ((await res.json()) as Billable[]).map((m) => m.username);

/** Runs the `0 12 * * *` trigger through the Worker's scheduled handler, as if two hours from now. */
async function runDailyCron() {
  const controller = createScheduledController({ scheduledTime: Date.now() + 2 * 3600_000, cron: "0 12 * * *" });
  const ctx = createExecutionContext();
  await worker.scheduled(controller, env as never, ctx);
  await waitOnExecutionContext(ctx);
}

describe("GET /groups/:id/billable_members", () => {
  it("lists the billable users of the hierarchy (guests excluded under Ultimate), searched and sorted", async () => {
    const w = await world();
    const h = await hierarchy(w);
    const res = await w.as(h.owner).get(`/groups/${h.root.id}/billable_members`, { query: { sort: "name_asc" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Billable[];
    expect(body.map((m) => [m.username, m.membership_type, m.removable])).toEqual([
      [h.owner.username, "group_member", true],
      [h.developer.username, "group_member", true],
      [h.maintainer.username, "project_member", true],
    ]);
    expect(body[0]).toMatchObject({ is_last_owner: true, email: null });
    // The owner's own API requests move `last_activity_on` to today (Users::ActivityService).
    expect([null, new Date().toISOString().slice(0, 10)]).toContain(body[0].last_activity_on);
    expect(await usernames(await w.as(h.owner).get(`/groups/${h.root.id}/billable_members`, { query: { sort: "name_desc" } }))).toEqual([
      h.maintainer.username,
      h.developer.username,
      h.owner.username,
    ]);
    expect(await usernames(await w.as(h.owner).get(`/groups/${h.root.id}/billable_members`, { query: { search: "bea" } }))).toEqual([h.developer.username]);
    expect(
      await usernames(await w.as(h.owner).get(`/groups/${h.root.id}/billable_members`, { query: { sort: "access_level_desc" } })),
    ).toEqual([h.owner.username, h.maintainer.username, h.developer.username]);
  });

  it("serves the snapshot until the daily cron refreshes it; the cron also records the license's seat figures", async () => {
    const w = await world();
    const h = await hierarchy(w);
    expect(await usernames(await w.as(h.owner).get(`/groups/${h.root.id}/billable_members`))).not.toContain("x");
    const late = await w.user();
    await w.addMembers("Namespace", h.sub.id, { reporters: [late] });
    expect(await usernames(await w.as(h.owner).get(`/groups/${h.root.id}/billable_members`))).not.toContain(late.username);
    // Each run is bounded; other test files' groups may be stale too, so run until this group is reached.
    for (let run = 0; run < 10; run++) {
      await runDailyCron();
      if ((await usernames(await w.as(h.owner).get(`/groups/${h.root.id}/billable_members`))).includes(late.username)) break;
    }
    expect(await usernames(await w.as(h.owner).get(`/groups/${h.root.id}/billable_members`))).toContain(late.username);
    const license = (await (await w.root.get("/license")).json()) as { historical_max: number; maximum_user_count: number };
    expect(license.historical_max).toBeGreaterThanOrEqual(1);
    expect(license.maximum_user_count).toBeGreaterThanOrEqual(license.historical_max);
  });

  it("keeps the statement count flat", async () => {
    const w = await world();
    const h = await hierarchy(w);
    await w.as(h.owner).get(`/groups/${h.root.id}/billable_members`);
    const one = await w.as(h.owner).get(`/groups/${h.root.id}/billable_members`, { query: { per_page: 1 } });
    const all = await w.as(h.owner).get(`/groups/${h.root.id}/billable_members`, { query: { per_page: 100 } });
    expect(one.headers.get("x-total")).toBe("3");
    expect(one.headers.get("x-query-count")).toBe(all.headers.get("x-query-count"));
    expect(Number(all.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
  });

  it("answers 400 for a subgroup and for callers who may not manage members; 404 for a hidden group", async () => {
    const w = await world();
    const h = await hierarchy(w);
    expect(await statusAndBody(await w.as(h.owner).get(`/groups/${h.sub.id}/billable_members`))).toEqual([400, { message: "400 Bad request" }]);
    expect(await statusAndBody(await w.as(h.developer).get(`/groups/${h.root.id}/billable_members`))).toEqual([400, { message: "400 Bad request" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${h.root.id}/billable_members`))).toEqual([404, { message: "404 Group Not Found" }]);
    expect(await statusAndBody(await w.as(h.owner).get(`/groups/${h.root.id}/billable_members`, { query: { sort: "age" } }))).toEqual([
      400,
      { error: "sort does not have a valid value" },
    ]);
  });

  requiresAuthentication((w) => w.anonymous.get("/groups/1/billable_members"));
});

describe("GET /groups/:id/billable_members/:user_id/memberships", () => {
  it("lists the user's direct memberships in the hierarchy", async () => {
    const w = await world();
    const h = await hierarchy(w);
    await w.addMembers("Namespace", h.sub.id, { developers: [h.maintainer] });
    const res = await w.as(h.owner).get(`/groups/${h.root.id}/billable_members/${h.maintainer.id}/memberships`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { source_id: number; source_full_name: string; source_members_url: string; access_level: object }[];
    expect(body.map((m) => m.source_id).sort((a, b) => a - b)).toEqual([h.sub.id, h.project.id].sort((a, b) => a - b));
    const projectMembership = body.find((m) => m.source_id === h.project.id)!;
    expect(projectMembership).toMatchObject({
      source_members_url: `http://edgeforge.test/${h.project.fullPath}/-/project_members`,
      access_level: { string_value: "Maintainer", integer_value: 40 },
    });
  });

  it("answers 404 User Not Found for a user who is not billable there, 404 Not found for an unknown user", async () => {
    const w = await world();
    const h = await hierarchy(w);
    expect(await statusAndBody(await w.as(h.owner).get(`/groups/${h.root.id}/billable_members/${h.guest.id}/memberships`))).toEqual([
      404,
      { message: "404 User Not Found" },
    ]);
    expect(await statusAndBody(await w.as(h.owner).get(`/groups/${h.root.id}/billable_members/999999999/memberships`))).toEqual([
      404,
      { message: "404 Not found" },
    ]);
  });
});

describe("a user who is only a member of a project deep in the hierarchy", () => {
  it("is billable, lists that project as their membership, and is removed from it (added after the snapshot was taken)", async () => {
    const w = await world();
    const h = await hierarchy(w);
    const deepGroup = await w.group({ parent: await w.group({ parent: h.sub }) });
    const deepProject = await w.project({ group: deepGroup });
    // The snapshot exists before the user joins: the memberships and the removal read the hierarchy as it is now.
    await w.as(h.owner).get(`/groups/${h.root.id}/billable_members`);
    const late = await w.user();
    expect((await w.as(h.owner).post(`/projects/${deepProject.id}/members`, { json: { user_id: late.id, access_level: 30 } })).status).toBe(201);

    const res = await w.as(h.owner).get(`/groups/${h.root.id}/billable_members/${late.id}/memberships`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { source_id: number; source_members_url: string }[]).map((m) => [m.source_id, m.source_members_url])).toEqual([
      [deepProject.id, `http://edgeforge.test/${deepProject.fullPath}/-/project_members`],
    ]);

    expect((await w.as(h.owner).delete(`/groups/${h.root.id}/billable_members/${late.id}`)).status).toBe(204);
    expect((await w.as(h.owner).get(`/projects/${deepProject.id}/members/${late.id}`)).status).toBe(404);
    expect(await statusAndBody(await w.as(h.owner).get(`/groups/${h.root.id}/billable_members/${late.id}/memberships`))).toEqual([
      404,
      { message: "404 User Not Found" },
    ]);
  });
});

describe("DELETE /groups/:id/billable_members/:user_id", () => {
  it("removes the user from the group, its subgroups and projects at once (204)", async () => {
    const w = await world();
    const h = await hierarchy(w);
    await w.addMembers("Namespace", h.sub.id, { developers: [h.maintainer] });
    await w.as(h.owner).get(`/groups/${h.root.id}/billable_members`);
    expect((await w.as(h.owner).delete(`/groups/${h.root.id}/billable_members/${h.maintainer.id}`)).status).toBe(204);
    expect(await usernames(await w.as(h.owner).get(`/groups/${h.root.id}/billable_members`))).not.toContain(h.maintainer.username);
    expect((await w.as(h.owner).get(`/projects/${h.project.id}/members/${h.maintainer.id}`)).status).toBe(404);
    expect((await w.as(h.owner).get(`/groups/${h.sub.id}/members/${h.maintainer.id}`)).status).toBe(404);
  });

  it("answers GitLab's `bad_request!` for the last owner, an unknown member, a subgroup and non-owners; removes no one", async () => {
    const w = await world();
    const h = await hierarchy(w);
    expect(await statusAndBody(await w.as(h.owner).delete(`/groups/${h.root.id}/billable_members/${h.owner.id}`))).toEqual([
      400,
      { message: "400 Bad request - Gitlab::Access::AccessDeniedError" },
    ]);
    expect((await w.as(h.owner).get(`/groups/${h.root.id}/members/${h.owner.id}`)).status).toBe(200);
    expect(await statusAndBody(await w.as(h.owner).delete(`/groups/${h.root.id}/billable_members/${w.stranger.id}`))).toEqual([
      400,
      { message: "400 Bad request - No member found for the given user_id" },
    ]);
    expect(await statusAndBody(await w.as(h.owner).delete(`/groups/${h.sub.id}/billable_members/${h.developer.id}`))).toEqual([
      400,
      { message: "400 Bad request - Invalid group provided, must be top-level" },
    ]);
    expect(await statusAndBody(await w.as(h.developer).delete(`/groups/${h.root.id}/billable_members/${h.maintainer.id}`))).toEqual([
      400,
      { message: "400 Bad request - User unauthorized to remove member" },
    ]);
    expect((await w.as(h.owner).get(`/projects/${h.project.id}/members/${h.maintainer.id}`)).status).toBe(200);
  });
});

export type { TestUser };
