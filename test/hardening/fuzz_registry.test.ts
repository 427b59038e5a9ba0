import { describe, expect, it } from "vitest";
import { BASE, worker } from "../helpers/client";
import { world } from "../helpers/world";

/** The fuzz registry (app.ts `/-/fuzz-registry`, FUZZ_REGISTRY=1 here): administrators only. */
describe("GET /-/fuzz-registry", () => {
  const get = (token: string | null) => worker.fetch(new Request(`${BASE}/-/fuzz-registry`, { headers: token ? { "PRIVATE-TOKEN": token } : {} }));

  it("lists the routes and the parameters they declared, to administrators", async () => {
    const w = await world();
    const admin = await w.user({ admin: true });
    // A request that validates parameters, so that its route is in the registry.
    expect((await w.as(admin).get("/projects", { query: { search: "x" } })).status).toBe(200);
    const res = await get(admin.token);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { routes: string[]; declared: Record<string, Record<string, { kind: string }>> };
    expect(body.routes).toContain("GET /api/v4/projects");
    expect(body.declared["GET /api/v4/projects"].search).toEqual({ kind: "string" });
  });

  it("answers 404 to anyone else", async () => {
    const w = await world();
    const user = await w.user();
    expect([(await get(null)).status, (await get(user.token)).status]).toEqual([404, 404]);
  });
});
