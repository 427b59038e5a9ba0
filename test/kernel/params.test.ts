import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiError } from "../../functions/kernel/errors";
import { decodeQuery, p, validateParams } from "../../functions/kernel/params";

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return [error.status, error.body];
    throw error;
  }
  throw new Error("expected a 400");
}

describe("Rack keys (docs/compat.md, V1)", () => {
  it("keeps the last value of a repeated key", () => {
    expect(decodeQuery("a=1&a=2")).toEqual({ a: "2" });
  });

  it("collects a[] into an array and nests h[k]", () => {
    expect(decodeQuery("a[]=1&a[]=2&h[k]=v&not[labels]=x")).toEqual({ a: ["1", "2"], h: { k: "v" }, not: { labels: "x" } });
  });

  it("starts a new element of a[][k] when a key repeats", () => {
    expect(decodeQuery("a[][k]=1&a[][j]=2&a[][k]=3")).toEqual({ a: [{ k: "1", j: "2" }, { k: "3" }] });
  });

  it("decodes + as a space and percent-escapes", () => {
    expect(decodeQuery("q=a+b%2Fc&empty=")).toEqual({ q: "a b/c", empty: "" });
  });
});

describe("coercion and Grape's messages (docs/compat.md, V3, V4)", () => {
  const Schema = z.object({
    email: p.string(),
    name: p.string(),
    admin: p.bool().optional(),
    limit: p.int().optional(),
    order_by: p.oneOf("id", "name").optional(),
    ids: p.ints({ comma: true }).optional(),
    since: p.datetime().optional(),
  });

  it("coerces booleans in every spelling GitLab accepts", () => {
    for (const [input, expected] of [["true", true], ["True", true], ["1", true], ["yes", true], ["on", true], ["t", true],
      ["false", false], ["False", false], ["0", false], ["no", false], ["off", false], ["f", false], [true, true], [false, false]] as const) {
      expect(validateParams({ email: "e", name: "n", admin: input }, Schema).admin).toBe(expected);
    }
  });

  it("coerces integers, comma lists and datetimes", () => {
    const out = validateParams({ email: "e", name: "n", limit: "42", ids: "1,2,3", since: "2024-05-01T10:00:00Z" }, Schema);
    expect(out).toEqual({ email: "e", name: "n", limit: 42, ids: [1, 2, 3], since: new Date("2024-05-01T10:00:00Z") });
  });

  it("joins several failures with ', ' in declaration order", () => {
    expect(errorOf(() => validateParams({ admin: "maybe", limit: "x", order_by: "size" }, Schema))).toEqual([
      400,
      { error: "email is missing, name is missing, admin is invalid, limit is invalid, order_by does not have a valid value" },
    ]);
  });

  it("reads JSON null on a non-nullable optional parameter as not sent", () => {
    expect(validateParams({ email: "e", name: "n", limit: null }, Schema)).toEqual({ email: "e", name: "n" });
  });

  it("lets null through on a nullable parameter", () => {
    const Nullable = z.object({ description: p.string().nullable().optional() });
    expect(validateParams({ description: null }, Nullable)).toEqual({ description: null });
  });

  it("names nested parameters as Grape does", () => {
    const Actions = z.object({ actions: p.hashes({ action: p.oneOf("create", "delete") }) });
    expect(errorOf(() => validateParams({ actions: [{ action: "create" }, { action: "explode" }] }, Actions))).toEqual([
      400,
      { error: "actions[1][action] does not have a valid value" },
    ]);
  });
});

describe("parameter rules (docs/compat.md, V4)", () => {
  const Schema = z.object({ a: p.string().optional(), b: p.string().optional(), c: p.string().optional() });

  it("mutually exclusive", () => {
    expect(errorOf(() => validateParams({ a: "1", b: "2" }, Schema, [{ mutuallyExclusive: ["a", "b"] }]))).toEqual([
      400,
      { error: "a, b are mutually exclusive" },
    ]);
  });

  it("at least one", () => {
    expect(errorOf(() => validateParams({}, Schema, [{ atLeastOneOf: ["a", "b", "c"] }]))).toEqual([
      400,
      { error: "a, b, c are missing, at least one parameter must be provided" },
    ]);
    expect(validateParams({ c: "x" }, Schema, [{ atLeastOneOf: ["a", "b", "c"] }])).toEqual({ c: "x" });
  });

  it("exactly one", () => {
    expect(errorOf(() => validateParams({}, Schema, [{ exactlyOneOf: ["a", "b"] }]))).toEqual([
      400,
      { error: "a, b are missing, exactly one parameter must be provided" },
    ]);
  });

  it("all or none", () => {
    expect(errorOf(() => validateParams({ a: "1" }, Schema, [{ allOrNoneOf: ["a", "b"] }]))).toEqual([
      400,
      { error: "a, b provide all or none of parameters" },
    ]);
  });
});
