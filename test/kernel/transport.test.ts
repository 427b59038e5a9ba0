import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../functions/kernel/env";
import { onError, onNotFound } from "../../functions/kernel/errors";
import { BASE, request, statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";

describe("unknown routes (docs/compat.md, 'Error bodies')", () => {
  it("answers 404 {error} with application/json exactly, on any method, without credentials", async () => {
    for (const method of ["GET", "POST", "PUT", "DELETE"]) {
      const res = await request(method, "/no/such/route", null);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(await statusAndBody(res)).toEqual([404, { error: "404 Not Found" }]);
    }
  });

  it("answers 404 outside /api/v4 too: GitLab's JSON under /api, the web front's HTML page elsewhere", async () => {
    expect(await statusAndBody(await request("GET", `${BASE}/api/nothing`, null))).toEqual([404, { error: "404 Not Found" }]);
    const page = await request("GET", `${BASE}/nothing`, null);
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await page.text()).toMatch(/<title>[^<]*Not Found/i);
  });
});

describe("paths and headers (docs/compat.md, T4, T8)", () => {
  it("collapses runs of / and ignores one trailing /", async () => {
    const w = await world();
    for (const path of [`${BASE}/api/v4//version`, `${BASE}/api/v4/version/`, `${BASE}//api/v4/version`]) {
      const res = await request("GET", path, w.rootToken);
      expect(res.status).toBe(200);
    }
  });

  it("answers HEAD on GET routes without a body", async () => {
    const w = await world();
    const res = await w.root.head("/version");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
  });

  it("sets X-Request-Id (echoing the client's) and GitLab's security headers", async () => {
    const res = await request("GET", "/version", null, { headers: { "X-Request-Id": "abc-123" } });
    expect(res.headers.get("x-request-id")).toBe("abc-123");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    const generated = await request("GET", "/version", null);
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("counts statements: a request without credentials on a route without data opens no connection", async () => {
    const res = await request("GET", "/version", null);
    expect(res.headers.get("x-query-count")).toBe("0");
  });
});

describe("unexpected exceptions (docs/compat.md, 'Error bodies')", () => {
  it("answers 500 {message} without a stack trace", async () => {
    const app = new Hono<AppEnv>();
    app.get("/boom", () => {
      throw new Error("secret detail");
    });
    app.onError(onError);
    app.notFound(onNotFound);
    const res = await app.request("/boom");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await statusAndBody(res)).toEqual([500, { message: "500 Internal Server Error" }]);
  });
});
