import fc from "fast-check";
import type { ParamKind } from "../../functions/kernel/params";

/**
 * Malformed and edge values derived from a parameter's declared kind (functions/kernel/params.ts
 * `ParamKind`). Valid edge values are included on purpose: the kernel refuses what is malformed, so the
 * 5xx hide behind values that pass validation (the largest int32, year 9999, a regex character in a
 * search, an `oneOf` value the route did not expect to be combined).
 */
const INT_EDGES = [
  0, -1, 1, 2147483647, -2147483648, 2147483648, -2147483649, 9007199254740991, 9007199254740993, 1e308, -1e308,
  "18446744073709551616", "99999999999999999999", "1e3", "0x10", " 7 ", "1.5", "-0", "", "NaN", "Infinity",
];
const STRING_EDGES = [
  "", " ", "\u0000", "a\u0000b", "%", "_", "\\", "'", '"', "*", "(", "[", ")", "?", "+", "^$", "\\d{99999}", "%00",
  "😀", "\uD800", "\uFFFF", "é", "../..", "a/b", ".", "..", "-", "--", "a".repeat(300),
  "<script>", "${x}", "'; DROP TABLE users; --", "null", "true", "0", "-1", "2147483648", "main", "HEAD", "refs/heads/main",
];
const DATE_EDGES = [
  "2020-02-30", "2021-02-29", "2024-02-29", "0001-01-01", "9999-12-31", "0000-01-01", "10000-01-01", "+275760-09-13",
  "-000001-01-01", "2024-13-01", "2024-00-10", "2024-1-1", "20240101", "", "now", "1970-01-01T00:00:00Z",
  "9999-12-31T23:59:59Z", "9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00", "2024-01-01T24:00:00Z",
  "2024-01-01T23:60:00Z", "2024-01-01T10:00:00+25:00", "2024-01-01T10:00:00.999999999Z",
];
const BOOL_EDGES = [true, false, "true", "false", "TRUE", "yes", "1", "0", "maybe", "", 2, -1];

/** Anything at all: what a client may send where it should not (type confusion through JSON). */
const junk: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(...INT_EDGES, ...STRING_EDGES.slice(0, 20), ...DATE_EDGES.slice(0, 6), null, true, false),
    fc.string({ unit: "binary", maxLength: 40 }),
    fc.integer(),
    fc.double(),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("a", "id", "name", "0", "__proto__", "constructor"), tie("value"), { maxKeys: 3 }),
  ),
})).value;

function edges(kind: ParamKind): unknown[] {
  switch (kind.kind) {
    case "int":
    case "id":
      return INT_EDGES;
    case "intIn":
      return [...INT_EDGES, kind.min, kind.max, kind.min - 1, kind.max + 1];
    case "string":
      return STRING_EDGES;
    case "bool":
      return BOOL_EDGES;
    case "date":
    case "datetime":
      return DATE_EDGES;
    case "oneOf":
      return [...kind.values, "", "nope", 2147483648];
    case "array":
      return [[], [""], edges(kind.of).slice(0, 8), kind.comma ? edges(kind.of).slice(0, 6).join(",") : "x", { 0: "a" }];
    case "hashes":
      return [[], [{}], Object.fromEntries(Object.keys(kind.shape).map((k) => [k, "\u0000"])), "x", [[]]];
    case "hash":
      return [{}, { a: "b" }, { a: { b: { c: "d" } } }, "x", [1]];
    default:
      return [...INT_EDGES.slice(0, 8), ...STRING_EDGES.slice(0, 12), null, {}, []];
  }
}

/** A value for a parameter of `kind`: its edges, random values of its type, or junk. */
export function valueFor(kind: ParamKind): fc.Arbitrary<unknown> {
  const own = fc.constantFrom(...edges(kind));
  const typed: fc.Arbitrary<unknown> =
    kind.kind === "int" || kind.kind === "id" || kind.kind === "intIn"
      ? fc.oneof(fc.integer(), fc.bigInt().map(String), fc.integer({ min: 0, max: 3 }))
      : kind.kind === "string"
        ? fc.string({ unit: "binary", maxLength: 60 })
        : kind.kind === "date"
          ? fc.tuple(fc.integer({ min: 0, max: 10000 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 })).map(
              ([y, m, d]) => `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`,
            )
          : kind.kind === "datetime"
            ? fc.date({ noInvalidDate: true }).map((d) => d.toISOString())
            : kind.kind === "array"
              ? fc.array(valueFor(kind.of), { maxLength: 4 })
              : kind.kind === "hashes"
                ? fc.array(fc.record(Object.fromEntries(Object.entries(kind.shape).map(([k, v]) => [k, valueFor(v)])), { requiredKeys: [] }), { maxLength: 3 })
                : own;
  return fc.oneof({ weight: 4, arbitrary: own }, { weight: 3, arbitrary: typed }, { weight: 1, arbitrary: junk });
}

/** The deterministic sweep of `npm run fuzz`: every edge value of a kind, one at a time (and a 70 kB one). */
export function edgeValues(kind: ParamKind): unknown[] {
  return kind.kind === "string" ? [...edges(kind), "b".repeat(70_000)] : edges(kind);
}

/** Path segments that must answer 404 or 400, never 5xx (already percent-encoded). */
export const PATH_EDGES = [
  "0", "-1", "2147483648", "-2147483649", "99999999999999999999", "1.5", "1e3", "abc", "%2F", "a%2Fb%2Fc", "%2e%2e",
  "%E2%9C%93", "%25", "%2500", "x".repeat(300), "%20", "null", "00000000000000000000000000000000000001", "9007199254740993",
];
