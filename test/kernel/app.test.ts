import { describe, expect, it } from "vitest";
import { request, statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";

describe("GET /version", () => {
  it("answers the version with three numeric parts and a revision", async () => {
    const w = await world();
    const res = await w.as(w.stranger).get("/version");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const body = (await res.json()) as { version: string; revision: string };
    expect(body.version).toMatch(/^\d+\.\d+\.\d+-ee$/);
    expect(body.version.split("-")[0].split(".")).toHaveLength(3);
    expect(body.revision).toMatch(/^[0-9a-f]+$/);
  });

  it("answers 401 anonymously", async () => {
    expect(await statusAndBody(await request("GET", "/version", null))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});
