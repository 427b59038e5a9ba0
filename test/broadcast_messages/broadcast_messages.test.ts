import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { unique, world, type World } from "../helpers/world";
import type { Json } from "../helpers/api";

async function createMessage(w: World, json: Json = {}): Promise<Json> {
  const res = await w.root.post("/broadcast_messages", { json: { message: unique("msg"), ...json } });
  if (res.status !== 201) throw new Error(`create broadcast: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

describe("GET /broadcast_messages", () => {
  it("lists messages newest first, anonymously too, with pagination headers", async () => {
    const w = await world();
    const first = await createMessage(w);
    const second = await createMessage(w);
    const res = await w.anonymous.get("/broadcast_messages", { query: { per_page: 2 } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.length).toBe(2);
    expect(body[0].id).toBeGreaterThanOrEqual(second.id as number);
    expect(Number(res.headers.get("x-total"))).toBeGreaterThanOrEqual(2);
    const ids = [] as number[];
    for (let page = 1; page <= Number(res.headers.get("x-total-pages")); page++) {
      const p = await w.root.get("/broadcast_messages", { query: { per_page: 100, page } });
      ids.push(...((await p.json()) as Json[]).map((m) => m.id as number));
    }
    expect(ids.indexOf(second.id as number)).toBeLessThan(ids.indexOf(first.id as number));
  });

  it("refuses a bad page", async () => {
    const w = await world();
    expect(await statusAndBody(await w.anonymous.get("/broadcast_messages", { query: { per_page: "x" } }))).toEqual([400, { error: "per_page is invalid" }]);
  });
});

describe("POST /broadcast_messages", () => {
  it("creates a message with GitLab's defaults", async () => {
    const w = await world();
    const res = await w.root.post("/broadcast_messages", { json: { message: "Maintenance tonight" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(Object.keys(body).sort()).toEqual(
      ["active", "broadcast_type", "color", "dismissable", "ends_at", "font", "id", "message", "starts_at", "target_access_levels", "target_path"].sort(),
    );
    expect(body).toMatchObject({ message: "Maintenance tonight", color: "#E75E40", font: "#FFFFFF", target_access_levels: [], target_path: null, broadcast_type: "banner", dismissable: null, active: true });
    expect(Date.parse(body.ends_at as string) - Date.parse(body.starts_at as string)).toBe(3600_000);
  });

  it("takes every attribute; a future message is not active", async () => {
    const w = await world();
    const body = await createMessage(w, {
      starts_at: "2099-01-01T00:00:00Z",
      ends_at: "2099-01-02T00:00:00Z",
      color: "#000",
      font: "#abcdef",
      target_access_levels: "10,30",
      target_path: "*/welcome",
      broadcast_type: "notification",
      dismissable: true,
    });
    expect(body).toMatchObject({
      starts_at: "2099-01-01T00:00:00.000Z",
      ends_at: "2099-01-02T00:00:00.000Z",
      color: "#000",
      font: "#abcdef",
      target_access_levels: [10, 30],
      target_path: "*/welcome",
      broadcast_type: "notification",
      dismissable: true,
      active: false,
    });
  });

  it("answers GitLab's 400s", async () => {
    const w = await world();
    expect(await statusAndBody(await w.root.post("/broadcast_messages", { json: {} }))).toEqual([400, { error: "message is missing" }]);
    expect(await statusAndBody(await w.root.post("/broadcast_messages", { json: { message: "m", broadcast_type: "popup" } }))).toEqual([
      400,
      { error: "broadcast_type does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.root.post("/broadcast_messages", { json: { message: "m", target_access_levels: [15] } }))).toEqual([
      400,
      { error: "target_access_levels does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.root.post("/broadcast_messages", { json: { message: "m", starts_at: "soon" } }))).toEqual([
      400,
      { error: "starts_at is invalid" },
    ]);
    expect(await statusAndBody(await w.root.post("/broadcast_messages", { json: { message: "m", color: "red" } }))).toEqual([
      400,
      { message: { color: ["must be a valid color code"] } },
    ]);
  });

  it("is for administrators: 401 anonymous, 403 users", async () => {
    const w = await world();
    const user = await w.user();
    expect(await statusAndBody(await w.anonymous.post("/broadcast_messages", { json: { message: "m" } }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(user).post("/broadcast_messages", { json: { message: "m" } }))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("GET /broadcast_messages/:id", () => {
  it("shows one; a missing one is 404 Not found; a bad id is 400", async () => {
    const w = await world();
    const made = await createMessage(w);
    const res = await w.anonymous.get(`/broadcast_messages/${made.id}`);
    expect([res.status, await res.json()]).toEqual([200, made]);
    expect(await statusAndBody(await w.anonymous.get("/broadcast_messages/999999999"))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.anonymous.get("/broadcast_messages/abc"))).toEqual([400, { error: "id is invalid" }]);
  });
});

describe("PUT /broadcast_messages/:id", () => {
  it("changes only what is sent", async () => {
    const w = await world();
    const made = await createMessage(w, { target_path: "a/b" });
    const res = await w.root.put(`/broadcast_messages/${made.id}`, { json: { message: "changed", target_access_levels: [40] } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: made.id, message: "changed", target_access_levels: [40], target_path: "a/b", color: "#E75E40" });
    expect(await statusAndBody(await w.root.put(`/broadcast_messages/${made.id}`, { json: { font: "white" } }))).toEqual([
      400,
      { message: { font: ["must be a valid color code"] } },
    ]);
  });

  it("is for administrators; a missing message is 404", async () => {
    const w = await world();
    const made = await createMessage(w);
    expect(await statusAndBody(await w.as(w.stranger).put(`/broadcast_messages/${made.id}`, { json: { message: "x" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.root.put("/broadcast_messages/999999999", { json: { message: "x" } }))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("DELETE /broadcast_messages/:id", () => {
  it("deletes with 204, then 404", async () => {
    const w = await world();
    const made = await createMessage(w);
    expect(await statusAndBody(await w.as(w.stranger).delete(`/broadcast_messages/${made.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    const res = await w.root.delete(`/broadcast_messages/${made.id}`);
    expect(res.status).toBe(204);
    expect(await statusAndBody(await w.root.get(`/broadcast_messages/${made.id}`))).toEqual([404, { message: "404 Not found" }]);
  });
});
