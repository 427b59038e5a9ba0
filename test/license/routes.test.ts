import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { FOREIGN_PRIVATE_KEY, issueLicense } from "./fixtures";

// The instance's licenses are shared by every test file: uploaded licenses here are Ultimate, start
// today, and are deleted again, so the current license keeps its plan for everyone else.

type LicenseBody = Record<string, unknown> & { id: number };

describe("GET /license", () => {
  it("answers the current license: a fresh instance has a built-in Ultimate one without a user limit", async () => {
    const w = await world();
    const res = await w.root.get("/license");
    expect(res.status).toBe(200);
    const body = (await res.json()) as LicenseBody;
    expect(body).toMatchObject({ plan: "ultimate", expires_at: null, expired: false, user_limit: 0, overage: 0 });
    expect(typeof body.active_users).toBe("number");
    expect(body.active_users as number).toBeGreaterThanOrEqual(1);
  });

  it("answers 403 for non-admins and 401 anonymously", async () => {
    const w = await world();
    expect(await statusAndBody(await w.as(w.stranger).get("/license"))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.anonymous.get("/license"))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("POST /license", () => {
  it("accepts a signed license (201), which becomes current", async () => {
    const w = await world();
    const license = await issueLicense({ licensee: { Name: "Acme", Email: "ops@acme.test" }, user_limit: 1, add_ons: { GitLab_FileLocks: 1 } });
    const res = await w.root.post("/license", { json: { license } });
    expect(res.status).toBe(201);
    const created = (await res.json()) as LicenseBody;
    expect(created).toMatchObject({ plan: "ultimate", licensee: { Name: "Acme", Email: "ops@acme.test" }, user_limit: 1, add_ons: { GitLab_FileLocks: 1 }, expired: false });
    const current = (await (await w.root.get("/license")).json()) as LicenseBody;
    expect(current.id).toBe(created.id);
    expect((await w.root.delete(`/license/${created.id}`)).status).toBe(204);
  });

  it("answers GitLab's 400 for a license that is not signed by the configured key, or not a license at all", async () => {
    const w = await world();
    const invalid = [400, { message: "The license key is invalid. Make sure it is exactly as you received it from GitLab Inc." }];
    expect(await statusAndBody(await w.root.post("/license", { json: { license: await issueLicense({}, FOREIGN_PRIVATE_KEY) } }))).toEqual(invalid);
    expect(await statusAndBody(await w.root.post("/license", { json: { license: "bm90IGEgbGljZW5zZQ==" } }))).toEqual(invalid);
    expect(await statusAndBody(await w.root.post("/license", { json: { license: await issueLicense({ expires_at: "2001-01-01", starts_at: "2000-01-01" }) } }))).toEqual([
      400,
      { message: "This license has already expired." },
    ]);
    expect(await statusAndBody(await w.root.post("/license", { json: {} }))).toEqual([400, { error: "license is missing" }]);
  });

  it("answers 403 for non-admins", async () => {
    const w = await world();
    expect(await statusAndBody(await w.as(w.stranger).post("/license", { json: { license: await issueLicense({}) } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
  });

  requiresAuthentication((w) => w.anonymous.post("/license", { json: { license: "x" } }));
});

describe("GET /licenses", () => {
  it("lists every license, newest first, the built-in one included", async () => {
    const w = await world();
    const created = (await (await w.root.post("/license", { json: { license: await issueLicense({ licensee: { Name: "Listed" } }) } })).json()) as LicenseBody;
    const list = (await (await w.root.get("/licenses")).json()) as LicenseBody[];
    expect(list[0]).toMatchObject({ id: created.id, licensee: { Name: "Listed" } });
    expect(list.some((l) => l.plan === "ultimate" && l.user_limit === 0)).toBe(true);
    expect(list[0]).not.toHaveProperty("active_users");
    await w.root.delete(`/license/${created.id}`);
  });

  it("answers 403 for non-admins", async () => {
    const w = await world();
    expect(await statusAndBody(await w.as(w.stranger).get("/licenses"))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("DELETE /license/:id", () => {
  it("answers 204, then 404", async () => {
    const w = await world();
    const created = (await (await w.root.post("/license", { json: { license: await issueLicense({}) } })).json()) as LicenseBody;
    expect((await w.root.delete(`/license/${created.id}`)).status).toBe(204);
    expect(await statusAndBody(await w.root.delete(`/license/${created.id}`))).toEqual([404, { message: "404 Not found" }]);
    const ids = ((await (await w.root.get("/licenses")).json()) as LicenseBody[]).map((l) => l.id);
    expect(ids).not.toContain(created.id);
  });

  it("answers 403 for non-admins", async () => {
    const w = await world();
    expect(await statusAndBody(await w.as(w.stranger).delete("/license/1"))).toEqual([403, { message: "403 Forbidden" }]);
  });
});
