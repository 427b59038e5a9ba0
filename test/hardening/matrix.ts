// The machinery shared by the authorization matrices: one rule (`expected`) turns a row of a
// table into the status every role × visibility cell must answer, and `runMatrix` sends the cells.
import { env } from "cloudflare:test";
import { expect } from "vitest";
import { request, type Client, type RequestOptions } from "../helpers/client";
import { ROLES, VISIBILITIES, type Role, type Vis } from "./roles";

export const LEVEL: Record<Role, number> = { anonymous: 0, "non-member": 0, guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50, admin: 60 };
export type MemberRole = Exclude<Role, "anonymous" | "non-member" | "admin">;

export type Endpoint<F> = {
  name: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: (f: F, role: Role) => string;
  body?: (f: F, role: Role) => Record<string, unknown>;
  /** A multipart body instead of JSON (uploads). */
  multipart?: (f: F, role: Role) => FormData;
  /** The lowest member role allowed. */
  min: MemberRole;
  /** Whoever reads the project (or group) may do it too: `public_access` / `public_user_access`. */
  readers?: boolean;
  /** `before { authenticate! }`: anonymous reads are 401 even when public. */
  signedIn?: boolean;
  /** The resource itself is readable only from this member role on (or by readers): below it, 404. */
  readMin?: MemberRole;
  /**
   * What `readMin` hides answers instead of 404: lib/api/helpers.rb `find_merge_request_with_access`
   * finds the merge request in the (readable) project, then `authorize! :read_merge_request` is 403.
   */
  unreadable?: 403;
  /** The answer of a readable resource without the ability (default 403). */
  denied?: number;
  /**
   * `authenticated_as_admin!` before the project or group is looked up: anonymous 401, every other
   * non-admin 403 whatever they may read.
   */
  adminFirst?: boolean;
  /** Only administrators, once the project (group) is found: `authenticated_as_admin!` after a `before` lookup. */
  adminOnly?: boolean;
  /** Git's HTTP authentication (Basic, the token as password) instead of PRIVATE-TOKEN. */
  basic?: boolean;
  /** Git over HTTP: anonymous callers are asked for credentials (401) unless they may read a public project. */
  challenge?: boolean;
  /** Nobody may (for example a bots-only ability): every caller who reads the resource gets `denied`. */
  nobody?: boolean;
  ok: number;
};

export function readerByVisibility(role: Role, vis: Vis): boolean {
  return vis === "public" || (vis === "internal" && role !== "anonymous");
}

/** Who can see the project (group) at all: otherwise 404 (anonymous writes are 401 before any lookup). */
export function sees(role: Role, vis: Vis): boolean {
  return LEVEL[role] >= 10 || readerByVisibility(role, vis);
}

/** THE rule: the status a row answers for a role on a project (group) of a visibility. */
export function expected<F>(e: Endpoint<F>, role: Role, vis: Vis): number {
  if (e.challenge && role === "anonymous") return vis === "public" && e.readers ? e.ok : 401;
  if (role === "anonymous" && (e.method !== "GET" || e.signedIn || e.adminFirst)) return 401;
  if (e.adminFirst) return role === "admin" ? e.ok : 403;
  if (!sees(role, vis)) return 404;
  if (e.adminOnly) return role === "admin" ? e.ok : role === "anonymous" ? 401 : 403;
  if (e.readMin && role !== "admin" && LEVEL[role] < LEVEL[e.readMin] && !readerByVisibility(role, vis)) return e.unreadable ?? 404;
  if (e.nobody) return e.denied ?? 403;
  if (role === "admin" || LEVEL[role] >= LEVEL[e.min]) return e.ok;
  if (e.readers && readerByVisibility(role, vis)) return e.ok;
  return e.denied ?? 403;
}

async function send<F>(api: Client, e: Endpoint<F>, f: F, role: Role): Promise<number | string> {
  const path = e.path(f, role);
  const json = e.body?.(f, role);
  const opts: RequestOptions = e.multipart ? { multipart: e.multipart(f, role) } : json ? { json } : {};
  if (e.basic) {
    opts.headers = api.token ? { Authorization: `Basic ${btoa(`matrix:${api.token}`)}` } : {};
  }
  const call = (async () => {
    const res = await request(e.method, path, e.basic ? null : api.token, opts);
    await res.arrayBuffer();
    return res.status;
  })();
  // A cell that hangs is reported as such instead of stalling the whole matrix.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<string>((resolve) => (timer = setTimeout(() => resolve("no answer within 20 s"), 20_000)));
  try {
    return await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The full matrix (every endpoint × visibility × role) costs minutes of one core, too much for `npm test`'s
 * budget: by default each endpoint runs every role on one visibility, rotating public → internal →
 * private along the endpoint list, so every endpoint, every role and every visibility is covered.
 * `npm run matrix` (MATRIX_FULL=1) runs every cell.
 */
export const FULL = (env as unknown as { MATRIX_FULL?: string }).MATRIX_FULL === "1";
const visibilitiesOf = (index: number): readonly Vis[] => (FULL ? VISIBILITIES : [VISIBILITIES[index % VISIBILITIES.length]]);

/**
 * Runs the cells, one endpoint × one visibility × every role at a time, and compares at once. Rows run
 * in table order: a row may rely on an earlier one (unsubscribe after subscribe).
 */
export async function runMatrix<F>(endpoints: Endpoint<F>[], fixtures: Record<Vis, F>, clients: Record<Role, Client>) {
  const cells = endpoints.flatMap((e, index) => visibilitiesOf(index).flatMap((vis) => ROLES.map((role) => ({ e, vis, role }))));
  const actual: string[] = [];
  const wanted: string[] = [];
  const batch = ROLES.length;
  for (let i = 0; i < cells.length; i += batch) {
    await Promise.all(
      cells.slice(i, i + batch).map(async ({ e, vis, role }, j) => {
        const status = await send(clients[role], e, fixtures[vis], role);
        actual[i + j] = `${e.name} | ${vis} | ${role}: ${status}`;
        wanted[i + j] = `${e.name} | ${vis} | ${role}: ${expected(e, role, vis)}`;
      }),
    );
    // Disagreements as they come, so that a slow machine's timeout still tells which cells differ.
    for (let k = i; k < Math.min(i + batch, cells.length); k++) if (actual[k] !== wanted[k]) console.log(`cell differs: ${actual[k]} (expected ${wanted[k].split(": ").pop()})`);
  }
  expect(actual).toEqual(wanted);
}

/** The status of a fixture call, which must be `status`; its JSON body. */
export async function ok<T>(res: Response, status: number, what: string): Promise<T> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}
