import { describe, expect, it } from "vitest";
import { effectiveNotificationSetting } from "../../functions/shared/notifications/resolve";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";

describe("GET /notification_settings", () => {
  it("answers participating and the primary e-mail until changed", async () => {
    const w = await world();
    const u = await w.user();
    expect(await statusAndBody(await w.as(u).get("/notification_settings"))).toEqual([200, { level: "participating", notification_email: u.email }]);
  });

  requiresAuthentication((w) => w.anonymous.get("/notification_settings"));
});

describe("PUT /notification_settings", () => {
  it("changes the level and the events; events show at the custom level", async () => {
    const w = await world();
    const u = await w.user();
    const res = await w.as(u).put("/notification_settings", { form: { level: "custom", new_note: true, failed_pipeline: false } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { level: string; events: Record<string, boolean>; notification_email: string };
    expect(body.level).toBe("custom");
    expect(body.notification_email).toBe(u.email);
    expect(body.events).toMatchObject({ new_note: true, new_issue: false, failed_pipeline: false, fixed_pipeline: true, new_epic: false });
    expect(Object.keys(body.events)).toHaveLength(18);
    const watch = await w.as(u).put("/notification_settings", { json: { level: "watch" } });
    expect(await watch.json()).toEqual({ level: "watch", notification_email: u.email });
  });

  it("answers 400 for an unknown level and for an e-mail the user does not own", async () => {
    const w = await world();
    const u = await w.user();
    expect(await statusAndBody(await w.as(u).put("/notification_settings", { json: { level: "loud" } }))).toEqual([
      400,
      { message: "'loud' is not a valid level" },
    ]);
    expect(await statusAndBody(await w.as(u).put("/notification_settings", { json: { notification_email: "other@example.com" } }))).toEqual([
      400,
      { message: { notification_email: ["is not an email you own"] } },
    ]);
    expect(await statusAndBody(await w.as(u).put("/notification_settings", { json: { new_note: "maybe" } }))).toEqual([
      400,
      { error: "new_note is invalid" },
    ]);
  });
});

describe("GET /projects/:id/notification_settings", () => {
  it("answers global until changed", async () => {
    const w = await world();
    const u = await w.user();
    const project = await w.project({ developers: [u] });
    expect(await statusAndBody(await w.as(u).get(`/projects/${project.id}/notification_settings`))).toEqual([200, { level: "global" }]);
  });

  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/notification_settings`));
  requiresAuthentication((w) => w.anonymous.get("/projects/1/notification_settings"));
});

describe("PUT /projects/:id/notification_settings", () => {
  it("stores a custom level with project events (no new_epic)", async () => {
    const w = await world();
    const u = await w.user();
    const project = await w.project({ developers: [u] });
    const res = await w.as(u).put(`/projects/${project.id}/notification_settings`, { json: { level: "custom", new_merge_request: true } });
    const body = (await res.json()) as { level: string; events: Record<string, boolean> };
    expect(body.level).toBe("custom");
    expect(body.events.new_merge_request).toBe(true);
    expect(body.events).not.toHaveProperty("new_epic");
    expect(await (await w.as(u).get(`/projects/${project.id}/notification_settings`)).json()).toMatchObject({ level: "custom" });
  });
});

describe("GET /groups/:id/notification_settings", () => {
  it("answers global until changed, 404 for a private group of others", async () => {
    const w = await world();
    const u = await w.user();
    const group = await w.group({ developers: [u] });
    expect(await statusAndBody(await w.as(u).get(`/groups/${group.id}/notification_settings`))).toEqual([200, { level: "global" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${group.id}/notification_settings`))).toEqual([
      404,
      { message: "404 Group Not Found" },
    ]);
  });
});

describe("PUT /groups/:id/notification_settings", () => {
  it("stores the group level", async () => {
    const w = await world();
    const u = await w.user();
    const group = await w.group({ developers: [u] });
    expect(await statusAndBody(await w.as(u).put(`/groups/${group.id}/notification_settings`, { json: { level: "mention" } }))).toEqual([
      200,
      { level: "mention" },
    ]);
  });
});

describe("effectiveNotificationSetting (for notification senders)", () => {
  it("resolves project, then the closest ancestor group, then the global setting", async () => {
    const w = await world();
    const u = await w.user();
    const root = await w.group({ developers: [u] });
    const sub = await w.group({ parent: root });
    const project = await w.project({ group: sub });
    const resolve = () => w.db((db) => effectiveNotificationSetting(db, u.id, { projectId: project.id }));

    expect(await resolve()).toMatchObject({ level: "participating", source: "default" });
    await w.as(u).put("/notification_settings", { json: { level: "watch" } });
    expect(await resolve()).toMatchObject({ level: "watch", source: "global" });
    await w.as(u).put(`/groups/${root.id}/notification_settings`, { json: { level: "disabled" } });
    expect(await resolve()).toMatchObject({ level: "disabled", source: "group" });
    await w.as(u).put(`/groups/${sub.id}/notification_settings`, { json: { level: "custom", new_issue: true } });
    const custom = await resolve();
    expect(custom).toMatchObject({ level: "custom", source: "group", events: { new_issue: true } });
    await w.as(u).put(`/projects/${project.id}/notification_settings`, { json: { level: "global" } });
    expect((await resolve()).source).toBe("group");
    await w.as(u).put(`/projects/${project.id}/notification_settings`, { json: { level: "mention" } });
    expect(await resolve()).toMatchObject({ level: "mention", source: "project" });
  });
});
