import { env } from "cloudflare:test";
import { checkContract } from "./contract";

/**
 * The Worker under test: its deployable bundle, behind a service binding (test/vitest.config.ts).
 * Every request of the suite goes through its real `fetch` entry point.
 */
export const worker = (env as unknown as { EDGEFORGE: Fetcher }).EDGEFORGE;

export type RequestOptions = {
  query?: Record<string, string | number | boolean | (string | number)[]>;
  json?: unknown;
  form?: Record<string, string | number | boolean>;
  /** Raw urlencoded body, for Rack keys such as `actions[][action]=create`. */
  formBody?: string;
  multipart?: FormData;
  headers?: Record<string, string>;
};

export const BASE = "http://edgeforge.test";

/** Sends one request through the Worker's real entry point (`exports.default.fetch`). */
export async function request(method: string, path: string, token: string | null, opts: RequestOptions = {}) {
  const url = new URL(path.startsWith("http") ? path : `${BASE}/api/v4${path}`);
  for (const [key, value] of Object.entries(opts.query ?? {})) {
    if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, String(v));
    else url.searchParams.set(key, String(value));
  }
  const headers = new Headers(opts.headers);
  if (token) headers.set("PRIVATE-TOKEN", token);
  let body: BodyInit | undefined;
  if (opts.json !== undefined) {
    headers.set("Content-Type", "application/json");
    body = JSON.stringify(opts.json);
  } else if (opts.form) {
    headers.set("Content-Type", "application/x-www-form-urlencoded");
    body = new URLSearchParams(Object.entries(opts.form).map(([k, v]): [string, string] => [k, String(v)])).toString();
  } else if (opts.formBody !== undefined) {
    headers.set("Content-Type", "application/x-www-form-urlencoded");
    body = opts.formBody;
  } else if (opts.multipart) {
    body = opts.multipart;
  }
  const res = await worker.fetch(new Request(url, { method, headers, body }));
  // Every response a test receives is checked against the OpenAPI document (test/helpers/contract.ts).
  await checkContract(res, () => worker.fetch(new Request(`${BASE}/api/v4/openapi.json`)));
  return res;
}

export type Client = ReturnType<typeof client>;

export function client(token: string | null) {
  return {
    token,
    get: (path: string, opts?: RequestOptions) => request("GET", path, token, opts),
    post: (path: string, opts?: RequestOptions) => request("POST", path, token, opts),
    put: (path: string, opts?: RequestOptions) => request("PUT", path, token, opts),
    delete: (path: string, opts?: RequestOptions) => request("DELETE", path, token, opts),
    head: (path: string, opts?: RequestOptions) => request("HEAD", path, token, opts),
  };
}

/** `[status, body]`, for exact error assertions: `expect(await statusAndBody(res)).toEqual([404, {...}])`. */
export async function statusAndBody(res: Response): Promise<[number, unknown]> {
  const text = await res.text();
  return [res.status, text === "" ? "" : JSON.parse(text)];
}
