import { AsyncLocalStorage } from "node:async_hooks";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import * as z from "zod";
import type { AppEnv, Ctx } from "./env";
import { malformedRequest, paramsError, tooLarge } from "./errors";

/**
 * Parameters as Grape sees them (docs/compat.md, "Parameters"): the union of the query string (on every
 * method), urlencoded or multipart forms and JSON bodies, with Rack's nested keys decoded
 * (`a[]`, `h[k]`, `a[][k]`). On a clash the body wins over the query string; path parameters are
 * read with `c.req.param()` and win over both.
 */
type Raw = Record<string, unknown>;

const MAX_BODY_BYTES = 10 * 1024 * 1024;
const cache = new WeakMap<Request, Promise<Raw>>();

export function rawParams(c: Ctx): Promise<Raw> {
  let found = cache.get(c.req.raw);
  if (!found) {
    found = readRaw(c);
    cache.set(c.req.raw, found);
  }
  return found;
}

async function readRaw(c: Ctx): Promise<Raw> {
  const body = await readBody(c);
  // Gitlab::Middleware::HandleMalformedStrings: a NUL anywhere in the parameters is a 400 before any
  // endpoint runs (the query string is already checked by `rejectMalformedStrings`).
  if (body && hasMalformedString(body)) throw malformedRequest();
  return { ...queryParams(c), ...body };
}

function queryParams(c: Ctx): Raw {
  const url = c.req.url;
  const at = url.indexOf("?");
  return at < 0 ? {} : decodeQuery(url.slice(at + 1).replace(/#.*$/, ""));
}

/** The body's parameters, or null when the request has none. */
async function readBody(c: Ctx): Promise<Raw | null> {
  if (c.req.method === "GET" || c.req.method === "HEAD") return null;
  const length = Number(c.req.header("content-length") ?? 0);
  if (length > MAX_BODY_BYTES) throw tooLarge();
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data")) {
    // Rack reads a multipart type without a boundary as no parameters; a body that does not parse
    // is Grape's EmptyMessageBody (Rack's EOFError "bad content body"), never a 500.
    if (!/;\s*boundary=/.test(type)) return null;
    let form: FormData;
    try {
      form = await c.req.raw.formData();
    } catch {
      throw paramsError("Empty message body supplied with multipart/form-data content-type");
    }
    const body: Raw = {};
    for (const [key, value] of form.entries()) normalizeParams(body, key, value);
    return body;
  }
  // Decoded by hand: workerd warns when `.text()` reads a body whose type is not textual (urlencoded).
  const text = new TextDecoder().decode(await c.req.arrayBuffer());
  if (text.length > MAX_BODY_BYTES) throw tooLarge();
  if (type.startsWith("application/x-www-form-urlencoded")) return decodeQuery(text);
  if (text.trim() === "") return null;
  if (type.includes("json") || type === "") {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      if (type === "") return null; // an opaque body without a type is not parameters
      // Grape::Exceptions::InvalidMessageBody, rendered by GitLab's API as `{"error": …}`.
      throw paramsError("message body does not match declared format");
    }
    if (body && typeof body === "object" && !Array.isArray(body)) {
      delete (body as Raw)["__proto__"];
      return body as Raw;
    }
    return null;
  }
  return null;
}

const NUL = "\u0000";

/**
 * For handlers that parse a body themselves (the alert receiver, the LFS locking API): a NUL byte in any
 * string is `HandleMalformedStrings`' 400, never Postgres' error on the text or jsonb column.
 */
export function rejectMalformedBody(value: unknown): void {
  if (hasMalformedString(value)) throw malformedRequest();
}

/** True when a string anywhere in `value` holds a NUL byte (files are bytes, not parameters). */
function hasMalformedString(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return value.includes(NUL);
  if (depth > 16 || value === null || typeof value !== "object") return false;
  if (value instanceof Blob) return value instanceof File && value.name.includes(NUL);
  if (Array.isArray(value)) return value.some((v) => hasMalformedString(v, depth + 1));
  for (const [k, v] of Object.entries(value)) if (k.includes(NUL) || hasMalformedString(v, depth + 1)) return true;
  return false;
}

