import { z } from "zod";
import type { Ctx } from "./env";
import { paramsError, tooLarge } from "./errors";

/**
 * Parameters as Grape sees them (GITLAB-COMPAT.md §5): the union of the query string (on every
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
  const url = new URL(c.req.url);
  const params = decodeQuery(url.search.slice(1));
  if (c.req.method === "GET" || c.req.method === "HEAD") return params;
  const length = Number(c.req.header("content-length") ?? 0);
  if (length > MAX_BODY_BYTES) throw tooLarge();
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data")) {
    const form = await c.req.raw.formData();
    const body: Raw = {};
    for (const [key, value] of form.entries()) normalizeParams(body, key, value);
    return { ...params, ...body };
  }
  // Decoded by hand: workerd warns when `.text()` reads a body whose type is not textual (urlencoded).
  const text = new TextDecoder().decode(await c.req.arrayBuffer());
  if (text.length > MAX_BODY_BYTES) throw tooLarge();
  if (type.startsWith("application/x-www-form-urlencoded")) return { ...params, ...decodeQuery(text) };
  if (text.trim() === "") return params;
  if (type.includes("json") || type === "") {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      if (type === "") return params; // an opaque body without a type is not parameters
      // Grape::Exceptions::InvalidMessageBody, rendered by GitLab's API as `{"error": …}`.
      throw paramsError("message body does not match declared format");
    }
    if (body && typeof body === "object" && !Array.isArray(body)) return { ...params, ...(body as Raw) };
    return params;
  }
  return params;
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
  const spaced = s.replace(/\+/g, " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** Rack::QueryParser#normalize_params: nests one key into `params`. */
export function normalizeParams(params: Raw, name: string, value: unknown): Raw {
  const match = /^[\[\]]*([^\[\]]+)\]*/.exec(name);
  const key = match ? match[1] : "";
  const after = match ? name.slice(match[0].length) : "";
  if (!key) return params;
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
const toInt: Coercer<number> = (v) => {
  if (typeof v === "number") return Number.isInteger(v) ? v : INVALID;
  if (typeof v === "string" && /^\s*[-+]?\d+\s*$/.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : INVALID;
  }
  return INVALID;
};
const toBool: Coercer<boolean> = (v) => {
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v === 1 ? true : v === 0 ? false : INVALID;
  if (typeof v !== "string") return INVALID;
  const s = v.trim().toLowerCase();
  return TRUE.has(s) ? true : FALSE.has(s) ? false : INVALID;
};
const toDateTime: Coercer<Date> = (v) => {
  if (typeof v !== "string" || !/^\d{4}-\d{2}-\d{2}/.test(v)) return INVALID;
  const d = new Date(v.length === 10 ? `${v}T00:00:00Z` : v);
  return Number.isNaN(d.getTime()) ? INVALID : d;
};
const toDate: Coercer<string> = (v) => {
  if (typeof v !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return INVALID;
  return Number.isNaN(new Date(`${v}T00:00:00Z`).getTime()) ? INVALID : v;
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
  string: () => coerced(toString),
  int: () => coerced(toInt),
  bool: () => coerced(toBool),
  /** ISO 8601 datetime, as a Date. */
  datetime: () => coerced(toDateTime),
  /** `YYYY-MM-DD`, kept as that string. */
  date: () => coerced(toDate),
  /** Grape `values:`; anything else `does not have a valid value`. */
  oneOf: <const T extends string>(...values: T[]) =>
    coerced<T>((v) => {
      const s = toString(v);
      return s !== INVALID && (values as string[]).includes(s) ? (s as T) : INVALID;
    }, "does not have a valid value"),
  /** An integer restricted to `values`. */
  intOneOf: (...values: number[]) =>
    coerced<number>((v) => {
      const n = toInt(v);
      return n !== INVALID && values.includes(n) ? n : INVALID;
    }, "does not have a valid value"),
  /** `Array[String]`; `comma` also takes `a,b` (GitLab's comma-separated coercions). */
  strings: (opts: { comma?: boolean } = {}) => coerced(toArray(toString, !!opts.comma)),
  ints: (opts: { comma?: boolean } = {}) => coerced(toArray(toInt, !!opts.comma)),
  /** A Rack hash (`h[k]=v`) or a JSON object. */
  hash: () => coerced<Record<string, unknown>>((v) => (isHash(v) ? v : INVALID)),
  /** An array of hashes (`a[][k]=v` or a JSON array of objects), each checked by `shape`. */
  hashes: <S extends z.ZodRawShape>(shape: S) =>
    z.preprocess((v) => (isHash(v) ? Object.values(v) : v), z.array(z.object(shape), { error: "is invalid" })),
  /** A multipart file. */
  file: () => coerced<File>((v) => (v instanceof File ? v : INVALID)),
};

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

/** Reads, coerces and validates; failures are one 400 `{"error": "<a> is missing, <b> is invalid"}`. */
export async function readParams<S extends z.ZodType>(c: Ctx, schema: S, rules: ParamRule[] = []): Promise<z.output<S>> {
  const raw = await rawParams(c);
  return validateParams(raw, schema, rules);
}

export function validateParams<S extends z.ZodType>(raw: Raw, schema: S, rules: ParamRule[] = []): z.output<S> {
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
