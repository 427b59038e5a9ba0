import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { unique, world } from "../helpers/world";
import type { Json } from "../helpers/api";
import { gatesOpen } from "../../functions/shared/features";

const flag = () => unique("flag").replace(/-/g, "_");

describe("GET /features", () => {
  it("lists persisted features with their gates and definitions", async () => {
    const w = await world();
    const name = flag();
    await w.root.post(`/features/${name}`, { json: { value: 30 } });
    const res = await w.root.get("/features");
    expect(res.status).toBe(200);
    const mine = ((await res.json()) as Json[]).find((f) => f.name === name);
    expect(mine).toEqual({
      name,
      state: "conditional",
      gates: [
        { key: "boolean", value: false },
        { key: "percentage_of_time", value: 30 },
      ],
      definition: null,
    });
  });

  it("is for administrators: 401 anonymous, 403 users", async () => {
    const w = await world();
    expect(await statusAndBody(await w.anonymous.get("/features"))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(w.stranger).get("/features"))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("GET /features/definitions", () => {
  it("lists the features the code reads, with GitLab's keys", async () => {
    const w = await world();
    const res = await w.root.get("/features/definitions");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.find((d) => d.name === "similarity_search")).toEqual({
      name: "similarity_search",
      introduced_by_url: null,
      rollout_issue_url: null,
      milestone: "12.6",
      log_state_changes: null,
      type: "development",
      group: "group::project management",
      default_enabled: true,
    });
    expect(await statusAndBody(await w.as(w.stranger).get("/features/definitions"))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("POST /features/:name", () => {
  it("turns a feature on and off", async () => {
    const w = await world();
    const name = flag();
    const on = await w.root.post(`/features/${name}`, { json: { value: "true" } });
    expect([on.status, await on.json()]).toEqual([201, { name, state: "on", gates: [{ key: "boolean", value: true }], definition: null }]);
    const off = await w.root.post(`/features/${name}`, { form: { value: "false" } });
    expect(await off.json()).toEqual({ name, state: "off", gates: [{ key: "boolean", value: false }], definition: null });
  });

  it("sets a percentage of actors, and 100 percent of time is on", async () => {
    const w = await world();
    const name = flag();
    const res = await w.root.post(`/features/${name}`, { json: { value: 50, key: "percentage_of_actors" } });
    expect((await res.json()) as Json).toMatchObject({ state: "conditional", gates: [{ key: "boolean", value: false }, { key: "percentage_of_actors", value: 50 }] });
    const all = await w.root.post(`/features/${name}`, { json: { value: 100 } });
    expect((await all.json()) as Json).toMatchObject({ state: "on" });
  });

  it("enables and disables actors of every kind", async () => {
    const w = await world();
    const name = flag();
    const user = await w.user();
    const group = await w.group();
    const project = await w.project({ group });
    const res = await w.root.post(`/features/${name}`, {
      json: { value: true, user: user.username, group: group.fullPath, project: project.fullPath, namespace: group.fullPath, repository: `${project.fullPath}.git` },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body.state).toBe("conditional");
    const actors = (body.gates as Json[]).find((g) => g.key === "actors")!.value as string[];
    expect(actors.sort()).toEqual([`Group:${group.id}`, `Project:${project.id}`, `Repository:${project.fullPath}`, `User:${user.id}`].sort());
    const less = await w.root.post(`/features/${name}`, { json: { value: false, user: user.username } });
    expect(((await less.json()) as Json).gates).toEqual([
      { key: "boolean", value: false },
      { key: "actors", value: expect.not.arrayContaining([`User:${user.id}`]) },
    ]);
  });

  it("answers GitLab's 400s", async () => {
    const w = await world();
    const name = flag();
    expect(await statusAndBody(await w.root.post(`/features/${name}`, { json: {} }))).toEqual([400, { error: "value is missing" }]);
    expect(await statusAndBody(await w.root.post(`/features/${name}`, { json: { value: 1, key: "percentage_of_actors", user: "root" } }))).toEqual([
      400,
      { error: "key, user are mutually exclusive" },
    ]);
    expect(await statusAndBody(await w.root.post(`/features/${name}`, { json: { value: true, user: "nobody-at-all-here" } }))).toEqual([
      400,
      { message: "400 Bad request - nobody-at-all-here is not found!" },
    ]);
    expect(await statusAndBody(await w.root.post(`/features/${name}`, { json: { value: 150 } }))).toEqual([
      400,
      { message: "400 Bad request - value must be a positive number less than or equal to 100, but was 150" },
    ]);
  });

  it("is for administrators", async () => {
    const w = await world();
    expect(await statusAndBody(await w.anonymous.post(`/features/${flag()}`, { json: { value: true } }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(w.stranger).post(`/features/${flag()}`, { json: { value: true } }))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("DELETE /features/:name", () => {
  it("removes the feature; 204 also when it does not exist", async () => {
    const w = await world();
    const name = flag();
    await w.root.post(`/features/${name}`, { json: { value: true } });
    expect((await w.root.delete(`/features/${name}`)).status).toBe(204);
    expect((await w.root.delete(`/features/${name}`)).status).toBe(204);
    const list = (await (await w.root.get("/features")).json()) as Json[];
    expect(list.some((f) => f.name === name)).toBe(false);
    expect(await statusAndBody(await w.as(w.stranger).delete(`/features/${name}`))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("isFeatureEnabled's gates (Flipper's order)", () => {
  const gate = (key: string, value: string) => ({ id: 1, featureKey: "f", key, value, createdAt: new Date() });
  it("opens for the boolean gate, a listed actor, or a percentage", () => {
    expect(gatesOpen({ name: "f", gates: [] })).toBe(false);
    expect(gatesOpen({ name: "f", gates: [gate("boolean", "true")] })).toBe(true);
    expect(gatesOpen({ name: "f", gates: [gate("actors", "User:1")] }, { flipperId: "User:1" })).toBe(true);
    expect(gatesOpen({ name: "f", gates: [gate("actors", "User:1")] }, { flipperId: "User:2" })).toBe(false);
    expect(gatesOpen({ name: "f", gates: [gate("percentage_of_time", "30")] }, undefined, () => 0.2)).toBe(true);
    expect(gatesOpen({ name: "f", gates: [gate("percentage_of_time", "30")] }, undefined, () => 0.4)).toBe(false);
    const half = { name: "f", gates: [gate("percentage_of_actors", "50")] };
    const open = Array.from({ length: 400 }, (_, i) => gatesOpen(half, { flipperId: `User:${i}` })).filter(Boolean).length;
    expect(open).toBeGreaterThan(150);
    expect(open).toBeLessThan(250);
    // The same actor always lands in the same bucket.
    expect(gatesOpen(half, { flipperId: "User:7" })).toBe(gatesOpen(half, { flipperId: "User:7" }));
  });
});