/**
 * `Gitlab::Middleware::HandleMalformedStrings` (lib/gitlab/middleware/handle_malformed_strings.rb):
 * a NUL byte or an undecodable escape (`%C0`, a stray `%`) in the path, the query string or the Basic
 * credentials answers `400 text/plain "Bad Request"` before authentication and routing. Body
 * parameters are checked when `rawParams` reads them.
 */
export const rejectMalformedStrings: MiddlewareHandler<AppEnv> = async (c, next) => {
  const url = c.req.url;
  const start = url.indexOf("/", url.indexOf("://") + 3);
  const q = url.indexOf("?", start);
  const path = start < 0 ? "/" : url.slice(start, q < 0 ? undefined : q);
  // decodeStrict throws the same 400 on a bad escape.
  if (decodeStrict(path).includes(NUL)) throw malformedRequest();
  if (q >= 0 && hasMalformedString(decodeQuery(url.slice(q + 1).replace(/#.*$/, "")))) throw malformedRequest();
  const auth = c.req.header("authorization");
  if (auth && /^basic\s/i.test(auth) && atobUtf8(auth.replace(/^basic\s+/i, "")).includes(NUL)) throw malformedRequest();
  await next();
};

function atobUtf8(b64: string): string {
  try {
    const bytes = Uint8Array.from(atob(b64.trim()), (ch) => ch.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return ""; // unreadable Basic credentials are the authenticator's 401, not a malformed string
  }
}

/** decodeURIComponent, but a bad escape or invalid UTF-8 is a malformed request (Rack raises). */
function decodeStrict(s: string): string {
  if (!s.includes("%")) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    throw malformedRequest();
  }
}

/** Decodes `a=1&b[]=2&h[k]=v&a[][k]=1` the way Rack does (`+` is a space). */
export function decodeQuery(query: string): Raw {
  const params: Raw = {};
  if (!query) return params;
  for (const pair of query.split(/[&;]/)) {
    if (!pair) continue;
    const eq = pair.indexOf("=");
    const key = decodeComponent(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? "" : decodeComponent(pair.slice(eq + 1));
    normalizeParams(params, key, value);
  }
  return params;
}

function decodeComponent(s: string): string {
  return decodeStrict(s.replace(/\+/g, " "));
}

/** Rack::QueryParser#normalize_params: nests one key into `params`. */
export function normalizeParams(params: Raw, name: string, value: unknown): Raw {
  const match = /^[\[\]]*([^\[\]]+)\]*/.exec(name);
  const key = match ? match[1] : "";
  const after = match ? name.slice(match[0].length) : "";
  // `__proto__[x]=1` would otherwise reach Object.prototype through the assignments below.
  if (!key || key === "__proto__") return params;
  if (after === "") {
    params[key] = value;
  } else if (after === "[]") {
    const list = Array.isArray(params[key]) ? (params[key] as unknown[]) : (params[key] = []);
    (list as unknown[]).push(value);
  } else {
    const child = /^\[\]\[([^\[\]]+)\]$/.exec(after) ?? /^\[\](.+)$/.exec(after);
    if (child) {
      const list = (Array.isArray(params[key]) ? params[key] : (params[key] = [])) as unknown[];
      const last = list[list.length - 1];
      if (isHash(last) && !hasNestedKey(last, child[1])) normalizeParams(last, child[1], value);
      else list.push(normalizeParams({}, child[1], value));
    } else {
      const hash = isHash(params[key]) ? (params[key] as Raw) : (params[key] = {});
      normalizeParams(hash as Raw, after, value);
    }
  }
  return params;
}

const isHash = (v: unknown): v is Raw => !!v && typeof v === "object" && !Array.isArray(v) && !(v instanceof Blob);

function hasNestedKey(hash: Raw, key: string): boolean {
  const parts = key.split(/[\[\]]+/).filter(Boolean);
  let node: unknown = hash;
  for (const part of parts) {
    if (!isHash(node) || !(part in node)) return false;
    node = node[part];
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Coercing schemas with Grape's messages. Each is required unless `.optional()`; JSON `null` on an
// parameter reads as not sent, unless the schema is `.nullable()` (then it is a change).

const INVALID = Symbol("invalid");

/**
 * What a `p.*` schema coerces to. Recorded so that the fuzz test (test/hardening/fuzz.test.ts) derives
 * malformed values from the schemas the routes really declare, new endpoints included.
 */
export type ParamKind =
  | { kind: "string" | "int" | "id" | "bool" | "datetime" | "date" | "hash" | "file" | "other" }
  | { kind: "intIn"; min: number; max: number }
  | { kind: "oneOf"; values: (string | number)[] }
  | { kind: "array"; of: ParamKind; comma: boolean }
  | { kind: "hashes"; shape: Record<string, ParamKind> };
const kinds = new WeakMap<object, ParamKind>();
function tagged<T extends z.ZodType>(schema: T, kind: ParamKind): T {
  kinds.set(schema, kind);
  // `.refine()` clones the pipe but keeps its parts: the tag on the output part survives it.
  const out = (schema as unknown as { _zod: { def: { out?: object } } })._zod.def.out;
  if (out) kinds.set(out, kind);
  return schema;
}
type Coercer<T> = (value: unknown) => T | typeof INVALID;

function coerced<T>(coerce: Coercer<T>, invalid = "is invalid") {
  return z.any().transform((value, ctx): T => {
    if (value === undefined || value === null) {
      ctx.addIssue({ code: "custom", message: "is missing" });
      return z.NEVER;
    }
    const out = coerce(value);
    if (out === INVALID) {
      ctx.addIssue({ code: "custom", message: invalid });
      return z.NEVER;
    }
    return out;
  });
}

const TRUE = new Set(["true", "t", "yes", "y", "on", "1"]);
const FALSE = new Set(["false", "f", "no", "n", "off", "0"]);

const toString: Coercer<string> = (v) =>
  typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : INVALID;
/** Postgres `integer`: ids, iids, levels, weights, priorities (docs/database.md, "Schema and migrations"). */
export const INT32 = { min: -2147483648, max: 2147483647 } as const;
/**
 * A row reference in a path segment (`:id`, `:issue_iid`, `:alert_iid`, …) that lookups read themselves:
 * the number when the segment is decimal digits inside `integer`'s range, else null. A value out of
 * range refers to no row (GitLab answers its 404, not a 400), so callers answer their not-found.
 */
export function pathRowId(segment: string | undefined): number | null {
  if (segment === undefined || !/^\d+$/.test(segment)) return null;
  const n = Number(segment);
  return n <= INT32.max ? n : null;
}

/** An id or iid that may exist: 1 to 2,147,483,647 (Postgres `integer`, identities and iids start at 1). */
export function isRowId(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= INT32.max;
}

/** `bigint` columns as JS numbers (`mode: "number"`): the safe-integer range, inside Postgres'. */
export const INT53 = { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER } as const;

/**
 * Grape's Integer coercion, held to the column's range: 2^31, 2^53, 1e308 and 2^64 are `is invalid`
 * rather than an error from Postgres.
 */
function toIntIn(range: { min: number; max: number }): Coercer<number> {
  return (v) => {
    let n: number;
    if (typeof v === "number") n = v;
    else if (typeof v === "string" && /^\s*[-+]?\d{1,20}\s*$/.test(v)) n = Number(v);
    else return INVALID;
    return Number.isSafeInteger(n) && n >= range.min && n <= range.max ? n : INVALID;
  };
}
const toInt = toIntIn(INT32);
/**
 * Grape's Integer for a reference to a row (an id or iid in a path or a filter): any integer is
 * accepted, and one outside the column's range refers to no row. GitLab (Rails 6.1+) turns such a value
 * in a WHERE into a condition that matches nothing, so the lookup answers 404 and the filter an empty
 * list, never 400. 0 stands for it: identity columns and iids start at 1, so 0 matches nothing alike.
 */
const toRowRef: Coercer<number> = (v) => {
  const wide = toIntIn(INT53)(v);
  if (wide === INVALID) return INVALID;
  return wide >= INT32.min && wide <= INT32.max ? wide : 0;
};
const toBool: Coercer<boolean> = (v) => {
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v === 1 ? true : v === 0 ? false : INVALID;
  if (typeof v !== "string") return INVALID;
  const s = v.trim().toLowerCase();
  return TRUE.has(s) ? true : FALSE.has(s) ? false : INVALID;
};
const DATE_PART = /^(\d{4})-(\d{2})-(\d{2})/;

/** True for a real calendar day from 0001-01-01 to 9999-12-31 (no `2020-02-30` rolling into March). */
function realDay(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const d = new Date(Date.UTC(2000, month - 1, day)); // a leap year, then the year itself
  if (d.getUTCMonth() !== month - 1) return false;
  return !(month === 2 && day === 29 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)));
}

/** Timestamps Postgres and JSON both carry: years 1 to 9999 in UTC. */
const MIN_TIME = new Date("0001-01-01T00:00:00.000Z").getTime();
const MAX_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * An ISO 8601 date or date-time (`2024-05-01`, `2024-05-01T10:00:00Z`, `…+02:00`, `… 10:00`): the day
 * must exist, hours 0–23, minutes and seconds 0–59, and the instant must fall within years 1–9999.
 */
export function parseDateTime(v: unknown): Date | null {
  if (typeof v !== "string") return null;
  const s = v.trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i.exec(s);
  if (!m) return null;
  const [, y, mo, d, hh, mi, ss, frac, zone] = m;
  if (!realDay(+y, +mo, +d)) return null;
  if (hh !== undefined && (+hh > 23 || +mi > 59 || (ss !== undefined && +ss > 59))) return null;
  let offset = 0;
  if (zone && zone.toUpperCase() !== "Z") {
    const z = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
    if (+z[2] > 23 || (z[3] !== undefined && +z[3] > 59)) return null;
    offset = (z[1] === "-" ? -1 : 1) * (+z[2] * 60 + +(z[3] ?? 0));
  }
  const ms = frac ? Math.floor(Number(`0${frac}`) * 1000) : 0;
  const local = Date.UTC(+y, +mo - 1, +d, +(hh ?? 0), +(mi ?? 0), +(ss ?? 0), ms);
  // Date.UTC maps years 0–99 to 1900–1999; set the full year explicitly.
  const date = new Date(local);
  date.setUTCFullYear(+y, +mo - 1, +d);
  const time = date.getTime() - offset * 60_000;
  if (Number.isNaN(time) || time < MIN_TIME || time > MAX_TIME) return null;
  return new Date(time);
}

const toDateTime: Coercer<Date> = (v) => parseDateTime(v) ?? INVALID;
const toDate: Coercer<string> = (v) => {
  if (typeof v !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return INVALID;
  const [, y, m, d] = DATE_PART.exec(v)!;
  return realDay(+y, +m, +d) ? v : INVALID;
};

function toArray<T>(item: Coercer<T>, comma: boolean): Coercer<T[]> {
  return (v) => {
    let list: unknown[];
    if (Array.isArray(v)) list = v;
    else if (isHash(v)) list = Object.values(v); // `a[0]=x&a[1]=y`
    else if (comma && typeof v === "string") list = v === "" ? [] : v.split(",").map((s) => s.trim());
    else list = [v];
    const out: T[] = [];
    for (const element of list) {
      const converted = item(element);
      if (converted === INVALID) return INVALID;
      out.push(converted);
    }
    return out;
  };
}

export const p = {
  string: () => tagged(coerced(toString), { kind: "string" }),
  /** Grape `allow_blank: false`: a blank string (empty or whitespace only) is `<p> is empty`. */
  nonBlank: () => tagged(coerced(toString), { kind: "string" }).refine((s) => s.trim() !== "", { message: "is empty" }),
  /** A Postgres `integer` (the default for ids, iids and counts). */
  int: () => tagged(coerced(toInt), { kind: "int" }),
  /** An integer held to another range: `p.int({ min: 0 })`, or `INT53` for `bigint` columns. */
  intIn: (range: { min?: number; max?: number }) => {
    const bounds = { min: range.min ?? INT32.min, max: range.max ?? INT32.max };
    return tagged(coerced(toIntIn(bounds)), { kind: "intIn", ...bounds });
  },
  /** An id or iid that names a row (path or filter): out of range it matches nothing (see `toRowRef`). */
  id: () => tagged(coerced(toRowRef), { kind: "id" }),
  bool: () => tagged(coerced(toBool), { kind: "bool" }),
  /** ISO 8601 datetime, as a Date. */
  datetime: () => tagged(coerced(toDateTime), { kind: "datetime" }),
  /** `YYYY-MM-DD`, kept as that string. */
  date: () => tagged(coerced(toDate), { kind: "date" }),
  /** Grape `values:`; anything else `does not have a valid value`. */
  oneOf: <const T extends string>(...values: T[]) =>
    tagged(
      coerced<T>((v) => {
        const s = toString(v);
        return s !== INVALID && (values as string[]).includes(s) ? (s as T) : INVALID;
      }, "does not have a valid value"),
      { kind: "oneOf", values },
    ),
  /** An integer restricted to `values`. */
  intOneOf: (...values: number[]) =>
    tagged(
      coerced<number>((v) => {
        const n = toInt(v);
        return n !== INVALID && values.includes(n) ? n : INVALID;
      }, "does not have a valid value"),
      { kind: "oneOf", values },
    ),
  /** `Array[String]`; `comma` also takes `a,b` (GitLab's comma-separated coercions). */
  strings: (opts: { comma?: boolean } = {}) =>
    tagged(coerced(toArray(toString, !!opts.comma)), { kind: "array", of: { kind: "string" }, comma: !!opts.comma }),
  ints: (opts: { comma?: boolean } = {}) =>
    tagged(coerced(toArray(toInt, !!opts.comma)), { kind: "array", of: { kind: "int" }, comma: !!opts.comma }),
  /** Ids or iids that name rows (filters such as `iids[]`): out of range they match nothing. */
  ids: (opts: { comma?: boolean } = {}) =>
    tagged(coerced(toArray(toRowRef, !!opts.comma)), { kind: "array", of: { kind: "id" }, comma: !!opts.comma }),
  /** A Rack hash (`h[k]=v`) or a JSON object. */
  hash: () => tagged(coerced<Record<string, unknown>>((v) => (isHash(v) ? v : INVALID)), { kind: "hash" }),
  /** An array of hashes (`a[][k]=v` or a JSON array of objects), each checked by `shape`. */
  hashes: <S extends z.ZodRawShape>(shape: S) =>
    tagged(
      z.preprocess((v) => (isHash(v) ? Object.values(v) : v), z.array(z.object(shape), { error: "is invalid" })),
      { kind: "hashes", shape: describeShape(shape) },
    ),
  /** A multipart file. */
  file: () => tagged(coerced<File>((v) => (v instanceof File ? v : INVALID)), { kind: "file" }),
};

/** The kind of a declared parameter, through `.optional()`, `.nullable()`, defaults and preprocessing. */
export function paramKind(schema: z.ZodType, depth = 0): ParamKind {
  const own = kinds.get(schema);
  if (own) return own;
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> & { type: string } } })._zod.def;
  if (depth > 8) return { kind: "other" };
  if ("innerType" in def) return paramKind(def.innerType as z.ZodType, depth + 1);
  if (def.type === "pipe") {
    const tag = kinds.get(def.out as object);
    if (tag) return tag;
    const out = paramKind(def.out as z.ZodType, depth + 1);
    return out.kind === "other" ? paramKind(def.in as z.ZodType, depth + 1) : out;
  }
  if (def.type === "string") return { kind: "string" };
  if (def.type === "enum") return { kind: "oneOf", values: Object.values(def.entries as object) };
  return { kind: "other" };
}

function describeShape(shape: z.ZodRawShape): Record<string, ParamKind> {
  return Object.fromEntries(Object.entries(shape).map(([key, schema]) => [key, paramKind(schema as z.ZodType)]));
}

/**
 * `"<METHOD> <route pattern>"` → the parameters its handler validated, with their kinds: the registry
 * that the fuzz test reads, so that every endpoint is fuzzed with what it really declares. Bounded by
 * the routes' declarations (keyed by names, not by schema objects).
 */
export const declaredParams = new Map<string, Map<string, ParamKind>>();
const recorded = new WeakMap<object, Set<string>>();
/** The requests whose handler validated parameters (see `recordParameterless`). */
const validatedRequests = new WeakSet<Request>();

/**
 * Records, for the fuzz test's registry, the routes that declare no parameters at all: a handler that
 * answered 2xx without calling `validateParams` (a path-only read such as `GET /version`) is registered
 * with an empty set, so that the registry tells "declares nothing" from "never reached". A later call
 * that validates parameters adds them to the same entry.
 */
export const recordParameterless: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (c.res.status >= 300 || validatedRequests.has(c.req.raw)) return;
  const route = `${c.req.method} ${routePath(c)}`;
  if (!declaredParams.has(route)) declaredParams.set(route, new Map());
};

/**
 * The request's context for kernel code below the routes (`validateParams` records the route it runs
 * for), held through a WeakRef.
 *
 * Why not Hono's `contextStorage()`, which stores the context itself: workerd keeps an async context's
 * value behind a strong global handle for as long as any promise made inside it lives, and the context
 * holds such promises (its body cache, the parameters' cache, the database session), so every request's
 * context was a GC root forever: its Request, Response, headers, pool and Drizzle handle. Measured by
 * heap snapshots of `npm start`'s Worker: 2,000 requests left 2,000 contexts and 2,000 NeonDatabase
 * objects alive, about 28 kB of heap a request; the sweep's workerd reached 2.7 GB at 80,000 requests.
 */
const requestScope = new AsyncLocalStorage<WeakRef<Ctx>>();
export const withRequestScope: MiddlewareHandler<AppEnv> = (c, next) => requestScope.run(new WeakRef(c), next);

function recordDeclared(schema: z.ZodType) {
  const c = requestScope.getStore()?.deref();
  if (c) validatedRequests.add(c.req.raw);
  if (!c || !(schema instanceof z.ZodObject)) return;
  const route = `${c.req.method} ${routePath(c)}`;
  const seen = recorded.get(schema) ?? new Set<string>();
  if (seen.has(route)) return;
  seen.add(route);
  recorded.set(schema, seen);
  const params = declaredParams.get(route) ?? new Map<string, ParamKind>();
  for (const [key, kind] of Object.entries(describeShape(schema.shape as z.ZodRawShape))) params.set(key, kind);
  declaredParams.set(route, params);
}

export type ParamRule = (
  | { mutuallyExclusive: string[] }
  | { atLeastOneOf: string[] }
  | { exactlyOneOf: string[] }
  | { allOrNoneOf: string[] }
) & {
  /**
   * Grape validates in declaration order: a rule declared between parameters reports before the
   * messages of `before` and of the parameters declared after it. Without it the rule reports last.
   */
  before?: string;
};

/**
 * `readParams` with the path's own parameters (`:issue_iid`, `:note_id`, …), which Grape validates with
 * the rest and which win over the query string and the body. `omit`: path parameters that are not
 * parameters of the endpoint's schema (by default the container's `:id`, which `find*` resolves).
 */
export async function readParamsWithPath<S extends z.ZodType>(c: Ctx, schema: S, rules: ParamRule[] = [], omit: string[] = ["id"]): Promise<z.output<S>> {
  return validateParams(withPathParams(c, await rawParams(c), omit), schema, rules);
}

/** `raw` with the path's own parameters winning (`readParamsWithPath`'s merge), for routes that rename keys first. */
export function withPathParams(c: Ctx, raw: Raw, omit: string[] = ["id"]): Raw {
  const path = Object.entries(c.req.param() as Record<string, string | undefined>).filter(([key, value]) => value !== undefined && !omit.includes(key));
  return path.length ? { ...raw, ...Object.fromEntries(path) } : raw;
}

/** Reads, coerces and validates; failures are one 400 `{"error": "<a> is missing, <b> is invalid"}`. */
export async function readParams<S extends z.ZodType>(c: Ctx, schema: S, rules: ParamRule[] = []): Promise<z.output<S>> {
  const raw = await rawParams(c);
  return validateParams(raw, schema, rules);
}

export function validateParams<S extends z.ZodType>(raw: Raw, schema: S, rules: ParamRule[] = []): z.output<S> {
  recordDeclared(schema);
  const messages: string[] = [];
  /** The top-level parameter of each message ("" for rules), to place rules declared with `before`. */
  const owners: string[] = [];
  const result = schema.safeParse(withoutNulls(raw, schema));
  if (!result.success) {
    const seen = new Set<string>();
    for (const issue of result.error.issues) {
      const name = paramName(issue.path);
      if (seen.has(name)) continue;
      seen.add(name);
      messages.push(`${name} ${issue.code === "custom" ? issue.message : "is invalid"}`);
      owners.push(String(issue.path[0] ?? ""));
    }
  }
  const present = (key: string) => raw[key] !== undefined && raw[key] !== null;
  const keys = schema instanceof z.ZodObject ? Object.keys(schema.shape as object) : [];
  /** Places a rule's message where Grape would report it (see `ParamRule.before`). */
  const report = (rule: ParamRule, text: string) => {
    const limit = rule.before ? keys.indexOf(rule.before) : -1;
    const at = limit < 0 ? -1 : owners.findIndex((owner) => owner !== "" && keys.indexOf(owner) >= limit);
    messages.splice(at < 0 ? messages.length : at, 0, text);
    owners.splice(at < 0 ? owners.length : at, 0, "");
  };
  for (const rule of rules) {
    if ("mutuallyExclusive" in rule) {
      const sent = rule.mutuallyExclusive.filter(present);
      if (sent.length > 1) report(rule, `${sent.join(", ")} are mutually exclusive`);
    } else if ("atLeastOneOf" in rule) {
      if (!rule.atLeastOneOf.some(present))
        report(rule, `${rule.atLeastOneOf.join(", ")} are missing, at least one parameter must be provided`);
    } else if ("exactlyOneOf" in rule) {
      const sent = rule.exactlyOneOf.filter(present);
      if (sent.length === 0)
        report(rule, `${rule.exactlyOneOf.join(", ")} are missing, exactly one parameter must be provided`);
      else if (sent.length > 1) report(rule, `${sent.join(", ")} are mutually exclusive`);
    } else {
      const sent = rule.allOrNoneOf.filter(present);
      if (sent.length > 0 && sent.length < rule.allOrNoneOf.length)
        report(rule, `${rule.allOrNoneOf.join(", ")} provide all or none of parameters`);
    }
  }
  if (messages.length > 0) throw paramsError(messages.join(", "));
  return (result as { data: z.output<S> }).data;
}

/** JSON `null` reads as "not sent" unless the parameter's schema is `.nullable()` (then it is a change). */
function withoutNulls(raw: Raw, schema: z.ZodType): Raw {
  const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : null;
  const out: Raw = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === null && !(shape?.[key] && shape[key].safeParse(null).success)) continue;
    out[key] = value;
  }
  return out;
}

/** `["actions", 0, "action"]` → `actions[0][action]`, as Grape names nested parameters. */
function paramName(path: PropertyKey[]): string {
  return path.map((part, i) => (i === 0 ? String(part) : `[${String(part)}]`)).join("");
}

/** True when the request sent `key` (a PUT changes only the keys that were sent). */
export async function sent(c: Ctx, key: string): Promise<boolean> {
  return (await rawParams(c))[key] !== undefined;
}

/**
 * A date parameter as Rails casts it into a date column: `YYYY-MM-DD` (one-digit month and day
 * allowed) when it is a real date, else nil. Differs from GitLab: Ruby's `Date._parse` also reads
 * other spellings ("Jan 5 2024"); those are nil here.
 */
export function castDate(value: string | null | undefined): string | null {
  if (!value) return null;
  const match = /^\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*$/.exec(value);
  if (!match) return null;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return `${match[1]}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}
