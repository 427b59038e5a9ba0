import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import type { Json } from "../helpers/api";

const KEYS = ["active_users", "forks", "groups", "issues", "merge_requests", "milestones", "notes", "projects", "snippets", "ssh_keys", "users"];
const figure = (s: unknown) => Number(String(s).replace(/,/g, ""));

describe("GET /application/statistics", () => {
  it("answers GitLab's keys as strings with delimiters, counted from the tables", async () => {
    const w = await world();
    const before = (await (await w.root.get("/application/statistics")).json()) as Json;
    expect(Object.keys(before).sort()).toEqual(KEYS);
    for (const key of KEYS) expect(before[key]).toMatch(/^\d{1,3}(,\d{3})*$/);
    const project = await w.project();
    await w.issue(project);
    await w.group();
    const res = await w.root.get("/application/statistics");
    expect(res.status).toBe(200);
    const after = (await res.json()) as Json;
    // Other tests run alongside: the figures only grow by at least what this one made.
    expect(figure(after.issues)).toBeGreaterThanOrEqual(figure(before.issues) + 1);
    expect(figure(after.projects)).toBeGreaterThanOrEqual(figure(before.projects) + 1);
    expect(figure(after.groups)).toBeGreaterThanOrEqual(figure(before.groups) + 1);
    expect(figure(after.users)).toBeGreaterThanOrEqual(figure(after.active_users));
  });

  it("is for administrators: 401 anonymous, 403 users", async () => {
    const w = await world();
    expect(await statusAndBody(await w.anonymous.get("/application/statistics"))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(w.stranger).get("/application/statistics"))).toEqual([403, { message: "403 Forbidden" }]);
  });
});
