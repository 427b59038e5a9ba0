import { describe, expect, it } from "vitest";
import { request, statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";

type Json = Record<string, any>;
const EMPTY = { emoji: null, availability: null, message: null, message_html: "", clear_status_at: null };

describe("GET /user/status", () => {
  requiresAuthentication((w) => w.anonymous.get("/user/status"));

  it("answers every field null (message_html empty) for a user without a status", async () => {
    const w = await world();
    expect(await statusAndBody(await w.as(w.stranger).get("/user/status"))).toEqual([200, EMPTY]);
  });
});

describe("PUT /user/status", () => {
  requiresAuthentication((w) => w.anonymous.put("/user/status", { json: { message: "x" } }));

  it("sets emoji, message, availability and clear_status_after; message_html is escaped with emoji tags", async () => {
    const w = await world();
    const u = await w.user();
    const before = Date.now();
    const res = await w.as(u).put("/user/status", {
      json: { emoji: "coffee", message: "Out <b>now</b> & back :smile:", availability: "busy", clear_status_after: "3_hours" },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ emoji: "coffee", availability: "busy", message: "Out <b>now</b> & back :smile:" });
    expect(body.message_html).toBe('Out &lt;b&gt;now&lt;/b&gt; &amp; back <gl-emoji title="grinning face with smiling eyes" data-name="smile">😄</gl-emoji>');
    const clearAt = Date.parse(body.clear_status_at);
    expect(clearAt - before).toBeGreaterThanOrEqual(3 * 3600_000 - 1000);
    expect(clearAt - before).toBeLessThan(3 * 3600_000 + 60_000);
    expect(((await (await w.as(u).get("/user/status")).json()) as Json).message).toBe("Out <b>now</b> & back :smile:");
  });

  it("clears what is not sent: the default emoji, no availability change, no clearing time", async () => {
    const w = await world();
    const u = await w.user();
    await w.as(u).put("/user/status", { json: { emoji: "coffee", message: "a", availability: "busy", clear_status_after: "1_day" } });
    const body = (await (await w.as(u).put("/user/status", { json: { message: "b" } })).json()) as Json;
    expect(body).toEqual({ emoji: "speech_balloon", availability: "busy", message: "b", message_html: "b", clear_status_at: null });
  });

  it("removes the status when emoji, message and availability are all blank", async () => {
    const w = await world();
    const u = await w.user();
    await w.as(u).put("/user/status", { json: { message: "here" } });
    expect(await statusAndBody(await w.as(u).put("/user/status", { json: { clear_status_after: "30_minutes" } }))).toEqual([200, EMPTY]);
    expect(await statusAndBody(await w.as(u).get("/user/status"))).toEqual([200, EMPTY]);
  });

  it("answers 400 for an unknown emoji, a long message, an unknown availability or preset", async () => {
    const w = await world();
    const u = w.as(w.stranger);
    expect(await statusAndBody(await u.put("/user/status", { json: { emoji: "no_such_emoji", message: "x".repeat(101) } }))).toEqual([
      400,
      { message: { emoji: ["is not included in the list"], message: ["is too long (maximum is 100 characters)"] } },
    ]);
    expect(await statusAndBody(await u.put("/user/status", { json: { availability: "away" } }))).toEqual([
      400,
      { message: { availability: ["is not included in the list"] } },
    ]);
    expect(await statusAndBody(await u.put("/user/status", { json: { message: "x", clear_status_after: "2_hours" } }))).toEqual([
      400,
      { error: "clear_status_after does not have a valid value" },
    ]);
  });

  it("needs the api scope (read_user tokens may only read)", async () => {
    const w = await world();
    const reader = await w.user({ scopes: ["read_user"] });
    expect((await w.as(reader).get("/user/status")).status).toBe(200);
    expect((await w.as(reader).put("/user/status", { json: { message: "x" } })).status).toBe(403);
  });
});

describe("PATCH /user/status", () => {
  it("changes only the parameters sent (a missing emoji still becomes the default, as SetStatusService does)", async () => {
    const w = await world();
    const u = await w.user();
    await w.as(u).put("/user/status", { json: { emoji: "coffee", message: "a", availability: "busy", clear_status_after: "7_days" } });
    const res = await request("PATCH", "/user/status", u.token, { json: { message: "b" } });
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ emoji: "speech_balloon", availability: "busy", message: "b" });
    expect(body.clear_status_at).not.toBeNull();
  });

  it("answers 200 null and changes nothing without parameters", async () => {
    const w = await world();
    const u = await w.user();
    await w.as(u).put("/user/status", { json: { message: "kept" } });
    expect(await statusAndBody(await request("PATCH", "/user/status", u.token, { json: {} }))).toEqual([200, null]);
    expect(((await (await w.as(u).get("/user/status")).json()) as Json).message).toBe("kept");
  });

  it("answers 401 without credentials", async () => {
    expect((await request("PATCH", "/user/status", null, { json: { message: "x" } })).status).toBe(401);
  });
});

describe("GET /users/:user_id/status", () => {
  it("shows a user's status by id or username, also to anonymous callers", async () => {
    const w = await world();
    const u = await w.user();
    await w.as(u).put("/user/status", { json: { emoji: "rocket", message: "launching" } });
    const expected = { emoji: "rocket", availability: "not_set", message: "launching", message_html: "launching", clear_status_at: null };
    expect(await statusAndBody(await w.anonymous.get(`/users/${u.id}/status`))).toEqual([200, expected]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/users/${u.username.toUpperCase()}/status`))).toEqual([200, expected]);
  });

  it("answers 404 User Not Found for an unknown user", async () => {
    const w = await world();
    expect(await statusAndBody(await w.anonymous.get("/users/2147483647/status"))).toEqual([404, { message: "404 User Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get("/users/no_such_user_here/status"))).toEqual([404, { message: "404 User Not Found" }]);
  });
});
