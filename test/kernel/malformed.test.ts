import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiError, describeFailure, maskValues } from "../../functions/kernel/errors";
import { decodeQuery, INT53, p, parseDateTime, validateParams } from "../../functions/kernel/params";
import { BASE, request, statusAndBody, worker } from "../helpers/client";
import { world } from "../helpers/world";

/** Gitlab::Middleware::HandleMalformedStrings answers this, text/plain, before any endpoint runs. */
async function expectBadRequest(res: Response) {
  expect(res.status).toBe(400);
  expect(res.headers.get("content-type")).toBe("text/plain");
  expect(await res.text()).toBe("Bad Request");
}

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return [error.status, error.body];
    throw error;
  }
  throw new Error("expected a 400");
}

describe("NUL bytes and undecodable escapes (HandleMalformedStrings)", () => {
  it("refuses a NUL in the query string, anonymous callers included", async () => {
    await expectBadRequest(await request("GET", `${BASE}/api/v4/projects?search=%00`, null));
    await expectBadRequest(await request("GET", `${BASE}/api/v4/projects?not[labels][]=a%00b`, null));
  });

  it("refuses a NUL in the path before the lookup", async () => {
    await expectBadRequest(await request("GET", `${BASE}/api/v4/groups/%00`, null));
    await expectBadRequest(await request("GET", `${BASE}/api/v4/projects/a%2F%00b`, null));
  });

  it("refuses invalid UTF-8 and a stray % like Rack does", async () => {
    await expectBadRequest(await request("GET", `${BASE}/api/v4/projects?search=mal%C0formed`, null));
    await expectBadRequest(await request("GET", `${BASE}/api/v4/groups/100%`, null));
  });

  it("refuses a NUL in JSON, urlencoded and multipart bodies, nested ones included", async () => {
    const w = await world();
    const project = await w.project({ visibility: "private" });
    const path = `/projects/${project.id}/labels`;
    await expectBadRequest(await w.root.post(path, { json: { name: "a\u0000b", color: "#fff" } }));
    await expectBadRequest(await w.root.post(path, { json: { name: "ok", color: "#fff", deep: { list: ["x\u0000"] } } }));
    await expectBadRequest(await w.root.post(path, { formBody: "name=a%00&color=%23fff" }));
    const form = new FormData();
    form.set("name", "a\u0000b");
    form.set("color", "#fff");
    await expectBadRequest(await w.root.post(path, { multipart: form }));
  });

  it("keeps Object.prototype out of reach of Rack keys", () => {
    const out = decodeQuery("__proto__[polluted]=1&a[__proto__][x]=2");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe("malformed bodies", () => {
  it("reads multipart without a boundary as no parameters (Rack), so the endpoint reports what is missing", async () => {
    const w = await world();
    const project = await w.project({ visibility: "private" });
    const res = await w.root.post(`/projects/${project.id}/labels`, { headers: { "Content-Type": "multipart/form-data" } });
    expect(await statusAndBody(res)).toEqual([400, { error: "name is missing, color is missing" }]);
  });

  it("answers Grape's 400 to a multipart body that does not parse", async () => {
    const w = await world();
    const project = await w.project({ visibility: "private" });
    const raw = await fetchWithBody(w.rootToken, `/projects/${project.id}/labels`, "multipart/form-data; boundary=xyz", "{}");
    expect(await statusAndBody(raw)).toEqual([400, { error: "Empty message body supplied with multipart/form-data content-type" }]);
  });

  it("answers Grape's 400 to malformed JSON", async () => {
    const w = await world();
    const project = await w.project({ visibility: "private" });
    const res = await fetchWithBody(w.rootToken, `/projects/${project.id}/labels`, "application/json", '{"name":');
    expect(await statusAndBody(res)).toEqual([400, { error: "message body does not match declared format" }]);
  });
});

/** Sends a raw body (the client helper only builds well-formed ones). */
async function fetchWithBody(token: string, path: string, type: string, body: string) {
  return worker.fetch(new Request(`${BASE}/api/v4${path}`, { method: "POST", headers: { "PRIVATE-TOKEN": token, "Content-Type": type }, body }));
}

describe("integers held to their column's range", () => {
  const Schema = z.object({ id: p.int().optional(), ids: p.ints({ comma: true }).optional(), big: p.intIn(INT53).optional() });

  it("takes the int32 range and refuses 2^31, 2^53, 1e308 and 2^64", () => {
    expect(validateParams({ id: "2147483647", ids: "-2147483648,1" }, Schema)).toEqual({ id: 2147483647, ids: [-2147483648, 1] });
    for (const value of ["2147483648", "-2147483649", "9007199254740993", 1e308, "18446744073709551616", 2 ** 31, 1.5]) {
      expect(errorOf(() => validateParams({ id: value }, Schema))).toEqual([400, { error: "id is invalid" }]);
    }
    expect(errorOf(() => validateParams({ ids: "1,4294967296" }, Schema))).toEqual([400, { error: "ids is invalid" }]);
  });

  it("takes bigint columns up to 2^53 - 1", () => {
    expect(validateParams({ big: "9007199254740991" }, Schema)).toEqual({ big: 9007199254740991 });
    expect(errorOf(() => validateParams({ big: "9007199254740992" }, Schema))).toEqual([400, { error: "big is invalid" }]);
  });

  it("answers 400 through the entry point (label priority, issue weight)", async () => {
    const w = await world();
    const project = await w.project({ visibility: "private" });
    for (const priority of [2 ** 31, 2 ** 53, 1e308, "18446744073709551616"]) {
      const res = await w.root.post(`/projects/${project.id}/labels`, { json: { name: `l${priority}`, color: "#fff", priority } });
      expect(await statusAndBody(res)).toEqual([400, { error: "priority is invalid" }]);
    }
    const res = await w.root.get(`/projects/${project.id}/issues`, { query: { assignee_id: "2147483648" } });
    expect(res.status).toBeLessThan(500);
  });
});

describe("real calendar dates and times", () => {
  const Schema = z.object({ on: p.date().optional(), at: p.datetime().optional() });

  it("refuses days that do not exist instead of rolling them over", () => {
    for (const on of ["2020-02-30", "2021-02-29", "2020-13-01", "2020-00-10", "2020-04-31", "0000-01-01"]) {
      expect(errorOf(() => validateParams({ on }, Schema))).toEqual([400, { error: "on is invalid" }]);
      expect(errorOf(() => validateParams({ at: `${on}T00:00:00Z` }, Schema))).toEqual([400, { error: "at is invalid" }]);
    }
    expect(validateParams({ on: "2020-02-29", at: "2000-02-29" }, Schema)).toEqual({ on: "2020-02-29", at: new Date("2000-02-29T00:00:00Z") });
  });

  it("reads ISO 8601 date-times with offsets and fractions, within years 1 to 9999", () => {
    expect(parseDateTime("2024-05-01T10:00:00+02:00")).toEqual(new Date("2024-05-01T08:00:00Z"));
    expect(parseDateTime("2024-05-01T10:00:00.123Z")).toEqual(new Date("2024-05-01T10:00:00.123Z"));
    expect(parseDateTime("2024-05-01 10:00")).toEqual(new Date("2024-05-01T10:00:00Z"));
    expect(parseDateTime("0050-01-01")?.getUTCFullYear()).toBe(50);
    for (const bad of ["-000001-01-01", "+275760-09-13", "2024-05-01T24:00:00Z", "2024-05-01T10:60Z", "0001-01-01T00:00:00+01:00", "yesterday", "2024-05-01garbage"]) {
      expect(parseDateTime(bad)).toBeNull();
    }
  });

  it("answers 400 for expires_at=2020-02-30 on members", async () => {
    const w = await world();
    const project = await w.project({ visibility: "private" });
    const user = await w.user();
    const res = await w.root.post(`/projects/${project.id}/members`, { json: { user_id: user.id, access_level: 30, expires_at: "2020-02-30" } });
    expect(await statusAndBody(res)).toEqual([400, { error: "expires_at is invalid" }]);
  });
});

describe("log hygiene (onError)", () => {
  it("logs a database failure's code and message, never the SQL nor its parameters", () => {
    const pg = Object.assign(new Error('value "2147483648" is out of range for type integer'), { code: "22003" });
    const wrapped = Object.assign(new Error('Failed query: select * from users where token_digest = $1\nparams: deadbeef'), { cause: pg });
    const line = describeFailure("req-1", "GET", "/api/v4/projects/:id", wrapped);
    expect(line).toBe('[req-1] GET /api/v4/projects/:id: database error SQLSTATE 22003 value "…" is out of range for type integer');
    expect(line).not.toMatch(/deadbeef|select|2147483648/);
  });

  it("keeps schema names and masks values in Postgres' messages", () => {
    expect(maskValues('duplicate key value violates unique constraint "labels_project_id_title_index"')).toBe(
      'duplicate key value violates unique constraint "labels_project_id_title_index"',
    );
    expect(maskValues('invalid input syntax for type integer: "abc"')).toBe('invalid input syntax for type integer: "…"');
    expect(maskValues("Failed query: insert into notes values ($1)\nparams: secret")).toBe("Failed query (SQL and parameters not logged)");
  });
});
